"""The judge: the trusted process that runs the reference, compares outputs and decides the verdict.

It never imports candidate code. Steps:

1. Load the task and build ``Model`` under the weight seed; record the reference's compute ops.
2. Time the eager and ``torch.compile`` baselines, then tell the parent to start the candidate
   process (so nothing of the candidate runs while the baselines are timed).
3. For each trial ``t`` (seed ``seed + 1 + t``): draw the inputs, run the reference, free the inputs;
   ask the candidate process for its outputs on the same seed and compare them, chunk by chunk on
   the device, with the files it wrote. One trial's reference outputs live at a time.
4. Attribution (does the kernel do the work?); timing: eager blocks timed here interleaved with the
   candidate's blocks, each of those wall-clocked (:mod:`akg_rag.verify.paired`); the fresh-input
   check; the candidate's guard report.
5. The verdict, sealed with the key from the parent (:mod:`akg_rag.verify.seal`).

A failure of the judge's own steps (say, out of GPU memory while computing the reference) is a
``verifier_error``, which the parent raises as :class:`akg_rag.errors.VerifierError`: never the
candidate's ``runtime_error``.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any, Callable

import torch

from akg_rag.verify.channel import Channel, ChannelClosed, ProtocolError, TensorFile, parse_dtype
from akg_rag.verify.compare import as_tensor_list, check_meta, compare_chunks, describe
from akg_rag.verify.guards import GUARDS, dedupe, violation
from akg_rag.verify.ops import OpRecorder, coverage
from akg_rag.verify.options import VerifyOptions
from akg_rag.verify.roofline import peak_for, roofline
from akg_rag.verify.tensors import draw_inputs, fingerprint, oom_where, tensors_of, tree_map
from akg_rag.verify.timing import measure
from akg_rag.verify import paired, wallclock


class TaskProblem(Exception):
    """The task itself failed: reported to the parent as a TaskError."""


class VerifierProblem(Exception):
    """A step of the verifier's own failed: reported to the parent as a VerifierError."""


class CandidateGone(Exception):
    """The candidate process closed the channel (exited, crashed or was killed)."""


