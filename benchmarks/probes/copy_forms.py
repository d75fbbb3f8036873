"""Does a copy with element-wise (unvectorised) loads reach the copy rate, and with how many loads
in flight per thread?

The memory-bound rows that stay below 80% of the copy rate on an H200 run in the same time as on an
H100 (docs/results/kernelbench.md, twenty-sixth session), as if bound by loads in flight rather
than by HBM; several of them load element by element (odd row lengths, pooling taps at offsets that
are not 16-byte aligned). This times Triton copies of one buffer in three forms: aligned 16-byte
vector loads, element-wise loads (the source read one element off alignment, so no vector can be
proven), and element-wise loads issued ``P_UNROLL`` at a time per thread (more loads in flight),
at several tile sizes and warp counts, against ``torch``'s own copy.

    PYTHONPATH=. python benchmarks/probes/copy_forms.py [--mb 1024] [--json OUT.jsonl]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import triton
import triton.language as tl

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


@triton.jit
def _copy(src, dst, n, SHIFT: tl.constexpr, BLOCK: tl.constexpr, UNROLL: tl.constexpr):
    base = tl.program_id(0) * BLOCK * UNROLL
    for u in tl.static_range(UNROLL):
        offs = base + u * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(dst + offs, tl.load(src + SHIFT + offs, mask=m), mask=m)


def main(argv: list[str] | None = None) -> int:
    import torch

    from akg_rag.verify.timing import measure

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=1024, help="MB copied (read once, written once)")
    ap.add_argument("--json", help="append one JSON line per form")
    args = ap.parse_args(argv)
    dev = torch.device("cuda")
    n = args.mb * 2**20 // 4
    src = torch.empty(n + 64, dtype=torch.float32, device=dev).uniform_()
    dst = torch.empty(n, dtype=torch.float32, device=dev)
    name = torch.cuda.get_device_name(dev)
    moved = 2 * n * 4

    def row(form: str, ms: float, **kw) -> None:
        r = {"device": name, "mb": args.mb, "form": form, **kw, "ms": ms, "gbps": moved / ms / 1e6}
        print(f"{form:>8} {json.dumps(kw):>44} {ms:8.4f} ms {r['gbps']:7.0f} GB/s")
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps(r) + "\n")

    print(f"{name}; {args.mb} MB copied; GB/s count bytes read plus written")
    row("torch", measure(lambda: dst.copy_(src[:n]), dev, runs=20).median_ms)
    for shift, form in ((0, "vector"), (1, "scalar")):
        for block in (512, 1024, 2048, 4096):
            for warps in (4, 8):
                for unroll in (1, 4):
                    grid = (triton.cdiv(n, block * unroll),)

                    def run(shift=shift, block=block, warps=warps, unroll=unroll, grid=grid):
                        _copy[grid](src, dst, n, SHIFT=shift, BLOCK=block, UNROLL=unroll, num_warps=warps)

                    run()
                    if shift == 0:
                        assert torch.equal(dst, src[:n])
                    row(form, measure(run, dev, runs=20).median_ms, block=block, warps=warps, unroll=unroll)
    return 0


if __name__ == "__main__":
    sys.exit(main())
