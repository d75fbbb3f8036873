"""Build generated Triton modules for the lowering tests.

Without a GPU the kernels run under the Triton interpreter (``TRITON_INTERPRET=1``, set here before
any kernel is decorated); with one they compile for it. ``build`` writes the generated source to a
file and imports it, as a candidate file would be (``@triton.jit`` reads its function's source).
"""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest
import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"

INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"
DEVICE = "cpu" if INTERPRETED else "cuda"


@pytest.fixture
def build(tmp_path):
    """``build(sketch_text, name="k") -> (entry function, module, KernelSource)``."""
    from akg_rag.lower.triton import emit_triton
    from akg_rag.sketch import check_sketch

    def _build(text: str, name: str = "k"):
        src = emit_triton(check_sketch(text), name)
        path = tmp_path / f"{name}_{abs(hash(src.code))}.py"
        path.write_text(src.code)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
        return getattr(module, src.entry), module, src

    return _build


@pytest.fixture
def device():
    """Where the tensors live: the GPU when kernels compile for it, else the CPU (interpreter)."""
    return DEVICE
