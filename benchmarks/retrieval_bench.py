"""Benchmark of the three-stage kernel query against Chroma's own filtered query.

Synthetic kernel records (random unit embeddings of the model's width, a realistic mix of DSL/backend
pairs, op types, shapes and code sizes) are inserted into a persistent Chroma store in a temporary
directory, grown to each requested size in turn. At each size it measures:

* the cold load of the in-process index (first query after opening the store);
* p50/p95 of the whole three-stage query (index check, filter + semantic, shape, fetch) with
  dsl/backend/op-type filters and query shapes, excluding the query's own embedding (queries are
  vectors near stored records, made up front);
* Chroma's own HNSW query with the same filters as a ``where`` clause, and without a filter, plus the
  recall of the filtered HNSW top k against the exact answer.

Wall-clock and process CPU time are both reported: on a shared machine other jobs inflate the first.

Run:  python benchmarks/retrieval_bench.py --sizes 10000 100000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

# (dsl, backend) -> share of the records: most verified kernels are Triton on GPUs and C++ on CPUs.
TARGET_MIX = {("triton", "cuda"): 0.35, ("cpp", "cpu"): 0.25, ("cuda_c", "cuda"): 0.15,
              ("tilelang", "cuda"): 0.10, ("triton", "cpu"): 0.10, ("triton", "ascend"): 0.05}
# primary op type -> share; a third of the records also carry a second (fused) type.
TYPE_MIX = {"elementwise": 0.25, "reduction": 0.12, "normalization": 0.12, "softmax": 0.08,
            "matmul": 0.15, "conv": 0.08, "pooling": 0.05, "scan": 0.03, "loss": 0.05,
            "attention": 0.04, "indexing": 0.03}
DIM = 384  # all-MiniLM-L6-v2
CODE_BYTES = 1500  # a typical small candidate file


def make_records(start: int, n: int, rng: np.random.Generator) -> tuple[list[str], np.ndarray, list[dict[str, Any]]]:
    """Records ``start .. start + n``: ids, unit embeddings and flat metadata per the store contract."""
    from akg_rag.optypes import sort_op_types

    py = random.Random(int(rng.integers(1 << 31)))
    targets, t_w = list(TARGET_MIX), list(TARGET_MIX.values())
    types, ty_w = list(TYPE_MIX), list(TYPE_MIX.values())
    emb = rng.standard_normal((n, DIM)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    ids, metas = [], []
    filler = "x" * CODE_BYTES
    for i in range(start, start + n):
        dsl, backend = py.choices(targets, t_w)[0]
        op_types = {py.choices(types, ty_w)[0]}
        if py.random() < 1 / 3:
            op_types.add(py.choices(types, ty_w)[0])
        ordered = sort_op_types(op_types)
        rank = py.choice((1, 2, 2, 3, 4))
        shapes = [[py.choice((-1, 16, 100, 128, 1000, 1024, 4096, 16384)) for _ in range(rank)]
                  for _ in range(py.choice((1, 1, 2)))]
        meta: dict[str, Any] = {
            "op_name": f"op_{i}", "op_type": ordered[0], "op_types": ",".join(ordered),
            "dsl": dsl, "backend": backend, "arch": "sm_90" if backend == "cuda" else backend,
            "dtype": "float32", "shapes": json.dumps(shapes), "dynamic": -1 in sum(shapes, []),
            "computation": f"synthetic computation {i}", "sketch": "", "code": f"# kernel {i}\n{filler}",
            "origin": "run", "speedup_eager": round(py.uniform(0.5, 3.0), 3), "source": f"bench/{i}",
        }
        meta.update({f"type_{t}": True for t in ordered})
        ids.append(f"kernel:{dsl}:{backend}:op_{i}:{i:016x}:{i & 0xffffffff:08x}")
        metas.append(meta)
    return ids, emb, metas


def grow(store: Any, target: int, rng: np.random.Generator, batch: int = 5000) -> None:
    """Insert synthetic records until the ``kernels`` collection holds ``target`` of them."""
    from tqdm import tqdm

    have = store.count("kernels")
    if have > target:
        raise SystemExit(f"the store already holds {have} records, more than {target}; use another --data-dir")
    with tqdm(total=target, initial=have, desc="insert", unit="rec", file=sys.stderr) as bar:
        while have < target:
            n = min(batch, target - have)
            ids, emb, metas = make_records(have, n, rng)
            store.upsert("kernels", ids, emb, [m["computation"] for m in metas], metas)
            have += n
            bar.update(n)


def timed(fn: Any) -> tuple[Any, float, float]:
    """Call ``fn()``; return its result, wall-clock ms and process CPU ms (all threads).

    CPU time is reported beside wall time because a shared machine's other jobs inflate wall time.
    """
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, (time.perf_counter() - t) * 1000.0, (time.process_time() - c) * 1000.0


def percentiles(ms: list[float]) -> tuple[float, float]:
    """(p50, p95) of a list of milliseconds."""
    qs = statistics.quantiles(ms, n=20, method="inclusive")
    return statistics.median(ms), qs[18]


def make_queries(store: Any, n: int, rng: np.random.Generator) -> list[tuple[np.ndarray, Any]]:
    """``n`` (vector, Query) pairs: vectors near random stored records, filters from the record mix."""
    from akg_rag.retrieval import Query

    total = store.count("kernels")
    got = store.kernels.get(include=["embeddings", "metadatas"], limit=n, offset=int(rng.integers(0, max(1, total - n))))
    out = []
    for vec, meta in zip(got["embeddings"], got["metadatas"]):
        q = np.asarray(vec, dtype=np.float32) + 0.5 * rng.standard_normal(DIM).astype(np.float32) / np.sqrt(DIM)
        shapes = json.loads(meta["shapes"])
        out.append((q / np.linalg.norm(q), Query("bench", meta["dsl"], meta["backend"], meta["op_type"], shapes, k=5)))
    return out


def bench_size(store: Any, n_queries: int, rng: np.random.Generator) -> dict[str, Any]:
    """Every measurement at the store's current size."""
    from akg_rag.retrieval import KernelFilter, Retriever

    queries = make_queries(store, n_queries, rng)
    retriever = Retriever(store, embedder=None)  # queries are vectors: nothing is embedded
    t = time.perf_counter()
    retriever.kernel_index()
    cold_ms = (time.perf_counter() - t) * 1000.0
    for vec, q in queries[:5]:  # warm caches (BLAS threads, sqlite pages)
        retriever.search_vector(vec, q, docs=0)
    ours, ours_cpu, stage_ms, exact_top = [], [], {}, []
    for vec, q in queries:
        res, wall, cpu = timed(lambda: retriever.search_vector(vec, q, docs=0))
        ours.append(wall), ours_cpu.append(cpu)
        for s in res.stages:
            stage_ms.setdefault(s.name, []).append(s.ms)
        exact_top.append(retriever.kernel_index()[0].search(vec, KernelFilter(q.dsl, q.backend, q.op_type), q.k))
    col = store.kernels
    chroma_where, chroma_where_cpu, chroma_plain, recall = [], [], [], []
    for (vec, q), exact in zip(queries, exact_top):
        where = KernelFilter(q.dsl, q.backend, q.op_type).where()
        got, wall, cpu = timed(lambda: col.query(query_embeddings=[vec], n_results=q.k, where=where,
                                                 include=["metadatas"]))
        chroma_where.append(wall), chroma_where_cpu.append(cpu)
        want = {i for i, _ in exact}
        recall.append(len(want & set(got["ids"][0])) / max(1, len(want)))
        chroma_plain.append(timed(lambda: col.query(query_embeddings=[vec], n_results=q.k, include=["metadatas"]))[1])
    index = retriever.kernel_index()[0]
    return {
        "records": store.count("kernels"), "index_rows": index.rows(), "cold_load_ms": cold_ms,
        "ours": percentiles(ours), "ours_cpu": percentiles(ours_cpu),
        "stages_p50": {k: statistics.median(v) for k, v in stage_ms.items()},
        "chroma_where": percentiles(chroma_where), "chroma_where_cpu": percentiles(chroma_where_cpu),
        "chroma_plain": percentiles(chroma_plain), "chroma_where_recall": statistics.mean(recall),
        "load_avg": os.getloadavg()[0],
    }


