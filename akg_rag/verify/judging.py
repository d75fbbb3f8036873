"""Judging one candidate: the judge's side of the protocol, from the baselines to the verdict dict.

:class:`Judge` drives the candidate process over the channel (:mod:`akg_rag.verify.protocol` is
the other side): correctness trials, attribution, interleaved timing, the fresh-input check and the
guard report; the reference model lives in :mod:`akg_rag.verify.reference`, answers are checked by
:mod:`akg_rag.verify.answer` and the verdict dict is put together by :mod:`akg_rag.verify.verdict`.
The process around it (pipes, key, sealing) is :mod:`akg_rag.verify.judge`.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any, Callable

import torch

from akg_rag.verify import paired, wallclock
from akg_rag.verify import verdict as verdicts
from akg_rag.verify.answer import compare_answer
from akg_rag.verify.channel import Channel, ChannelClosed, ProtocolError
from akg_rag.verify.compare import as_tensor_list, describe
from akg_rag.verify.guards import dedupe, violation
from akg_rag.verify.ops import coverage
from akg_rag.verify.options import VerifyOptions
from akg_rag.verify.reference import Reference
from akg_rag.verify.roofline import peak_for
from akg_rag.verify.tensors import content_print, is_constant


_STEP_NUMBER = re.compile(r" \d+$")   # "reference, trial 2" -> "reference, trial"

# The first call on new values against the timed median (:meth:`Judge._fresh_check`): slower than
# FACTOR times the median plus the slack (one call's noise: a GPU call's device time is steady; a CPU
# call's wall time takes a 4 ms scheduler tick whenever another program wants its core) and another
# new set is tried, up to PROBES sets; every one slow is work the timed calls skip.
FIRST_CALL_FACTOR = 2.0
FIRST_CALL_SLACK_MS = {"cuda": 0.005, "cpu": 5.0}
FIRST_CALL_PROBES = {"cuda": 2, "cpu": 3}


def _positive(x: Any) -> bool:
    """A finite positive number of the candidate process's answer (not a bool)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and 0 < x < float("inf")


class CandidateGone(Exception):
    """The candidate process closed the channel (exited, crashed or was killed)."""


