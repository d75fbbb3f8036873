"""capture(): a task's forward as an aten graph on meta tensors, named parameters, no data."""

from __future__ import annotations

import time

import pytest
import torch

from akg_rag.errors import TaskError
from akg_rag.lower.capture import capture


def _ops(cap) -> set[str]:
    return {n.target._schema.name.split("::")[-1] for n in cap.gm.graph.nodes
            if n.op == "call_function" and hasattr(n.target, "_schema")}


def test_linear_module_parameters_and_inputs(write_task):
    path = write_task("""
        class Model(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.fc = nn.Linear(n, 2 * n)
            def forward(self, x, scale: float):
                return torch.relu(self.fc(x)) * scale
        def get_inputs():
            return [torch.randn(4, 8), 0.5]
        def get_init_inputs():
            return [8]
    """)
    cap = capture(path)
    assert cap.param_names == ["fc.weight", "fc.bias"]
    assert cap.input_count == 1 and cap.input_positions == [0] and cap.arg_count == 2
    assert "addmm" in _ops(cap) and not cap.returns_tuple
    holders = cap.placeholders
    assert [tuple(h.meta["val"].shape) for h in holders] == [(16, 8), (16,), (4, 8)]


def test_composites_decompose_but_cores_stay(write_task):
    path = write_task("""
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 4, 3)
                self.bn = nn.BatchNorm2d(4)
                self.gn = nn.GroupNorm(2, 4)
            def forward(self, x):
                y = self.gn(self.bn(self.conv(x)))
                y = F.gelu(F.softmax(y, dim=1)) + F.silu(y)
                y = F.layer_norm(y, y.shape[-1:])
                return F.max_pool2d(y, 2), torch.cumsum(y, 1), F.mse_loss(y, y * 2)
        def get_inputs():
            return [torch.randn(2, 3, 8, 8)]
        def get_init_inputs():
            return []
    """)
    cap = capture(path)
    ops = _ops(cap)
    assert {"convolution", "max_pool2d_with_indices", "cumsum"} <= ops
    gone = {"native_batch_norm", "native_group_norm", "native_layer_norm", "_softmax", "gelu",
            "silu", "mse_loss", "_native_batch_norm_legit_functional"}
    assert not ops & gone, ops & gone
    assert cap.returns_tuple
    assert set(cap.dropped) >= {"bn.running_mean", "bn.running_var"}  # training-mode stat updates


def test_no_in_place_ops_remain(write_task):
    path = write_task("""
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.GRU(4, 6, batch_first=True)
            def forward(self, x):
                y = x.clone()
                y.add_(1.0).relu_()
                return self.rnn(y)[0]
        def get_inputs():
            return [torch.randn(2, 3, 4)]
        def get_init_inputs():
            return []
    """)
    cap = capture(path)
    assert not any(o.endswith("_") for o in _ops(cap))
    # every time step is traced (the analysis traces one step of recurrent layers; lowering may not)
    assert sum(1 for n in cap.gm.graph.nodes if "addmm" in str(n.target) or "mm" in str(n.target)) >= 6


def test_literals_by_value_and_huge_inputs_cost_nothing(write_task):
    path = write_task("""
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
            def forward(self, x):
                return x.cuda() * torch.tensor([1.0, 2.0, 3.0, 4.0], device="cuda") + torch.tensor(0.5)
        def get_inputs():
            return [torch.randn(1_000_000, 4096 + 0).cuda()[:, :4]]
        def get_init_inputs():
            return []
    """)
    start = time.perf_counter()
    cap = capture(path)
    assert time.perf_counter() - start < 20  # 16 GB of input, never materialised
    values = sorted(tuple(t.flatten().tolist()) for t in cap.constants.values())
    assert (1.0, 2.0, 3.0, 4.0) in values and (0.5,) in values


def test_literal_list_indices_keep_their_values(write_task):
    """``x[:, [-1, 0, -2]]``, ``x[[0, -1], [1, -1]]`` and an in-place write through a list index:
    torch turns each list into an index tensor inside the call, which on meta would hold no value;
    capture builds them as literals, so the program indexes as the task does (negative entries
    too). A list of bools stays a mask: data-dependent, refused as before."""
    from akg_rag.lower.partition import partition

    from .conftest import reference_and_program

    path = write_task("""
        class Model(nn.Module):
            def forward(self, x):
                y = x.clone()
                y[:, [1, 3]] = 0.0
                return x[:, [-1, 0, -2]], x[[0, -1], [1, -1]], x[[[0], [2]], [1, 2]], y
        def get_inputs():
            return [torch.randn(5, 6)]
        def get_init_inputs():
            return []
    """)
    cap = capture(path)
    values = sorted(tuple(t.flatten().tolist()) for t in cap.constants.values())
    assert (-1, 0, -2) in values and (0, -1) in values and (1, -1) in values
    refs, outs = reference_and_program(path, partition(cap))
    assert all(torch.equal(o, r) for o, r in zip(outs, refs))
    masked = write_task("""
        class Model(nn.Module):
            def forward(self, x):
                return x[[True, False, True, False, True]]
        def get_inputs():
            return [torch.randn(5, 6)]
        def get_init_inputs():
            return []
    """, name="masked")
    with pytest.raises(TaskError):
        capture(masked)


