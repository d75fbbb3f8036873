"""Bench discovery pairs tasks with candidates in both layouts, and honours --candidate-stem."""

from __future__ import annotations

import pytest

from akg_rag.errors import ConfigError
from akg_rag.verify.bench import discover


def _folder(root, name, *stems):
    d = root / name
    d.mkdir()
    (d / "task.py").write_text("# task\n")
    for stem in stems:
        (d / f"{stem}.py").write_text("# candidate\n")


def test_folder_layout_picks_the_dsl_backend_file_by_default(tmp_path):
    _folder(tmp_path, "relu", "cpp_cpu", "triton_cuda")
    _folder(tmp_path, "gelu", "triton_cuda")
    items = {it.name: it for it in discover(tmp_path, tmp_path, "cpp", "cpu")}
    assert items["relu"].candidate.name == "cpp_cpu.py"
    assert items["gelu"].candidate is None  # missing: counts as a failure in fast_p


def test_candidate_stem_selects_another_file_of_each_folder(tmp_path):
    _folder(tmp_path, "relu", "cpp_cpu", "triton_cuda")
    items = discover(tmp_path, tmp_path, "triton", "cpu", candidate_stem="triton_cuda")
    assert [it.candidate.name for it in items] == ["triton_cuda.py"]


def test_flat_layout_pairs_files_by_name(tmp_path):
    tasks, cands = tmp_path / "tasks", tmp_path / "cands"
    tasks.mkdir()
    cands.mkdir()
    (tasks / "softmax.py").write_text("# task\n")
    (cands / "softmax.py").write_text("# candidate\n")
    (items,) = discover(tasks, cands, "cpp", "cpu")
    assert items.candidate == cands / "softmax.py"


def test_a_missing_directory_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        discover(tmp_path / "nope", tmp_path, "cpp", "cpu")
