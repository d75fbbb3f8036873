"""The candidate process's side of a verification: run what the judge asks, hand over outputs.

Nothing here decides a verdict. The process draws its own inputs from the task's ``get_inputs``
with the seeds the judge sends (the reference class is removed from the task module first), runs
the candidate under the run-time guards, writes each output to a file for the judge, and reports
what its guards saw. The judge (:mod:`akg_rag.verify.judge`), in another process, compares and
decides; a report from here can only make a verdict worse for the candidate, never better.

Commands (``op``): ``run`` (seed, tag: correctness or fresh-input outputs), ``attribute`` (seed:
which launches did real work, and the outputs with every launch skipped), ``warm``, ``time_block``
(n runs; the judge interleaves these blocks with its own eager blocks and wall-clocks each one,
:mod:`akg_rag.verify.paired`), ``graph`` (capture for replay timing), ``profile``, ``finish``
(integrity report), ``exit``.
"""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path
from typing import Any, Callable

import torch

from akg_rag.verify.attribution import Ablate, Classify
from akg_rag.verify.channel import Channel, write_tensor
from akg_rag.verify.compare import as_tensor_list
from akg_rag.verify.feedback import compiler_excerpt, exception_excerpt
from akg_rag.verify.guards import dedupe, violation
from akg_rag.verify.hooks import GuardError, Hooks
from akg_rag.verify.ops import OpRecorder
from akg_rag.verify.options import VerifyOptions
from akg_rag.verify.tensors import (BufferState, draw_inputs, fingerprint, foreign_types, oom_where, refill,
                                    reseed, storage_ptrs, tensors_of, tree_map)
from akg_rag.verify.timing import Runs, capture_graph, graph_error_text, lone_run, storages

MAX_BLOCK_RUNS = 10_000     # runs per timed block (the judge's plans ask for 1000 at most)


class VerifierStepFailed(Exception):
    """A step of the verifier's own (drawing inputs, writing outputs) failed in this process."""


