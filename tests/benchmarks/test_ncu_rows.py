"""benchmarks/probes/ncu_rows.py: reading Nsight Compute's CSV (the profiling itself needs a GPU)."""

from __future__ import annotations

import pytest

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
          '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')


def _line(launch: int, kernel: str, section: str, metric: str, unit: str, value: str) -> str:
    return (f'"{launch}","77","python3","h","{kernel}","1","7","(128, 1, 1)","(1572864, 1, 1)","0","9.0",'
            f'"{section}","{metric}","{unit}","{value}"\n')


@pytest.fixture(scope="module")
def ncu(load_bench):
    return load_bench("probes/ncu_rows")


def test_launches_group_their_metrics_and_numbers_lose_thousands_separators(ncu):
    text = ("==PROF== Connected to process 77\n==PROF== Profiling \"k0_kernel\": 0%....100% - 9 passes\n"
            + HEADER
            + _line(0, "k0_kernel", "GPU Speed Of Light Throughput", "Duration", "us", "2,401.57")
            + _line(0, "k0_kernel", "GPU Speed Of Light Throughput", "DRAM Throughput", "%", "61.20")
            + _line(0, "k0_kernel", "Launch Statistics", "Registers Per Thread", "register/thread", "32")
            + _line(1, "k1_kernel", "Occupancy", "Achieved Occupancy", "%", "88.1")
            + _line(1, "k1_kernel", "Occupancy", "Block Limit Registers", "block", "n/a"))
    launches = ncu._parse(text)
    assert [r["id"] for r in launches] == [0, 1]
    assert [r["kernel"] for r in launches] == ["k0_kernel", "k1_kernel"]
    first = launches[0]["metrics"]
    assert first["GPU Speed Of Light Throughput / Duration (us)"] == 2401.57
    assert first["Launch Statistics / Registers Per Thread (register/thread)"] == 32.0
    assert launches[1]["metrics"]["Occupancy / Block Limit Registers (block)"] == "n/a"
    assert launches[0]["grid"] == "(1572864, 1, 1)"


def test_output_without_a_table_reads_as_no_launch(ncu):
    assert ncu._parse("==ERROR== Failed to initialize the profiler\n") == []


def test_the_summary_names_the_worst_stalls_and_sectors_per_request(ncu):
    cmd = "Command line profiler metrics"
    metrics = {
        "GPU Speed Of Light Throughput / DRAM Throughput (%)": 61.2,
        "GPU Speed Of Light Throughput / Duration (us)": 2401.6,
        f"{cmd} / smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": 9.5,
        f"{cmd} / smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio": 14.25,
        f"{cmd} / smsp__average_warps_issue_stalled_wait_per_issue_active.ratio": 0.5,
        f"{cmd} / l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 900.0,
        f"{cmd} / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 200.0,
    }
    text = ncu._shown(metrics)
    assert "Duration 2401.6 us" in text and "DRAM Throughput 61.2%" in text
    assert "stalls lg_throttle 14.2, long_scoreboard 9.5, wait 0.5" in text
    assert "4.5 sectors a load request" in text


def test_no_profiler_on_the_machine_exits_2_and_says_so(ncu, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(ncu, "_ncu", lambda: None)
    assert ncu.main([str(tmp_path / "task.py"), str(tmp_path / "cand.py")]) == 2
    assert "ncu not found" in capsys.readouterr().err


def test_a_candidate_or_eager_is_required(ncu, tmp_path):
    with pytest.raises(SystemExit):
        ncu.main([str(tmp_path / "task.py")])


def test_notes_printed_inside_the_table_are_skipped(ncu):
    text = (HEADER
            + _line(0, "k0_kernel", "GPU Speed Of Light Throughput", "Duration", "us", "101.5")
            + "==WARNING== No metrics to show for section(s): MemoryWorkloadAnalysis_Tables.\n"
            + _line(1, "k1_kernel", "GPU Speed Of Light Throughput", "Duration", "us", "90.0"))
    launches = ncu._parse(text)
    assert [r["id"] for r in launches] == [0, 1]
    assert launches[1]["metrics"]["GPU Speed Of Light Throughput / Duration (us)"] == 90.0
