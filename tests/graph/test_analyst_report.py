"""The analyst's rules and the run report, on hand-made measurements and states."""

from __future__ import annotations

import json

from akg_rag.graph.analyst import findings
from akg_rag.graph.report import build_report, write_outputs

STREAMING = {"flops": 1_000, "min_bytes": 8_000}
GEMM = {"flops": 2 * 1024**3, "min_bytes": 3 * 4 * 1024**2}


def test_memory_bound_far_from_roof():
    out = findings(STREAMING, {"timings": {"roofline_fraction": 0.2, "achieved_gbps": 40.0,
                                           "speedup_eager": 0.7}}, "BLOCK_SIZE = 256\n", "triton")
    assert out[0].startswith("memory-bound: arithmetic intensity 0.12 FLOP/B")
    assert any("far from the bandwidth roof" in f for f in out)
    assert any("slower than eager (0.70x)" in f for f in out)
    assert any("BLOCK_SIZE=256" in f for f in out) and any(f.startswith("Triton:") for f in out)


def test_a_memory_bound_candidate_with_unpipelined_streaming_loops_is_pointed_at_the_switch():
    code = "K0_SPLIT = 64\nK0_LOOP_STAGES = 1\nK1_LOOP_STAGES = 3\n"
    out = findings(STREAMING, {"timings": {"roofline_fraction": 0.4}}, code, "triton")
    staged = [f for f in out if "LOOP_STAGES" in f and "streaming loops" in f]
    assert len(staged) == 1 and staged[0].startswith("K0_LOOP_STAGES = 3 to try:")
    # not for a compute-bound kernel, nor once the loops are pipelined
    assert not any("streaming loops" in f for f in findings(GEMM, {}, code, "triton"))
    assert not any("streaming loops" in f for f in findings(STREAMING, {}, code.replace("= 1", "= 2"), "triton"))


def test_a_memory_bound_cooperative_launch_run_as_written_is_pointed_at_the_pipelined_form():
    code = "K0_COOP = 16\nK0_PIPE = 0\nK1_PIPE = 3\n"
    out = findings(STREAMING, {"timings": {"roofline_fraction": 0.6}}, code, "triton")
    piped = [f for f in out if "_PIPE = 3 to try" in f]
    assert len(piped) == 1 and piped[0].startswith("K0_PIPE = 3 to try:")
    assert not any("_PIPE = 3 to try" in f for f in findings(GEMM, {}, code, "triton"))
    assert not any("_PIPE = 3 to try" in f for f in findings(STREAMING, {}, code.replace("= 0", "= 2"), "triton"))


def test_compute_bound_and_compile_gap():
    out = findings(GEMM, {"timings": {"roofline_fraction": 0.1, "speedup_eager": 1.3,
                                      "speedup_compile": 0.8}}, "", "cpp")
    assert out[0].startswith("compute-bound")
    assert any("far from the compute roof" in f for f in out)
    assert any("beats eager but not torch.compile" in f for f in out)
    assert any("expose the tile/chunk size" in f for f in out)


def test_profile_and_interpreter_findings():
    profile = [{"name": "softmax_kernel", "time_us": 30.0}, {"name": "copy_", "time_us": 10.0}]
    out = findings(STREAMING, {"timings": {"meaningful": False}, "profile": profile}, "", "triton")
    assert any("interpreter" in f for f in out)
    assert any(f.startswith("profiler: 2 kernel(s)") and "softmax_kernel 75%" in f for f in out)
    assert any("fuse them" in f for f in out)


def test_report_pairs_attempts_with_routes_and_writes_files(tmp_path):
    fb = {"to": "coder", "kind": "compile_error", "text": "error: x | y"}
    state = {
        "task_path": "t.py", "dsl": "cpp", "backend": "cpu", "status": "verified", "message": "done",
        "analysis": {"op_name": "softmax"}, "kernel_hits": [{"id": "k1"}], "doc_hits": [{"id": "d1"}],
        "attempts": [{"iteration": 1, "phase": "functional", "status": "compile_error", "feedback_received": None},
                     {"iteration": 2, "phase": "functional", "status": "correct", "feedback_received": fb,
                      "timings": {"candidate_ms": 0.5, "speedup_eager": 1.5}}],
        "events": [{"node": "conductor", "after": "designer", "route": "coder", "status": "coder"},
                   {"node": "conductor", "after": "verifier", "route": "coder", "status": "coder"},
                   {"node": "conductor", "after": "verifier", "route": "finish", "status": "finish"}],
        "best": {"code": "class ModelNew: pass\n", "sketch": "sketch s {\n}\n", "iteration": 2,
                 "timings": {"candidate_ms": 0.5}},
    }
    report = build_report(state, "th")
    assert [a["route"] for a in report["attempts"]] == ["coder", "finish"]
    assert report["retrieved"]["kernel_ids"] == ["k1"] and report["retrieved"]["doc_ids"] == ["d1"]
    paths = write_outputs(state, tmp_path / "out", "th")
    assert json.loads(paths["report_json"].read_text())["status"] == "verified"
    md = paths["report_md"].read_text()
    assert "| 2 | functional | - | compile_error: error: x / y | correct | 0.5 | 1.50 | - | finish |" in md
    assert paths["kernel"].read_text() == "class ModelNew: pass\n"
    assert paths["sketch"].read_text().startswith("sketch s")


def test_a_gpu_call_longer_than_its_kernels_is_called_host_bound():
    profile = [{"name": "k0_kernel", "time_us": 35.0, "count": 1.0}]
    host = findings(STREAMING, {"timings": {"candidate_ms": 0.119, "method": "cuda_event"}, "profile": profile},
                    "", "triton")
    hits = [f for f in host if f.startswith("host-bound call")]
    assert len(hits) == 1 and "119 us timed" in hits[0] and "35 us on the device" in hits[0] and "71%" in hits[0]
    # kernels that fill the call, a CPU call, or a graph replay: no such finding
    for timings, prof in (({"candidate_ms": 0.040, "method": "cuda_event"}, profile),
                          ({"candidate_ms": 0.119, "method": "perf_counter"}, profile),
                          ({"candidate_ms": 0.119, "method": "cuda_graph"}, profile),
                          ({"candidate_ms": 0.119, "method": "cuda_event"}, None)):
        assert not any(f.startswith("host-bound") for f in findings(STREAMING, {"timings": timings, "profile": prof},
                                                                     "", "triton"))