class CandidateSide:
    """Serves the judge's commands for one candidate; :meth:`serve` runs until ``exit``."""

    def __init__(self, job: dict[str, Any], chan: Channel, phase: Callable[[str], None]) -> None:
        self.job = job
        self.chan = chan
        self.phase = phase
        self.opts = VerifyOptions.from_dict(job["options"])
        self.dsl: str = job["dsl"]
        self.backend: str = job["backend"]
        self.candidate_file: str = job["candidate_path"]
        self.out_dir = Path(job["out_dir"])
        self.interpreted = self.dsl == "triton" and self.backend == "cpu"
        self.hooks: Hooks | None = None
        self.violations: list[dict[str, str]] = []
        self.rec = OpRecorder()
        self.prev_ptrs: tuple[int, ...] = ()
        self.prev_out: Any = None
        self.timing_inputs: Any = None
        self.timed: Runs | None = None          # the forward on the timing inputs, as a block timer
        self.graph_timed: Runs | None = None    # its CUDA graph's replays (short GPU calls)
        self.stage = "setup"

    # -- setup -------------------------------------------------------------------------------
    def _device(self) -> torch.device:
        if self.backend != "cuda":
            return torch.device("cpu")
        device = torch.device(self.opts.device or "cuda")
        if device.index is None:
            device = torch.device("cuda", torch.cuda.current_device())
        torch.cuda.set_device(device)
        return device

    def _task_inputs(self) -> None:
        """``input_sets`` and ``init_inputs`` of the task, with its reference class removed."""
        from akg_rag.task import load_task

        task = load_task(self.job["task_path"], source=self.job["task_source"])
        task.module.__dict__.pop("Model", None)
        sys.modules.pop(task.module.__name__, None)
        self.input_sets = task.input_sets
        torch.manual_seed(self.opts.seed)
        self.init_inputs = list(task.get_init_inputs())

    def setup(self) -> Any:
        """Everything before the first command: task inputs, guards, the candidate, ``ModelNew``."""
        if self.dsl == "triton":
            import triton  # noqa: F401 - imported before the hooks patch its launcher
        self.device = self._device()
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        if self.opts.cpu_threads:
            torch.set_num_threads(self.opts.cpu_threads)
        self._task_inputs()
        # torch._dynamo rebinds torch.manual_seed on import (dispatch modes import it lazily): bind it
        # now, so the integrity snapshot does not see a library's own patch as the candidate's
        importlib.import_module("torch._dynamo")

        self.phase("installing guards")
        self.hooks = Hooks(self.dsl, self.backend)
        self.hooks.install()
        self.stage = "candidate"
        self.phase("loading candidate")
        with open(self.candidate_file, encoding="utf-8") as f:
            code = compile(f.read(), self.candidate_file, "exec")
        module = types.ModuleType("akg_candidate")
        module.__file__ = self.candidate_file
        sys.modules["akg_candidate"] = module
        exec(code, module.__dict__)
        cls = getattr(module, "ModelNew", None)
        if not isinstance(cls, type):
            raise NoModelNew()
        self.phase("constructing ModelNew")
        torch.manual_seed(self.opts.seed)
        self.model = cls(*self.init_inputs).to(self.device)
        self.state = BufferState(self.model)
        return self.model

    # -- helpers -----------------------------------------------------------------------------
    def _inputs(self, seed: int) -> list[list[Any]]:
        try:
            return draw_inputs(self.input_sets, seed, self.device)
        except Exception as e:  # noqa: BLE001
            raise VerifierStepFailed(f"drawing the inputs for seed {seed}: {type(e).__name__}: {e}") from e

    def _flag(self, name: str, detail: str) -> None:
        if name not in {v["name"] for v in self.violations}:
            self.violations.append(violation(name, detail))

    def _plain(self, out: Any, where: str) -> None:
        """Flag outputs that are not plain tensors (checked by type alone: nothing of theirs runs)."""
        foreign = foreign_types(out)
        if foreign:
            self._flag("foreign_output", f"returned a {', '.join(foreign)}, not a plain torch.Tensor ({where})")

    def _sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def _guarded_call(self, inputs: list[Any], seed: int, where: str, ref_mutates: bool,
                      timer: Callable[..., tuple[float, Any]] | None = None) -> tuple[Any, float | None]:
        """One forward on ``inputs`` freshly drawn from ``seed`` (no copy needed: they are this call's
        alone), with the generators reseeded as the judge does for the reference, launch counting and
        input checks; returns (output, ms). With a ``timer`` (:func:`lone_run`) the call is made as
        a timed call is -- launch counters unhooked, no op recording -- and timed by it, so whatever
        a forward does when it is timed is what gets checked (no launch count then: the trials have it).
        The previous output stays alive until this call returns, so an equal storage pointer means
        the very same buffer came back, not a recycled block."""
        assert self.hooks is not None
        before = [fingerprint(t) for t in tensors_of(inputs)]
        launches, custom = self.hooks.launches, len(self.rec.custom)
        reseed(seed)
        self.state.restore()
        ms = None
        with torch.no_grad():
            if timer is None:
                with self.rec:
                    out = self.model(*inputs)
            else:
                with self.hooks.counters_paused():
                    ms, out = timer(lambda: self.model(*inputs), self.device)
        self._sync()
        self._plain(out, where)
        if (timer is None and self.hooks.launches == launches and len(self.rec.custom) == custom
                and self.dsl != "tilelang"):
            self._flag("no_kernel", f"forward ran without launching a {self.dsl} kernel ({where})")
        if not ref_mutates and [fingerprint(t) for t in tensors_of(inputs)] != before:
            self._flag("inputs_modified", f"an input was changed in place ({where})")
        ptrs = storages(out)
        if ptrs and ptrs == self.prev_ptrs and not set(ptrs) <= storage_ptrs(inputs):
            self._flag("cached_output", f"returned the same output buffer as the previous call ({where})")
        self.prev_ptrs, self.prev_out = ptrs, out
        return out, ms

    def _write(self, out: Any, tag: str, s: int) -> dict[str, Any]:
        """Hand one output to the judge as files (or say why it is not a tensor list)."""
        outs = as_tensor_list(out)
        if outs is None:
            return {"structure": type(out).__name__}
        try:
            return {"tensors": [write_tensor(t, self.out_dir / f"{tag}.{s}.{i}.bin") for i, t in enumerate(outs)]}
        except Exception as e:  # noqa: BLE001
            raise VerifierStepFailed(f"writing output {tag}.{s} for the judge: {type(e).__name__}: {e}") from e

    def _room_for(self, tree: Any) -> bool:
        """Whether ``tree``'s tensors could be drawn once more beside themselves (CUDA: free memory
        of at least twice their bytes; elsewhere the memory cap answers)."""
        if tree is None:
            return False
        if self.device.type != "cuda":
            return True
        need = sum(t.numel() * t.element_size() for t in tensors_of(tree))
        return torch.cuda.mem_get_info(self.device)[0] >= 2 * need

    def _free(self) -> None:
        """Give cached device memory back: the judge shares the device."""
        if self.device.type == "cuda":
            torch.cuda.empty_cache()

    # -- commands ----------------------------------------------------------------------------
    def cmd_run(self, msg: dict[str, Any]) -> dict[str, Any]:
        tag = str(msg["tag"])
        seed = int(msg["seed"])
        # timing is over once outputs are asked for again: free its outputs and graph, and its
        # inputs unless the first set's fresh values are to be written into them (where the
        # device has room for both sets while they are copied)
        self.timed = self.graph_timed = None
        held = self.timing_inputs if msg.get("in_place") and self._room_for(self.timing_inputs) else None
        self.timing_inputs = None
        self._free()
        all_inputs = self._inputs(seed)
        time_first = held is not None and bool(msg.get("time_first"))
        if time_first:
            # one call on values already seen, just before: the timed first call on the new values
            # then follows a call as a timed run does (caches, threads and clocks warm), not a pause
            with torch.no_grad(), self.hooks.counters_paused():
                self.model(*held)
            self._sync()
        if held is not None:
            all_inputs[0] = refill(held, all_inputs[0])
            # timed only where the new values went into the timing tensors themselves
            time_first = time_first and all_inputs[0] is held
            if time_first:
                self.timing_inputs = held   # the judge may ask for another first call in them
        del held
        sets, lone_ms = [], None
        for s in range(len(all_inputs)):
            self.phase(f"{tag}, input set {s}")
            inputs, all_inputs[s] = all_inputs[s], None
            # the first call on values never seen before, in the timed calls' own tensors, timed as
            # they were: no answer kept from earlier calls can serve it
            timer = lone_run if s == 0 and time_first else None
            out, ms = self._guarded_call(inputs, seed, msg.get("where", tag) + f", input set {s}",
                                         bool(msg.get("ref_mutates")), timer)
            if timer is not None:
                lone_ms = ms
            del inputs
            sets.append(self._write(out, tag, s))
            del out
        self._free()
        return {"op": "outputs", "tag": tag, "sets": sets, "first_call_ms": lone_ms}

    def cmd_attribute(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Classify every launch of one forward (inputs of ``seed``), then run one on fresh inputs
        (``ablate_seed``, so no memo can answer it) with every launch skipped and poisoned."""
        assert self.hooks is not None
        inputs = self._inputs(int(msg["seed"]))[0]
        classify = Classify()
        self.hooks.observer = classify
        try:
            reseed(int(msg["seed"]))
            self.state.restore()
            with torch.no_grad():
                self.model(*tree_map(inputs, torch.clone))
            self._sync()
            del inputs
            cin = self._inputs(int(msg["ablate_seed"]))[0]
            protected = storage_ptrs(cin) | storage_ptrs(list(self.model.parameters()) + list(self.model.buffers()))
            self.hooks.observer = Ablate(protected)
            reseed(int(msg["ablate_seed"]))   # the judge's reference for this output was seeded alike
            self.state.restore()
            try:
                with torch.no_grad():
                    out = self.model(*cin)
                self._sync()
                self._plain(out, "the forward with its launches skipped")
            except Exception as e:  # noqa: BLE001 - the forward needs its kernels: that is the point
                out = f"an exception with its kernels skipped ({type(e).__name__})"
        finally:
            self.hooks.observer = None
        written = self._write(out, "ablate", 0) if not isinstance(out, str) else {"structure": out}
        del out
        self._free()
        return {"op": "attribution", "launches": classify.launches, "trivial": classify.trivial,
                "examples": classify.examples[:3], "sets": [written]}

    def cmd_warm(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Draw the timing inputs (seed) and run the warm-up calls; the timed blocks follow."""
        self.phase("timing warm-up")
        self.timing_inputs = inputs = tree_map(self._inputs(int(msg["seed"]))[0], torch.clone)
        warmup = self.opts.warmup if self.opts.warmup is not None else (10 if self.device.type == "cuda" else 2)
        with torch.no_grad():
            for _ in range(1 if self.interpreted else warmup):
                self.model(*inputs)
        self._sync()
        self.timed = Runs(lambda: self.model(*inputs), self.device, storages(inputs), check_reuse=True)
        self.graph_timed = None
        return {"op": "warm"}

    def cmd_time_block(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Time ``n`` calls (or graph replays) for the judge, which wall-clocks this command and
        holds the timing lock around the interleaved blocks. Launch counters are unhooked while the
        calls run, so nothing of the verifier runs between the clock marks."""
        n = int(msg["n"])
        runs = self.graph_timed if msg.get("graph") else self.timed
        if runs is None or not 1 <= n <= MAX_BLOCK_RUNS:
            raise VerifierStepFailed(f"a timed block of {n} runs was asked for before warm-up or out of range")
        self.phase("timing")
        assert self.hooks is not None
        with torch.no_grad(), self.hooks.counters_paused():
            times = runs(n)
        if runs.reused:
            self._flag("cached_output", "returned the same output buffer on consecutive timed calls")
        if runs.foreign:
            self._flag("foreign_output", f"returned a {', '.join(runs.foreign)}, not a plain torch.Tensor "
                       "(timed calls)")
        return {"op": "block", "times_ms": times}

    def cmd_graph(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Capture one forward into a CUDA graph for replay timing (short calls on a GPU)."""
        inputs = self.timing_inputs
        if inputs is None or self.device.type != "cuda":
            return {"op": "graph", "error": "no timing inputs on a CUDA device"}
        assert self.hooks is not None
        try:
            with torch.no_grad(), self.hooks.counters_paused():
                graph = capture_graph(lambda: self.model(*inputs), self.device)
        except Exception as e:  # noqa: BLE001 - host syncs, allocations...: not capturable
            return {"op": "graph", "error": graph_error_text(e)}
        self.graph_timed = Runs(graph.replay, self.device)
        return {"op": "graph", "error": ""}

    def cmd_profile(self, msg: dict[str, Any]) -> dict[str, Any]:
        from akg_rag.verify.profiling import profile_calls

        rows = profile_calls(self.model, tree_map(self.timing_inputs, torch.clone), self.device)
        return {"op": "profile", "rows": rows}

    def report(self) -> dict[str, Any]:
        """Everything the guards saw, for the judge's verdict."""
        found = list(self.violations)
        hooks = self.hooks
        if hooks is not None:
            found = hooks.violations + found + hooks.check_integrity()
        return {"op": "report", "violations": dedupe(found), "compute_ops": sorted(self.rec.compute),
                "custom_ops": sorted(self.rec.custom), "builds": hooks.builds if hooks else [],
                "notes": hooks.notes if hooks else []}

    def serve(self) -> None:
        """Set up, then answer commands until ``exit`` (or a failure, reported before returning)."""
        try:
            self.setup()
            self.chan.send({"op": "ready"})
            while True:
                msg = self.chan.recv()
                op = msg["op"]
                if op == "exit":
                    return
                if op == "finish":
                    self.chan.send(self.report())
                    continue
                handler = getattr(self, f"cmd_{op}", None)
                if handler is None:
                    raise RuntimeError(f"unknown command {op!r}")
                self.chan.send(handler(msg))
        except BaseException as e:  # noqa: BLE001 - every failure goes to the judge as a report
            self.chan.send(self.failure(e))

    def failure(self, e: BaseException) -> dict[str, Any]:
        """Classify an exception into a failure report (status, feedback, what the guards saw)."""
        rep = self.report()
        if isinstance(e, SystemExit):
            rep["violations"].append(violation("early_exit", f"the candidate called sys.exit({e.code!r})"))
        rep["op"] = "failed"
        where = oom_where(e)
        if isinstance(e, VerifierStepFailed) or self.stage == "setup":
            # no candidate code had run (setup), or the verifier's own step failed: not the candidate's fault
            what = str(e) if isinstance(e, VerifierStepFailed) else f"setting up: {type(e).__name__}: {e}"
            cause = oom_where(e.__cause__ or e)
            rep["verifier_error"] = (f"out of memory on the {cause} in the candidate process while {what}" if cause
                                     else f"the candidate process failed while {what}")
            return rep
        if rep["violations"] or isinstance(e, GuardError):
            rep["status"] = "guard_violation"
            return rep
        hooks = self.hooks
        if hooks is not None and hooks.build_error is not None:
            rep.update(status="compile_error", feedback="the extension failed to build:\n"
                       + compiler_excerpt(hooks.build_error))
        elif isinstance(e, NoModelNew):
            rep.update(status="compile_error", feedback="the candidate defines no class ModelNew")
        elif isinstance(e, SyntaxError) or _is_triton_compile_error(e) or (
                isinstance(e, ImportError) and "undefined symbol" in str(e)):
            rep.update(status="compile_error", feedback=exception_excerpt(e, self.candidate_file))
        else:
            text = exception_excerpt(e, self.candidate_file)
            if where == "host":
                text = f"ran out of memory on the host (limit {self.job['memory_mb']} MB):\n{text}"
            elif where == "GPU":
                text = f"ran out of memory on the GPU ({self.device}) in the candidate's code:\n{text}"
            rep.update(status="runtime_error", feedback=text)
        return rep


class NoModelNew(Exception):
    """The candidate module defines no ``ModelNew`` class."""


def _is_triton_compile_error(e: BaseException) -> bool:
    return any(c.__module__.startswith("triton.compiler") or c.__name__ == "CompilationError"
               for c in type(e).__mro__)
