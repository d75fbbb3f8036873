"""akg_rag.pysource.parse: the spurious SystemError of concurrent AST construction is retried, any
other error is not, and many threads parsing at once all get their trees."""

from __future__ import annotations

import ast
import threading

import pytest

from akg_rag import pysource


def test_the_recursion_depth_mismatch_is_retried(monkeypatch):
    calls = []
    real = ast.parse

    def flaky(source, filename="<unknown>"):
        calls.append(filename)
        if len(calls) < 3:
            raise SystemError("AST constructor recursion depth mismatch (before=27, after=22)")
        return real(source, filename=filename)

    monkeypatch.setattr(pysource.ast, "parse", flaky)
    tree = pysource.parse("x = 1\n", "cand.py")
    assert isinstance(tree.body[0], ast.Assign) and calls == ["cand.py"] * 3


def test_other_errors_are_not_retried(monkeypatch):
    calls = []

    def broken(source, filename="<unknown>"):
        calls.append(1)
        raise SystemError("something else")

    monkeypatch.setattr(pysource.ast, "parse", broken)
    with pytest.raises(SystemError, match="something else"):
        pysource.parse("x = 1\n")
    assert calls == [1]
    monkeypatch.undo()
    with pytest.raises(SyntaxError):
        pysource.parse("def (:\n")


def test_a_persistent_mismatch_is_raised_after_the_attempts(monkeypatch):
    def always(source, filename="<unknown>"):
        raise SystemError("AST constructor recursion depth mismatch (before=1, after=0)")

    monkeypatch.setattr(pysource.ast, "parse", always)
    with pytest.raises(SystemError):
        pysource.parse("x = 1\n")


def test_threads_parse_at_once():
    source = "\n".join(f"def f{i}(x):\n    return [y * {i} for y in range(x) if y % 3]" for i in range(200))
    trees, errors = [], []

    def work():
        try:
            for _ in range(20):
                trees.append(len(pysource.parse(source).body))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and trees == [200] * 80
