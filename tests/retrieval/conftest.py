"""Fixtures for the retrieval tests: generators of kernel records that follow the store's flat
metadata contract, and a tiny knowledge tree ingested into a real persistent store.

The real embedder (``embedder``) and in-memory stores (``ephemeral_store``) come from tests/conftest.py.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest

from akg_rag.dsl import TARGETS
from akg_rag.optypes import OP_TYPES, sort_op_types


def kernel_metadata(
    op_name: str, op_types: list[str], dsl: str, backend: str, computation: str,
    shapes: list[list[int]] | None, code: str = "",
) -> dict[str, Any]:
    """Flat metadata of a kernel record as the store contract lays it out."""
    types = sort_op_types(op_types)
    meta: dict[str, Any] = {
        "op_name": op_name,
        "op_type": types[0],
        "op_types": ",".join(types),
        "dsl": dsl,
        "backend": backend,
        "computation": computation,
        "code": code or f"# {dsl}/{backend} kernel for {op_name}",
        "origin": "seed",
    }
    if shapes is not None:
        meta["shapes"] = json.dumps(shapes)
    for t in types:
        meta[f"type_{t}"] = True
    return meta


def random_records(n: int, dim: int, seed: int) -> tuple[list[str], np.ndarray, list[dict[str, Any]]]:
    """``n`` records with random unit embeddings and a realistic mix of targets, types and shapes.

    Every tenth record duplicates an earlier embedding under another target, so exact score ties
    across partitions occur and the id tie-break is exercised.
    """
    rng = np.random.default_rng(seed)
    pyr = random.Random(seed)
    emb = rng.standard_normal((n, dim)).astype(np.float32)
    for i in range(10, n, 10):
        emb[i] = emb[i - 7]
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    ids, metas = [], []
    for i in range(n):
        dsl, backend = TARGETS[pyr.randrange(len(TARGETS))]
        types = pyr.sample(OP_TYPES, pyr.choice((1, 1, 2, 3)))
        rank = pyr.choice((1, 2, 3))
        shapes = [[pyr.choice((-1, 7, 64, 128, 1000, 4096)) for _ in range(rank)] for _ in range(pyr.choice((1, 2)))]
        ids.append(f"kernel:{dsl}:{backend}:op{i}:{i:016x}:{pyr.getrandbits(32):08x}")
        metas.append(kernel_metadata(f"op{i}", types, dsl, backend, f"computation {i}", shapes))
    return ids, emb, metas


def add_records(store: Any, ids: list[str], emb: np.ndarray, metas: list[dict[str, Any]]) -> None:
    """Upsert records into the store's ``kernels`` collection (document = computation text)."""
    store.upsert("kernels", ids, emb, [m["computation"] for m in metas], metas)



# --- a tiny knowledge tree, ingested for the end-to-end tests ------------------------------------

TASK_TEMPLATE = '''"""{doc}"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, {args}):
        return {expr}


def get_inputs():
    return [{inputs}]


def get_init_inputs():
    return []
'''

# name -> (docstring, forward args, forward expression, input shapes)
FIXTURE_TASKS: dict[str, tuple[str, str, str, list[list[int]]]] = {
    "softmax": ("Row softmax.", "x", "torch.softmax(x, dim=-1)", [[64, 4096]]),
    "softmax_small": ("Row softmax on short rows.", "x", "torch.softmax(x, dim=-1)", [[8, 100]]),
    "log_softmax": ("Row log-softmax.", "x", "torch.log_softmax(x, dim=-1)", [[64, 4096]]),
    "relu": ("ReLU.", "x", "torch.relu(x)", [[64, 4096]]),
    "layer_norm": ("Layer norm without affine.", "x", "torch.nn.functional.layer_norm(x, x.shape[-1:])", [[64, 4096]]),
    "matmul": ("Matrix product.", "a, b", "a @ b", [[512, 512], [512, 512]]),
}
# name -> targets with a candidate
FIXTURE_TARGETS: dict[str, tuple[str, ...]] = {
    "softmax": ("triton_cuda", "cpp_cpu", "cuda_c_cuda"),
    "softmax_small": ("triton_cuda",),
    "log_softmax": ("triton_cuda", "cpp_cpu"),
    "relu": ("triton_cuda", "cpp_cpu"),
    "layer_norm": ("triton_cuda",),
    "matmul": ("triton_cuda", "cpp_cpu"),
}
FIXTURE_DOCS: dict[str, str] = {
    "docs/triton/reductions.md": "# Reductions in Triton\n\n## Row softmax\n\nLoad a row into a block, "
    "take tl.max, subtract, exponentiate, divide by tl.sum. One program per row.\n",
    "docs/cpp/openmp.md": "# OpenMP loops in C++ kernels\n\n## Parallel rows\n\nUse #pragma omp parallel for "
    "over rows of a softmax or a norm; vectorise the inner loop.\n",
    "docs/hardware/h100.md": "# NVIDIA H100\n\n## Memory\n\nHBM3 at 3.35 TB/s, 50 MB L2, 228 KB shared memory "
    "per SM; a row softmax is bandwidth bound.\n",
    "docs/hardware/x86_64.md": "# x86-64 CPUs\n\n## Vector units\n\nAVX-512 registers hold 16 floats; keep rows "
    "in L1 and L2 for softmax and norms.\n",
}


def task_source(name: str, shapes: list[list[int]] | None = None) -> str:
    """Source of the fixture task ``name`` (optionally with other input shapes)."""
    doc, args, expr, default = FIXTURE_TASKS[name]
    inputs = ", ".join(f"torch.randn({', '.join(map(str, s))})" for s in (shapes or default))
    return TASK_TEMPLATE.format(doc=doc, args=args, expr=expr, inputs=inputs)


def write_knowledge(root) -> None:
    """Write the fixture kernel folders and docs under ``root`` (a pathlib.Path)."""
    for name, targets in FIXTURE_TARGETS.items():
        folder = root / "kernels" / name
        folder.mkdir(parents=True)
        (folder / "task.py").write_text(task_source(name))
        for stem in targets:
            dsl, backend = {"triton_cuda": ("triton", "cuda"), "cpp_cpu": ("cpp", "cpu"),
                            "cuda_c_cuda": ("cuda_c", "cuda")}[stem]
            (folder / f"{stem}.py").write_text(
                f"# {name} for {dsl}/{backend}\nimport torch\n\n\nclass ModelNew(torch.nn.Module):\n"
                f"    def forward(self, *xs):\n        return xs[0]  # {stem}\n")
            arch = {"cuda": "sm_90", "cpu": "x86_64"}[backend]
            (folder / f"{stem}.json").write_text(json.dumps(
                {"dsl": dsl, "backend": backend, "arch": arch, "description": f"{name} fixture",
                 "measured": {"speedup_eager": 1.5}}))
    for rel, text in FIXTURE_DOCS.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture(scope="session")
def knowledge_dir(tmp_path_factory, embedder):
    """A persistent store directory holding the ingested fixture knowledge tree."""
    from akg_rag.store import make_store
    from ingest.runner import ingest

    base = tmp_path_factory.mktemp("kb")
    root = base / "knowledge"
    write_knowledge(root)
    data = base / "data"
    report = ingest([root], make_store(data_dir=data), embedder)
    assert not report.rejected, report.rejected
    return data
