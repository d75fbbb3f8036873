"""Every kind of bad input is one rejection line naming the file; everything else is still ingested."""

from __future__ import annotations

import json

import pytest

from ingest.runner import ingest
from ingest.textfile import MAX_BYTES

GOOD_TASK = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
'''
GOOD_CANDIDATE = "import torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n    def forward(self, x):\n        return x.clamp_min(0)\n"
GOOD_SIDECAR = {"dsl": "cpp", "backend": "cpu", "arch": "x86_64", "description": "relu"}


def kernel_folder(root, name, task=GOOD_TASK, candidate=GOOD_CANDIDATE, sidecar=GOOD_SIDECAR, stem="cpp_cpu"):
    folder = root / "kernels" / name
    folder.mkdir(parents=True)
    (folder / "task.py").write_text(task)
    if candidate is not None:
        (folder / f"{stem}.py").write_text(candidate)
    if sidecar is not None:
        (folder / f"{stem}.json").write_text(sidecar if isinstance(sidecar, str) else json.dumps(sidecar))
    return folder


def run(tree, store, embedder, analyze):
    report = ingest([tree], store, embedder, analyze=analyze)
    return report, {r.path: r.reason for r in report.rejected}


def test_bad_files_are_rejected_one_line_each(tmp_path, ephemeral_store, embedder, analyze):
    tree = tmp_path / "kb"
    docs = tree / "docs"
    docs.mkdir(parents=True)
    (docs / "good.md").write_text("# Good\n\nThis one is fine.\n")
    (docs / "binary.md").write_bytes(b"# Bin\x00\x01\x02")
    (docs / "latin1.md").write_bytes("# Caf\xe9\n".encode("latin-1"))
    (docs / "empty.md").write_text("  \n\n")
    (docs / "huge.md").write_text("# Huge\n\n" + "x" * (MAX_BYTES + 1))
    (docs / "front.md").write_text("---\ndsl triton\n---\n# Body\n")
    (docs / "only_front.md").write_text("---\ndsl: triton\n---\n")
    (docs / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    (docs / "notes.txt").write_text("not markdown")
    report, reasons = run(tree, ephemeral_store, embedder, analyze)
    assert report.exit_code == 1
    assert report.added == ["kb/docs/good.md"]
    expect = {
        "binary.md": "binary file",
        "latin1.md": "not UTF-8 (invalid byte 0xe9",
        "empty.md": "empty file",
        "huge.md": "too large",
        "front.md": "malformed front matter at line 2",
        "only_front.md": "no text to index",
        "dangling.md": "unreadable",
    }
    assert set(reasons) == {str(docs / name) for name in expect}
    for name, fragment in expect.items():
        assert fragment in reasons[str(docs / name)] and "\n" not in reasons[str(docs / name)]
    assert [s.path for s in report.skipped] == [str(docs / "notes.txt")]
    assert {i.metadata["source"] for i in ephemeral_store.get_many("docs")} == {"kb/docs/good.md"}


def test_bad_kernel_folders_are_rejected(tmp_path, ephemeral_store, embedder, analyze):
    tree = tmp_path / "kb"
    kernel_folder(tree, "good")
    no_sidecar = kernel_folder(tree, "no_sidecar", sidecar=None)
    orphan_sidecar = kernel_folder(tree, "orphan_sidecar", candidate=None)
    bad_json = kernel_folder(tree, "bad_json", sidecar="{\"dsl\": ")
    bad_meta = kernel_folder(tree, "bad_meta", sidecar={**GOOD_SIDECAR, "speed": "fast"})
    wrong_target = kernel_folder(tree, "wrong_target", sidecar={**GOOD_SIDECAR, "dsl": "triton", "backend": "cuda"})
    no_modelnew = kernel_folder(tree, "no_modelnew", candidate="class Model:\n    pass\n")
    syntax = kernel_folder(tree, "syntax", candidate="class ModelNew(:\n")
    import_fails = kernel_folder(tree, "import_fails", task="import not_a_module_anywhere\n" + GOOD_TASK)
    no_model = kernel_folder(tree, "no_model", task=GOOD_TASK.replace("class Model(", "class Other("))
    inputs_raise = kernel_folder(
        tree, "inputs_raise",
        task=GOOD_TASK.replace("return [torch.randn(4, 8)]", "raise RuntimeError('no inputs today')"),
    )
    no_candidates = kernel_folder(tree, "no_candidates", candidate=None, sidecar=None)
    report, reasons = run(tree, ephemeral_store, embedder, analyze)
    assert report.added == ["kb/kernels/good/cpp_cpu.py"]
    expect = {
        no_sidecar / "cpp_cpu.py": "no metadata sidecar (expected cpp_cpu.json",
        orphan_sidecar / "cpp_cpu.json": "sidecar without a candidate",
        bad_json / "cpp_cpu.json": "invalid metadata: invalid JSON",
        bad_meta / "cpp_cpu.json": "invalid metadata: speed: unknown key",
        wrong_target / "cpp_cpu.json": "says triton/cuda but the file name says cpp/cpu",
        no_modelnew / "cpp_cpu.py": "defines no ModelNew",
        syntax / "cpp_cpu.py": "syntax error at line 1",
        import_fails / "task.py": "not_a_module_anywhere",
        no_model / "task.py": "Model",
        inputs_raise / "task.py": "no inputs today",
        no_candidates: "kernel folder without candidates",
    }
    assert set(reasons) == {str(p) for p in expect}
    for path, fragment in expect.items():
        assert fragment in reasons[str(path)], (path, reasons[str(path)])
        assert "\n" not in reasons[str(path)]
    assert ephemeral_store.count("kernels") == 1


def test_rejected_edit_keeps_the_previous_version(tmp_path, ephemeral_store, embedder, analyze):
    tree = tmp_path / "kb"
    folder = kernel_folder(tree, "k")
    ingest([tree], ephemeral_store, embedder, analyze=analyze)
    [before] = ephemeral_store.get_many("kernels")
    (folder / "cpp_cpu.json").write_text("{broken")
    report = ingest([tree], ephemeral_store, embedder, analyze=analyze)
    assert report.exit_code == 1 and report.removed == []
    assert [i.id for i in ephemeral_store.get_many("kernels")] == [before.id]


def test_missing_path_is_a_usage_error(tmp_path, ephemeral_store, embedder):
    from akg_rag.errors import ConfigError

    with pytest.raises(ConfigError, match="no such file or directory"):
        ingest([tmp_path / "missing"], ephemeral_store, embedder)
