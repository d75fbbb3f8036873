"""Cross-checking the candidate's own timing against clocks it cannot touch.

The candidate process times itself (device events or a monotonic clock, :mod:`akg_rag.verify.timing`),
so its numbers are claims. The judge wall-clocks each timed command (one block of runs of the
interleaved timing, :mod:`akg_rag.verify.paired`) from its own process, holding the timing lock so
no other child's runs fall inside the window:

* the claim must fit inside the window: at least half of the runs take the median or longer, so
  ``runs / 2 * median`` cannot exceed the wall time;
* the windows must be explained by the claims: the sum over windows of ``calls * (SKEW * median +
  per-run overhead)``, plus ``FIXED_S`` once, bounds their total from above (``calls``: the runs of
  a block; warm-up + runs + 2 for a command that also warms up and plans).
  Timers patched to under-report work that really ran break this bound.

On a GPU with known peaks, a median below the time to move the task's minimum bytes at the peak
bandwidth is physically impossible (:func:`beyond_peak`).

What no clock outside the process can refute: a candidate with native code that skips the work in
the timed loop and reports numbers consistent with an empty loop. Its speedup stands out (review).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SKEW = 3.0                 # a run may take this many medians (noise, slow outliers) on average
OVERHEAD_GPU_MS = 1.0      # per run on CUDA: L2 flush (256 MB memset), two events (one wait per block)
OVERHEAD_CPU_MS = 0.2      # per run on CPU: clock reads and the Python call
FIXED_S = 2.0              # once per timing: answers, first-call and allocator effects, scheduler noise
PEAK_MARGIN = 1.25         # a claim this much faster than the bandwidth floor is impossible


@dataclass
class Claim:
    """What the candidate process reported about its timed loop."""

    median_ms: float
    runs: int
    warmup: int
    extra: int = 2      # untimed calls in the window beyond warm-up and runs (a command's own warm
                        # call and pilot); 0 for a block of the interleaved timing, which runs n calls


def check(claim: Claim, wall_s: float, gpu: bool) -> str | None:
    """None when ``claim`` agrees with the judge's window of ``wall_s`` seconds; else why not."""
    return check_blocks([(wall_s, claim)], gpu)


def check_blocks(windows: list[tuple[float, Claim]], gpu: bool) -> str | None:
    """None when every window's claim fits its wall time and all windows together are explained.

    ``windows`` holds (judge's wall seconds, claim) per timed command; interleaved timing sends one
    command per block. The floor is checked per window (a claim must fit its own window); the
    ceiling sums each window's own bound (its median times its calls) and adds ``FIXED_S`` once, so
    load that drifts between blocks is explained by each block's own median, and many small windows
    are bounded no more loosely than one window of all their runs.
    """
    ceiling_ms = FIXED_S * 1e3
    wall_ms = calls = 0
    for wall_s, claim in windows:
        if not (claim.median_ms > 0 and claim.runs >= 1 and claim.warmup >= 0):
            return f"reported median {claim.median_ms} ms over {claim.runs} runs is not a measurement"
        floor_ms = claim.runs / 2 * claim.median_ms
        if floor_ms > wall_s * 1e3 * 1.05 + 5.0:
            return (f"reported {claim.runs} runs with a median of {claim.median_ms:.4g} ms, but the whole "
                    f"timed loop took {wall_s * 1e3:.4g} ms on the judge's clock")
        n = claim.warmup + claim.runs + claim.extra
        ceiling_ms += n * (SKEW * claim.median_ms + (OVERHEAD_GPU_MS if gpu else OVERHEAD_CPU_MS))
        wall_ms += wall_s * 1e3
        calls += n
    if wall_ms > ceiling_ms:
        what = (f"the reported median of {windows[0][1].median_ms:.4g} ms" if len(windows) == 1
                else f"the medians reported for its {len(windows)} blocks")
        return (f"the timed loop took {wall_ms:.4g} ms on the judge's clock, more than {calls} calls at "
                f"{what} can explain (at most {ceiling_ms:.4g} ms): the candidate's timers under-report "
                "its work")
    return None


def beyond_peak(median_ms: float, min_bytes: int | None, peak: Any) -> str | None:
    """Why ``median_ms`` is faster than moving ``min_bytes`` at ``peak.bandwidth`` allows, or None."""
    if not min_bytes or peak is None or median_ms <= 0:
        return None
    floor_ms = min_bytes / peak.bandwidth * 1e3
    if median_ms * PEAK_MARGIN < floor_ms:
        return (f"reported median {median_ms:.4g} ms moves the task's minimum {min_bytes / 1e9:.3g} GB at "
                f"{min_bytes / median_ms / 1e6:.4g} GB/s, beyond the device's peak "
                f"{peak.bandwidth / 1e9:.4g} GB/s")
    return None
