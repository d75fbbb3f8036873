"""Peak figures per device and the achieved fraction of the roofline.

The roofline floor of a task is the larger of moving its minimum bytes at peak bandwidth and doing
its FLOPs at peak rate; the fraction is floor time / measured time (1.0 = at the roofline). Peaks are
vendor datasheet figures; the CPU has none (its fraction stays None).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Peak:
    """Datasheet peaks of one device."""

    bandwidth: float            # bytes/s of main memory (HBM)
    flops_fp32: float           # FLOP/s, fp32 without tensor cores
    flops_tensor: float         # FLOP/s, dense fp16/bf16 on tensor cores


# matched as substrings of torch.cuda.get_device_name(), first hit wins
PEAKS: tuple[tuple[str, Peak], ...] = (
    ("H200", Peak(4.8e12, 67e12, 989e12)),
    ("H100", Peak(3.35e12, 67e12, 989e12)),
    ("A100", Peak(2.0e12, 19.5e12, 312e12)),
)


def peak_for(device_name: str) -> Peak | None:
    """Peaks of a device by name, or None when unknown (CPUs, unlisted GPUs)."""
    for key, peak in PEAKS:
        if key in device_name:
            return peak
    return None


def roofline(seconds: float, flops: int | None, min_bytes: int | None, dtype: str,
             device_name: str) -> tuple[float | None, float | None, float | None]:
    """(achieved GB/s, achieved TFLOP/s, fraction of the roofline) for one timed run."""
    if seconds <= 0:
        return None, None, None
    gbps = min_bytes / seconds / 1e9 if min_bytes else None
    tflops = flops / seconds / 1e12 if flops else None
    peak = peak_for(device_name)
    if peak is None or not (flops or min_bytes):
        return gbps, tflops, None
    rate = peak.flops_tensor if dtype in ("float16", "bfloat16") else peak.flops_fp32
    floor = max((min_bytes or 0) / peak.bandwidth, (flops or 0) / rate)
    return gbps, tflops, floor / seconds