def print_table(rows: list[dict[str, Any]]) -> None:
    """The results as a plain-text table: milliseconds, p50/p95, wall clock and CPU."""
    print(f"\n{'records':>8} {'cold load':>10} | {'3-stage wall p50/p95':>21} {'cpu p50':>8} | "
          f"{'chroma where p50/p95':>21} {'cpu p50':>8} {'recall@5':>8} | {'chroma plain p50':>16} | {'load':>5}")
    for r in rows:
        print(f"{r['records']:>8} {r['cold_load_ms']:>8.0f}ms | {r['ours'][0]:>9.2f} / {r['ours'][1]:>6.2f} ms "
              f"{r['ours_cpu'][0]:>6.2f}ms | {r['chroma_where'][0]:>9.2f} / {r['chroma_where'][1]:>6.1f} ms "
              f"{r['chroma_where_cpu'][0]:>6.2f}ms {r['chroma_where_recall']:>8.3f} | "
              f"{r['chroma_plain'][0]:>13.2f} ms | {r['load_avg']:>5.1f}")
    print("\nper-stage p50 of the three-stage query (ms):")
    for r in rows:
        print(f"  {r['records']:>8}: " + "  ".join(f"{k} {v:.2f}" for k, v in r["stages_p50"].items())
              + f"   (index rows: {r['index_rows']})")


def main(argv: list[str] | None = None) -> int:
    """Entry point: build the synthetic store size by size and print the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000], help="record counts, ascending")
    p.add_argument("--queries", type=int, default=200, help="timed queries per size (default 200)")
    p.add_argument("--data-dir", help="store directory to reuse (default: a fresh temporary one, removed after)")
    p.add_argument("--json", action="store_true", help="also print the results as JSON")
    args = p.parse_args(argv)

    from akg_rag.store import make_store

    tmp = None if args.data_dir else tempfile.mkdtemp(prefix="akg-retrieval-bench-")
    data_dir = Path(args.data_dir or tmp)
    rng = np.random.default_rng(0)
    rows = []
    try:
        for size in sorted(args.sizes):
            grow(make_store(data_dir=data_dir), size, rng)
            store = make_store(data_dir=data_dir)  # reopened: the index load below is cold
            rows.append(bench_size(store, args.queries, rng))
            print_table(rows[-1:])
        print_table(rows)
        if args.json:
            print(json.dumps(rows, indent=2))
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
