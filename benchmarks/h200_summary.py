"""Merge the H200 bench runs under docs/results/h200/ into one table (docs/results/h200.md).

Each task's figures come from the best-controlled run that timed it: a *serial* run (one candidate
on the GPU at a time, caches warm) when there is one, else the earlier *parallel* run (eight
children, timed runs serialised by the timing lock, other children's checks still on the GPU).
The torch.compile column always names its source too. Usage: ``python benchmarks/h200_summary.py``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "docs" / "results" / "h200"


def _load(name: str) -> dict[str, dict]:
    """task name -> result dict of one run file ({} when the file is absent)."""
    path = HERE / name
    if not path.is_file():
        return {}
    return {t["name"]: t.get("result") or {"status": t.get("status")} for t in json.loads(path.read_text())["tasks"]}


def _timed(r: dict) -> dict | None:
    t = r.get("timings") or {}
    return t if r.get("status") == "correct" and t.get("candidate_ms") else None


def merge(dsl: str) -> list[dict]:
    """One row per task of ``dsl`` with its verdict and chosen timings."""
    serial = {**_load(f"{dsl}_serial_timing_a.json"), **_load(f"{dsl}_serial_timing_b.json"),
              **_load(f"{dsl}_serial_timing.json")}
    parallel = _load(f"{dsl}_parallel_timing.json")
    rows = []
    for name in sorted(set(serial) | set(parallel)):
        verdict = serial.get(name) or parallel.get(name) or {}
        s, p = _timed(serial.get(name, {})), _timed(parallel.get(name, {}))
        t = s or p or {}
        compile_ms = (s or {}).get("compile_ms") or (p or {}).get("compile_ms")
        rows.append({
            "task": name, "status": verdict.get("status", "missing"),
            "candidate_ms": t.get("candidate_ms"), "eager_ms": t.get("eager_ms"), "compile_ms": compile_ms,
            "timing": "serial" if s else ("parallel" if p else "-"),
            "compile_from": "serial" if (s or {}).get("compile_ms") else ("parallel" if compile_ms else "-"),
            "roofline": t.get("roofline_fraction"),
            "kernel_us": sum(k.get("time_us", 0.0) for k in (serial.get(name) or {}).get("profile") or []) or None,
        })
    return rows


def _geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def _f(v: float | None, spec: str = ".4g") -> str:
    return "-" if v is None else format(v, spec)


def table(dsl: str, rows: list[dict]) -> str:
    """Markdown table plus the summary line of one DSL."""
    out = [f"### {dsl}", "", "| task | status | candidate ms | device-only us | eager ms | compile ms | x eager | x compile | % roofline | timing |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    se, sc = [], []
    for r in rows:
        xe = r["eager_ms"] / r["candidate_ms"] if r["candidate_ms"] and r["eager_ms"] else None
        xc = r["compile_ms"] / r["candidate_ms"] if r["candidate_ms"] and r["compile_ms"] else None
        se.append(xe)
        sc.append(xc)
        timing = r["timing"] + ("" if r["compile_from"] in (r["timing"], "-") else f" (compile: {r['compile_from']})")
        out.append(f"| {r['task']} | {r['status']} | {_f(r['candidate_ms'])} | {_f(r['kernel_us'], '.1f')} | {_f(r['eager_ms'])} | "
                   f"{_f(r['compile_ms'])} | {_f(xe, '.2f')} | {_f(xc, '.2f')} | "
                   f"{_f(r['roofline'] * 100 if r['roofline'] else None, '.1f')} | {timing} |")
    n = len(rows)
    correct = sum(r["status"] == "correct" for r in rows)
    fast = {p: sum(1 for x in se if x and x > p) / n for p in (1, 1.5, 2)} if n else {}
    out += ["", f"{correct}/{n} correct; fast_1 = {fast.get(1, 0):.2f}, fast_1.5 = {fast.get(1.5, 0):.2f}, "
            f"fast_2 = {fast.get(2, 0):.2f}; geometric-mean speedup vs eager {_f(_geomean(se), '.3f')}x, "
            f"vs torch.compile {_f(_geomean(sc), '.3f')}x (over timed tasks)", ""]
    return "\n".join(out)


def main() -> None:
    hw = json.loads((HERE / "hw_probe.json").read_text())
    parts = [table(dsl, merge(dsl)) for dsl in ("triton", "cuda_c")]
    text = (HERE.parent / "h200.md").read_text() if (HERE.parent / "h200.md").is_file() else ""
    marker = "<!-- tables -->"
    head = text.split(marker)[0] if marker in text else "# H200 results\n\n"
    body = (f"{marker}\nDevice: {hw['device']}, {hw['sm_count']} SMs, {hw['l2_mib']} MiB L2, torch {hw['torch']}. "
            f"Measured ceilings: copy {hw['copy_gbps']} GB/s; matmul fp32 {hw['matmul_fp32_tflops']}, "
            f"tf32 {hw['matmul_tf32_tflops']}, bf16 {hw['matmul_bf16_tflops']} TFLOP/s.\n\n" + "\n".join(parts))
    (HERE.parent / "h200.md").write_text(head + body)
    print(body)


if __name__ == "__main__":
    main()