class Judge:
    """One verification's trusted side; :meth:`run` returns the verdict dict."""

    def __init__(self, job: dict[str, Any], phase: Callable[[str], None], start_candidate: Callable[[], None],
                 chan: Channel) -> None:
        self.job = job
        self._phase = phase
        self._phase_text = "starting"
        self.start_candidate = start_candidate
        self.chan = chan
        self.opts = VerifyOptions.from_dict(job["options"])
        self.dsl: str = job["dsl"]
        self.backend: str = job["backend"]
        self.out_dir = Path(job["out_dir"])
        self.interpreted = self.dsl == "triton" and self.backend == "cpu"
        self.violations: list[dict[str, str]] = []
        self.notes: list[str] = []
        self.report: dict[str, Any] = {}
        self.eager = self.compiled = self.cand = self.eager_isolated = None
        self.paired: paired.Paired | None = None
        self.compile_status = "disabled"
        self.n_sets = 0

    def phase(self, text: str) -> None:
        self._phase_text = text
        self._phase(text)

    # -- the reference side ------------------------------------------------------------------
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

    def _step(self, what: str, fn: Callable[[], Any]) -> Any:
        """Run one of the judge's own steps; out-of-memory there is the verifier's error."""
        try:
            return fn()
        except (TaskProblem, VerifierProblem, CandidateGone):
            raise
        except Exception as e:  # noqa: BLE001
            where = oom_where(e)
            if where is not None:
                dev = f" ({self.device})" if where == "GPU" else ""
                raise VerifierProblem(f"out of memory on the {where}{dev} in the judge while {what}: "
                                      f"{str(e).splitlines()[0][:300]}") from e
            raise TaskProblem(f"reference failed ({what}): {type(e).__name__}: {e}") from e

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
        self.ref_model = self.task.model_cls(*init_inputs).to(self.device)

    def _inputs(self, seed: int) -> list[list[Any]]:
        return draw_inputs(self.task.input_sets, seed, self.device)

    def _reference(self, seed: int, record: bool = False) -> list[Any]:
        """Reference outputs of every input set for ``seed`` (inputs freed afterwards)."""
        outs = []
        with torch.no_grad():
            for inputs in self._inputs(seed):
                before = [fingerprint(t) for t in tensors_of(inputs)] if record else []
                if record:
                    rec = OpRecorder()
                    with rec:
                        out = self.ref_model(*inputs)
                    self.ref_ops = rec.compute
                    self.ref_mutates = [fingerprint(t) for t in tensors_of(inputs)] != before
                else:
                    out = self.ref_model(*inputs)
                outs.append(tree_map(out, lambda x: x.detach()))
                del inputs
        self._free()
        return outs

    def _free(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
            torch.cuda.empty_cache()

    def _baselines(self) -> None:
        if not self.opts.timing:
            return
        inputs = self._inputs(self.opts.seed + 1)[0]
        kw = dict(warmup=self.opts.warmup, runs=self.opts.runs, budget_s=self.opts.timing_budget_s,
                  lock_path=self.opts.timing_lock)
        self.eager = measure(lambda: self.ref_model(*inputs), self.device, **kw)
        if self.opts.compile_baseline:
            try:
                compiled = torch.compile(self.ref_model)
                kw["warmup"] = max(1, kw["warmup"] if kw["warmup"] is not None else 2)
                self.compiled = measure(lambda: compiled(*inputs), self.device, **kw)
                self.compile_status = "ok"
            except Exception as e:  # noqa: BLE001 - no compiler, unsupported op: not our verdict
                first = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
                self.compile_status = f"unavailable: {type(e).__name__}: {first}"
        del inputs
        self._free()

    # -- talking to the candidate ------------------------------------------------------------
    def _ask(self, msg: dict[str, Any], expect: str) -> dict[str, Any]:
        """Send a command, return the answer; a failure report ends the run (raised as _Failed)."""
        try:
            self.chan.send(msg)
            answer = self.chan.recv()
        except ChannelClosed as e:
            raise CandidateGone(str(e)) from None
        if answer["op"] == "failed":
            raise _Failed(answer)
        if answer["op"] != expect:
            raise ProtocolError(f"expected {expect!r}, got {answer['op']!r}")
        return answer

    def _compare(self, expected: Any, answer: dict[str, Any], s: int) -> dict[str, Any] | None:
        """Compare the reference output of input set ``s`` with the candidate's files."""
        exp = as_tensor_list(expected)
        if exp is None:
            raise TaskProblem(f"the reference returned {type(expected).__name__}, not tensors")
        sets = answer.get("sets")
        got = sets[s] if isinstance(sets, list) and s < len(sets) and isinstance(sets[s], dict) else {}
        if "structure" in got or not isinstance(got.get("tensors"), list):
            what = got.get("structure", "nothing")
            return {"reason": "structure", "detail": f"candidate returned {what}, expected "
                    f"{'a tensor' if len(exp) == 1 else f'{len(exp)} tensors'}"}
        act = got["tensors"]
        if len(act) != len(exp):
            return {"reason": "structure", "detail": f"candidate returned {len(act)} tensors, expected {len(exp)}"}
        for i, (e, desc) in enumerate(zip(exp, act)):
            m = self._compare_one(e, desc if isinstance(desc, dict) else {})
            if m is not None:
                m["output"] = i
                return m
        return None

    def _compare_one(self, e: torch.Tensor, desc: dict[str, Any]) -> dict[str, Any] | None:
        dtype = parse_dtype(desc.get("dtype"))
        shape = desc.get("shape")
        if dtype is None or not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
            raise ProtocolError(f"bad output description {str(desc)[:200]}")
        meta = check_meta(e, tuple(shape), dtype)
        if meta is not None:
            return meta
        f = TensorFile(self.out_dir, desc.get("file"), dtype, e.numel())
        try:
            return self._step("comparing outputs", lambda: compare_chunks(
                e, f.read, self.opts.atol, self.opts.rtol))
        finally:
            f.close()
            _unlink(self.out_dir / str(desc.get("file")))

    def _correctness(self) -> dict[str, Any] | None:
        for t in range(self.opts.trials):
            seed = self.opts.seed + 1 + t
            self.phase(f"reference, trial {t}")
            expected = self._step(f"computing the reference of trial {t}", lambda: self._reference(seed, t == 0))
            self.phase(f"waiting for the candidate: correctness trial {t}")
            answer = self._ask({"op": "run", "seed": seed, "tag": f"t{t}", "where": f"trial {t}",
                                "ref_mutates": self.ref_mutates}, "outputs")
            self.n_sets = len(expected)
            for s, exp in enumerate(expected):
                m = self._compare(exp, answer, s)
                if m is not None:
                    m.update(trial=t, input_set=s)
                    return m
            del expected
            self._free()
        return None

    def _attribution(self) -> None:
        """Guards ``no_work`` and ``torch_fallback`` from the candidate's launch observers."""
        self.phase("attribution")
        seed = int.from_bytes(os.urandom(6), "little")
        expected = self._step("computing the reference for attribution", lambda: self._reference(seed)[:1])
        answer = self._ask({"op": "attribute", "seed": self.opts.seed + 1, "ablate_seed": seed}, "attribution")
        launches, trivial = int(answer.get("launches") or 0), int(answer.get("trivial") or 0)
        if self.ref_ops and launches and trivial >= launches:
            # decided in _verdict, once the candidate's torch compute ops are known: copy-only
            # launches with no torch compute beside them are the whole forward, and a function
            # can be an identity on the task's inputs (relu of torch.rand data copies it bitwise)
            examples = "; ".join(str(x)[:120] for x in (answer.get("examples") or [])[:3])
            self.no_work = (f"all {launches} kernel launch(es) of a forward only copy, fill or leave data "
                            f"unchanged ({examples}); torch computes the result")
        if launches and self._compare(expected[0], answer, 0) is None:
            self.violations.append(violation(
                "torch_fallback", "the output still matches the reference with every kernel launch skipped "
                "and its results poisoned: torch computes the result, not the kernel"))
        del expected
        self._free()

    def _timing(self) -> None:
        """Eager (here) and the candidate (over the channel) interleaved under the timing lock; the
        candidate's claims checked against the judge's clock (:mod:`akg_rag.verify.paired`)."""
        if not self.opts.timing:
            return
        self.phase("waiting for the candidate: timing warm-up")
        self._ask({"op": "warm", "seed": self.opts.seed + 1}, "warm")
        self.phase("timing: eager and the candidate interleaved")
        inputs = self._inputs(self.opts.seed + 1)[0]
        eager = None if self.interpreted or self.eager is None else (lambda: self.ref_model(*inputs))
        self.paired = paired.time_pair(eager, self._ask, self.device, warmup=self.opts.warmup,
                                       runs=self.opts.runs, budget_s=2 * self.opts.timing_budget_s,
                                       lock_path=self.opts.timing_lock, interpreted=self.interpreted)
        del inputs, eager
        self._free()
        self.cand = self.paired.candidate
        if self.paired.comparison is not None:
            # the eager figure from before the candidate started stays on record as eager_isolated_ms
            self.eager_isolated, self.eager = self.eager, self.paired.comparison.baseline
        if self.paired.mismatch:
            self.violations.append(violation("timing_mismatch", self.paired.mismatch))
        if self.opts.profile and not self.interpreted:
            self.kernel_profile = list(self._ask({"op": "profile"}, "profile").get("rows") or [])[:50]

    def _fresh_check(self) -> None:
        self.phase("fresh-input check")
        seed = int.from_bytes(os.urandom(6), "little")
        expected = self._step("computing the reference on fresh inputs", lambda: self._reference(seed))
        answer = self._ask({"op": "run", "seed": seed, "tag": "fresh", "where": "fresh inputs",
                            "ref_mutates": self.ref_mutates}, "outputs")
        for s, exp in enumerate(expected):
            m = self._compare(exp, answer, s)
            if m is not None:
                m["input_set"] = s
                self.violations.append(violation(
                    "cached_output", "correct on the checked trials but wrong on fresh inputs after "
                    f"timing: {describe(m)}"))
                return

    # -- the whole run -----------------------------------------------------------------------
    def prepare(self) -> None:
        """Steps 1-2: everything before the candidate process may start."""
        self.phase("loading task")
        self.device = self._device()
        # the reference in the precision its dtype states (no TF32); the same for the baselines
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        if self.opts.cpu_threads:
            torch.set_num_threads(self.opts.cpu_threads)
        self.flops, self.min_bytes, self.dtype = self._analysis()
        try:
            self._load_task()
        except Exception as e:  # noqa: BLE001
            raise TaskProblem(f"{type(e).__name__}: {e}") from e
        self.ref_ops: set[str] = set()
        self.ref_mutates = False
        self.no_work: str | None = None   # the trivial-launch finding of _attribution, if any
        self.phase("timing baselines")
        self._step("timing the reference", self._baselines)

    def run(self) -> dict[str, Any]:
        """Steps 3-5; returns the verdict dict."""
        self.prepare()
        self.phase("starting the candidate process")
        self.start_candidate()
        mismatch = None
        try:
            self.phase("waiting for the candidate: setup")
            try:
                ready = self.chan.recv()
            except ChannelClosed as e:
                raise CandidateGone(str(e)) from None
            if ready["op"] == "failed":
                raise _Failed(ready)
            mismatch = self._correctness()
            if mismatch is None:
                self._attribution()
            if mismatch is None and not self.violations:
                self._timing()
                self._fresh_check()
            self.phase("waiting for the candidate: guard report")
            self.report = self._ask({"op": "finish"}, "report")
            try:
                self.chan.send({"op": "exit"})
            except ChannelClosed:
                pass
        except _Failed as f:
            return self._failed(f.report)
        except CandidateGone:
            return self._base("candidate_gone", f"the candidate process ended while {self._phase_text}")
        except ProtocolError as e:
            return self._base("guard_violation", f"protocol: {e}", violations=[violation(
                "forged_result", f"the candidate process answered outside the protocol: {e}")])
        return self._verdict(mismatch)

    def _failed(self, rep: dict[str, Any]) -> dict[str, Any]:
        """A failure report from the candidate process: its status can only be a failure."""
        if rep.get("verifier_error"):
            return {"verifier_error": str(rep["verifier_error"])[:2000]}
        found = dedupe(self.violations + _violations(rep.get("violations")))
        status = rep.get("status")
        if found or status == "guard_violation":
            return self._base("guard_violation", _violation_text(found), violations=found, report=rep)
        if status not in ("compile_error", "runtime_error"):
            status = "runtime_error"
        return self._base(status, str(rep.get("feedback") or "")[:6000], report=rep)

    def _verdict(self, mismatch: dict[str, Any] | None) -> dict[str, Any]:
        cand_ops = set(str(x) for x in self.report.get("compute_ops") or [])
        everything, partial_ops = coverage(self.ref_ops, cand_ops)
        if self.no_work and cand_ops:
            self.violations.append(violation("no_work", f"{self.no_work}: {', '.join(sorted(cand_ops))}"))
        if everything:
            self.violations.append(violation(
                "torch_fallback", f"torch ops {', '.join(sorted(self.ref_ops))} computed everything the "
                "reference computes; the kernel must do the work"))
        if self.cand is not None and not self.interpreted and self.device.type == "cuda":
            problem = wallclock.beyond_peak(self.cand.median_ms, self.min_bytes,
                                            peak_for(torch.cuda.get_device_name(self.device)))
            if problem:
                self.violations.append(violation("timing_mismatch", problem))
        found = dedupe(_violations(self.report.get("violations")) + self.violations)
        if found:
            status, feedback = "guard_violation", _violation_text(found)
        elif mismatch is not None:
            status, feedback = "incorrect", describe(mismatch)
        else:
            status = "correct"
            feedback = f"correct on {self.opts.trials} trials x {self.n_sets} input set(s)"
        timings = self._timings() if status == "correct" else None
        if partial_ops:
            feedback += f"\npartial replacement: torch still computes {', '.join(partial_ops)}"
        review = bool(timings and timings["meaningful"] and timings["speedup_eager"]
                      and timings["speedup_eager"] > self.opts.review_speedup)
        if review:
            feedback += f"\nspeedup above {self.opts.review_speedup:g}x: flagged for review"
        return self._base(status, feedback, violations=found, mismatch=mismatch, timings=timings, review=review,
                          partial=bool(partial_ops), partial_ops=partial_ops,
                          profile=getattr(self, "kernel_profile", []) if timings else [])

    def _base(self, status: str, feedback: str, report: dict[str, Any] | None = None,
              **extra: Any) -> dict[str, Any]:
        rep = self.report if report is None else report
        verdict = {"status": status, "feedback": feedback, "guard_violations": extra.pop("violations", []),
                   "builds": [b for b in (rep.get("builds") or []) if isinstance(b, dict)][:20],
                   "notes": self.notes + [str(n)[:300] for n in (rep.get("notes") or [])][:20]}
        verdict.update(extra)
        return verdict

    def _timings(self) -> dict[str, Any] | None:
        if self.eager is None and self.cand is None:
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
        }
        out.update(paired.timing_fields(self.paired, self.eager_isolated, self.compiled))
        return out


