"""What a plain device-to-device copy reaches under the verifier's own timing, per size.

The memory-bound target is a fraction of the copy rate that ``benchmarks/hw_probe.py`` measures on
4 GB with nothing before each run. A candidate is timed differently: a 256 MB buffer is rewritten
before every run (``akg_rag.verify.timing``), which leaves L2 full of dirty lines, and its working
set may be a few hundred MB. This times ``dst.copy_(src)`` at several sizes both ways, so a row's
fraction of the copy can be read against what a copy itself reaches at that size and timing.

    PYTHONPATH=. python benchmarks/probes/copy_ceiling.py [--json OUT.jsonl]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hw_probe import _median_ms  # noqa: E402  (the copy rate's own method: CUDA events, no flush)

SIZES_MB = (64, 128, 256, 512, 1024, 2048, 4096)


def main(argv: list[str] | None = None) -> int:
    import torch

    from akg_rag.verify.timing import measure

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="append one JSON line per size")
    args = ap.parse_args(argv)
    dev = torch.device("cuda")
    print(f"{torch.cuda.get_device_name(dev)}; GB/s count bytes read plus written")
    print(f"{'MB copied':>10} {'bare ms':>9} {'GB/s':>7} {'verifier ms':>12} {'GB/s':>7}")
    for mb in SIZES_MB:
        src = torch.empty(mb * 2**20 // 4, dtype=torch.float32, device=dev).uniform_()
        dst = torch.empty_like(src)
        bare = _median_ms(lambda: dst.copy_(src))
        timed = measure(lambda: dst.copy_(src), dev, runs=20).median_ms
        moved = 2 * mb * 2**20
        row = {"device": torch.cuda.get_device_name(dev), "mb": mb, "bare_ms": bare,
               "bare_gbps": moved / bare / 1e6, "verifier_ms": timed, "verifier_gbps": moved / timed / 1e6}
        print(f"{mb:>10} {bare:>9.4f} {row['bare_gbps']:>7.0f} {timed:>12.4f} {row['verifier_gbps']:>7.0f}")
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps(row) + "\n")
        src = dst = None
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
