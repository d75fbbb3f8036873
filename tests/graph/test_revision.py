"""The chat designer's sketch path without a verifier: answers sorted by kernel, revisions checked by
lowering them (named errors), the designer node's update and the coder lowering the accepted
sketches with no model call. Nothing is built here (the C++ build is the verifier's)."""

from __future__ import annotations

from types import SimpleNamespace

from akg_rag.analysis import analyze_task
from akg_rag.graph.coder import coder
from akg_rag.graph.context import Context
from akg_rag.graph.designer import designer
from akg_rag.graph.extract import plan_sketches
from akg_rag.graph.lowering import DESIGNED, plan_text
from akg_rag.graph.revision import check_revisions
from akg_rag.graph.routing import decide

from .conftest import TASK, scripted
from .sketches import as_kernel_sketch, plan_tensors, row_softmax

UNDECLARED = row_softmax("div(e, total)")  # 'total' is no name of the sketch: line 13


def start_state(**extra) -> dict:
    return {"task_path": str(TASK), "dsl": "cpp", "backend": "cpu", "phase": "functional",
            "analysis": analyze_task(TASK).to_dict(), "kernel_hits": [], "doc_hits": [], **extra}


def run(node, state: dict, ctx: Context) -> dict:
    return node(state, SimpleNamespace(context=ctx))


def test_answers_are_sorted_by_kernel():
    answer = ("```sketch k0\nsketch a {\n}\n```\n"          # the fence's tag names the kernel
              "```sketch\nsketch k1 {\n}\n```\n"            # else the sketch's own header
              "```sketch k9\nsketch b {\n}\n```\n"          # a tag that is no kernel of the plan
              "```sketch\nsketch free {\n}\n```\n"          # a design naming no kernel
              "```python\nprint(1)\n```")
    got = plan_sketches(answer, ["k0", "k1"])
    assert got.kernels == {"k0": "sketch a {\n}\n", "k1": "sketch k1 {\n}\n"}
    assert got.unknown == ["k9"] and got.free == ["sketch free {\n}\n"]
    assert plan_sketches("sketch k0 {\n}", ["k0"]).kernels == {"k0": "sketch k0 {\n}\n"}


def test_revisions_that_lower_are_accepted_and_the_others_named():
    good, renamed = row_softmax(), row_softmax(out_name="probs")
    checked = check_revisions(str(TASK), "cpp", "cpu", None, {}, {"k0": good})
    assert checked.accepted == {"k0": good} and checked.new == ["k0"] and not checked.errors

    # Validates, but declares a tensor the region does not have: the lowering's error, named.
    [error] = check_revisions(str(TASK), "cpp", "cpu", None, {}, {"k0": renamed}).errors
    assert error["kernel"] == "k0" and "probs" in error["message"] and "declares tensors" in error["message"]
    # Does not validate: the validator's position comes back.
    failed = check_revisions(str(TASK), "cpp", "cpu", None, {"k0": good}, {"k0": UNDECLARED})
    assert failed.accepted == {"k0": good}  # the earlier revision stays
    [error] = failed.errors
    assert (error["line"], error["message"]) == (13, "undeclared name 'total'")


def test_designer_revises_the_plan_and_coder_lowers_it_without_a_model_call():
    model = scripted(as_kernel_sketch("k0", row_softmax()))
    ctx = Context(chat_model=model)
    update = run(designer, start_state(), ctx)

    [prompt] = model.prompts
    x, y = plan_tensors()
    assert "```sketch k0\nsketch k0 {" in prompt and f"{x}[D0, D1]: f32 in" in prompt  # the emitted sketch
    assert "What the lowering accepts" in prompt and "names, order, in/out" in prompt   # the rules
    assert update["implement"] == "lower" and update["sketch_error"] is None
    assert update["revisions"] == {"k0": row_softmax()}
    assert [p["revised"] for p in update["plan"]] == [True] and update["sketch"] == plan_text(update["plan"])
    assert "revised k0" in update["events"][0]["detail"]
    assert decide({**start_state(), **update, "designer_rounds": 1}, ctx).route == "coder"

    # The coder lowers the revised sketch: no prompt (the script has no answer left for one).
    done = run(coder, {**start_state(), **update}, ctx)
    assert len(model.prompts) == 1
    assert done["coder_outcome"] == "code" and done["candidate_origin"] == DESIGNED
    assert "softmax_by_row" in done["candidate"]  # the C++ names the sketch it came from
    assert done["lowering"]["kernels"][0]["sketch"] == row_softmax()
    assert "lowered from the designer's sketches for k0, no code written" in done["coder_note"]


def test_a_failed_revision_goes_back_named_while_the_plan_keeps_the_emitted_sketch():
    model = scripted(as_kernel_sketch("k0", UNDECLARED) + "\n```sketch k4\nsketch k4 {\n}\n```")
    ctx = Context(chat_model=model, max_designer_rounds=2)
    update = run(designer, start_state(), ctx)

    error = update["sketch_error"]
    assert error["kernels"] == ["k0", "k4"] and error["line"] == 13
    assert "the sketch for k0 (line 13, column 18): undeclared name 'total'" in error["message"]
    assert "no kernel named k4 (kernels: k0)" in error["message"]
    assert update["revisions"] == {} and update["plan"][0]["revised"] is False
    assert "sketch k0 {" in update["sketch"]  # the emitted sketch, used meanwhile

    state = {**start_state(), **update, "designer_rounds": 1}
    d = decide(state, ctx)
    assert d.route == "designer" and d.feedback["kind"] == "sketch_error"
    assert "undeclared name 'total'" in d.feedback["text"] and "the sketch for k0" in d.feedback["text"]
    # With no round left, the plan as it stands (the emitted sketch) is lowered.
    d = decide({**state, "designer_rounds": 2}, ctx)
    assert d.route == "coder" and d.updates["implement"] == "lower" and d.updates["sketch_error"] is None


def test_a_sketch_naming_no_kernel_is_written_as_code_by_the_coder_model():
    from .conftest import as_sketch

    free = row_softmax().replace("softmax_by_row", "my_design")
    model = scripted(as_sketch(free))
    update = run(designer, start_state(), Context(chat_model=model))
    assert update["implement"] == "code" and update["sketch"] == free and update["sketch_error"] is None
    assert update["plan"][0]["name"] == "k0"  # kept: lowered if the design never validates
