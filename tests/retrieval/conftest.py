"""Shared fixtures for the retrieval tests: a real embedder, real (in-memory) Chroma stores, and
generators of kernel records that follow the store's flat metadata contract."""

from __future__ import annotations

import json
import os
import random
from typing import Any

import numpy as np
import pytest

from akg_rag.dsl import TARGETS
from akg_rag.optypes import OP_TYPES, sort_op_types

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def embedder():
    """The project's real embedding model, loaded once per test session."""
    from akg_rag.embedding import make_embedder

    return make_embedder()


@pytest.fixture
def store():
    """A fresh in-memory knowledge store (real Chroma), isolated from every other test."""
    from akg_rag.store import make_store

    return make_store(ephemeral=True)


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

