"""launch_order: forward issues the heaviest ready kernel first, never a step before what it reads."""

from __future__ import annotations

import os
import subprocess
import sys

from akg_rag.lower.assemble import lower_task, planned
from akg_rag.lower.capture import capture
from akg_rag.lower.launch_order import _reads_writes, launch_order
from akg_rag.lower.partition import partition
from akg_rag.lower.region import FallbackStep, KernelStep, ViewStep

# the targets' kernel comes first in the program, the logits' (512x as many bytes) does not need it
CROSS_ENTROPY = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, logits, targets):
        return torch.nn.functional.cross_entropy(logits, targets)

def get_inputs():
    return [torch.randn(96, 513), torch.randint(0, 513, (96,))]

def get_init_inputs():
    return []
"""

# a chain: every step reads the one before, so nothing may move
CHAIN = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        s = torch.softmax(x, dim=-1)
        return torch.cumsum(s, dim=0).sum(dim=1)

def get_inputs():
    return [torch.randn(40, 70)]

def get_init_inputs():
    return []
"""


def _program(tmp_path, text):
    path = tmp_path / "task.py"
    path.write_text(text)
    return path, planned(partition(capture(path, text), "generated"))


def _valid(program, order):
    """Every step reads only inputs, parameters, constants or what an earlier step wrote."""
    known = {v.name for v in program.inputs} | {v.name for v in program.params.values()} | set(program.constants)
    for step in order:
        reads, writes = _reads_writes(step)
        assert all(v.name in known for v in reads), step
        known |= {v.name for v in writes}
    assert sorted(map(id, order)) == sorted(map(id, program.steps))


def test_the_heaviest_independent_kernel_is_issued_first(tmp_path):
    _, program = _program(tmp_path, CROSS_ENTROPY)
    kernels = [s for s in program.steps if isinstance(s, KernelStep)]
    assert len(kernels) >= 2
    order = launch_order(program)
    _valid(program, order)
    first = next(s for s in order if isinstance(s, KernelStep))
    given = {v.name for v in program.inputs} | {v.name for v in program.params.values()} | set(program.constants)
    ready = [s for s in kernels if all(v.name in given for v in _reads_writes(s)[0])]
    heaviest = max(ready, key=lambda s: sum(v.nbytes for v in (*_reads_writes(s)[0], *_reads_writes(s)[1])))
    assert len(ready) >= 2 and first is heaviest and first is not kernels[0]   # ahead of the targets' kernel


def test_a_chain_keeps_its_order(tmp_path):
    _, program = _program(tmp_path, CHAIN)
    assert len(program.steps) >= 2
    assert launch_order(program) == program.steps


def test_views_follow_their_consumer_and_torch_ops_keep_their_order(tmp_path):
    _, program = _program(tmp_path, CROSS_ENTROPY)
    order = launch_order(program)
    for i, step in enumerate(order):
        if isinstance(step, ViewStep):   # issued when a consumer is next to come, not before
            later = order[i + 1:]
            assert any(step.out.name in {v.name for v in _reads_writes(s)[0]} for s in later)
    fallbacks = [s for s in program.steps if isinstance(s, FallbackStep)]
    assert [s for s in order if isinstance(s, FallbackStep)] == fallbacks


def test_the_reordered_candidate_computes_the_task(tmp_path):
    path, _ = _program(tmp_path, CROSS_ENTROPY)
    source, _ = lower_task(path, "triton", "cuda")
    body = source[source.index("def forward"):]
    assert body.index("k1(") < body.index("k0(")   # the logits' kernel (k1) before the targets' (k0)
    (tmp_path / "candidate.py").write_text(source)
    (tmp_path / "driver.py").write_text(
        "import sys, torch\nsys.path.insert(0, sys.argv[1])\nimport task, candidate\n"
        "torch.manual_seed(0)\ninputs = task.get_inputs()\n"
        "out = candidate.ModelNew()(*inputs)\nref = task.Model()(*inputs)\n"
        "torch.testing.assert_close(out, ref, atol=1e-5, rtol=1e-5)\nprint('MATCH')\n")
    run = subprocess.run([sys.executable, str(tmp_path / "driver.py"), str(tmp_path)],
                         env={**os.environ, "TRITON_INTERPRET": "1"}, capture_output=True, text=True, timeout=600)
    assert "MATCH" in run.stdout, run.stderr[-3000:]


