"""benchmarks/seed_sidecars.py: a bench report's figures into the sidecars next to its candidates."""

from __future__ import annotations

import json

import pytest


@pytest.fixture(scope="module")
def sidecars(load_bench):
    return load_bench("seed_sidecars")


def _timings(**kw):
    t = {"candidate_ms": 2.0, "eager_ms": 3.0, "speedup_eager": 1.5, "compile_ms": None, "speedup_compile": None,
         "meaningful": True, "roofline_fraction": 0.4, "device": "NVIDIA H200", "baseline": "torch 2.11 eager",
         "method": "cuda_event", "graph_candidate_ms": None, "graph_eager_ms": None, "graph_speedup_eager": None}
    t.update(kw)
    return t


def _family(root, name, measured):
    d = root / name
    d.mkdir()
    (d / "triton_cuda.py").write_text("# kernel\n")
    side = {"dsl": "triton", "backend": "cuda", "arch": "sm_90", "description": name, "tunables": {},
            "origin": "seed", "measured": measured}
    (d / "triton_cuda.json").write_text(json.dumps(side))
    return d / "triton_cuda.json"


def test_reports_replace_measured_figures_and_skip_what_is_not_a_timing(sidecars, tmp_path):
    old = {"candidate_ms": 9.0, "eager_ms": 3.0, "speedup_eager": 0.33, "compile_ms": 4.0, "speedup_compile": 0.44,
           "source": "old.md"}
    gemm = _family(tmp_path, "gemm", old)
    tiny = _family(tmp_path, "tiny", old)
    wrong = _family(tmp_path, "wrong", old)
    interp = _family(tmp_path, "interp", old)

    def task(name, status, timings):
        return {"name": name, "candidate": f"{name}/triton_cuda.py",
                "result": {"status": status, "timings": timings}}

    report = {"meta": {"scale": "full"}, "tasks": [
        task("gemm", "correct", _timings()),
        # a call under 50 us: the graph replays are the figure, the roofline follows the time
        task("tiny", "correct", _timings(candidate_ms=0.04, eager_ms=0.005, speedup_eager=0.125,
                                         roofline_fraction=0.01, graph_candidate_ms=0.004,
                                         graph_eager_ms=0.0044, graph_speedup_eager=1.1)),
        task("wrong", "incorrect", None),
        task("interp", "correct", _timings(meaningful=False)),
        task("gone", "correct", _timings()),           # no such family: skipped, not created
    ]}
    rep = tmp_path / "results.json"
    rep.write_text(json.dumps(report))
    assert sidecars.main([str(rep), "--root", str(tmp_path)]) == 0

    g = json.loads(gemm.read_text())["measured"]
    assert g["speedup_eager"] == 1.5 and g["candidate_ms"] == 2.0 and g["scale"] == "full"
    assert g["source"] == str(rep) and "cuda_event" in g["baseline"]
    # figures of an older kernel do not survive beside the new ones
    assert "compile_ms" not in g and "speedup_compile" not in g
    t = json.loads(tiny.read_text())["measured"]
    assert t["speedup_eager"] == 1.1 and t["candidate_ms"] == 0.004 and "CUDA graph" in t["baseline"]
    assert t["roofline_fraction"] == pytest.approx(0.1)
    assert json.loads(wrong.read_text())["measured"] == old
    assert json.loads(interp.read_text())["measured"] == old
    assert not (tmp_path / "gone").exists()


def test_dry_run_writes_nothing_and_a_later_report_wins(sidecars, tmp_path):
    side = _family(tmp_path, "k", {})
    reports = []
    for i, speed in enumerate((0.8, 1.25)):
        rep = tmp_path / f"r{i}.json"
        rep.write_text(json.dumps({"meta": {"scale": "full"}, "tasks": [
            {"name": "k", "candidate": "k/triton_cuda.py",
             "result": {"status": "correct", "timings": _timings(speedup_eager=speed)}}]}))
        reports.append(str(rep))
    before = side.read_text()
    sidecars.main(reports + ["--root", str(tmp_path), "--dry-run"])
    assert side.read_text() == before
    sidecars.main(reports + ["--root", str(tmp_path)])
    assert json.loads(side.read_text())["measured"]["speedup_eager"] == 1.25
