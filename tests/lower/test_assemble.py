"""assemble / lower_task: the task's constructor copied in, a candidate the static guards accept,
and (slow) candidates the verifier finds correct on cpp/cpu and under the Triton interpreter."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest
import torch

from akg_rag.errors import ConfigError
from akg_rag.lower.assemble import lower_task
from akg_rag.lower.weights import weights_source
from akg_rag.verify.static import scan_source

TASK = '''
import torch
import torch.nn as nn

HIDDEN = 6


def helper(n):
    return 2 * n


class Block(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, helper(n))

    def forward(self, x):
        return self.fc(x)


class Model(nn.Module):
    def __init__(self, n):
        super(Model, self).__init__()
        self.block = Block(n)
        self.layers = nn.ModuleList([nn.Linear(helper(n), n)])
        self.register_buffer("shift", torch.randn(n))

    def forward(self, x, r):
        y = torch.relu(self.block(x))
        return torch.softmax(self.layers[0](y) + self.shift, dim=-1) * 0.5 + r


def get_inputs():
    return [torch.randn(3, HIDDEN), torch.randn(3, HIDDEN)]


def get_init_inputs():
    return [HIDDEN]


if __name__ == "__main__":
    print(Model(*get_init_inputs())(*get_inputs()))
'''


def test_weights_source_keeps_the_constructor_only():
    src = weights_source(TASK)
    tree = ast.parse(src)
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    assert names == {"helper", "Block", "_Weights"}
    weights = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "_Weights")
    assert [f.name for f in weights.body if isinstance(f, ast.FunctionDef)] == ["__init__"]
    assert "Model" not in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert "__main__" not in src
    # same random draws as the task's Model
    ns: dict = {}
    exec(compile(src, "w", "exec"), ns)
    task_ns: dict = {}
    exec(compile(TASK, "t", "exec"), task_ns)
    torch.manual_seed(3)
    a = task_ns["Model"](6)
    torch.manual_seed(3)
    b = ns["_Weights"](6)
    for (ka, va), (kb, vb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert ka == kb and torch.equal(va, vb)


def _write(tmp_path, text=TASK):
    p = tmp_path / "task.py"
    p.write_text(text)
    return p


@pytest.mark.parametrize("dsl,backend", [("cpp", "cpu"), ("triton", "cuda")])
def test_candidate_passes_the_static_guards(tmp_path, dsl, backend):
    source, report = lower_task(_write(tmp_path), dsl, backend)
    scan = scan_source(source, dsl)
    assert scan.syntax_error is None and scan.violations == [], scan.violations
    assert scan.has_model_new
    assert [k.kind for k in report.kernels] == ["gemm", "gemm", "reduction"]
    assert not report.partial and report.fallbacks == []
    assert all(k.sketch.startswith("sketch ") for k in report.kernels)


def test_sketch_only_and_partial_report(tmp_path):
    text = TASK.replace("return torch.softmax(", "return torch.sort(").replace(
        ", dim=-1) * 0.5 + r", ", dim=-1)[0] * 0.5 + r")
    source, report = lower_task(_write(tmp_path, text), "cpp", "cpu", sketch_only=True)
    assert source is None and report.partial and report.fallbacks == ["aten.sort.default"]


def test_unknown_target_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="supported"):
        lower_task(_write(tmp_path), "cpp", "cuda")


@pytest.mark.slow
def test_cpp_candidate_verifies(tmp_path):
    from akg_rag.verify import verify

    path = _write(tmp_path)
    source, _ = lower_task(path, "cpp", "cpu")
    res = verify(path, candidate_source=source, dsl="cpp", backend="cpu")
    assert res.status == "correct", res.feedback


_DRIVER = """
import sys, torch
sys.path.insert(0, sys.argv[1])
import task, candidate
torch.manual_seed(0)
ref = task.Model(*task.get_init_inputs())
torch.manual_seed(0)
new = candidate.ModelNew(*task.get_init_inputs())
inputs = task.get_inputs()
with torch.no_grad():
    torch.testing.assert_close(new(*inputs), ref(*inputs), atol=1e-4, rtol=1e-4)
print("MATCH")
"""


@pytest.mark.slow
def test_triton_candidate_runs_under_the_interpreter(tmp_path):
    # TRITON_INTERPRET is read when triton is imported: run the candidate in a fresh process
    path = _write(tmp_path)
    source, _ = lower_task(path, "triton", "cuda")
    (tmp_path / "candidate.py").write_text(source)
    (tmp_path / "driver.py").write_text(_DRIVER)
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    run = subprocess.run([sys.executable, str(tmp_path / "driver.py"), str(tmp_path)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert "MATCH" in run.stdout, run.stderr[-3000:]


_QUICK_GELU = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(1.702 * x)

def get_inputs():
    return [torch.randn(37, 53)]

def get_init_inputs():
    return []
"""

