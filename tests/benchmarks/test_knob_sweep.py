"""benchmarks/knob_sweep.py: its command line (the timing itself needs a CUDA device)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def sweep(load_bench):
    return load_bench("knob_sweep")


def test_settings_parse_names_and_integer_values(sweep):
    assert sweep._settings(["K0_SPLIT=256,1024", " K1_NUM_WARPS = 4,8,"]) == [
        ("K0_SPLIT", [256, 1024]), ("K1_NUM_WARPS", [4, 8])]


@pytest.mark.parametrize("text, words", [("K0_SPLIT", "NAME=V1,V2"), ("=4", "NAME=V1,V2"),
                                         ("K0_SPLIT=4,big", "must be integers")])
def test_malformed_settings_say_what_is_wrong(sweep, text, words):
    with pytest.raises(SystemExit, match=words):
        sweep._settings([text])


def test_a_device_without_cuda_events_is_refused(sweep, tmp_path):
    with pytest.raises(SystemExit, match="CUDA events"):
        sweep.main([str(tmp_path / "task.py"), str(tmp_path / "cand.py"), "--device", "cpu"])