class _Failed(Exception):
    """The candidate process sent a failure report."""

    def __init__(self, report: dict[str, Any]) -> None:
        super().__init__(str(report.get("status")))
        self.report = report


def _violations(raw: Any) -> list[dict[str, str]]:
    """Violation records from the candidate's report, keeping only known guard names."""
    out = []
    for v in raw if isinstance(raw, list) else []:
        if isinstance(v, dict) and v.get("name") in GUARDS:
            out.append(violation(v["name"], str(v.get("detail", ""))[:500]))
    return out


def _violation_text(found: list[dict[str, str]]) -> str:
    lines = ["guard violations (the protocol forbids these; see the guard's meaning):"]
    for v in found:
        lines.append(f"- {v['name']}: {v['detail']}  [{GUARDS.get(v['name'], '')}]")
    return "\n".join(lines)


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def main(argv: list[str]) -> None:
    """``python -P -m akg_rag.verify.judge ROOT READY_FD IN_FD OUT_FD KEY_FD``: judge, seal, exit.

    ``READY_FD`` gets one byte when the candidate process may start; ``IN_FD``/``OUT_FD`` are the
    channel to it. The sealed verdict goes to ``ROOT/result.json``.
    """
    import json
    import sys

    from akg_rag.verify.seal import make_sealer, read_key

    root = Path(argv[0])
    seal = make_sealer(read_key(int(argv[4])))
    ready_fd = int(argv[1])
    chan = Channel(int(argv[2]), int(argv[3]))

    def phase(text: str) -> None:
        try:
            (root / "phase.txt").write_text(text)
        except OSError:
            pass

    def start() -> None:
        os.write(ready_fd, b"S")
        os.close(ready_fd)

    job = json.loads((root / "job.json").read_text())
    verdict: dict[str, Any]
    try:
        verdict = Judge(job, phase, start, chan).run()
    except TaskProblem as e:
        verdict = {"task_error": str(e)}
    except VerifierProblem as e:
        verdict = {"verifier_error": str(e)}
    except BaseException as e:  # noqa: BLE001 - whatever happened, the parent gets a verdict
        verdict = {"verifier_error": f"the judge failed: {type(e).__name__}: {e}"}
    tmp = root / "result.json.tmp"
    tmp.write_text(json.dumps(seal(verdict)))
    os.replace(tmp, root / "result.json")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    import sys as _sys

    main(_sys.argv[1:])
