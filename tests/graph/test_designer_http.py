"""The designer's sketch path over a real HTTP client: ``akg-rag generate --llm openai:MODEL --base-url``
against the loopback replay server, with the real lowering, C++ build, verifier and store.

The recorded designer answers revise the plan's one kernel (k0 of the fixture softmax) to one row
per program; no answer holds code, so every candidate is the lowering's. Every valid revision is
the same text, so the verifier's build cache compiles it once for the three tests.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from .conftest import CLI, TASK, cli_env, seed
from .openai_server import Answer
from .sketches import as_kernel_sketch, row_softmax

pytest.importorskip("langchain_openai", reason="needs langchain-openai: pip install 'akg-rag[openai]'")

DESIGN = "Design the kernels"  # the designer's prompt with a plan


def generate(tmp_path, server, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    """Run ``akg-rag generate`` on the fixture task against ``server``; the JSON report (or {})."""
    result = subprocess.run(
        [*CLI, "generate", str(TASK), "--dsl", "cpp", "--backend", "cpu", "--llm", "openai:replay-designer",
         "--base-url", server.url, "--out", str(tmp_path / "run"), "--max-opt-passes", "0", "--trials", "2",
         "--no-compile-baseline", "--json", *extra],
        capture_output=True, text=True, timeout=900, env=cli_env())
    report = json.loads(result.stdout) if result.stdout.strip().startswith("{") else {}
    return result, report


def nodes(report: dict, node: str) -> list[dict]:
    return [e for e in report["events"] if e["node"] == node]


@pytest.mark.slow
def test_a_revised_sketch_is_lowered_verified_and_stored(tmp_path, embedder, replay):
    from akg_rag.store import make_store

    data = tmp_path / "store"
    seed(make_store(data_dir=data), embedder)
    server = replay(Answer(as_kernel_sketch("k0", row_softmax()), match=DESIGN))
    result, report = generate(tmp_path, server, "--data-dir", str(data))

    assert result.returncode == 0, result.stderr[-3000:]
    assert report["status"] == "verified"
    [attempt] = report["attempts"]
    assert (attempt["origin"], attempt["status"], attempt["revised"]) == ("designed", "correct", ["k0"])
    # One request, the designer's: it saw the plan's emitted sketch and the lowering's rules.
    [request] = server.requests
    assert "```sketch k0\nsketch k0 {" in request.prompt and "What the lowering accepts" in request.prompt
    assert "no code written" in nodes(report, "coder")[0]["detail"]
    # The kernel is the lowering of the revised sketch, and the record written back carries it.
    kernel = (tmp_path / "run" / "kernel.py").read_text()
    assert "the sketch 'softmax_by_row'" in kernel
    assert (tmp_path / "run" / "sketch.txt").read_text().strip() == row_softmax().strip()
    [written] = report["written_back"]
    stored = make_store(data_dir=data).get("kernels", written)
    assert stored.metadata["origin"] == "run" and "softmax_by_row" in stored.metadata["sketch"]


@pytest.mark.slow
def test_a_sketch_that_does_not_lower_goes_back_named_and_the_next_round_wins(tmp_path, replay):
    server = replay(Answer(as_kernel_sketch("k0", row_softmax(out_name="probs")), match=DESIGN),
                    Answer(as_kernel_sketch("k0", row_softmax()), match=DESIGN))
    result, report = generate(tmp_path, server, "--data-dir", str(tmp_path / "store"), "--no-write-back")

    assert result.returncode == 0, result.stderr[-3000:]
    assert [e["status"] for e in nodes(report, "designer")] == ["sketch_error", "ok"]
    # The lowering's complaint, named by kernel, reached the second designer request.
    first, second = server.requests
    assert "Feedback on your previous attempt" not in first.prompt
    assert "the sketch for k0" in second.prompt and "declares tensors" in second.prompt and "probs" in second.prompt
    [attempt] = report["attempts"]
    assert (attempt["origin"], attempt["status"]) == ("designed", "correct")
    assert report["best"]["origin"] == "designed" and report["designer_rounds"] == 2
    assert "the sketch 'softmax_by_row'" in (tmp_path / "run" / "kernel.py").read_text()


@pytest.mark.slow
def test_a_sketch_computing_something_else_is_rejected_and_never_stored(tmp_path, embedder, replay):
    from akg_rag.lower.assemble import lower_task
    from akg_rag.store import make_store

    data = tmp_path / "store"
    seed(make_store(data_dir=data), embedder)
    halved = row_softmax("div(e, mul(s, 2))")  # softmax / 2: validates, lowers, wrong numbers
    server = replay(Answer(as_kernel_sketch("k0", halved), match=DESIGN),
                    Answer(as_kernel_sketch("k0", row_softmax()), match=DESIGN))
    result, report = generate(tmp_path, server, "--data-dir", str(data))

    assert result.returncode == 0, result.stderr[-3000:]
    assert [(a["origin"], a["status"]) for a in report["attempts"]] == [("designed", "incorrect"),
                                                                       ("designed", "correct")]
    # The verifier's mismatch went back to the designer, whose next sketch was lowered instead.
    assert "failed verification" in server.requests[1].prompt and "incorrect" in server.requests[1].prompt
    wrong, _ = lower_task(TASK, "cpp", "cpu", sketches={"k0": halved})
    right, _ = lower_task(TASK, "cpp", "cpu", sketches={"k0": row_softmax()})
    assert (tmp_path / "run" / "kernel.py").read_text().strip() == right.strip()
    store = make_store(data_dir=data)
    [written] = report["written_back"]
    assert store.get("kernels", written).metadata["code"] == right
    assert wrong not in [item.metadata.get("code") for item in store.get_many("kernels")]
