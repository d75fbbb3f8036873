"""Time a lowered candidate under several settings of its tunables, at the task's own shapes.

A developer's probe for choosing the lowering's default tunables on a GPU, not a judge: the
candidate runs in this process (it is the lowering's own output), each configuration's output is
compared with the reference's once (the largest absolute and relative error are printed, no
verdict), and the time is the median of CUDA-event runs with the L2 flushed before each
(``akg_rag.verify.timing.measure``). The verifier and ``python -m akg_rag.lower TASK --tune`` stay
the way to accept a configuration.

    PYTHONPATH=. python benchmarks/knob_sweep.py TASK.py CANDIDATE.py \
        --set K0_SPLIT=256,1024 --set K0_NUM_WARPS=4,8 [--runs 20] [--json OUT.jsonl]

Every ``--set`` is one module-level tunable with its values; the configurations are their
product (the candidate's own values first). Bytes moved (inputs read once, outputs written once)
over the median time gives the effective bandwidth, printed beside each row.

``--fp64`` also runs the task in float64 (the same weights and inputs, widened) and prints each
configuration's largest absolute error against that, beside eager float32's own: how a setting
that changes the arithmetic (``DOT_MODE``: three TF32 products instead of IEEE ones) compares with
PyTorch's float32 result as an approximation of the exact one.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _settings(pairs: list[str]) -> list[tuple[str, list[int]]]:
    out = []
    for text in pairs:
        name, sep, values = text.partition("=")
        if not sep or not name.strip():
            raise SystemExit(f"--set wants NAME=V1,V2,... (got {text!r})")
        try:
            out.append((name.strip(), [int(v) for v in values.split(",") if v.strip()]))
        except ValueError:
            raise SystemExit(f"--set {name}: values must be integers (got {values!r})") from None
    return out


def _tensors(x):
    if isinstance(x, (list, tuple)):
        return [t for item in x for t in _tensors(item)]
    return [x] if hasattr(x, "element_size") else []


def _errors(out, ref) -> tuple[float, float]:
    """Largest absolute and relative difference over every output tensor (in float64 chunks)."""
    worst_abs = worst_rel = 0.0
    for a, b in zip(_tensors(out), _tensors(ref)):
        if a.shape != b.shape:
            return float("inf"), float("inf")
        a, b = a.reshape(-1), b.reshape(-1)
        for i in range(0, a.numel(), 1 << 26):
            x, y = a[i:i + (1 << 26)].double(), b[i:i + (1 << 26)].double()
            d = (x - y).abs()
            worst_abs = max(worst_abs, float(d.max()))
            worst_rel = max(worst_rel, float((d / y.abs().clamp_min(1e-6)).max()))
    return worst_abs, worst_rel


def _kernel_rows(call, device) -> list[dict]:
    """The launches of one call with their device time (``akg_rag.verify.profiling``), L2 not
    flushed between the profiled calls: where the time goes, not a speed figure."""
    import torch

    from akg_rag.verify.profiling import profile_calls

    class _Call:
        def __call__(self):
            return call()

    with torch.no_grad():
        return profile_calls(_Call(), [], device)


def _print_kernels(label: str, call, device) -> None:
    print(f"  {label} launches:", flush=True)
    for k in _kernel_rows(call, device):
        print(f"      {k['time_us']:10.1f} us x{k['count']:g}  {k['name'][:100]}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("task", help="the task's .py (Model, get_inputs, get_init_inputs)")
    ap.add_argument("candidate", help="a lowered candidate .py (ModelNew, module-level tunables)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=V1,V2",
                    help="a tunable and the values to try (repeatable; configurations are the product)")
    ap.add_argument("--runs", type=int, default=20, help="timed runs per configuration (default 20)")
    ap.add_argument("--device", default="cuda", help="torch device (default cuda)")
    ap.add_argument("--json", metavar="OUT", help="append one JSON line per configuration")
    ap.add_argument("--kernels", action="store_true",
                    help="also print each launch's device time per call (torch.profiler), eager's and every configuration's")
    ap.add_argument("--fp64", action="store_true",
                    help="also compare eager float32 and every configuration with a float64 run of the task")
    args = ap.parse_args(argv)

    import torch

    from akg_rag.task import load_module, load_task
    from akg_rag.verify.timing import measure

    device = torch.device(args.device)
    if device.type != "cuda":
        raise SystemExit("knob_sweep times with CUDA events: pass a cuda device")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    task = load_task(args.task)
    cand = load_module(args.candidate, prefix="akg_sweep")
    settings = _settings(args.set)
    for name, _ in settings:
        if not hasattr(cand, name):
            known = sorted(k for k in vars(cand) if k.isupper() and isinstance(getattr(cand, k), int))
            raise SystemExit(f"{args.candidate} has no tunable {name}; it has {', '.join(known) or 'none'}")
    torch.manual_seed(0)
    init = task.get_init_inputs()
    ref_model = task.model_cls(*init).to(device)  # the mode the verifier runs (training, as built)
    torch.manual_seed(0)
    model = cand.ModelNew(*init).to(device)
    with torch.no_grad():
        inputs = [x.to(device) if hasattr(x, "to") else x for x in task.get_inputs()]
        ref = ref_model(*inputs)
        moved = sum(t.numel() * t.element_size() for t in _tensors(inputs) + _tensors(ref))
        eager = measure(lambda: ref_model(*inputs), device, warmup=3, runs=args.runs)
        exact = eager_abs64 = None
        if args.fp64:
            wide = [x.double() if hasattr(x, "is_floating_point") and x.is_floating_point() else x for x in inputs]
            exact = task.model_cls(*init).to(device)
            exact.load_state_dict(ref_model.state_dict())
            exact = exact.double()
            exact = [t.clone() for t in _tensors(exact(*wide))]
            del wide
            eager_abs64 = _errors(ref, exact)[0]
    print(f"{Path(args.task).stem}: eager {eager.median_ms:.4f} ms, {moved / 1e9:.3f} GB moved "
          f"({moved / eager.median_ms / 1e6:.0f} GB/s)"
          + (f", eager's max abs error vs float64 {eager_abs64:.2e}" if exact is not None else ""), flush=True)
    if args.kernels:
        _print_kernels("eager", lambda: ref_model(*inputs), device)
    own = {name: getattr(cand, name) for name, _ in settings}
    grid = [dict(zip([n for n, _ in settings], combo))
            for combo in itertools.product(*[[own[n]] + [v for v in vs if v != own[n]] for n, vs in settings])]
    rows = []
    for config in grid:
        for name, value in config.items():
            setattr(cand, name, value)
        row = {"task": Path(args.task).stem, "candidate": args.candidate, "config": config,
               "device": torch.cuda.get_device_name(device), "eager_ms": eager.median_ms, "bytes": moved}
        started = time.monotonic()
        try:
            with torch.no_grad():
                out = model(*inputs)
                torch.cuda.synchronize(device)
                row["max_abs"], row["max_rel"] = _errors(out, ref)
                if exact is not None:
                    row["abs64"], row["eager_abs64"] = _errors(out, exact)[0], eager_abs64
                del out
                m = measure(lambda: model(*inputs), device, warmup=3, runs=args.runs)
            row.update(ms=m.median_ms, x_eager=eager.median_ms / m.median_ms,
                       gbps=moved / m.median_ms / 1e6)
            text = (f"{row['ms']:.4f} ms  x{row['x_eager']:.2f} eager  {row['gbps']:.0f} GB/s  "
                    f"max abs {row['max_abs']:.2e} rel {row['max_rel']:.2e}"
                    + (f"  vs float64 {row['abs64']:.2e}" if "abs64" in row else ""))
        except Exception as e:  # a configuration the kernel rejects (registers, shared memory)
            row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
            text = row["error"]
        if args.kernels and "ms" in row:
            row["kernels"] = _kernel_rows(lambda: model(*inputs), device)
        row["wall_s"] = round(time.monotonic() - started, 2)
        rows.append(row)
        print(f"  {' '.join(f'{k}={v}' for k, v in config.items())}: {text}", flush=True)
        for k in row.get("kernels", []):
            print(f"      {k['time_us']:10.1f} us x{k['count']:g}  {k['name'][:100]}", flush=True)
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps(row) + "\n")
    timed = [r for r in rows if "ms" in r]
    if timed:
        best = min(timed, key=lambda r: r["ms"])
        print(f"best: {' '.join(f'{k}={v}' for k, v in best['config'].items())} "
              f"{best['ms']:.4f} ms x{best['x_eager']:.2f} eager ({best['gbps']:.0f} GB/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
