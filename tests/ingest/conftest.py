"""Fixtures for ingest tests: a copy of the fixture corpus, a counting embedder, task analysis."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


class CountingEmbedder:
    """The real embedder, counting how many texts it was asked to embed."""

    def __init__(self, inner):
        self.inner = inner
        self.calls = 0
        self.texts = 0

    def embed(self, texts):
        self.calls += 1
        self.texts += len(texts)
        return self.inner.embed(texts)

    def __getattr__(self, name):
        return getattr(self.inner, name)


@pytest.fixture
def counting(embedder):
    """A fresh counting wrapper around the session's real embedder."""
    return CountingEmbedder(embedder)


@pytest.fixture
def corpus(tmp_path) -> Path:
    """A writable copy of tests/ingest/fixtures/corpus (docs/ and kernels/) named ``corpus``."""
    dest = tmp_path / "corpus"
    shutil.copytree(FIXTURES / "corpus", dest)
    return dest


@pytest.fixture
def analyze():
    """The real task analysis, as ingest uses it by default."""
    from akg_rag.analysis import analyze_task

    return analyze_task
