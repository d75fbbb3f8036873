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


def _analysis_available() -> bool:
    try:
        from akg_rag.analysis import analyze_task  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture
def analyze():
    """Task analysis for kernel folders: the real one once it exists, else a small stand-in.

    The stand-in really loads the task (so import errors, a missing Model or a raising
    get_inputs() are caught as they would be) and derives the contract fields from a real forward
    pass on the task's inputs; its computation text is the task's docstring.
    """
    if _analysis_available():
        from akg_rag.analysis import analyze_task

        return analyze_task
    return standin_analyze


def standin_analyze(path, source):
    """A TaskAnalysis-shaped record from loading and running the task (see ``analyze``)."""
    from dataclasses import dataclass

    import torch

    from akg_rag.errors import TaskError
    from akg_rag.task import load_task, source_hash

    @dataclass
    class Spec:
        shape: tuple
        dtype: str

    @dataclass
    class Analysis:
        op_name: str
        op_type: str
        op_types: list
        computation: str
        inputs: list
        outputs: list
        input_sets: list
        dtype: str
        flops: int
        min_bytes: int
        aten_ops: list
        task_hash: str

    task = load_task(path, source)
    try:
        sets = task.input_sets()
        model = task.model_cls(*task.get_init_inputs())
        with torch.no_grad():
            out = model(*sets[0])
    except Exception as e:  # noqa: BLE001 - mirrors the real analysis turning user errors into TaskError
        raise TaskError(path, f"running the task raised {type(e).__name__}: {e}") from None
    outs = out if isinstance(out, (tuple, list)) else [out]
    spec = lambda t: Spec(tuple(t.shape), str(t.dtype).removeprefix("torch."))  # noqa: E731
    inputs = [spec(t) for t in sets[0]]
    name = Path(path).parent.name
    op_type = "softmax" if "softmax" in name else "elementwise"
    return Analysis(
        op_name=name,
        op_type=op_type,
        op_types=[op_type],
        computation=(task.module.__doc__ or name).strip(),
        inputs=inputs,
        outputs=[spec(t) for t in outs],
        input_sets=[[spec(t) for t in s] for s in sets],
        dtype=inputs[0].dtype,
        flops=sum(t.numel() for t in sets[0]),
        min_bytes=4 * (sum(t.numel() for t in sets[0]) + sum(t.numel() for t in outs)),
        aten_ops=[],
        task_hash=source_hash(source),
    )
