"""Eager against the candidate across two processes: the judge's side of interleaved timing.

The judge holds the timing lock and alternates blocks (:func:`akg_rag.verify.timing.interleave`):
an eager block timed here, in the judge, then a block of the same length timed by the candidate
process on request (``time_block`` over the channel), in ABAB/BABA order, so load that comes and
goes hits both alike. The candidate's block times are its claims: the judge wall-clocks every
``time_block`` command and checks the claims against those windows
(:func:`akg_rag.verify.wallclock.check_blocks`, ``timing_mismatch``). When either call is short on a
GPU, both sides capture a CUDA graph -- eager here, the candidate in its own process -- and the
replays are interleaved the same way. The ``torch.compile`` baseline is interleaved with the
candidate the same way (a second series of blocks, after eager's), so its speedup interval is as
tight as eager's; where the compiled model fails at timing, the figure measured before the
candidate started stands, with the wider interval of two separate measurements.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from akg_rag.verify.channel import ProtocolError
from akg_rag.verify.timing import (Comparison, Measurement, Runs, capture_graph, clock_name, exclusive,
                                   graph_error_text, interleave, queued, ratio_interval, summarize,
                                   wants_graphs)
from akg_rag.verify.wallclock import Claim, check_blocks

_monotonic = time.monotonic  # bound at import, before anything of a candidate could run

Ask = Callable[[dict[str, Any], str], dict[str, Any]]  # send a command, return the answer of that op


class RemoteRuns:
    """A block timer whose runs happen in the candidate process, wall-clocked by the judge.

    Each call sends one ``time_block`` command and returns the candidate's reported times (ms);
    ``windows`` collects (wall seconds, claim) for the cross-check.
    """

    def __init__(self, ask: Ask, windows: list[tuple[float, Claim]], graph: bool = False) -> None:
        self.ask, self.windows, self.graph = ask, windows, graph

    def __call__(self, n: int) -> list[float]:
        t0 = _monotonic()
        answer = self.ask({"op": "time_block", "n": n, "graph": self.graph}, "block")
        wall = _monotonic() - t0
        times = answer.get("times_ms")
        if not (isinstance(times, list) and len(times) == n
                and all(isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) and t > 0
                        for t in times)):
            raise ProtocolError(f"a timed block of {n} runs answered {str(times)[:200]}")
        times = [float(t) for t in times]
        self.windows.append((wall, Claim(statistics.median(times), n, 0, extra=0)))
        return times


@dataclass
class Paired:
    """What the judge's timing produced."""

    candidate: Measurement
    comparison: Comparison | None          # None under the Triton interpreter (candidate only)
    windows: list[tuple[float, Claim]] = field(default_factory=list)
    mismatch: str | None = None            # why the claims disagree with the judge's clock
    compiled: Comparison | None = None     # torch.compile against the candidate, interleaved


def time_pair(eager: Callable[[], Any] | None, ask: Ask, device: torch.device, *, warmup: int | None,
              runs: int | None, budget_s: float, lock_path: str | None, interpreted: bool,
              compiled: Callable[[], Any] | None = None) -> Paired:
    """Time ``eager`` (here) against the candidate (over ``ask``), interleaved, holding ``lock_path``;
    then ``compiled`` (the torch.compile'd reference, when given) against the candidate the same way.

    The candidate process must have answered ``warm`` already. ``budget_s`` is the budget of the
    whole interleaved timing (both sides). Under the Triton interpreter (correctness only) the
    candidate runs one block of at most 3 runs and ``eager`` is not timed.
    """
    windows: list[tuple[float, Claim]] = []
    remote = RemoteRuns(ask, windows)
    method = clock_name(device)
    if interpreted or eager is None:
        with exclusive(lock_path):
            times = remote(min(runs or 3, 3))
        return Paired(summarize(times, 0, method), None, windows, check_blocks(windows, gpu=False))
    gpu = device.type == "cuda"
    warmup = (10 if gpu else 2) if warmup is None else warmup
    with torch.no_grad():
        for _ in range(warmup):
            eager()
        if gpu:
            torch.cuda.synchronize(device)
        with exclusive(lock_path):
            cmp = interleave(Runs(eager, device), remote, runs, budget_s, warmup, method)
            if wants_graphs(device, cmp):
                _graphs(cmp, eager, ask, device, runs, budget_s, warmup, windows)
            against_compiled = _compiled(compiled, remote, device, runs, budget_s, warmup, method)
    return Paired(cmp.candidate, cmp, windows, check_blocks(windows, gpu=gpu), compiled=against_compiled)


