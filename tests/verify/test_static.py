"""Source-level guards: the scan alone, and verify() rejecting before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from akg_rag.verify import verify
from akg_rag.verify.static import scan_source

HERE = Path(__file__).parent
GOOD = (HERE / "candidates" / "triton_correct.py").read_text()
TASK = HERE / "tasks" / "rowscale.py"

# A correct candidate plus one line at module level or in forward: each breaks one rule.
FORWARD_LINE = "        y = torch.empty_like(x)\n"


def with_forward(line: str) -> str:
    """The correct candidate with ``line`` added at the start of forward."""
    return GOOD.replace(FORWARD_LINE, FORWARD_LINE + "        " + line + "\n", 1)


def with_module(line: str) -> str:
    """The correct candidate with ``line`` added after the imports."""
    return GOOD.replace("import triton.language as tl\n", "import triton.language as tl\n" + line + "\n", 1)


STATIC_CASES = [
    ("thread", with_module("import threading"), "spawn"),
    ("futures", with_module("from concurrent.futures import ThreadPoolExecutor"), "spawn"),
    ("subprocess", with_forward("import subprocess; subprocess.run(['true'])"), "spawn"),
    ("os.fork", with_forward("import os; os.fork()"), "spawn"),
    ("os.kill", with_forward("import os; os.kill(os.getppid(), 9)"), "spawn"),
    ("stream", with_forward("s = torch.cuda.Stream()"), "side_stream"),
    ("stream ctx", with_forward("ctx = torch.cuda.stream(None)"), "side_stream"),
    ("stream in C++", with_module("SRC = 'auto s = at::cuda::getStreamFromPool();'"), "side_stream"),
    ("timer", with_module("import time\ntime.perf_counter = lambda: 0.0"), "patched_timer"),
    ("sync", with_module("torch.cuda.synchronize = lambda *a: None"), "patched_timer"),
    ("event setattr", with_module("setattr(torch.cuda, 'Event', object)"), "patched_timer"),
    ("allclose", with_module("torch.allclose = lambda *a, **k: True"), "monkeypatch"),
    ("alias patch", with_module("t = torch\nt.equal = lambda *a: True"), "monkeypatch"),
    ("F patch", with_module("import torch.nn.functional as F\nF.relu = lambda x: x"), "monkeypatch"),
    ("getframe", with_forward("import sys; sys._getframe(1)"), "introspection"),
    ("f_back", with_forward("fr = None; fr = fr.f_back"), "introspection"),
    ("inspect", with_module("import inspect"), "introspection"),
    ("gc", with_forward("import gc; gc.get_objects()"), "introspection"),
    ("globals", with_forward("g = globals()"), "introspection"),
    ("builtins", with_module("__builtins__['len'] = None"), "introspection"),
    ("ctypes", with_module("import ctypes"), "introspection"),
    ("sys.modules", with_forward("import sys; m = sys.modules"), "introspection"),
    ("traceback frame", with_forward("e = None; f = e.__traceback__"), "introspection"),
    ("getattr built name", with_forward("e = None; tb = getattr(e, '__trace' + 'back__')"), "introspection"),
    ("getattr frame name", with_forward("e = None; f = getattr(e, 'tb_frame')"), "introspection"),
    ("io.open", with_forward("import io; io.open('/proc/1/environ', 'rb')"), "file_access"),
    ("posix", with_module("import posix"), "file_access"),
    ("socket", with_module("import socket"), "file_access"),
    ("exec", with_forward("exec('y = x')"), "dynamic_code"),
    ("importlib", with_module("import importlib"), "dynamic_code"),
    ("pickle", with_module("import pickle"), "dynamic_code"),
    ("open", with_forward("open('../result.json', 'w').write('{}')"), "file_access"),
    ("shutil", with_module("import shutil"), "file_access"),
    ("os._exit", with_forward("import os; os._exit(0)"), "early_exit"),
    ("sys.exit", with_forward("import sys; sys.exit(0)"), "early_exit"),
    ("exit()", with_forward("exit()"), "early_exit"),
    ("reference", with_module("from task import Model"), "reference_call"),
    ("reference name", with_forward("ref = Model(256)"), "reference_call"),
]


@pytest.mark.parametrize("label, source, guard", STATIC_CASES, ids=[c[0] for c in STATIC_CASES])
def test_static_guard(label, source, guard):
    report = scan_source(source, "triton")
    assert guard in [v["name"] for v in report.violations], (label, report.violations)


def test_correct_candidates_are_clean():
    for name, dsl in (("triton_correct", "triton"), ("cpp_correct", "cpp"), ("triton_partial", "triton")):
        report = scan_source((HERE / "candidates" / f"{name}.py").read_text(), dsl)
        assert report.violations == [], (name, report.violations)


def test_try_except_fallback_to_torch():
    src = GOOD.replace(
        "        rowscale_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, self.weight, y, x.numel(), x.shape[-1], BLOCK=BLOCK)\n",
        "        try:\n"
        "            rowscale_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, self.weight, y, x.numel(), x.shape[-1], BLOCK=BLOCK)\n"
        "        except Exception:\n"
        "            return torch.relu(x * self.weight)\n")
    assert src != GOOD
    names = [v["name"] for v in scan_source(src, "triton").violations]
    assert names == ["try_fallback"]
    # a handler that only re-raises is fine
    ok = src.replace("return torch.relu(x * self.weight)", "raise RuntimeError('kernel failed')")
    assert scan_source(ok, "triton").violations == []


def test_try_fallback_through_methods_and_matmul():
    src = with_forward("try:\n            pass\n        except RuntimeError:\n            return x @ x.t()")
    assert "try_fallback" in [v["name"] for v in scan_source(src, "triton").violations]
    src = with_forward("try:\n            pass\n        except RuntimeError:\n            return x.softmax(-1)")
    assert "try_fallback" in [v["name"] for v in scan_source(src, "triton").violations]


def test_no_kernel_static_per_dsl():
    torch_only = "import torch\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x.relu()\n"
    for dsl in ("triton", "cpp", "cuda_c"):
        assert [v["name"] for v in scan_source(torch_only, dsl).violations] == ["no_kernel"]
    launch_line = "        rowscale_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, self.weight, y, x.numel(), x.shape[-1], BLOCK=BLOCK)\n"
    never_launched = GOOD.replace(launch_line, "        _unused = rowscale_kernel\n")
    assert never_launched != GOOD
    assert "never launches" in scan_source(never_launched, "triton").violations[0]["detail"]
    cpp = (HERE / "candidates" / "cpp_correct.py").read_text()
    assert scan_source(cpp, "cpp").violations == []
    assert "cuda_sources" in scan_source(cpp, "cuda_c").violations[0]["detail"]


def test_verify_rejects_static_violations_without_running():
    src = with_module("import threading")
    r = verify(TASK, candidate_source=src, dsl="triton", backend="cpu")
    assert r.status == "guard_violation"
    assert r.violation_names() == ["spawn"]
    assert "nothing was run" in r.feedback
    assert r.log == "" and r.timings is None


def test_syntax_error_and_missing_model_new_are_compile_errors():
    r = verify(TASK, candidate_source=GOOD.replace("def forward(self, x", "def forward(self x"),
               dsl="triton", backend="cpu")
    assert r.status == "compile_error" and "syntax error" in r.feedback and "line" in r.feedback
    r = verify(TASK, candidate_source=GOOD.replace("class ModelNew", "class Other"), dsl="triton", backend="cpu")
    assert r.status == "compile_error" and "ModelNew" in r.feedback
