"""akg-rag: turn a PyTorch reference program into a verified, fast kernel.

The package is layered (see docs/architecture.md):

1. kernel core  -- ``task``, ``analysis``, ``sketch``, ``verify``: torch and triton only;
2. knowledge    -- ``embedding``, ``store``, ``records``, ``retrieval``: adds chromadb,
   sentence-transformers and markdown-it-py;
3. agents       -- ``graph``: adds langgraph and langchain-core.

Importing ``akg_rag`` itself imports nothing heavy, so ``python -m akg_rag.verify`` runs on a
machine that has only torch and triton.
"""

__version__ = "0.1.0"
