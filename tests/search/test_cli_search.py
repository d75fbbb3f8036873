"""``akg-rag search``: argument handling, and one real run that writes best.py and history.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from akg_rag.cli import main
from akg_rag.cli.search import parse_domains
from akg_rag.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
TASK = ROOT / "knowledge" / "kernels" / "relu" / "task.py"
SEED = ROOT / "knowledge" / "kernels" / "relu" / "triton_cuda.py"


def test_parse_domains():
    assert parse_domains(["BLOCK_SIZE=256,512", "NUM_WARPS=4"]) == {"BLOCK_SIZE": [256, 512], "NUM_WARPS": [4]}
    for bad in ("BLOCK_SIZE", "BLOCK_SIZE=", "=4", "BLOCK_SIZE=a,b"):
        with pytest.raises(ConfigError, match="NAME=V1,V2"):
            parse_domains([bad])


def test_missing_seed_is_a_clear_error(tmp_path, capsys):
    code = main(["search", str(TASK), str(tmp_path / "nope.py"), "--dsl", "triton", "--backend", "cpu"])
    assert code == 2 and "seed candidate" in capsys.readouterr().err


def test_search_writes_the_best_kernel_and_history(tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["search", str(TASK), str(SEED), "--dsl", "triton", "--backend", "cpu", "--scale", "small",
                 "--islands", "1", "--population", "2", "--generations", "0", "--jobs", "2",
                 "--trials", "1", "--no-timing", "--domain", "BLOCK_SIZE=512,1024", "--domain", "NUM_WARPS=4", "--json", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0
    assert "generation 0: best 1x" in captured.err  # progress goes to stderr under --json
    printed = json.loads(captured.out)
    history = json.loads((out / "history.json").read_text())
    assert printed["out"] == str(out) and printed["history"] == history["history"]
    members = history["history"][0]["islands"][0]["members"]
    assert [m["tunables"]["BLOCK_SIZE"] for m in members] == [1024, 512]  # the domain override held
    assert all(m["status"] == "correct" for m in members)
    assert (out / "best.py").read_text() == history["best"]["source"]
    assert history["config"]["options"]["scale"] == "small" and history["config"]["options"]["compile_baseline"] is False