def _kernel(name, reads, writes):
    from types import SimpleNamespace

    region = SimpleNamespace(inputs=list(reads), outputs=[SimpleNamespace(value=v) for v in writes])
    return KernelStep(region=region, name=name)


def test_after_the_heaviest_a_consumer_of_the_last_kernel_comes_next():
    from akg_rag.lower.region import Program, Value

    x, y = Value("x", (50_000_000,), "float32"), Value("y", (25_000_000,), "float32")
    a, av, b, c = (Value("a", (10_000_000,), "float32"), Value("a_v", (10_000, 1000), "float32"),
                   Value("b", (10,), "float32"), Value("c", (25_000_000,), "float32"))
    k2 = _kernel("k2", [y], [c])                 # independent, 200 MB
    k0 = _kernel("k0", [x], [a])                 # the heaviest, 240 MB
    view = ViewStep(out=av, src=a, op="view", args=((10_000, 1000),))
    k1 = _kernel("k1", [av], [b])                # reads k0's output through a view
    program = Program(inputs=[x, y], params={}, constants={}, steps=[k2, k0, view, k1], outputs=[b, c])
    order = launch_order(program)
    _valid(program, order)
    assert [getattr(s, "name", "view") for s in order] == ["k0", "view", "k1", "k2"]
    # a program whose heaviest kernel already comes first is left as it is
    program.steps = [k0, view, k1, k2]
    assert launch_order(program) == program.steps


def test_nothing_moves_past_an_in_place_torch_op():
    from akg_rag.lower.region import Program, Value

    x, y, a, c = (Value("x", (1000,), "float32"), Value("y", (10**6,), "float32"),
                  Value("a", (1000,), "float32"), Value("c", (10**6,), "float32"))
    steps = [FallbackStep(outs=[a], op="aten.mul_.Tensor", args=(x, 2.0)), _kernel("k0", [y], [c])]
    program = Program(inputs=[x, y], params={}, constants={}, steps=steps, outputs=[a, c])
    assert launch_order(program) == steps
    steps[0] = FallbackStep(outs=[a], op="aten.mul.Tensor", args=(x, 2.0))
    assert [type(s).__name__ for s in launch_order(program)] == ["KernelStep", "FallbackStep"]


def test_only_the_views_the_first_launch_reads_precede_it():
    from akg_rag.lower.region import Program, Value

    x, w, g = Value("x", (4096, 4096), "float32"), Value("w", (4096, 4096), "float32"), Value("g", (64,), "float32")
    wt, gv = Value("wt", (4096, 4096), "float32"), Value("gv", (1, 64), "float32")
    y, z = Value("y", (4096, 4096), "float32"), Value("z", (4096, 4096), "float32")
    view_g = ViewStep(out=gv, src=g, op="unsqueeze", args=(0,))      # read by the second kernel only
    view_w = ViewStep(out=wt, src=w, op="permute", args=((1, 0),))   # read by the first
    k0 = _kernel("k0", [x, wt], [y])
    k1 = _kernel("k1", [y, gv], [z])
    program = Program(inputs=[x], params={"w": w, "g": g}, constants={}, steps=[view_g, view_w, k0, k1],
                      outputs=[z])
    order = launch_order(program)
    _valid(program, order)
    assert [getattr(s, "name", None) or s.out.name for s in order] == ["wt", "k0", "gv", "k1"]


def test_a_values_bytes_follow_torchs_itemsize():
    from akg_rag.lower.region import Value

    assert Value("a", (2, 3), "float16").nbytes == 12 and Value("b", (5,), "int64").nbytes == 40
    assert Value("c", (7,), "bool").itemsize == 1 and Value("d", (), "float32").nbytes == 4
