"""Fixtures of the graph tests: fixture tasks, a seeded store, a scripted chat model, fast verify options.

Builds dominate these tests (a C++ extension takes tens of seconds the first time), so every test
answers with the same correct kernel text (``fixtures/softmax_cpp.py``), which the verifier's build
cache compiles once; the kernel that "does not compile" fails on a compiler flag, before any parsing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from pydantic import Field

FIXTURES = Path(__file__).parent / "fixtures"
SEED_TASK = FIXTURES / "softmax_seed_task.py"
TASK = FIXTURES / "softmax_task.py"
UNMATCHED_TASK = FIXTURES / "sort_task.py"      # no stored kernel, and the lowering makes none
NEVER_SEEN_TASK = FIXTURES / "sort_gelu_task.py"  # no stored kernel; the lowering makes a partial one
KERNELS = Path(__file__).resolve().parents[2] / "knowledge" / "kernels"
# The akg-rag command line, run as a subprocess with the interpreter running the tests.
CLI = [sys.executable, "-c", "import sys; from akg_rag.cli import main; sys.exit(main())"]
CORRECT_KERNEL = (FIXTURES / "softmax_cpp.py").read_text()

# The same kernel without the final division: compiles, runs, computes exp(x - max) -- wrong numbers.
WRONG_KERNEL = CORRECT_KERNEL.replace("for (int64_t c = 0; c < cols; ++c) yr[c] *= inv;", "(void)inv;") \
    .replace("akg_fixture_softmax_rows", "akg_fixture_softmax_wrong")
# The compiler rejects the flag before reading the source: a real compile error that costs < 1 s.
UNCOMPILABLE_KERNEL = CORRECT_KERNEL.replace('extra_cflags=["-O3", "-fopenmp"]',
                                             'extra_cflags=["-O3", "-fopenmp", "-mno-such-flag"]') \
    .replace("akg_fixture_softmax_rows", "akg_fixture_softmax_flag")


class ScriptedChatModel(FakeMessagesListChatModel):
    """A LangChain fake chat model that answers from a script and records every prompt it gets."""

    prompts: list[str] = Field(default_factory=list)

    def _generate(self, messages: list[Any], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> Any:
        if len(self.prompts) >= len(self.responses):
            raise AssertionError(f"the script has {len(self.responses)} answers; call {len(self.prompts) + 1} "
                                 f"was:\n{messages[-1].content[:400]}")
        self.prompts.append("\n".join(str(m.content) for m in messages))
        return super()._generate(messages, stop, run_manager, **kwargs)


def scripted(*answers: str) -> ScriptedChatModel:
    """A scripted model answering ``answers`` in order."""
    return ScriptedChatModel(responses=[AIMessage(content=a) for a in answers])


def as_code(code: str) -> str:
    """A chat answer holding ``code`` in a python fence, with some chatter around it."""
    return f"Here is the kernel.\n\n```python\n{code}\n```\nIt launches the C++ kernel for every call."


def as_sketch(text: str) -> str:
    """A chat answer holding ``text`` in a sketch fence."""
    return f"The design:\n```sketch\n{text.strip()}\n```\n"


@pytest.fixture(scope="session")
def valid_sketch() -> str:
    """A valid Unified Sketch for the task (the deterministic designer's, printed)."""
    from akg_rag.analysis import analyze_task
    from akg_rag.sketch import derive_sketch, print_sketch

    return print_sketch(derive_sketch(analyze_task(TASK)))


def seed_record(embedder_unused: Any = None) -> Any:
    """The fixture kernel as a knowledge-base record (origin=seed), built from its task's analysis."""
    from akg_rag.analysis import analyze_task
    from akg_rag.records import KernelRecord, KernelSidecar

    sidecar = KernelSidecar(dsl="cpp", backend="cpu", arch="x86_64",
                            description="row-wise softmax, OpenMP over rows", tunables={"ROW_CHUNK": 2})
    return KernelRecord.build(sidecar, CORRECT_KERNEL, analyze_task(SEED_TASK), source="fixtures/softmax_cpp.py")


def seed(store: Any, embedder: Any) -> str:
    """Add the fixture kernel to ``store``; return its id."""
    from akg_rag.records import add_kernel

    record = seed_record()
    add_kernel(store, embedder, record)
    return record.id


def library_record(name: str) -> Any:
    """The knowledge base's seed kernel ``name`` (its cpp/cpu candidate) as a ``KernelRecord``."""
    from akg_rag.analysis import analyze_task
    from akg_rag.records import KernelRecord, KernelSidecar

    code = (KERNELS / name / "cpp_cpu.py").read_text()
    return KernelRecord.build(KernelSidecar(dsl="cpp", backend="cpu", arch="x86_64", description=name),
                              code, analyze_task(KERNELS / name / "task.py"), source=f"kernels/{name}/cpp_cpu.py")


def seed_library_kernel(store: Any, embedder: Any, name: str) -> str:
    """Add the seed kernel ``name`` to ``store``; return its id."""
    from akg_rag.records import add_kernel

    record = library_record(name)
    add_kernel(store, embedder, record)
    return record.id


def hit_of(record: Any) -> dict[str, Any]:
    """A kernel record as the retrieve node hands it to the coder (through a real ``KernelHit``)."""
    from akg_rag.graph.retrieve import kernel_hit_to_dict
    from akg_rag.records import from_chroma_metadata
    from akg_rag.retrieval.results import KernelHit

    meta = from_chroma_metadata(record.metadata)
    hit = KernelHit(id=record.id, op_name=meta["op_name"], op_type=meta["op_type"], dsl=meta["dsl"],
                    backend=meta["backend"], semantic_score=1.0, shape_score=1.0, score=1.0,
                    metadata={k: v for k, v in meta.items() if k != "code"}, code=record.code)
    return kernel_hit_to_dict(hit)


@pytest.fixture
def seeded_store(ephemeral_store, embedder):
    """An in-memory store holding the fixture softmax kernel."""
    seed(ephemeral_store, embedder)
    return ephemeral_store


@pytest.fixture(scope="session")
def fast_options():
    """Verify options that keep a verification to seconds: two trials, short timing, no compile baseline."""
    from akg_rag.verify import VerifyOptions

    return VerifyOptions(trials=2, timing_budget_s=0.2, warmup=1, compile_baseline=False, timeout_s=300)


def cli_env() -> dict[str, str]:
    """The environment of a command talking to the replay server: no API key (the placeholder is
    used), no proxy for loopback, this checkout on the path."""
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    return {**env, "HF_HUB_OFFLINE": "1", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
            "PYTHONPATH": str(Path(__file__).resolve().parents[2])}


@pytest.fixture
def replay():
    """Start an OpenAI-compatible replay server (``openai_server.py``) with the answers given; stop it
    after the test."""
    from .openai_server import start

    servers = []

    def make(*answers: Any):
        servers.append(start(list(answers)))
        return servers[-1]

    yield make
    for s in servers:
        s.stop()
