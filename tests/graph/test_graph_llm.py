"""The real graph driven by a scripted chat model: real LangGraph, Chroma, embedder and C++ verifier.

The script answers with real kernels: one that does not compile, one that computes the wrong thing,
one that is correct. The tests follow the feedback each agent received and what was written back.
"""

from __future__ import annotations

from akg_rag.graph.context import Context
from akg_rag.graph.graph import generate
from akg_rag.retrieval.pipeline import Retriever

from .conftest import (
    CORRECT_KERNEL, TASK, UNCOMPILABLE_KERNEL, WRONG_KERNEL, as_code, as_sketch, scripted,
)

BAD_SKETCH = """\
sketch softmax_rows {
  symbols: M, N
  tensors: x[M, N]: f32 in; y[M, N]: f32 out

  for m in range(Q):
    row = alloc([N], f32, hint="input_cache")
    load(x[m, 0:N] -> row)
    store(row -> y[m, 0:N])
}
"""


def routes(state) -> list[str]:
    return [e["route"] for e in state["events"] if e["node"] == "conductor"]


def test_fix_compile_error_then_mismatch_then_verified(seeded_store, embedder, fast_options, valid_sketch):
    model = scripted(as_sketch(BAD_SKETCH), as_sketch(valid_sketch), as_code(UNCOMPILABLE_KERNEL),
                     as_code(WRONG_KERNEL), as_code(CORRECT_KERNEL))
    ctx = Context(chat_model=model, store=seeded_store, embedder=embedder, verify_options=fast_options,
                  max_opt_passes=0, max_failures_per_sketch=3, run_id="llm-test")
    state = generate(str(TASK), dsl="cpp", backend="cpu", context=ctx)

    # Route: sketch error back to the designer, then coder -> coder -> coder -> finish.
    assert routes(state) == ["designer", "coder", "coder", "coder", "finish"]
    assert [a["status"] for a in state["attempts"]] == ["compile_error", "incorrect", "correct"]
    assert state["status"] == "verified" and state["best"]["code"].strip() == CORRECT_KERNEL.strip()

    designer_retry, coder1, coder2, coder3 = model.prompts[1], model.prompts[2], model.prompts[3], model.prompts[4]
    # The SketchError's position reached the designer's second prompt.
    assert state["events"][1]["status"] == "sketch_error"
    assert "line 5, column 18: undeclared name 'Q'" in designer_retry
    assert "Feedback on your previous attempt" not in model.prompts[0]
    # The coder saw the validated sketch and retrieved kernel; no feedback the first time.
    assert valid_sketch.strip().splitlines()[0] in coder1 and "Feedback on your previous attempt" not in coder1
    assert state["attempts"][0]["kernel_ids"] == [h["id"] for h in state["kernel_hits"]]
    # The compiler excerpt reached the second coder prompt, the mismatch the third.
    assert "-mno-such-flag" in coder2 and "compile_error" in coder2
    first_line = state["attempts"][1]["feedback"].strip().splitlines()[0]
    assert first_line and first_line in coder3 and "incorrect" in coder3
    assert state["attempts"][1]["feedback_received"]["kind"] == "compile_error"
    assert state["attempts"][2]["feedback_received"]["kind"] == "incorrect"

    # Write-back: the next retrieval finds the kernel; a second identical run adds nothing.
    [written] = state["written_back"]
    hits = Retriever(seeded_store, embedder).search_task(str(TASK), dsl="cpp", backend="cpu",
                                                         op_type="softmax", k=5).hits
    assert written in [h.id for h in hits]
    stored = seeded_store.get("kernels", written)
    assert stored.metadata["origin"] == "run" and stored.metadata["speedup_eager"] > 0
    assert "ROW_CHUNK" in stored.metadata["tunables"]
    count = seeded_store.count("kernels")
    again = generate(str(TASK), dsl="cpp", backend="cpu", context=Context(
        chat_model=scripted(as_sketch(valid_sketch), as_code(CORRECT_KERNEL)), store=seeded_store,
        embedder=embedder, verify_options=fast_options, max_opt_passes=0, run_id="llm-test-2"))
    assert again["written_back"] == [written] and seeded_store.count("kernels") == count
    assert "already in the knowledge base" in again["events"][-1]["detail"]


def test_budget_exhaustion_ends_with_best_kernel(seeded_store, embedder, fast_options, valid_sketch):
    model = scripted(as_sketch(valid_sketch), as_code(CORRECT_KERNEL), "- try ROW_CHUNK = 4 for fewer handoffs",
                     as_code(UNCOMPILABLE_KERNEL), as_code(UNCOMPILABLE_KERNEL))
    ctx = Context(chat_model=model, store=seeded_store, embedder=embedder, verify_options=fast_options,
                  max_iterations=3, max_opt_passes=3, max_failures_per_sketch=3, write_back=False)
    state = generate(str(TASK), dsl="cpp", backend="cpu", context=ctx)

    assert state["status"] == "verified" and state["best"]["iteration"] == 1
    assert "iteration budget (3) used" in state["message"]
    assert [e["node"] for e in state["events"]][-1] == "finish"
    assert len(state["events"]) < ctx.recursion_limit()  # the budget ended it, far below the limit
    analyst_prompt, opt_prompt = model.prompts[2], model.prompts[3]
    assert "memory-bound" in analyst_prompt and "ROW_CHUNK=2" in analyst_prompt
    assert "Analyst recommendations" in opt_prompt and "try ROW_CHUNK = 4" in opt_prompt
    assert "Current best kernel" in opt_prompt
    assert state["written_back"] == []


def test_repeated_failures_send_the_designer_back(seeded_store, embedder, fast_options, valid_sketch):
    model = scripted(as_sketch(valid_sketch), as_code(UNCOMPILABLE_KERNEL), as_code(UNCOMPILABLE_KERNEL),
                     as_sketch(valid_sketch), as_code(CORRECT_KERNEL))
    ctx = Context(chat_model=model, store=seeded_store, embedder=embedder, verify_options=fast_options,
                  max_opt_passes=0, max_failures_per_sketch=2, write_back=False)
    state = generate(str(TASK), dsl="cpp", backend="cpu", context=ctx)
    assert routes(state) == ["coder", "coder", "designer", "coder", "finish"]
    assert "design a different one" in model.prompts[3] and "-mno-such-flag" in model.prompts[3]
    assert state["designer_rounds"] == 2 and state["status"] == "verified"
