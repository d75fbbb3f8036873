"""The verification protocol as the child runs it, step by step.

1. Load the task; run the reference on every trial's inputs (seed + 1 + t) and keep its outputs.
2. Time the reference eagerly and under ``torch.compile`` -- still before any candidate code runs.
3. Install the run-time guards, import the candidate, build ``ModelNew`` under the same weight seed.
4. Correctness on every trial and input set, with launch counting, input checksums and output
   storage checks; then timing; then one more check on fresh, unpredictable inputs.
5. Integrity check of everything the candidate could have patched; assemble the verdict.
"""

from __future__ import annotations

import contextlib
import os
import platform
import types
from typing import Any, Callable

import torch

from akg_rag.verify.compare import compare_outputs, describe
from akg_rag.verify.feedback import compiler_excerpt, exception_excerpt
from akg_rag.verify.guards import GUARDS, dedupe, violation
from akg_rag.verify.hooks import GuardError, Hooks
from akg_rag.verify.ops import OpRecorder, coverage
from akg_rag.verify.options import VerifyOptions
from akg_rag.verify.roofline import roofline
from akg_rag.verify.profiling import profile_calls
from akg_rag.verify.timing import compare, measure, ratio_interval, storages


class TaskProblem(Exception):
    """The task itself (not the candidate) failed: reported to the parent as a TaskError."""


def _map(x: Any, fn: Callable[[torch.Tensor], Any]) -> Any:
    if isinstance(x, torch.Tensor):
        return fn(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_map(v, fn) for v in x)
    return x


def _tensors(x: Any) -> list[torch.Tensor]:
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _tensors(v)]
    return []


def _bits(t: torch.Tensor) -> torch.Tensor:
    """Bitwise image of a tensor (NaN-safe equality), on its own device."""
    return t.detach().contiguous().reshape(-1).view(torch.uint8).clone()


