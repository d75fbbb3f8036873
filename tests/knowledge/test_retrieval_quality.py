"""Retrieval quality over the curated library, measured three ways, each reported on its own.

* self-queries: every seed task finds its own family first (the query text is the stored text);
* canonicalisation: tests/knowledge/variants/NAME.py writes each seed's computation another way.
  Most of them analyse to the very same computation text as the seed, so they test that task
  analysis sees through the rewording, not retrieval; they must still come back top-1;
* retrieval: tests/knowledge/rewritten/FAMILY__FORM.py are hand-written forms with other names,
  shapes and ranks whose computation text differs from the seed's (checked), so the query embeds
  text the store does not hold. Their top-1 precision is measured per target against a floor.

Real ingestion, real Chroma, real embedding model, for each DSL/backend the library covers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
KERNELS = REPO / "knowledge" / "kernels"
VARIANTS = Path(__file__).resolve().parent / "variants"
REWRITTEN = sorted((Path(__file__).resolve().parent / "rewritten").glob("*.py"))
# Written out by hand, these four retrieved hinge loss, bmm or tanh first before task analysis
# recognised them; each must now find its family first.
HAND_WRITTEN = ("layer_norm__mean_var", "scaled_dot_product_attention__matmul_softmax",
                "mse_loss__sub_square_mean", "gelu__tanh_formula")
# Measured: 13 of 15 rewritten forms at top-1 on both targets (misses: cross-entropy written with
# gather, Huber loss written with where). The floor leaves room for one more miss, no more.
PRECISION_FLOOR = 0.8
TARGETS = (("triton", "cuda"), ("cpp", "cpu"))
FAMILIES = sorted(p.name for p in KERNELS.iterdir() if (p / "task.py").is_file())


@pytest.fixture(scope="module")
def library(tmp_path_factory, embedder):
    """The whole knowledge/ tree ingested into a fresh persistent store, and a retriever over it."""
    from akg_rag.retrieval.pipeline import Retriever
    from akg_rag.store import make_store
    from ingest.runner import ingest

    store = make_store(data_dir=tmp_path_factory.mktemp("library"))
    report = ingest([REPO / "knowledge"], store, embedder)
    return report, Retriever(store, embedder)


def _family(hit) -> str:
    return Path(hit.metadata["source"]).parent.name


def test_the_curated_library_ingests_without_rejection(library):
    report, _ = library
    assert not report.rejected, "\n".join(f"{r.path}: {r.reason}" for r in report.rejected)
    assert len(report.added) >= 2 * len(FAMILIES)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("dsl,backend", TARGETS)
def test_a_seed_task_retrieves_its_own_family_first(library, family, dsl, backend):
    _, retriever = library
    result = retriever.search_task(KERNELS / family / "task.py", dsl=dsl, backend=backend, k=3)
    assert result.hits, f"no {dsl}/{backend} hit for {family}"
    assert all((h.dsl, h.backend) == (dsl, backend) for h in result.hits)
    assert _family(result.hits[0]) == family, result.explain()


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("dsl,backend", TARGETS)
def test_a_reworded_task_retrieves_the_same_family_first(library, family, dsl, backend):
    variant = VARIANTS / f"{family}.py"
    if not variant.is_file():
        pytest.fail(f"no reworded variant {variant.relative_to(REPO)} for seed family {family}")
    _, retriever = library
    result = retriever.search_task(variant, dsl=dsl, backend=backend, k=3)
    assert result.hits, f"no {dsl}/{backend} hit for the variant of {family}"
    assert _family(result.hits[0]) == family, result.explain()


def _family_of(path: Path) -> str:
    return path.stem.split("__")[0]


def test_rewritten_forms_have_their_own_computation_text():
    from akg_rag.analysis import analyze_task

    assert len(REWRITTEN) >= 15 and {p.stem for p in REWRITTEN} >= set(HAND_WRITTEN)
    for path in REWRITTEN:
        family = _family_of(path)
        assert family in FAMILIES, f"{path.name}: no seed family {family}"
        seed_text = analyze_task(KERNELS / family / "task.py").computation
        assert analyze_task(path).computation != seed_text, f"{path.name} analyses to the seed's text"


@pytest.mark.parametrize("dsl,backend", TARGETS)
def test_precision_on_rewritten_forms(library, dsl, backend):
    _, retriever = library
    top1 = {}
    for path in REWRITTEN:
        hits = retriever.search_task(path, dsl=dsl, backend=backend, k=3).hits
        top1[path.stem] = _family(hits[0]) if hits else None
    correct = [stem for stem, got in top1.items() if got == stem.split("__")[0]]
    precision = len(correct) / len(top1)
    misses = {stem: got for stem, got in top1.items() if stem not in correct}
    print(f"{dsl}/{backend}: rewritten-form precision@1 {len(correct)}/{len(top1)} = {precision:.2f}; misses {misses}")
    assert all(top1[stem] == _family_of(Path(stem)) for stem in HAND_WRITTEN), misses
    assert precision >= PRECISION_FLOOR, misses