# another design of the same region: one program per row, the row as one tile
_ROW_SKETCH = """
sketch rows {
  symbols: M, N
  tensors: in0[M, N]: f32 in; t_mul_1[M, N]: f32 out
  params: BN = 64

  @llm_hint("parallel", "grid")
  for m in range(M):
    load(in0[m, 0:N] -> row)
    y = mul(row, sigmoid(mul(row, 1.702)))
    store(y -> t_mul_1[m, 0:N])
}
"""


def _load_module(path: Path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def test_a_given_sketch_replaces_the_emitted_one_and_lowers(tmp_path):
    from akg_rag.errors import ConfigError, SketchError

    path = tmp_path / "task.py"
    path.write_text(_QUICK_GELU)
    _, planned = lower_task(path, "triton", "cuda", sketch_only=True)
    assert [k.name for k in planned.kernels] == ["k0"]
    source, report = lower_task(path, "triton", "cuda", sketches={"k0": _ROW_SKETCH})
    assert "for m in range(M)" in report.kernels[0].sketch
    cand = tmp_path / "cand_rows.py"
    cand.write_text(source)
    x = torch.randn(37, 53)
    got = _load_module(cand).ModelNew()(x)
    torch.testing.assert_close(got, x * torch.sigmoid(1.702 * x), rtol=1e-5, atol=1e-5)
    wrong = _ROW_SKETCH.replace("t_mul_1", "y_out")
    with pytest.raises(SketchError, match="declares tensors"):
        lower_task(path, "triton", "cuda", sketches={"k0": wrong})
    with pytest.raises(ConfigError, match="no kernel named k7"):
        lower_task(path, "triton", "cuda", sketches={"k7": _ROW_SKETCH})


_STATEFUL = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(1))
        self.register_buffer("ema", torch.zeros(6))
        self.register_buffer("steps", torch.zeros(1))
        self.bn = nn.BatchNorm1d(6)

    def forward(self, x):
        self.count += 1
        self.ema.mul_(0.9).add_(0.1 * x.mean(0))
        self.steps = self.steps + 0.5        # a rebinding, no in-place op
        return self.bn(x) - self.ema * self.count + self.bn.running_mean + self.steps

def get_inputs():
    return [torch.randn(4, 6)]

def get_init_inputs():
    return []
"""


def _lowered_with_state(tmp_path, name: str, task: str):
    """Lower ``task`` (Triton, run by the interpreter here); returns the source, the report, and a
    function checking that three successive calls of the candidate and of the task's model, each
    on fresh inputs from ``get_inputs``, agree (the state they carry must evolve alike)."""
    path = tmp_path / f"{name}.py"
    path.write_text(task)
    source, report = lower_task(path, "triton", "cuda")
    (tmp_path / f"{name}_cand.py").write_text(source)

    def calls_agree() -> None:
        cand = _load_module(tmp_path / f"{name}_cand.py")
        ns: dict = {}
        exec(compile(task, name, "exec"), ns)
        torch.manual_seed(0)
        ref = ns["Model"]()
        torch.manual_seed(0)
        new = cand.ModelNew()
        for _ in range(3):
            xs = ns["get_inputs"]()
            torch.testing.assert_close(new(*xs), ref(*xs))

    return source, report, calls_agree


def test_state_that_forward_reads_is_written_back_and_the_rest_dropped(tmp_path):
    """A buffer forward updates and also reads (a counter, a running mean an output adds, a buffer
    rebound to a new tensor) must be updated by the candidate too, or its second call differs;
    running_var and the batch counter reach no output and stay dropped."""
    source, report, calls_agree = _lowered_with_state(tmp_path, "stateful", _STATEFUL)
    assert sorted(report.dropped) == ["bn.num_batches_tracked", "bn.running_var"]
    assert sorted(report.written) == ["bn.running_mean", "count", "ema", "steps"]
    assert source.count(".copy_(") == 4      # count, ema, steps, bn.running_mean
    calls_agree()


_COPY_THEN_REBIND = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.h = torch.zeros(3, 5)           # a plain tensor attribute, not a buffer
        self.l = nn.Linear(5, 5)

    def forward(self, x, h0):
        self.h.copy_(h0 * 0.5 + self.h)      # into the old tensor ...
        self.h = torch.tanh(self.l(self.h) + x)   # ... then a new one: the final state
        return self.h * 2

def get_inputs():
    return [torch.randn(3, 5), torch.randn(3, 5)]

def get_init_inputs():
    return []
"""


def test_a_copy_into_state_then_a_rebinding_writes_back_the_rebound_value(tmp_path):
    source, report, calls_agree = _lowered_with_state(tmp_path, "rebind", _COPY_THEN_REBIND)
    assert report.written == ["h"] and source.count(".copy_(") == 1
    calls_agree()
