"""Retrieval quality over the curated library: every seed task finds its own family first.

For every seed task, querying with the task itself and with a reworded variant of it (the same
computation written differently, tests/knowledge/variants/NAME.py) must return a kernel of the
same family at top-1, for each DSL/backend the library covers. Real ingestion, real Chroma, real
embedding model.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
KERNELS = REPO / "knowledge" / "kernels"
VARIANTS = Path(__file__).resolve().parent / "variants"
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