class Judge:
    """One verification's trusted side; :meth:`run` returns the verdict dict."""

    def __init__(self, job: dict[str, Any], phase: Callable[[str], None], start_candidate: Callable[[], None],
                 chan: Channel) -> None:
        self.job = job
        self._phase = phase
        self._phase_text = "starting"
        self._phase_started = time.monotonic()
        self.phase_seconds: dict[str, float] = {}   # seconds per step of the run, the judge's clock
        self.start_candidate = start_candidate
        self.chan = chan
        self.opts = VerifyOptions.from_dict(job["options"])
        self.dsl: str = job["dsl"]
        self.backend: str = job["backend"]
        self.out_dir = Path(job["out_dir"])
        self.interpreted = self.dsl == "triton" and self.backend == "cpu"
        self.violations: list[dict[str, str]] = []
        self.no_work: str | None = None   # the trivial-launch finding of _attribution, if any
        self.notes: list[str] = []
        self.report: dict[str, Any] = {}
        self.ref = Reference(job, self.opts, self.notes)
        self.eager = self.cand = self.eager_isolated = None
        self.paired: paired.Paired | None = None
        self.first_call_ms: float | None = None   # the fresh-input check's first call on new values
        self.n_sets = 0

    def phase(self, text: str) -> None:
        self._close_phase()
        self._phase_text = text
        self._phase(text)

    def _close_phase(self) -> None:
        """Add the time since the last phase began to its step (trial numbers folded together)."""
        now = time.monotonic()
        step = _STEP_NUMBER.sub("", self._phase_text)
        self.phase_seconds[step] = round(self.phase_seconds.get(step, 0.0) + now - self._phase_started, 3)
        self._phase_started = now

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
        return compare_answer(expected, answer, s, self.out_dir, self.opts.atol, self.opts.rtol, self.ref.step)

    def _correctness(self) -> dict[str, Any] | None:
        for t in range(self.opts.trials):
            seed = self.opts.seed + 1 + t
            self.phase(f"reference, trial {t}")
            expected = self.ref.step(f"computing the reference of trial {t}", lambda: self.ref.outputs(seed, t == 0))
            self.phase(f"waiting for the candidate: correctness trial {t}")
            answer = self._ask({"op": "run", "seed": seed, "tag": f"t{t}", "where": f"trial {t}",
                                "ref_mutates": self.ref.mutates}, "outputs")
            self.n_sets = len(expected)
            for s, exp in enumerate(expected):
                m = self._compare(exp, answer, s)
                if m is not None:
                    m.update(trial=t, input_set=s)
                    return m
            del expected
            self.ref.free()
        return None

    def _attribution(self) -> None:
        """Guards ``no_work`` and ``torch_fallback`` from the candidate's launch observers."""
        self.phase("attribution")
        seed = int.from_bytes(os.urandom(6), "little")
        inputs: list = []
        expected = self.ref.step("computing the reference for attribution",
                                 lambda: self.ref.outputs(seed, prints=inputs)[:1])
        # the classified forward draws inputs no earlier forward drew: an output buffer the
        # allocator hands back with a previous call's values in it must not look unwritten
        classify_seed = int.from_bytes(os.urandom(6), "little")
        answer = self._ask({"op": "attribute", "seed": classify_seed, "ablate_seed": seed}, "attribution")
        launches, trivial = int(answer.get("launches") or 0), int(answer.get("trivial") or 0)
        # a task that is itself a copy or a fill on its inputs (a ReLU of non-negative inputs, a
        # ReLU of all-negative values): a correct kernel only copies or fills there too, so the
        # launch classifier has no evidence; the ablation below still catches a kernel that does
        # nothing
        outs = as_tensor_list(expected[0]) or []
        trivial_task = all(is_constant(e) or content_print(e) in inputs for e in outs)
        if self.ref.ops and launches and trivial >= launches and not trivial_task:
            # decided in _verdict, once the candidate's torch compute ops are known: copy-only
            # launches with no torch compute beside them are the whole forward
            examples = "; ".join(str(x)[:120] for x in (answer.get("examples") or [])[:3])
            self.no_work = (f"all {launches} kernel launch(es) of a forward only copy, fill or leave data "
                            f"unchanged ({examples}); torch computes the result")
        if launches and self._compare(expected[0], answer, 0) is None:
            self.violations.append(violation(
                "torch_fallback", "the output still matches the reference with every kernel launch skipped "
                "and its results poisoned: torch computes the result, not the kernel"))
        del expected
        self.ref.free()

    def _timing(self) -> None:
        """Eager (here) and the candidate (over the channel) interleaved under the timing lock; the
        candidate's claims checked against the judge's clock (:mod:`akg_rag.verify.paired`)."""
        if not self.opts.timing:
            return
        self.phase("waiting for the candidate: timing warm-up")
        self._ask({"op": "warm", "seed": self.opts.seed + 1}, "warm")
        self.phase("timing: eager and the candidate interleaved")
        inputs = self.ref.inputs(self.opts.seed + 1)[0]
        eager = None if self.interpreted or self.eager is None else (lambda: self.ref.model(*inputs))
        model_c = None if self.interpreted else self.ref.compiled_model
        compiled = None if model_c is None else (lambda: model_c(*inputs))
        self.paired = paired.time_pair(eager, self._ask, self.device, warmup=self.opts.warmup,
                                       runs=self.opts.runs, budget_s=2 * self.opts.timing_budget_s,
                                       lock_path=self.opts.timing_lock, interpreted=self.interpreted,
                                       compiled=compiled)
        del inputs, eager, compiled
        self.ref.free()
        self.cand = self.paired.candidate
        if self.paired.comparison is not None:
            # the eager figure from before the candidate started stays on record as eager_isolated_ms
            self.eager_isolated, self.eager = self.eager, self.paired.comparison.baseline
        if self.paired.mismatch:
            self.violations.append(violation("timing_mismatch", self.paired.mismatch))
        if self.opts.profile and not self.interpreted:
            self.kernel_profile = list(self._ask({"op": "profile"}, "profile").get("rows") or [])[:50]

    def _fresh_check(self) -> None:
        """Fresh values, written into the tensors the timed calls read (where the shapes allow): an
        answer kept by input address, copied into a new buffer each call, is stale here. The first
        call on them is also timed as a timed run is (:func:`~akg_rag.verify.timing.lone_run`): no
        answer kept from earlier calls can serve it, so a candidate that keeps answers by a sample of
        its inputs' values (correct on new values, a copy on repeated ones), runs it far slower than
        its timed median. The call is made as a timed call is (launch counters unhooked), so a forward
        that does less when it can tell it is timed is checked doing less. Where it is slow, another
        set is tried; every one slow is ``cached_output``."""
        self.phase("fresh-input check")
        slow: list[float] = []
        for _ in range(FIRST_CALL_PROBES.get(self.device.type, FIRST_CALL_PROBES["cpu"])):
            seed = int.from_bytes(os.urandom(6), "little")
            expected = self.ref.step("computing the reference on fresh inputs", lambda: self.ref.outputs(seed))
            answer = self._ask({"op": "run", "seed": seed, "tag": "fresh", "where": "fresh inputs",
                                "ref_mutates": self.ref.mutates, "in_place": True,
                                "time_first": self.cand is not None}, "outputs")
            for s, exp in enumerate(expected):
                m = self._compare(exp, answer, s)
                if m is not None:
                    m["input_set"] = s
                    self.violations.append(violation(
                        "cached_output", "correct on the checked trials but wrong on fresh inputs after "
                        f"timing: {describe(m)}"))
                    return
            del expected
            ms = answer.get("first_call_ms")
            if self.cand is None or not _positive(ms):
                return
            self.first_call_ms = float(ms)   # the last set's: the one that decided
            if ms <= self._first_call_limit():
                return
            slow.append(float(ms))
        self.violations.append(violation(
            "cached_output", f"timed calls (the same input values every call) took {self.cand.median_ms:.4g} ms "
            f"(median), but the first call on new values {', '.join(f'{t:.4g}' for t in slow)} ms: the timed "
            "calls skip work the checked calls do (answers kept between calls, or a forward that knows it "
            "is timed)"))

    def _first_call_limit(self) -> float:
        """The longest first call on new values that agrees with the timed median."""
        slack = FIRST_CALL_SLACK_MS.get(self.device.type, FIRST_CALL_SLACK_MS["cpu"])
        return FIRST_CALL_FACTOR * self.cand.median_ms + slack

    # -- the whole run -----------------------------------------------------------------------
    def prepare(self) -> None:
        """Step 1: load the task and build the reference model (the candidate process is starting)."""
        self.phase("loading task")
        self.ref.open()
        self.device = self.ref.device

    def _baselines(self) -> None:
        """Step 2: once the candidate process has imported torch and waits (idle), time the
        baselines; then let it go on, and analyse the task while it sets up."""
        self.phase("waiting for the candidate process to start")
        first = self.chan.recv()
        if first["op"] != "imported":
            raise ProtocolError(f"expected 'imported', got {first['op']!r}")
        self.phase("timing baselines")
        self.ref.step("timing the reference", self.ref.baselines)
        self.eager = self.ref.eager
        self.phase("starting the candidate process")
        self.start_candidate()
        if self.opts.timing:   # the figures only go with timings
            if not self.ref.given_figures():
                self.phase("analysing the task (roofline figures)")
            self.ref.analyse()

    def run(self) -> dict[str, Any]:
        """Steps 2-5 after :meth:`prepare`; returns the verdict dict."""
        self.prepare()
        mismatch = None
        try:
            try:
                self._baselines()
                self.phase("waiting for the candidate: setup")
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
            return verdicts.from_failure(f.report, self.violations, self.notes)
        except CandidateGone:
            return self._base("candidate_gone", f"the candidate process ended while {self._phase_text}")
        except ProtocolError as e:
            return self._base("guard_violation", f"protocol: {e}", violations=[violation(
                "forged_result", f"the candidate process answered outside the protocol: {e}")])
        return self._verdict(mismatch)

    def _verdict(self, mismatch: dict[str, Any] | None) -> dict[str, Any]:
        cand_ops = set(str(x) for x in self.report.get("compute_ops") or [])
        everything, partial_ops = coverage(self.ref.ops, cand_ops)
        if self.no_work and cand_ops:
            self.violations.append(violation("no_work", f"{self.no_work}: {', '.join(sorted(cand_ops))}"))
        if everything:
            self.violations.append(violation(
                "torch_fallback", f"torch ops {', '.join(sorted(self.ref.ops))} computed everything the "
                "reference computes; the kernel must do the work"))
        if self.cand is not None and not self.interpreted and self.device.type == "cuda":
            problem = wallclock.beyond_peak(self.cand.median_ms, self.ref.min_bytes,
                                            peak_for(torch.cuda.get_device_name(self.device)))
            if problem:
                self.violations.append(violation("timing_mismatch", problem))
        found = dedupe(verdicts.candidate_violations(self.report.get("violations")) + self.violations)
        if found:
            status, feedback = "guard_violation", verdicts.violation_text(found)
        elif mismatch is not None:
            status, feedback = "incorrect", describe(mismatch)
        else:
            status = "correct"
            feedback = f"correct on {self.opts.trials} trials x {self.n_sets} input set(s)"
        timings = None
        if status == "correct":
            timings = verdicts.timings(
                cand=self.cand, eager=self.eager, compiled=self.ref.compiled, pair=self.paired,
                eager_isolated=self.eager_isolated, device=self.device, interpreted=self.interpreted,
                flops=self.ref.flops, min_bytes=self.ref.min_bytes, dtype=self.ref.dtype,
                compile_status=self.ref.compile_status)
            if timings is not None:
                timings["first_call_ms"] = self.first_call_ms
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
        self._close_phase()
        return verdicts.assemble(status, feedback, self.report if report is None else report, self.notes,
                                 phases=dict(self.phase_seconds), **extra)


class _Failed(Exception):
    """The candidate process sent a failure report."""

    def __init__(self, report: dict[str, Any]) -> None:
        super().__init__(str(report.get("status")))
        self.report = report