def test_data_dependent_forward_is_a_task_error(write_task):
    path = write_task("""
        class Model(nn.Module):
            def forward(self, x):
                if x.sum().item() > 0:
                    return x
                return -x
        def get_inputs():
            return [torch.randn(4)]
        def get_init_inputs():
            return []
    """)
    with pytest.raises(TaskError, match="data-dependent"):
        capture(path)


def test_plain_tensor_attribute_is_named(write_task):
    path = write_task("""
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = torch.randn(8, 8)
            def forward(self, x):
                return x @ self.scale
        def get_inputs():
            return [torch.randn(4, 8)]
        def get_init_inputs():
            return []
    """)
    cap = capture(path)
    assert list(cap.attributes.values()) == ["scale"]


def test_missing_model_is_a_task_error(write_task):
    path = write_task("def get_inputs():\n    return []\ndef get_init_inputs():\n    return []\n")
    with pytest.raises(TaskError, match="Model"):
        capture(path)


def test_a_constructor_that_reads_a_value_is_built_on_the_cpu(write_task):
    """``.item()`` in the constructor cannot run on meta tensors: the model is built for real on
    the CPU, then moved to meta; its plain tensor attributes stay attributes (read from the real
    model at run time, never a value drawn here), and the program computes the task."""
    from akg_rag.lower.partition import partition

    from .conftest import assert_program_matches

    path = write_task("""
        class Model(nn.Module):
            def __init__(self, n):
                super().__init__()
                rates = [x.item() for x in torch.linspace(0, 1, n)]
                self.scale = rates[-1] * 2.0
                self.fc = nn.Linear(8, 8)
                self.noise = torch.randn(8)
            def forward(self, x):
                return self.fc(x) * self.scale + self.noise
        def get_inputs():
            return [torch.randn(4, 8)]
        def get_init_inputs():
            return [3]
    """)
    cap = capture(path)
    assert cap.param_names == ["fc.weight", "fc.bias"]
    assert list(cap.attributes.values()) == ["noise"] and not cap.constants
    prog = partition(cap)
    assert prog.attributes == frozenset({"noise"})
    assert_program_matches(path, prog)


def test_a_constructor_failing_on_the_cpu_too_reports_the_meta_error(write_task):
    path = write_task("""
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                raise ValueError("no model here")
        def get_inputs():
            return [torch.randn(4)]
        def get_init_inputs():
            return []
    """)
    with pytest.raises(TaskError, match="no model here"):
        capture(path)


def test_a_forward_that_writes_a_plain_attribute_takes_it_as_an_input(write_task, tmp_path):
    """``self.h.copy_(h0)`` in forward: functionalization needs the written tensor as an input, so
    the plain attribute is lifted to one (by its path); the write itself is dropped like a
    buffer's, the program computes the task, and the candidate moves the attribute with
    ``.to()`` (it is neither a parameter nor a buffer of the real model)."""
    from akg_rag.lower.assemble import lower_task
    from akg_rag.lower.partition import partition

    from .conftest import assert_program_matches

    path = write_task("""
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.hidden = torch.randn(2, 3)
                self.i2h = nn.Linear(5 + 3, 3)
            def forward(self, x, h0):
                self.hidden.copy_(h0)
                combined = torch.cat((x, self.hidden), dim=1)
                self.hidden = torch.tanh(self.i2h(combined))
                return self.hidden * 2
        def get_inputs():
            return [torch.randn(2, 5), torch.randn(2, 3)]
        def get_init_inputs():
            return []
    """)
    cap = capture(path)
    assert cap.lifted == ["hidden"] and "hidden" in cap.param_names
    prog = partition(cap)
    assert "hidden" in prog.attributes
    assert_program_matches(path, prog)
    source, _ = lower_task(path, "triton", "cuda")
    assert "def _apply(self, fn, recurse=True):" in source
    cand = tmp_path / "cand_lifted.py"
    cand.write_text(source)
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(cand.stem, cand)
    module = importlib.util.module_from_spec(spec)
    sys.modules[cand.stem] = module
    spec.loader.exec_module(module)
    model = module.ModelNew().to("meta")
    assert model._w.hidden.device.type == "meta" and model._w.i2h.weight.device.type == "meta"
