"""A second process for the concurrency tests: writes to (or resets) a knowledge store and exits.

``python tests/store/writer.py STORE write START N [ROUNDS]`` upserts ROUNDS batches of N kernel
records (ids ``r{START + i}``), each batch a separate write; ``reset`` empties the store first.
STORE is a data directory or an ``http://`` Chroma URL. Prints ``done`` when finished.
"""

from __future__ import annotations

import sys

import numpy as np

from akg_rag.store import make_store

DIM = 8  # embedding width of the test records


def records(start: int, n: int) -> tuple[list[str], np.ndarray, list[str], list[dict]]:
    """``n`` kernel records of one target with distinct random unit embeddings."""
    rng = np.random.default_rng(start)
    emb = rng.standard_normal((n, DIM)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    ids = [f"r{start + i}" for i in range(n)]
    metas = [{"op_name": f"op{start + i}", "op_type": "elementwise", "op_types": "elementwise",
              "type_elementwise": True, "dsl": "cpp", "backend": "cpu", "computation": f"c{start + i}",
              "code": "# kernel"} for i in range(n)]
    return ids, emb, [m["computation"] for m in metas], metas


def main(argv: list[str]) -> None:
    """Parse the arguments above and do the writes."""
    where, action = argv[0], argv[1]
    store = make_store(url=where) if where.startswith("http") else make_store(data_dir=where)
    if action == "reset":
        store.reset()
        action = "write"
    start, n = int(argv[2]), int(argv[3])
    rounds = int(argv[4]) if len(argv) > 4 else 1
    for r in range(rounds):
        store.upsert("kernels", *records(start + r * n, n))
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
