"""Measure the two roofline ceilings of the local CUDA device: copy bandwidth and matmul rate.

Run on a GPU machine: ``python benchmarks/hw_probe.py [--json OUT]``. It prints one table; the
figures feed the roofline fractions the verifier reports and the hardware documents.
Timing uses CUDA events, median of repeated runs after warm-up; inputs are random (never zeros,
which some units process faster).
"""

from __future__ import annotations

import argparse
import json
import statistics

import torch


def _median_ms(fn, warmup: int = 5, runs: int = 20) -> float:
    """Median wall time of ``fn`` in milliseconds, measured with CUDA events."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def copy_bandwidth(n_bytes: int = 4 << 30) -> float:
    """Device-to-device copy bandwidth in GB/s, counting bytes read plus bytes written."""
    src = torch.empty(n_bytes // 4, dtype=torch.float32, device="cuda").uniform_()
    dst = torch.empty_like(src)
    ms = _median_ms(lambda: dst.copy_(src))
    return 2 * n_bytes / (ms * 1e-3) / 1e9


def matmul_rate(n: int, dtype: torch.dtype, tf32: bool = False) -> float:
    """Dense n x n x n matrix-product rate in TFLOP/s on random data."""
    torch.backends.cuda.matmul.allow_tf32 = tf32
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, n, device="cuda", dtype=dtype)
    ms = _median_ms(lambda: a @ b, warmup=3, runs=10)
    return 2 * n**3 / (ms * 1e-3) / 1e12


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures to this JSON file")
    args = parser.parse_args()
    props = torch.cuda.get_device_properties(0)
    figures = {
        "device": props.name,
        "sm_count": props.multi_processor_count,
        "memory_gib": round(props.total_memory / 2**30, 1),
        "l2_mib": round(getattr(props, "L2_cache_size", 0) / 2**20, 1),
        "torch": torch.__version__,
        "copy_gbps": round(copy_bandwidth(), 1),
        "matmul_fp32_tflops": round(matmul_rate(8192, torch.float32), 1),
        "matmul_tf32_tflops": round(matmul_rate(8192, torch.float32, tf32=True), 1),
        "matmul_bf16_tflops": round(matmul_rate(8192, torch.bfloat16), 1),
        "matmul_fp16_tflops": round(matmul_rate(8192, torch.float16), 1),
    }
    torch.backends.cuda.matmul.allow_tf32 = False
    for key, value in figures.items():
        print(f"{key:22s} {value}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)


if __name__ == "__main__":
    main()