def _same_bits(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return all(torch.equal(_bits(x), y) for x, y in zip(a, b))


class Protocol:
    """One verification inside the child; :meth:`run` returns the verdict dict."""

    def __init__(self, job: dict[str, Any], phase: Callable[[str], None]) -> None:
        self.job = job
        self.phase = phase
        self.opts = VerifyOptions.from_dict(job["options"])
        self.dsl: str = job["dsl"]
        self.backend: str = job["backend"]
        self.candidate_file: str = job["candidate_path"]
        self.interpreted = self.dsl == "triton" and self.backend == "cpu"
        self.hooks: Hooks | None = None
        self.stage = "task"
        self.violations: list[dict[str, str]] = []
        self.notes: list[str] = []

    # -- setup -------------------------------------------------------------------------------
    def _device(self) -> torch.device:
        if self.backend != "cuda":
            return torch.device("cpu")
        if not torch.cuda.is_available():
            raise TaskProblem("no CUDA device in the verification child")
        device = torch.device(self.opts.device or "cuda")
        if device.index is None:  # set_device and the timers want an explicit index
            device = torch.device("cuda", torch.cuda.current_device())
        torch.cuda.set_device(device)
        return device

    def _sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def _analysis(self) -> tuple[int | None, int | None, str]:
        try:
            from akg_rag.analysis import analyze_task

            a = analyze_task(self.job["task_path"], source=self.job["task_source"])
            return int(a.flops), int(a.min_bytes), str(a.dtype)
        except Exception as e:  # noqa: BLE001 - roofline figures are optional
            self.notes.append(f"no roofline figures: {type(e).__name__}: {str(e)[:200]}")
            return None, None, ""

    def _load_task(self) -> None:
        from akg_rag.task import load_task

        try:
            self.task = load_task(self.job["task_path"], source=self.job["task_source"])
            torch.manual_seed(self.opts.seed)
            self.init_inputs = list(self.task.get_init_inputs())
            torch.manual_seed(self.opts.seed)
            self.ref_model = self.task.model_cls(*self.init_inputs).to(self.device)
        except Exception as e:  # noqa: BLE001
            raise TaskProblem(f"{type(e).__name__}: {e}") from e

    def _inputs(self, seed: int) -> list[list[Any]]:
        torch.manual_seed(seed)
        return [_map(s, lambda t: t.to(self.device)) for s in self.task.input_sets()]

    def _reference(self) -> None:
        """Reference outputs of every trial and input set, and the reference's compute ops."""
        self.data: list[list[tuple[list[Any], Any]]] = []
        self.ref_mutates = False
        rec = OpRecorder()
        try:
            with torch.no_grad():
                for t in range(self.opts.trials):
                    row = []
                    for inputs in self._inputs(self.opts.seed + 1 + t):
                        ref_in = _map(inputs, torch.clone)
                        if t == 0:
                            with rec:
                                out = self.ref_model(*ref_in)
                        else:
                            out = self.ref_model(*ref_in)
                        self.ref_mutates |= not _same_bits(_tensors(ref_in), [_bits(x) for x in _tensors(inputs)])
                        row.append((inputs, _map(out, lambda x: x.detach())))
                    self.data.append(row)
            self._sync()
        except Exception as e:  # noqa: BLE001
            raise TaskProblem(f"reference failed: {type(e).__name__}: {e}") from e
        self.ref_ops = rec.compute

    def _baselines(self) -> None:
        self.eager = self.compiled = None
        self.compile_status = "disabled"
        if not self.opts.timing:
            return
        inputs = self.data[0][0][0]
        kw = dict(warmup=self.opts.warmup, runs=self.opts.runs, budget_s=self.opts.timing_budget_s,
                  lock_path=self.opts.timing_lock)
        self.eager = measure(lambda: self.ref_model(*inputs), self.device, **kw)
        if self.opts.compile_baseline:
            try:
                compiled = torch.compile(self.ref_model)
                kw["warmup"] = max(1, kw["warmup"] if kw["warmup"] is not None else 2)
                self.compiled = measure(lambda: compiled(*inputs), self.device, **kw)
                self.compile_status = "ok"
            except Exception as e:  # noqa: BLE001 - no compiler, unsupported op, ...: not our verdict
                self.compile_status = f"unavailable: {type(e).__name__}: {str(e).strip().splitlines()[0][:200] if str(e).strip() else ''}"

    # -- candidate ---------------------------------------------------------------------------
    def _load_candidate(self) -> Any:
        self.phase("loading candidate")
        path = self.candidate_file
        with open(path, encoding="utf-8") as f:
            source = f.read()
        code = compile(source, path, "exec")
        module = types.ModuleType("akg_candidate")
        module.__file__ = path
        import sys

        sys.modules["akg_candidate"] = module
        exec(code, module.__dict__)
        cls = getattr(module, "ModelNew", None)
        if not isinstance(cls, type):
            raise _NoModelNew()
        self.phase("constructing ModelNew")
        torch.manual_seed(self.opts.seed)
        return cls(*self.init_inputs).to(self.device)

    def _call(self, model: Any, inputs: list[Any]) -> Any:
        with torch.no_grad():
            out = model(*inputs)
        self._sync()
        return out

    def _flag(self, name: str, detail: str) -> None:
        """Record a per-call violation once (the first call that shows it is the useful one)."""
        if name not in {v["name"] for v in self.violations}:
            self.violations.append(violation(name, detail))

    def _check_call(self, model: Any, inputs: list[Any], where: str, rec: OpRecorder,
                    prev_ptrs: tuple[int, ...]) -> tuple[Any, tuple[int, ...]]:
        """One guarded candidate call on a copy of ``inputs``; returns (output, its storages)."""
        assert self.hooks is not None
        cin = _map(inputs, torch.clone)
        before = [_bits(x) for x in _tensors(cin)]
        launches = self.hooks.launches
        custom = len(rec.custom)
        with rec:
            out = self._call(model, cin)
        if self.hooks.launches == launches and len(rec.custom) == custom and self.dsl != "tilelang":
            self._flag("no_kernel", f"forward ran without launching a {self.dsl} kernel ({where})")
        if not self.ref_mutates and not _same_bits(_tensors(cin), before):
            self._flag("inputs_modified", f"an input was changed in place ({where})")
        in_ptrs = set(storages(cin))
        ptrs = storages(out)
        if ptrs and ptrs == prev_ptrs and not set(ptrs) <= in_ptrs:
            self._flag("cached_output", f"returned the same output buffer as the previous call ({where})")
        return out, ptrs

    def _correctness(self, model: Any) -> dict[str, Any] | None:
        self.rec = OpRecorder()
        prev_out, prev_ptrs = None, ()
        for t, row in enumerate(self.data):
            for s, (inputs, expected) in enumerate(row):
                self.phase(f"correctness trial {t}, input set {s}")
                where = f"trial {t}, input set {s}"
                out, ptrs = self._check_call(model, inputs, where, self.rec, prev_ptrs)
                m = compare_outputs(expected, out, self.opts.atol, self.opts.rtol)
                if m is not None:
                    m.update(trial=t, input_set=s)
                    return m
                prev_out, prev_ptrs = out, ptrs
        del prev_out
        return None

    def _timing(self, model: Any) -> None:
        self.cand = self.comparison = None
        if not self.opts.timing:
            return
        self.phase("timing")
        inputs = _map(self.data[0][0][0], torch.clone)
        runs, warmup = self.opts.runs, self.opts.warmup
        if self.interpreted:  # the interpreter is for correctness: a few runs are plenty
            self.cand = measure(lambda: model(*inputs), self.device, warmup=0, runs=min(runs or 3, 3),
                                budget_s=self.opts.timing_budget_s, input_ptrs=storages(inputs),
                                lock_path=self.opts.timing_lock)
        else:
            # Eager and candidate interleaved in one timed loop (see timing.compare); the eager
            # figure from before the candidate loaded stays on record as eager_isolated_ms.
            ref_inputs = self.data[0][0][0]
            paused = self.hooks.counters_paused() if self.hooks is not None else contextlib.nullcontext()
            with paused:
                self.comparison = compare(lambda: self.ref_model(*ref_inputs), lambda: model(*inputs),
                                          self.device, warmup=warmup, runs=runs,
                                          budget_s=2 * self.opts.timing_budget_s,
                                          input_ptrs=storages(inputs), lock_path=self.opts.timing_lock)
            self.eager_isolated, self.eager = self.eager, self.comparison.baseline
            self.cand = self.comparison.candidate
        if self.cand.reused_output:
            self.violations.append(violation(
                "cached_output", "returned the same output buffer on consecutive timed calls"))

    def _fresh_check(self, model: Any) -> None:
        """Correct on inputs nobody could predict, after timing (catches precomputed answers)."""
        self.phase("fresh-input check")
        for s, inputs in enumerate(self._inputs(int.from_bytes(os.urandom(6), "little"))):
            expected = self._call(self.ref_model, _map(inputs, torch.clone))
            out = self._call(model, _map(inputs, torch.clone))
            m = compare_outputs(expected, out, self.opts.atol, self.opts.rtol)
            if m is not None:
                m["input_set"] = s
                self.violations.append(violation(
                    "cached_output", "correct on the checked trials but wrong on fresh inputs after "
                    f"timing: {describe(m)}"))
                return

    # -- the whole run -----------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        """Run every step and return the verdict dict (exceptions go to verdict_from_exception)."""
        self.phase("loading task")
        if self.dsl == "triton":
            import triton  # noqa: F401 - imported before the hooks patch its launcher
        self.device = self._device()
        # The reference is computed in the precision its dtype states: cuDNN's default TF32
        # convolutions (and TF32 matmuls, if enabled) would judge an exact fp32 kernel wrong by
        # ~1e-3. The same settings hold for the eager and torch.compile baselines.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        if self.opts.cpu_threads:
            torch.set_num_threads(self.opts.cpu_threads)
        self.flops, self.min_bytes, self.dtype = self._analysis()
        self._load_task()
        self.phase("running reference")
        self._reference()
        self.phase("timing baselines")
        try:
            self._baselines()
        except Exception as e:  # noqa: BLE001
            raise TaskProblem(f"timing the reference failed: {type(e).__name__}: {e}") from e
        self.phase("installing guards")
        self.hooks = Hooks(self.dsl, self.backend)
        self.hooks.install()
        self.stage = "candidate"
        model = self._load_candidate()
        mismatch = self._correctness(model)
        if mismatch is None and not self.violations:
            self._timing(model)
            self.kernel_profile = profile_calls(model, _map(self.data[0][0][0], torch.clone), self.device) \
                if self.opts.profile and self.opts.timing and not self.interpreted else []
            self._fresh_check(model)
        else:
            self.cand = None
        return self._verdict(mismatch)

    def _all_violations(self) -> list[dict[str, str]]:
        found = list(self.violations)
        if self.hooks is not None:
            found = self.hooks.violations + found + self.hooks.check_integrity()
        return dedupe(found)

    def _verdict(self, mismatch: dict[str, Any] | None) -> dict[str, Any]:
        everything, partial_ops = coverage(self.ref_ops, self.rec.compute)
        if everything:
            self.violations.append(violation(
                "torch_fallback", f"torch ops {', '.join(sorted(self.ref_ops))} computed everything the "
                "reference computes; the kernel must do the work"))
        found = self._all_violations()
        timings = self._timings() if mismatch is None else None
        if found:
            status = "guard_violation"
            feedback = _violation_text(found)
        elif mismatch is not None:
            status, feedback = "incorrect", describe(mismatch)
        else:
            status = "correct"
            n_sets = len(self.data[0])
            feedback = f"correct on {self.opts.trials} trials x {n_sets} input set(s)"
        if partial_ops:
            feedback += f"\npartial replacement: torch still computes {', '.join(partial_ops)}"
        review = bool(timings and timings["meaningful"] and timings["speedup_eager"]
                      and timings["speedup_eager"] > self.opts.review_speedup and status == "correct")
        if review:
            feedback += f"\nspeedup above {self.opts.review_speedup:g}x: flagged for review"
        return self._base(status, feedback, violations=found, mismatch=mismatch, timings=timings,
                          review=review, partial=bool(partial_ops), partial_ops=partial_ops,
                          profile=getattr(self, "kernel_profile", []) if timings else [])

    def _base(self, status: str, feedback: str, **extra: Any) -> dict[str, Any]:
        hooks = self.hooks
        verdict = {"status": status, "feedback": feedback,
                   "guard_violations": extra.pop("violations", []),
                   "builds": hooks.builds if hooks else [],
                   "notes": self.notes + (hooks.notes if hooks else [])}
        verdict.update(extra)
        return verdict

    def _timings(self) -> dict[str, Any] | None:
        if self.eager is None and getattr(self, "cand", None) is None:
            return None
        cand_ms = self.cand.median_ms if self.cand else None
        eager_ms = self.eager.median_ms if self.eager else None
        comp_ms = self.compiled.median_ms if self.compiled else None
        if self.device.type == "cuda":
            device = torch.cuda.get_device_name(self.device)
        else:
            device = f"cpu ({platform.machine()}, {torch.get_num_threads()} threads)"
        gbps = tflops = frac = None
        if cand_ms and not self.interpreted:
            gbps, tflops, frac = roofline(cand_ms / 1e3, self.flops, self.min_bytes, self.dtype, device)
        baseline = f"torch {torch.__version__} eager" + ("; torch.compile (inductor)" if comp_ms else "")
        out = {
            "candidate_ms": cand_ms, "eager_ms": eager_ms, "compile_ms": comp_ms,
            "speedup_eager": eager_ms / cand_ms if cand_ms and eager_ms else None,
            "speedup_compile": comp_ms / cand_ms if cand_ms and comp_ms else None,
            "meaningful": not self.interpreted, "achieved_gbps": gbps, "achieved_tflops": tflops,
            "roofline_fraction": frac, "device": device, "baseline": baseline,
            "compile_status": self.compile_status,
            "runs": self.cand.runs if self.cand else 0, "warmup": self.cand.warmup if self.cand else 0,
            "method": self.cand.method if self.cand else "",
            "candidate_iqr_ms": self.cand.spread_ms if self.cand else None,
            "eager_iqr_ms": self.eager.spread_ms if self.eager else None,
        }
        out.update(_comparison_fields(getattr(self, "comparison", None), self.compiled, self.cand,
                                      getattr(self, "eager_isolated", None)))
        return out

    def verdict_from_exception(self, e: BaseException) -> dict[str, Any]:
        """Classify an exception that ended the run into a status with feedback."""
        if isinstance(e, TaskProblem) or self.stage == "task":
            return {"task_error": str(e) if isinstance(e, TaskProblem) else f"{type(e).__name__}: {e}"}
        if isinstance(e, SystemExit):
            self.violations.append(violation("early_exit", f"the candidate called sys.exit({e.code!r})"))
        found = self._all_violations()
        hooks = self.hooks
        if found or isinstance(e, GuardError):
            return self._base("guard_violation", _violation_text(found), violations=found)
        if hooks is not None and hooks.build_error is not None:
            return self._base("compile_error", "the extension failed to build:\n" + compiler_excerpt(hooks.build_error))
        if isinstance(e, _NoModelNew):
            return self._base("compile_error", "the candidate defines no class ModelNew")
        if isinstance(e, SyntaxError) or _is_triton_compile_error(e) or (
                isinstance(e, ImportError) and "undefined symbol" in str(e)):
            return self._base("compile_error", exception_excerpt(e, self.candidate_file))
        text = exception_excerpt(e, self.candidate_file)
        if isinstance(e, MemoryError) or "can't allocate memory" in str(e) or "out of memory" in str(e).lower():
            text = f"ran out of memory (limit {self.job['memory_mb']} MB):\n{text}"
        return self._base("runtime_error", text)


class _NoModelNew(Exception):
    """The candidate module defines no ``ModelNew`` class."""


def _is_triton_compile_error(e: BaseException) -> bool:
    return any(c.__module__.startswith("triton.compiler") or c.__name__ == "CompilationError"
               for c in type(e).__mro__)


def _comparison_fields(cmp: Any, compiled: Any, cand: Any, isolated: Any) -> dict[str, Any]:
    """Timings fields of an interleaved comparison: speedup intervals, verdicts, graph replays."""
    if cmp is None:
        return {}
    sp = cmp.speedup
    out: dict[str, Any] = {
        "speedup_eager": sp.estimate, "speedup_eager_low": sp.low, "speedup_eager_high": sp.high,
        "confidence": sp.confidence, "blocks": sp.blocks, "verdict_eager": sp.verdict,
        "eager_isolated_ms": isolated.median_ms if isolated is not None else None,
    }
    comp = ratio_interval(compiled, cand) if compiled is not None and cand is not None else None
    if comp is not None:
        out.update(speedup_compile_low=comp.low, speedup_compile_high=comp.high, verdict_compile=comp.verdict)
    if cmp.graph is not None:
        g = cmp.graph
        out.update(graph_candidate_ms=g.candidate.median_ms, graph_eager_ms=g.baseline.median_ms,
                   graph_speedup_eager=g.speedup.estimate, graph_speedup_eager_low=g.speedup.low,
                   graph_speedup_eager_high=g.speedup.high, graph_method="cuda_graph")
    out["graph_error"] = cmp.graph_error
    return out


def _violation_text(found: list[dict[str, str]]) -> str:
    lines = ["guard violations (the protocol forbids these; see the guard's meaning):"]
    for v in found:
        lines.append(f"- {v['name']}: {v['detail']}  [{GUARDS.get(v['name'], '')}]")
    return "\n".join(lines)
