"""The child's environment and the extension build cache location."""

from __future__ import annotations

import os

from akg_rag.verify.env import child_env, extensions_dir, is_secret


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
