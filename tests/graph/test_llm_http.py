"""A chat model over a real HTTP client: langchain-openai's ChatOpenAI against a loopback server.

The server (tests/graph/openai_server.py, stdlib only) speaks the OpenAI chat-completions protocol
and replays recorded answers that hold real kernels; the commands run as they would against vLLM:
``akg-rag generate --llm openai:MODEL --base-url URL`` drives the whole graph (real store, embedder
and C++ verifier), and ``akg-rag search --llm ...`` makes rewrites steered by the analyst.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .conftest import CLI, CORRECT_KERNEL, FIXTURES, TASK, UNCOMPILABLE_KERNEL, as_code, as_sketch, cli_env, seed
from .openai_server import Answer

pytest.importorskip("langchain_openai", reason="needs langchain-openai: pip install 'akg-rag[openai]'")

ROOT = Path(__file__).resolve().parents[2]
RELU_TASK = ROOT / "knowledge" / "kernels" / "relu" / "task.py"
RELU_SEED = ROOT / "knowledge" / "kernels" / "relu" / "triton_cuda.py"
REWRITTEN_RELU = (FIXTURES / "relu_two_blocks.py").read_text()


def test_generate_through_an_openai_compatible_server(tmp_path, embedder, valid_sketch, replay):
    from akg_rag.store import make_store

    data = tmp_path / "store"
    seed(make_store(data_dir=data), embedder)
    server = replay(Answer(as_sketch(valid_sketch), match="Design the kernel"),
                    Answer(as_code(UNCOMPILABLE_KERNEL), match="Write a cpp kernel"),
                    Answer(as_code(CORRECT_KERNEL), match="Write a cpp kernel"))
    out = tmp_path / "run"
    result = subprocess.run(
        [*CLI, "generate", str(TASK), "--dsl", "cpp", "--backend", "cpu", "--llm", "openai:replay-coder",
         "--base-url", server.url, "--data-dir", str(data), "--out", str(out), "--max-opt-passes", "0",
         "--trials", "2", "--no-compile-baseline", "--no-write-back", "--json"],
        capture_output=True, text=True, timeout=600, env=cli_env())
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout)
    assert report["status"] == "verified"
    assert [a["status"] for a in report["attempts"]] == ["compile_error", "correct"]
    assert (out / "kernel.py").read_text().strip() == CORRECT_KERNEL.strip()
    # Three real HTTP requests, in the graph's order, with the model name and the placeholder key.
    assert [r.answer for r in server.requests] == [0, 1, 2]
    assert {r.model for r in server.requests} == {"replay-coder"}
    assert all(r.headers.get("authorization") == "Bearer EMPTY" for r in server.requests)
    # The compiler's complaint went back to the model in the second coder prompt.
    assert "-mno-such-flag" in server.requests[2].prompt and "compile_error" in server.requests[2].prompt
    assert "-mno-such-flag" not in server.requests[1].prompt


def test_search_rewrites_steered_by_the_analyst(tmp_path, replay):
    advice = "- process two blocks per program (TILES = 2) so fewer programs launch"
    server = replay(Answer("Findings read.\n" + advice + "\n- select with tl.where", match="Write concrete recommendations"),
                    Answer(as_code(REWRITTEN_RELU), match="Write a triton kernel"))
    out = tmp_path / "search"
    result = subprocess.run(
        [*CLI, "search", str(RELU_TASK), str(RELU_SEED), "--dsl", "triton", "--backend", "cpu",
         "--scale", "small", "--islands", "1", "--population", "2", "--generations", "1", "--trials", "1",
         "--no-timing", "--llm", "openai:replay-analyst", "--base-url", server.url, "--rewrite-share", "1",
         "--json", "--out", str(out)],
        capture_output=True, text=True, timeout=600, env=cli_env())
    assert result.returncode == 0, result.stderr[-3000:]
    history = json.loads((out / "history.json").read_text())
    assert history["config"]["rewrite"] is True
    members = [m for gen in history["history"] for isl in gen["islands"] for m in isl["members"]]
    rewrites = [m for m in members if m["origin"] == "rewrite"]
    assert rewrites and all(m["status"] == "correct" for m in rewrites)
    assert rewrites[0]["tunables"].get("TILES") == 2  # the recorded rewrite, verified as a child
    # Each rewrite is an analyst call (told the parent's verdict) then a coder call (told the advice).
    analyst = [r for r in server.requests if "Write concrete recommendations" in r.prompt]
    coder = [r for r in server.requests if "Write a triton kernel" in r.prompt]
    assert analyst and len(analyst) == len(coder)
    assert "verdict: correct" in analyst[0].prompt and "BLOCK_SIZE" in analyst[0].prompt
    assert "TILES = 2" in coder[0].prompt and "relu_kernel" in coder[0].prompt
