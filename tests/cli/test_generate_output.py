"""``akg-rag generate`` output: one line per node, long messages once, a heartbeat in long nodes."""

from __future__ import annotations

import io
import time

from akg_rag.cli.generate import DETAIL_CHARS, _Heartbeat, _progress_line

LONG = "no verified cpp/cpu kernel in the knowledge base computes tanh; " + "configure a chat model " * 30


def update(node: str, detail: str, **extra) -> dict:
    return {"events": [{"node": node, "status": "x", "detail": detail, **extra}]}


def test_a_long_detail_is_clipped_and_not_repeated_on_later_lines():
    shown: list[str] = []
    first = _progress_line(4, "coder", update("coder", f"attempt 1 (functional): {LONG}"), shown)
    again = _progress_line(5, "conductor", update("conductor", LONG, route="finish"), shown)
    last = _progress_line(6, "finish", update("finish", LONG), shown)
    assert first.endswith("...") and len(first) < DETAIL_CHARS + 60
    assert again.endswith("(as above)") and "-> finish" in again
    assert last.endswith("(as above)")


def test_distinct_and_short_details_are_all_shown():
    shown: list[str] = []
    a = _progress_line(1, "retrieve", update("retrieve", "softmax (softmax): 3 kernel(s)"), shown)
    b = _progress_line(2, "designer", update("designer", "round 1 (derived): 16-line sketch validated"), shown)
    c = _progress_line(3, "conductor", update("conductor", "sketch validated", route="coder"), shown)
    assert a.endswith("3 kernel(s)") and b.endswith("sketch validated") and c.endswith("sketch validated")


def test_heartbeat_reports_a_node_that_runs_long():
    out = io.StringIO()
    with _Heartbeat(out, period=0.05) as beat:
        beat.done("coder", {"coder_outcome": "code"})
        time.sleep(0.3)
    text = out.getvalue()
    assert "verifier (build, correctness trials, timing): still running after" in text
