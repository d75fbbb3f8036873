"""The reference side of the judge: the task's ``Model`` on its device, its inputs and outputs.

Everything here runs in the judge process (trusted; no candidate code): loading the task and
building ``Model`` under the weight seed, drawing each trial's inputs, computing the reference
outputs (the random generators reseeded before every forward, as the candidate process does, so
a forward that draws random numbers -- training-mode dropout -- draws the same ones on both
sides), and timing the eager and ``torch.compile`` baselines before the candidate process goes on (it only waits, idle, meanwhile).

A failure of a step here is the task's (:class:`TaskProblem`) unless it is out of memory, which is
the verifier's own (:class:`VerifierProblem`): neither is ever the candidate's fault.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from akg_rag.verify import figures as task_figures
from akg_rag.verify.ops import OpRecorder
from akg_rag.verify.options import VerifyOptions
from akg_rag.verify.tensors import (BufferState, content_print, draw_inputs, fingerprint, oom_where, reseed,
                                   tensors_of, tree_map)
from akg_rag.verify.timing import Measurement, measure


class TaskProblem(Exception):
    """The task itself failed: reported to the parent as a TaskError."""


class VerifierProblem(Exception):
    """A step of the verifier's own failed: reported to the parent as a VerifierError."""


class Reference:
    """The task's reference model in the judge, and what the judge learns about it.

    ``ops`` (the aten compute ops of one forward) and ``mutates`` (whether forward changes its
    inputs in place) are recorded on the first correctness trial; ``eager`` and ``compiled`` are the
    baselines timed before the candidate process went on.
    """

    def __init__(self, job: dict[str, Any], opts: VerifyOptions, notes: list[str]) -> None:
        self.job = job
        self.opts = opts
        self.notes = notes                       # shared with the judge: they end up in the verdict
        self.backend: str = job["backend"]
        self.ops: set[str] = set()
        self.mutates = False
        self.eager: Measurement | None = None
        self.compiled: Measurement | None = None
        self.compiled_model: Any = None
        self.compile_status = "disabled"
        self.flops: int | None = None
        self.min_bytes: int | None = None
        self.dtype = ""

    def open(self) -> None:
        """Pick the device, fix the precision and build ``Model`` (:meth:`analyse` comes later)."""
        self.device = self._device()
        # the reference in the precision its dtype states (no TF32); the same for the baselines
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        if self.opts.cpu_threads:
            torch.set_num_threads(self.opts.cpu_threads)
        try:
            self._load_task()
        except Exception as e:  # noqa: BLE001
            raise TaskProblem(f"{type(e).__name__}: {e}") from e

    def _device(self) -> torch.device:
        if self.backend != "cuda":
            return torch.device("cpu")
        if not torch.cuda.is_available():
            raise TaskProblem("no CUDA device in the verification judge")
        device = torch.device(self.opts.device or "cuda")
        if device.index is None:
            device = torch.device("cuda", torch.cuda.current_device())
        torch.cuda.set_device(device)
        return device

    def step(self, what: str, fn: Callable[[], Any]) -> Any:
        """Run one of the judge's own steps; out-of-memory there is the verifier's error."""
        try:
            return fn()
        except (TaskProblem, VerifierProblem):
            raise
        except Exception as e:  # noqa: BLE001
            where = oom_where(e)
            if where is not None:
                dev = f" ({self.device})" if where == "GPU" else ""
                raise VerifierProblem(f"out of memory on the {where}{dev} in the judge while {what}: "
                                      f"{str(e).splitlines()[0][:300]}") from e
            raise TaskProblem(f"reference failed ({what}): {type(e).__name__}: {e}") from e

    def given_figures(self) -> bool:
        """Whether the job brings the task's roofline figures (worked out by the verifying process)."""
        return task_figures.valid(self.job.get("analysis"))

    def analyse(self) -> None:
        """The task's FLOPs, least bytes moved and dtype for the roofline figures: the job's, else
        worked out here on meta tensors (the first call imports much of torch, so the judge runs it
        while the candidate sets up)."""
        if self.given_figures():
            a = self.job["analysis"]
            self.flops, self.min_bytes, self.dtype = a["flops"], a["min_bytes"], a["dtype"]
            return
        self.flops, self.min_bytes, self.dtype = self._analysis()

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

        self.task = load_task(self.job["task_path"], source=self.job["task_source"])
        torch.manual_seed(self.opts.seed)
        init_inputs = list(self.task.get_init_inputs())
        torch.manual_seed(self.opts.seed)
        self.model = self.task.model_cls(*init_inputs).to(self.device)
        self.state = BufferState(self.model)

    def inputs(self, seed: int) -> list[list[Any]]:
        """Every input list of the task drawn from ``seed`` on the reference's device."""
        return draw_inputs(self.task.input_sets, seed, self.device)

    def outputs(self, seed: int, record: bool = False, prints: list | None = None) -> list[Any]:
        """Reference outputs of every input set for ``seed`` (inputs freed afterwards); ``record``
        also records the compute ops and whether forward mutates its inputs; ``prints`` collects the
        content prints of the inputs."""
        outs = []
        with torch.no_grad():
            for inputs in self.inputs(seed):
                if prints is not None:
                    prints.extend(content_print(t) for t in tensors_of(inputs))
                before = [fingerprint(t) for t in tensors_of(inputs)] if record else []
                reseed(seed)     # as the candidate process does before its forward on these inputs
                self.state.restore()
                if record:
                    rec = OpRecorder()
                    with rec:
                        out = self.model(*inputs)
                    self.ops = rec.compute
                    self.mutates = [fingerprint(t) for t in tensors_of(inputs)] != before
                else:
                    out = self.model(*inputs)
                outs.append(tree_map(out, lambda x: x.detach()))
                del inputs
        self.free()
        return outs

    def free(self) -> None:
        """Wait for the device and give its cached memory back (the candidate shares the GPU)."""
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
            torch.cuda.empty_cache()

    def baselines(self) -> None:
        """Time eager and ``torch.compile`` alone, before the candidate process exists."""
        if not self.opts.timing:
            return
        inputs = self.inputs(self.opts.seed + 1)[0]
        kw = dict(warmup=self.opts.warmup, runs=self.opts.runs, budget_s=self.opts.timing_budget_s,
                  lock_path=self.opts.timing_lock)
        self.eager = measure(lambda: self.model(*inputs), self.device, **kw)
        if self.opts.compile_baseline:
            try:
                compiled = torch.compile(self.model)
                kw["warmup"] = max(1, kw["warmup"] if kw["warmup"] is not None else 2)
                self.compiled = measure(lambda: compiled(*inputs), self.device, **kw)
                self.compiled_model = compiled   # timed again, interleaved with the candidate
                self.compile_status = "ok"
            except Exception as e:  # noqa: BLE001 - no compiler, unsupported op: not our verdict
                first = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
                self.compile_status = f"unavailable: {type(e).__name__}: {first}"
        del inputs
        self.free()
