"""Shared helpers of the lowering tests.

Tiny tasks written to files, and a partitioned program run with the sketch interpreter against the
task's own forward; and generated Triton modules built from sketch text. Without a GPU the Triton
kernels run under the interpreter (``TRITON_INTERPRET=1``, set here before any kernel is decorated);
with one they compile for it. ``build`` writes the generated source to a file and imports it, as a
candidate file would be (``@triton.jit`` reads its function's source).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import textwrap
from pathlib import Path

import pytest
import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"

INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"
DEVICE = "cpu" if INTERPRETED else "cuda"

from akg_rag.lower.execute import region_values, run_program
from akg_rag.lower.region import KernelStep, Program
from akg_rag.task import load_task


@pytest.fixture
def write_task(tmp_path: Path):
    """Write a task body (imports added) to a file; returns its path."""
    def write(body: str, name: str = "task") -> Path:
        path = tmp_path / f"{name}.py"
        path.write_text("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"
                        + textwrap.dedent(body))
        return path
    return write


def forward_task(forward: str, inputs: str, init: str = "") -> str:
    """A task body whose ``forward(self, *t)`` is the one line ``forward``, its inputs the
    expression ``inputs``; ``init`` is one line of ``__init__`` (a layer, say)."""
    return f"""
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        {init or "pass"}

    def forward(self, *t):
        {forward}

def get_inputs():
    return {inputs}

def get_init_inputs():
    return []
"""


def interp_kernel(step: KernelStep, env: dict[str, torch.Tensor]) -> None:
    """Emit the region's sketch and run it with the reference interpreter."""
    from akg_rag.lower.emit import emit_sketch
    from akg_rag.lower.interp import run_sketch

    text = emit_sketch(step.region, step.name)
    tensors = {v.name: env[v.name].reshape(1) if env[v.name].dim() == 0 else env[v.name]
               for v in region_values(step.region)}
    run_sketch(text, tensors)


def reference_and_program(path: Path, program: Program, seed: int = 0):
    """(reference outputs, program outputs) on the task's own inputs and weights."""
    task = load_task(path)
    torch.manual_seed(seed)
    model = task.model_cls(*task.get_init_inputs())
    args = list(task.get_inputs())
    with torch.no_grad():
        ref = model(*args)
    refs = list(ref) if isinstance(ref, (tuple, list)) else [ref]
    params = {name: functools.reduce(getattr, name.split("."), model) for name in program.params}
    with torch.no_grad():
        outs = run_program(program, params, [a for a in args if isinstance(a, torch.Tensor)], interp_kernel)
    return refs, outs


def assert_program_matches(path: Path, program: Program, atol: float = 1e-4, equal_nan: bool = False) -> None:
    """The program computes what the task computes (shapes, dtypes, values; NaN where the task's
    are, with ``equal_nan``)."""
    refs, outs = reference_and_program(path, program)
    assert len(refs) == len(outs)
    for r, o in zip(refs, outs):
        assert o.shape == r.shape and o.dtype == r.dtype, (o.shape, o.dtype, r.shape, r.dtype)
        torch.testing.assert_close(o, r, atol=atol, rtol=atol, equal_nan=equal_nan)


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