def _compiled(compiled: Callable[[], Any] | None, remote: RemoteRuns, device: torch.device, runs: int | None,
              budget_s: float, warmup: int, method: str) -> Comparison | None:
    """torch.compile's reference against the candidate, interleaved; None when there is none or
    it fails here (a recompile on these inputs that raises, say): the isolated figure stands."""
    if compiled is None:
        return None
    try:
        for _ in range(warmup):
            compiled()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        return interleave(Runs(compiled, device), remote, runs, budget_s, warmup, method)
    except ProtocolError:
        raise
    except Exception:  # noqa: BLE001 - the baseline's failure is not the candidate's
        return None


def _graphs(cmp: Comparison, eager: Callable[[], Any], ask: Ask, device: torch.device, runs: int | None,
            budget_s: float, warmup: int, windows: list[tuple[float, Claim]]) -> None:
    """Both sides as CUDA graph replays, each captured in its own process; sets ``cmp.graph``."""
    try:
        graph = capture_graph(eager, device)
    except Exception as e:  # noqa: BLE001 - host syncs, allocations...: not capturable
        cmp.graph_error = "eager: " + graph_error_text(e)
        return
    answer = ask({"op": "graph"}, "graph")
    if answer.get("error"):
        cmp.graph_error = "candidate: " + str(answer["error"])[:200]
        return
    cmp.graph = interleave(Runs(graph.replay, device), RemoteRuns(ask, windows, graph=True), runs, budget_s,
                           warmup, "cuda_graph")


def timing_fields(p: Paired | None, eager_isolated: Measurement | None,
                  compiled: Measurement | None) -> dict[str, Any]:
    """``Timings`` fields of a paired timing: spreads, clock, speedup intervals, verdicts, graphs."""
    if p is None:
        return {}
    cand = p.candidate
    out: dict[str, Any] = {"method": cand.method, "queued": queued(cand.method),
                           "candidate_iqr_ms": cand.spread_ms}
    cmp = p.comparison
    if cmp is None:
        return out
    sp = cmp.speedup
    out.update({
        "eager_iqr_ms": cmp.baseline.spread_ms,
        "speedup_eager": sp.estimate, "speedup_eager_low": sp.low, "speedup_eager_high": sp.high,
        "confidence": sp.confidence, "blocks": sp.blocks, "verdict_eager": sp.verdict,
        "eager_isolated_ms": eager_isolated.median_ms if eager_isolated is not None else None,
        "block_ratios": [float(f"{r:.4g}") for r in cmp.block_ratios],
    })
    if p.compiled is not None:  # interleaved with the candidate: its own blocks, its own interval
        comp = p.compiled.speedup
        out.update(compile_ms=p.compiled.baseline.median_ms, speedup_compile=comp.estimate,
                   compile_method="interleaved", compile_isolated_ms=compiled.median_ms if compiled else None)
    else:
        comp = ratio_interval(compiled, cand) if compiled is not None else None
        if comp is not None:
            out["compile_method"] = "isolated"
    if comp is not None:
        out.update(speedup_compile_low=comp.low, speedup_compile_high=comp.high, verdict_compile=comp.verdict)
    if cmp.graph is not None:
        g = cmp.graph
        out.update(graph_candidate_ms=g.candidate.median_ms, graph_eager_ms=g.baseline.median_ms,
                   graph_speedup_eager=g.speedup.estimate, graph_speedup_eager_low=g.speedup.low,
                   graph_speedup_eager_high=g.speedup.high, graph_method="cuda_graph")
    out["graph_error"] = cmp.graph_error
    return out
