"""benchmarks/kernelbench.py: which candidates a run picks, and how result files merge.

No verification runs here; a folder laid out like a KernelBench checkout is made of the project's
own suite tasks, and result rows are written the way a run appends them.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def kb_mod(load_bench):
    return load_bench("kernelbench")


@pytest.fixture()
def layout(tmp_path):
    tasks = sorted((ROOT / "benchmarks" / "tasks").glob("*.py"))[:4]
    kb = tmp_path / "kb" / "level1"
    kb.mkdir(parents=True)
    for i, t in enumerate(tasks, 1):
        shutil.copy(t, kb / f"{i}_{t.stem}.py")
    return tmp_path / "kb", tmp_path / "cands", [f"level1/{i}_{t.stem}" for i, t in enumerate(tasks, 1)]


def _args(kb, cands, results, **kw):
    base = dict(kb=str(kb), candidates=str(cands), levels=[1], kinds=["lowered"], results=str(results),
                shard="0/1", only_correct=None, problems=None)
    base.update(kw)
    return argparse.Namespace(**base)


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_jobs_skip_done_and_follow_shard(kb_mod, layout, tmp_path):
    kb, cands, keys = layout
    results = tmp_path / "r.jsonl"
    _write(results, [{"problem": keys[0], "kind": "lowered", "status": "correct"}])
    todo = [j[0] for j in kb_mod._jobs(_args(kb, cands, results))]
    assert todo == keys[1:]
    odd = [j[0] for j in kb_mod._jobs(_args(kb, cands, tmp_path / "none.jsonl", shard="1/2"))]
    assert odd == [keys[1], keys[3]]


def test_problems_selects_by_number(kb_mod, layout, tmp_path):
    kb, cands, keys = layout
    todo = [j[0] for j in kb_mod._jobs(_args(kb, cands, tmp_path / "none.jsonl", problems=[2, 4]))]
    assert todo == [keys[1], keys[3]]


def test_only_correct_selects_from_a_sweep(kb_mod, layout, tmp_path):
    kb, cands, keys = layout
    sweep = tmp_path / "sweep.jsonl"
    _write(sweep, [{"problem": keys[0], "kind": "lowered", "status": "correct", "timed": False},
                   {"problem": keys[1], "kind": "lowered", "status": "incorrect", "timed": False},
                   {"problem": keys[2], "kind": "lowered", "status": "correct", "timed": False}])
    todo = kb_mod._jobs(_args(kb, cands, tmp_path / "timed.jsonl", only_correct=str(sweep)))
    assert [j[0] for j in todo] == [keys[0], keys[2]]


def test_untimed_row_never_replaces_a_timed_one(kb_mod, tmp_path):
    timed = tmp_path / "timed-run1.jsonl"
    sweep = tmp_path / "sweep.jsonl"
    _write(timed, [{"problem": "level1/1_a", "kind": "lowered", "status": "correct", "speedup_eager": 1.5}])
    # the sweep is newer (stamped) but correctness-only
    _write(sweep, [{"problem": "level1/1_a", "kind": "lowered", "status": "correct", "timed": False,
                    "finished": 1.0},
                   {"problem": "level1/2_b", "kind": "lowered", "status": "incorrect", "timed": False}])
    by = kb_mod._load([str(timed), str(sweep)])
    assert by["level1/1_a"]["lowered"]["speedup_eager"] == 1.5
    assert by["level1/2_b"]["lowered"]["status"] == "incorrect"
    # a later timed verdict does replace an earlier one (a rerun after a fix)
    _write(tmp_path / "timed-run2.jsonl", [{"problem": "level1/1_a", "kind": "lowered", "status": "incorrect",
                                         "timed": True}])
    by = kb_mod._load([str(timed), str(tmp_path / "timed-run2.jsonl")])
    assert by["level1/1_a"]["lowered"]["status"] == "incorrect"
    # an offline compile report (no verdict) read after a verdict leaves it alone
    _write(tmp_path / "offline.jsonl", [{"problem": "level1/1_a", "kind": "lowered", "arch": 90,
                                         "launches": []}])
    by = kb_mod._load([str(timed), str(tmp_path / "offline.jsonl")])
    assert by["level1/1_a"]["lowered"]["speedup_eager"] == 1.5


def test_newest_row_stands_whatever_order_the_files_come_in(kb_mod, tmp_path):
    def row(sp, **kw):
        return {"problem": "level1/8_a", "kind": "lowered", "status": "correct", "timed": True,
                "speedup_eager": sp, **kw}

    # unstamped rows: files in natural name order, so run10 is newer than run9 (a shell glob
    # lists run10 first)
    _write(tmp_path / "run9.jsonl", [row(0.42)])
    _write(tmp_path / "run10.jsonl", [row(1.48)])
    for order in ([tmp_path / "run10.jsonl", tmp_path / "run9.jsonl"],
                  [tmp_path / "run9.jsonl", tmp_path / "run10.jsonl"]):
        by = kb_mod._load([str(p) for p in order])
        assert by["level1/8_a"]["lowered"]["speedup_eager"] == 1.48
    # a stamped row (what `run` writes) is newer than any unstamped one, and stamps order
    # among themselves, whatever the file names say
    _write(tmp_path / "a.jsonl", [row(0.9, finished=2000.0), row(1.1, finished=1000.0)])
    by = kb_mod._load([str(tmp_path / "run10.jsonl"), str(tmp_path / "a.jsonl"), str(tmp_path / "run9.jsonl")])
    assert by["level1/8_a"]["lowered"]["speedup_eager"] == 0.9


def test_report_plots_each_timed_correct_row_per_level(kb_mod, tmp_path):
    import xml.dom.minidom

    rows = [{"problem": "level1/1_a", "kind": "lowered", "level": 1, "status": "correct", "speedup_eager": 1.5,
             "speedup_compile": 0.9},
            {"problem": "level1/2_b", "kind": "lowered", "level": 1, "status": "incorrect"},
            {"problem": "level2/1_c", "kind": "lowered", "level": 2, "status": "correct", "speedup_eager": 0.3},
            {"problem": "level2/1_c", "kind": "library", "level": 2, "status": "correct", "speedup_eager": 1.2},
            {"problem": "level2/2_d", "kind": "lowered", "level": 2, "status": "correct", "timed": False}]
    results = tmp_path / "r.jsonl"
    _write(results, rows)
    svg = tmp_path / "p.svg"
    assert kb_mod.main(["report", str(results), "--mode", "lower", "--plot", str(svg)]) == 0
    doc = xml.dom.minidom.parse(str(svg))
    # level 1: one correct row, timed over eager and compile; level 2: the faster form of 1_c only
    assert len(doc.getElementsByTagName("circle")) == 3
    labels = " ".join(t.firstChild.data for t in doc.getElementsByTagName("text") if t.firstChild)
    assert "level1" in labels and "level2" in labels and "1.20x" not in labels.split("level2")[0]


def test_first_kind_takes_the_library_form_where_there_is_one(kb_mod, layout, tmp_path):
    kb, cands, keys = layout
    for i, key in enumerate(keys):
        folder = cands / key
        folder.mkdir(parents=True)
        (folder / "lowered.py").write_text("# lowered\n")
        if i % 2 == 0:
            (folder / "library.py").write_text("# library\n")
    todo = kb_mod._jobs(_args(kb, cands, tmp_path / "none.jsonl", kinds=["library", "lowered"], first_kind=True))
    assert [(j[0], j[1]) for j in todo] == [(k, "library" if i % 2 == 0 else "lowered") for i, k in enumerate(keys)]
    both = kb_mod._jobs(_args(kb, cands, tmp_path / "none.jsonl", kinds=["library", "lowered"]))
    assert len(both) == 2 * len(keys)


def test_repeat_compares_the_problems_timed_correct_in_both_runs(kb_mod, tmp_path, capsys):
    def write(name, rows):
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return str(path)

    def row(n, sp, ms, status="correct", **kw):
        return {"problem": f"level1/{n}_p", "kind": "lowered", "status": status, "speedup_eager": sp,
                "candidate_ms": ms, **kw}

    first = write("a.jsonl", [row(1, 2.0, 1.0), row(2, 1.0, 3.0, graph_speedup_eager=1.1), row(3, 1.5, 2.0),
                              row(4, 1.2, 1.0, sources={"task": "t", "candidate": "old"})])
    second = write("b.jsonl", [row(1, 2.06, 0.97), row(2, 0.9, 3.3, graph_speedup_eager=1.1),
                               row(3, None, None, status="incorrect"), row(10, 1.0, 1.0),
                               row(4, 1.2, 1.0, sources={"task": "t", "candidate": "new"})])
    rows = kb_mod.repeat_rows(kb_mod._rows(first), kb_mod._rows(second))
    assert [r["problem"] for r in rows] == ["level1/1_p", "level1/2_p"]   # 3 failed once, 10 ran once, 4 changed
    assert rows[0]["change"] == pytest.approx(0.03) and rows[1]["change"] == pytest.approx(-0.1)
    assert rows[0]["graph_change"] is None and rows[1]["graph_change"] == pytest.approx(0.0)
    assert kb_mod.main(["repeat", first, second]) == 0
    out = capsys.readouterr().out
    assert "1 of 2 within 5% of the first run; largest change 10.0%" in out
    assert kb_mod.main(["repeat", first, second, "--tolerance", "0.1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["within"] == 2
