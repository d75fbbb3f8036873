"""``akg-ingest`` as a command: exit codes, JSON report, quiet mode, and kill-then-rerun consistency."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from akg_rag.store import make_store
from ingest.cli import main
from ingest.runner import ingest

REPO = Path(__file__).resolve().parents[2]


def test_clean_run_exits_0_and_reports_json(corpus, tmp_path, capsys):
    code = main([str(corpus / "docs"), "--data-dir", str(tmp_path / "s"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["exit_code"] == 0
    assert sorted(out["added"]) == ["docs/cpp/vectorization.md", "docs/hardware/h200.md", "docs/triton/reductions.md"]
    assert out["embedded"] == make_store(data_dir=tmp_path / "s").count("docs")


def test_rejections_exit_1_and_print_one_line_each(corpus, tmp_path, capsys):
    (corpus / "docs" / "broken.md").write_bytes(b"\xff\xfe# no")
    code = main([str(corpus / "docs"), "--data-dir", str(tmp_path / "s"), "--quiet"])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out == ""
    assert captured.err.strip().splitlines() == [f"{corpus / 'docs' / 'broken.md'}: not UTF-8 (invalid byte 0xff at offset 0)"]
    assert make_store(data_dir=tmp_path / "s").count("docs") > 0  # the rest was ingested


def test_summary_counts(corpus, tmp_path, capsys):
    main([str(corpus / "docs"), "--data-dir", str(tmp_path / "s"), "--quiet"])
    (corpus / "docs" / "cpp" / "vectorization.md").unlink()
    code = main([str(corpus / "docs"), "--data-dir", str(tmp_path / "s")])
    out = capsys.readouterr().out
    assert code == 0
    assert "0 added, 0 updated, 2 unchanged, 1 removed, 0 rejected" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{missing}"], "no such file or directory"),
        (["{docs}", "--chroma-url", "http://127.0.0.1:1"], "cannot reach the Chroma server at http://127.0.0.1:1"),
        (["{docs}", "--chroma-url", "localhost"], "bad Chroma URL"),
    ],
)
def test_usage_and_config_errors_exit_2(corpus, tmp_path, capsys, args, message):
    argv = [a.format(missing=tmp_path / "missing", docs=corpus / "docs") for a in args]
    if "--chroma-url" not in argv:
        argv += ["--data-dir", str(tmp_path / "s")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err


def test_flags_conflict_exit_2(tmp_path):
    with pytest.raises(SystemExit) as info:
        main([str(tmp_path), "--data-dir", "a", "--chroma-url", "http://h:1"])
    assert info.value.code == 2


def test_server_mode(corpus, chroma_server, capsys):
    store = make_store(url=chroma_server)
    store.reset()
    assert main([str(corpus / "docs"), "--chroma-url", chroma_server, "--quiet"]) == 0
    assert store.count("docs") > 0


def synthetic_docs(root: Path, files: int, sections: int) -> None:
    """Many small markdown files of many short sections: lots of rows, cheap to embed."""
    for f in range(files):
        lines = [f"# Topic {f}", ""]
        for s in range(sections):
            lines += [f"## Part {s}", "", f"Fact {f}.{s}: tile {s * 16} rows of matrix {f} in blocks.", ""]
        (root / f"doc_{f:03d}.md").write_text("\n".join(lines))


def snapshot(store):
    return {
        name: {i.id: (i.document, i.metadata, np.asarray(i.embedding)) for i in
               store.get_many(name, include=("documents", "metadatas", "embeddings"))}
        for name in ("docs", "kernels")
    }


@pytest.mark.slow  # a subprocess plus ~1,000 embeddings: about 2 minutes on 2 busy cores
def test_killed_ingest_is_repaired_by_rerunning(tmp_path, embedder):
    tree = tmp_path / "kb"
    tree.mkdir()
    files, sections = 80, 8  # 640 rows: the writer flushes every 256, so a kill lands mid-ingest
    synthetic_docs(tree, files, sections)
    data = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ingest.cli", str(tree), "--data-dir", str(data)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=tmp_path,
    )
    kill_at = random.Random(0).randint(40, files - 8)  # items done; at least one flush is written
    progress = re.compile(rb"(\d+)/%d" % files)
    done = threading.Event()

    def watch() -> None:
        buf = b""
        while not done.is_set():
            chunk = proc.stderr.read1(4096)
            if not chunk:
                return
            buf = (buf + chunk)[-200:]
            hits = progress.findall(buf)
            if hits and int(hits[-1]) >= kill_at:
                proc.send_signal(signal.SIGKILL)
                done.set()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    proc.wait(timeout=600)
    watcher.join(timeout=5)
    assert proc.returncode == -signal.SIGKILL, "ingest finished before it could be killed"

    killed = make_store(data_dir=data)
    partial = killed.count("docs")
    assert 0 < partial < files * sections  # it had begun writing and had not finished

    report = ingest([tree], killed, embedder)
    assert report.rejected == []
    clean = make_store(data_dir=tmp_path / "clean")
    ingest([tree], clean, embedder)
    got, want = snapshot(killed), snapshot(clean)
    assert got["docs"].keys() == want["docs"].keys()  # nothing missing, no orphans, no duplicates
    assert len(got["docs"]) == files * sections
    for key, (document, meta, vector) in want["docs"].items():
        assert got["docs"][key][0] == document and got["docs"][key][1] == meta
        np.testing.assert_allclose(got["docs"][key][2], vector, atol=1e-4)
