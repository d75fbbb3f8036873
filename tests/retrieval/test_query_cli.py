"""``akg-rag query`` on the ingested fixture tree: table, --explain, --json, errors, empty store."""

from __future__ import annotations

import json

import pytest

from akg_rag.cli import main

from .conftest import task_source


@pytest.fixture(scope="module")
def task_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "softmax_query.py"
    path.write_text(task_source("softmax", [[128, 4096]]))
    return path


def test_table_for_a_task(knowledge_dir, task_file, capsys):
    rc = main(["query", "--task", str(task_file), "--dsl", "triton", "--backend", "cuda",
               "--data-dir", str(knowledge_dir), "--k", "3"])
    out = capsys.readouterr().out
    assert rc == 0
    rows = [line for line in out.splitlines() if line.lstrip()[:2].strip().isdigit()]
    assert len(rows) == 3 and "softmax" in rows[0] and "triton/cuda" in rows[0]
    assert "cpp/cpu" not in out and "documents:" in out and "h100.md" in out


def test_explain_and_json(knowledge_dir, capsys):
    args = ["query", "softmax over rows", "--dsl", "cpp", "--backend", "cpu", "--shape", "64x4096",
            "--data-dir", str(knowledge_dir)]
    assert main(args + ["--explain"]) == 0
    out = capsys.readouterr().out
    assert "filter" in out and "semantic" in out and "shape" in out and "final" in out
    assert main(args + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["query"]["shapes"] == [[64, 4096]]
    assert data["hits"] and all(h["dsl"] == "cpp" and h["backend"] == "cpu" for h in data["hits"])
    assert {s["name"] for s in data["stages"]} >= {"filter", "semantic", "shape"}


def test_bad_values_list_the_allowed_ones(knowledge_dir, capsys):
    with pytest.raises(SystemExit):
        main(["query", "softmax", "--dsl", "pallas", "--data-dir", str(knowledge_dir)])
    assert "tilelang" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["query", "--data-dir", str(knowledge_dir)])  # neither text nor --task
    assert main(["query", "x", "--dsl", "cpp", "--backend", "cuda", "--data-dir", str(knowledge_dir)]) == 2
    assert "cpp/cpu" in capsys.readouterr().err
    assert main(["query", "x", "--shape", "4x?", "--data-dir", str(knowledge_dir)]) == 2


def test_empty_store_says_how_to_fill_it(tmp_path, capsys):
    assert main(["query", "softmax", "--data-dir", str(tmp_path / "empty")]) == 1
    assert "akg-ingest knowledge/" in capsys.readouterr().err
