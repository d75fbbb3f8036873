"""The child's environment and the extension build cache location."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from akg_rag.verify.env import BuildDirBusy, child_env, claim_build_dir, extensions_dir, is_secret


def test_credentials_are_stripped_and_tools_kept():
    base = {"PATH": "/usr/bin", "HOME": "/home/u", "OPENAI_API_KEY": "sk", "HF_TOKEN": "t",
            "AWS_ACCESS_KEY_ID": "a", "MY_SECRET": "s", "DB_PASSWORD": "p", "GITHUB_TOKEN": "g",
            "ANTHROPIC_BASE": "x", "CUDA_VISIBLE_DEVICES": "0", "TRITON_CACHE_DIR": "/c",
            "AKG_RAG_CHROMA_URL": "http://h", "LD_LIBRARY_PATH": "/l", "TRITON_INTERPRET": "1"}
    env = child_env(dsl="cpp", backend="cpu", extensions_dir="/ext", scale="small", base=base)
    for gone in ("OPENAI_API_KEY", "HF_TOKEN", "AWS_ACCESS_KEY_ID", "MY_SECRET", "DB_PASSWORD",
                 "GITHUB_TOKEN", "ANTHROPIC_BASE", "AKG_RAG_CHROMA_URL", "TRITON_INTERPRET"):
        assert gone not in env, gone
    for kept in ("PATH", "HOME", "CUDA_VISIBLE_DEVICES", "TRITON_CACHE_DIR", "LD_LIBRARY_PATH"):
        assert env[kept] == base[kept]
    assert env["TORCH_EXTENSIONS_DIR"] == "/ext" and env["AKG_TASK_SCALE"] == "small"
    assert os.path.isdir(os.path.join(env["PYTHONPATH"].split(os.pathsep)[0], "akg_rag"))
    assert is_secret("SOME_AUTH_HEADER") and not is_secret("OMP_NUM_THREADS")


def test_interpreter_only_for_triton_on_cpu():
    assert child_env(dsl="triton", backend="cpu", extensions_dir="/e", scale=None, base={})["TRITON_INTERPRET"] == "1"
    assert "TRITON_INTERPRET" not in child_env(dsl="triton", backend="cuda", extensions_dir="/e", scale=None,
                                               base={"TRITON_INTERPRET": "1"})


def test_extension_dir_is_keyed_by_source(tmp_path):
    a = extensions_dir("source A", str(tmp_path))
    assert a == extensions_dir("source A", str(tmp_path)) and a.is_dir()
    assert a != extensions_dir("source B", str(tmp_path))
    assert a.parent == tmp_path / "extensions"


def test_build_dir_claim_removes_stale_build_locks(tmp_path):
    """A torch build killed mid-way leaves ``<build>/lock``; the next claim removes it (nobody else
    can be building while the claim is held)."""
    d = extensions_dir("source A", str(tmp_path))
    (d / "ext_name").mkdir()
    (d / "ext_name" / "lock").write_text("")
    (d / "ext_name" / "ext_name.so").write_text("kept")
    with claim_build_dir(d, wait_s=1) as removed:
        assert removed == [d / "ext_name" / "lock"]
        assert not (d / "ext_name" / "lock").exists() and (d / "ext_name" / "ext_name.so").exists()
    with claim_build_dir(d, wait_s=1) as removed:
        assert removed == []


def test_build_dir_claim_is_exclusive_and_dies_with_its_holder(tmp_path):
    """Another process holding the claim makes a second verification of that source wait (here: give
    up after its wait); once the holder is killed the claim is free, whatever killed it."""
    d = extensions_dir("source A", str(tmp_path))
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from akg_rag.verify.env import claim_build_dir
        with claim_build_dir(Path({str(d)!r}), wait_s=5):
            print("held", flush=True)
            time.sleep(600)
        """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        (d / "ext_name").mkdir()
        (d / "ext_name" / "lock").write_text("")     # the holder's build in progress
        with pytest.raises(BuildDirBusy, match="in use by another verification"):
            with claim_build_dir(d, wait_s=0.5):
                pass
        assert (d / "ext_name" / "lock").exists()    # a build that may be live is left alone
    finally:
        holder.kill()
        holder.wait()
    with claim_build_dir(d, wait_s=5) as removed:
        assert removed == [d / "ext_name" / "lock"]
