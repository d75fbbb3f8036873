"""The run context: services and budgets injected into every node at invoke time.

The context is not checkpointed: a resumed run gets a fresh one (rebuilt from the same settings), and
its services -- chat model, knowledge store, embedder, verify function -- are injected rather than
looked up, so that tests and other callers pass their own. A service left as ``None`` is built from the
string settings beside it (``llm``, ``data_dir``, ``chroma_url``) by :mod:`akg_rag.graph.services`;
that is what LangGraph's own tools get when they load the default graph from ``langgraph.json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(kw_only=True)
class Context:
    """Services, budgets and retrieval settings of one generation run."""

    # --- services (None: built from the settings below) ---------------------------------------
    chat_model: Any = field(default=None, metadata={"description": (
        "A LangChain BaseChatModel used by designer, coder and analyst. None with no `llm` "
        "setting selects the deterministic policies, which need no model.")})
    llm: str | None = field(default=None, metadata={"description": (
        "Chat model as 'provider:model' (openai, anthropic, ollama), used when chat_model is None.")})
    base_url: str | None = field(default=None, metadata={"description": (
        "Base URL of an OpenAI-compatible server (vLLM, ...) or of an Ollama server.")})
    store: Any = field(default=None, metadata={"description": (
        "The KnowledgeStore (Chroma) holding docs and kernels; None opens one from data_dir/chroma_url.")})
    embedder: Any = field(default=None, metadata={"description": (
        "The Embedder used for retrieval and write-back; None loads the packaged MiniLM model.")})
    data_dir: str | None = field(default=None, metadata={"description": (
        "Data directory of the embedded Chroma store (default: AKG_RAG_DATA_DIR or the XDG path).")})
    chroma_url: str | None = field(default=None, metadata={"description": (
        "URL of a Chroma server (http://host:port); overrides data_dir.")})
    verify_fn: Callable[..., Any] | None = field(default=None, metadata={"description": (
        "Function with akg_rag.verify.verify's signature; None uses it (a child process per candidate).")})
    verify_options: Any = field(default=None, metadata={"description": (
        "akg_rag.verify.VerifyOptions for every verification; None uses the defaults with `scale`.")})
    scale: str | None = field(default=None, metadata={"description": (
        "AKG_TASK_SCALE for the project's tasks: 'small' (CPU-sized shapes) or 'full'; None leaves it unset.")})
    tuning_store: str | None = field(default=None, metadata={"description": (
        "Tuning store file the lowering starts kernels from (akg_rag.lower.tuning_store); None: the "
        "default file (AKG_RAG_TUNING_STORE or the XDG path); '' reads none.")})

    # --- budgets ------------------------------------------------------------------------------
    max_iterations: int = field(default=8, metadata={"description": (
        "Coder attempts in the whole run (functional and optimisation); each is verified or fed back.")})
    max_opt_passes: int = field(default=2, metadata={"description": (
        "Optimisation passes after the first verified kernel (0: stop at the first correct one).")})
    max_designer_rounds: int = field(default=3, metadata={"description": (
        "Designer runs in the whole run, counting retries after a sketch error and redesigns.")})
    max_failures_per_sketch: int = field(default=2, metadata={"description": (
        "Consecutive failed attempts on one sketch before the designer is asked for a new one.")})
    max_wall_s: float = field(default=1800.0, metadata={"description": (
        "Wall-clock seconds spent in nodes before the run stops with the best kernel so far.")})
    min_gain: float = field(default=0.02, metadata={"description": (
        "Relative time improvement (0.02 = 2 %) an optimisation pass must reach to count as a gain.")})
    patience: int = field(default=1, metadata={"description": (
        "Optimisation passes in a row without gain after which optimisation stops.")})
    offline_profile: bool = field(default=False, metadata={"description": (
        "Triton on CUDA: the analyst also compiles the best kernel for sm_90 in the verifier's "
        "sandbox (akg_rag.lower.offline; no GPU needed, a few seconds) and reads registers, spills, "
        "resident programs and vectorised loads into its findings.")})

    # --- retrieval and prompts -----------------------------------------------------------------
    k_kernels: int = field(default=3, metadata={"description": "Kernels retrieved for the prompts."})
    k_docs: int = field(default=4, metadata={"description": "Document chunks retrieved for the prompts."})
    context_tokens: int = field(default=6000, metadata={"description": (
        "Token budget of the retrieved material in one prompt, counted as characters / 4.")})

    # --- write-back ----------------------------------------------------------------------------
    write_back: bool = field(default=True, metadata={"description": (
        "Add the final verified kernel to the kernels collection (origin=run, idempotent by id).")})
    run_id: str = field(default="", metadata={"description": (
        "Identifier of the run (the thread id); recorded as the written-back kernel's source.")})

    def __post_init__(self) -> None:
        from akg_rag.errors import ConfigError

        for name in ("max_iterations", "max_designer_rounds", "max_failures_per_sketch", "k_kernels"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1 (got {getattr(self, name)})")
        for name in ("max_opt_passes", "k_docs", "patience"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} must be >= 0 (got {getattr(self, name)})")
        if self.max_wall_s <= 0:
            raise ConfigError(f"max_wall_s must be > 0 seconds (got {self.max_wall_s})")
        if self.scale not in (None, "small", "full"):
            raise ConfigError(f"scale must be 'small' or 'full' (got {self.scale!r})")

    def recursion_limit(self) -> int:
        """A LangGraph recursion limit comfortably above the most steps the budgets allow.

        Each coder attempt costs at most four steps (coder, verifier, conductor, analyst), each
        designer round two (designer, conductor); retrieve and finish add two. Doubling that keeps
        the limit out of the way: the budgets end a run, never the limit.
        """
        steps = 4 * self.max_iterations + 2 * self.max_designer_rounds + 2 * self.max_opt_passes + 4
        return 2 * steps + 10
