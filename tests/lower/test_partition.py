"""partition(): region kinds, what each region fuses, what stays a view or a torch call -- and
every partition computes the task (emitted sketches run by the reference interpreter)."""

from __future__ import annotations

import importlib.util

import pytest
import torch

from akg_rag.lower.capture import capture
from akg_rag.lower.partition import partition
from akg_rag.lower.region import FallbackStep, KernelStep, ViewStep

from .conftest import assert_program_matches, reference_and_program


def _task(body: str, inputs: str, init: str = "[]") -> str:
    return f"{body}\ndef get_inputs():\n    return {inputs}\n\ndef get_init_inputs():\n    return {init}\n"


def _kernels(prog):
    return [s.region for s in prog.steps if isinstance(s, KernelStep)]


def _ops(expr) -> set[str]:
    out = {expr.op}
    for a in expr.args:
        out |= _ops(a)
    return out


def _lower(write_task, source: str):
    path = write_task(source)
    prog = partition(capture(path))
    return path, prog


def test_functional_softmax_is_one_reduction_region(write_task):
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)
""", "[torch.randn(3, 5)]"))
    (r,) = _kernels(prog)
    assert r.kind == "reduction" and r.dims == (1,)
    assert [red.kind for red in r.reductions] == ["max", "sum"]
    assert [o.domain for o in r.outputs] == ["full"] and "exp" in _ops(r.outputs[0].expr)
    assert_program_matches(path, prog)


def test_hand_written_softmax_and_layer_norm_fuse(write_task):
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def forward(self, x):
        e = torch.exp(x - x.max(dim=1, keepdim=True).values)
        s = e / e.sum(dim=1, keepdim=True)
        mu = s.mean(dim=1, keepdim=True)
        var = ((s - mu) ** 2).mean(dim=1, keepdim=True)
        return (s - mu) / torch.sqrt(var + 1e-5)
""", "[torch.randn(4, 6)]"))
    kinds = [r.kind for r in _kernels(prog)]
    assert kinds == ["reduction"], kinds   # max, sum, mean and variance: one pass region
    assert len(_kernels(prog)[0].reductions) == 4
    assert not [s for s in prog.steps if isinstance(s, FallbackStep)]
    assert_program_matches(path, prog)


def test_layer_norm_module_keeps_count_symbolic(write_task):
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(8)
    def forward(self, x):
        return self.ln(x)
""", "[torch.randn(2, 3, 8)]"))
    (r,) = _kernels(prog)
    assert r.kind == "reduction" and r.dims == (2,)
    assert "numel" in _ops(r.outputs[0].expr)  # the mean divides by the count, not by 8.0
    assert {v.name for v in r.inputs} >= {prog.params["ln.weight"].name, prog.params["ln.bias"].name}
    assert_program_matches(path, prog)


def test_transposed_operand_is_a_view_and_tail_fuses(write_task):
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(6, 5))
    def forward(self, x, r):
        return torch.matmul(x, self.w.t()) * 0.5 + r
""", "[torch.randn(4, 5), torch.randn(4, 6)]"))
    (g,) = _kernels(prog)
    assert g.kind == "gemm" and g.shape == (4, 6)
    views = [s for s in prog.steps if isinstance(s, ViewStep)]
    assert views and g.b.name == views[-1].out.name and views[-1].src.name == prog.params["w"].name
    (out,) = g.outputs
    assert _ops(out.expr) >= {"acc", "mul", "add"} and prog.inputs[1].name in [v.name for v in g.inputs]
    assert_program_matches(path, prog)


def test_linear_bias_gelu_is_one_gemm_region(write_task):
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 7)
    def forward(self, x):
        return F.gelu(self.fc(x))
""", "[torch.randn(3, 5)]"))
    (g,) = _kernels(prog)
    assert g.kind == "gemm" and "erf" in _ops(g.outputs[0].expr)
    assert_program_matches(path, prog)


def test_nchw_per_channel_bias_is_one_pointwise_kernel(write_task):
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = nn.Parameter(torch.randn(3))
    def forward(self, x):
        return torch.sigmoid(x + self.b.view(1, -1, 1, 1)) * 2.0
""", "[torch.randn(2, 3, 4, 5)]"))
    (r,) = _kernels(prog)
    assert r.kind == "pointwise" and r.shape == (2, 3, 4, 5)
    assert [v.shape for v in r.inputs if v.name != prog.inputs[0].name] == [(1, 3, 1, 1)]
    assert_program_matches(path, prog)


def test_conv_bias_relu_is_one_conv_region(write_task):
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1, stride=2)
    def forward(self, x):
        return torch.relu(self.conv(x))
""", "[torch.randn(1, 2, 5, 5)]"))
    (c,) = _kernels(prog)
    assert c.kind == "conv" and c.bias is not None and c.stride == (2, 2) and c.padding == (1, 1)
    assert "max" in _ops(c.outputs[0].expr)
    assert_program_matches(path, prog)


def test_sum_without_keepdim_then_bias_aligns_the_bias(write_task):
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def forward(self, x, b):
        return x.sum(dim=1) * 2.0 + b
""", "[torch.randn(3, 4, 5), torch.randn(3, 5)]"))
    (r,) = _kernels(prog)
    assert r.kind == "reduction" and r.dims == (1,)
    (out,) = r.outputs
    assert out.domain == "reduced" and out.value.shape == (3, 5)
    assert [v.shape for v in r.inputs if v.name != prog.inputs[0].name] == [(3, 1, 5)]
    assert_program_matches(path, prog)


def test_mean_unsqueezed_into_the_full_domain(write_task):
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def forward(self, x):
        m = x.mean(dim=0)
        return (x - m.unsqueeze(0)).abs(), m
""", "[torch.randn(4, 3)]"))
    kinds = [r.kind for r in _kernels(prog)]
    assert kinds == ["reduction"]
    assert sorted(o.domain for o in _kernels(prog)[0].outputs) == ["full", "reduced"]
    assert_program_matches(path, prog)


def test_argmax_and_max_with_indices(write_task):
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def forward(self, x):
        v, i = torch.max(x, dim=1)
        return v, i, torch.argmin(x, dim=0)
""", "[torch.randn(4, 6)]"))
    kinds = sorted(red.kind for r in _kernels(prog) for red in r.reductions)
    assert kinds == ["argmax", "argmin", "max"]
    assert_program_matches(path, prog)


def test_reverse_cumsum_is_one_scan_without_flips(write_task):
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def forward(self, x):
        return torch.cumsum((x * 2.0).flip(1), dim=1).flip(1) + 1.0
""", "[torch.randn(3, 7)]"))
    (s,) = _kernels(prog)
    assert s.kind == "scan" and s.reverse and s.dim == 1 and "mul" in _ops(s.expr)
    assert "add" in _ops(s.outputs[0].expr)
    assert not [st for st in prog.steps if isinstance(st, FallbackStep)]
    if importlib.util.find_spec("akg_rag.lower.emit.scan") is None:
        pytest.skip("scan emitter not merged yet")
    assert_program_matches(path, prog)


@pytest.mark.parametrize("pool", ["F.max_pool2d(x, 2)", "F.avg_pool2d(x, 3, stride=2, padding=1)",
                                  "F.max_pool1d(x.flatten(2), 3, stride=2)",
                                  "F.adaptive_avg_pool2d(x, (3, 2))", "F.adaptive_max_pool2d(x, (2, 3))",
                                  "F.adaptive_max_pool3d(x.unsqueeze(2), (1, 3, 3))"])
def test_pooling(write_task, pool):
    path, prog = _lower(write_task, _task(f"""
class Model(nn.Module):
    def forward(self, x):
        return torch.relu({pool})
""", "[torch.randn(1, 2, 6, 6)]"))
    kinds = [r.kind for r in _kernels(prog)]
    assert kinds[0] == "pool"
    if "max_pool1d" not in pool:  # 1-D pooling runs as 2-D behind a view: the relu stays apart
        assert kinds == ["pool"] and "max" in _ops(_kernels(prog)[0].outputs[0].expr)
    if importlib.util.find_spec("akg_rag.lower.emit.pool") is None:
        pytest.skip("pool emitter not merged yet")
    assert_program_matches(path, prog)


_NAN_AT_0012 = ("[torch.randn(2, 3, 7, 9).index_put_((torch.tensor([0]), torch.tensor([0]), torch.tensor([1]), "
                "torch.tensor([2])), torch.tensor(float('nan')))]")


@pytest.mark.parametrize("pool", [
    "F.adaptive_avg_pool2d(x, (3, 4))",                        # 7 -> 3, 9 -> 4: windows overlap
    "F.adaptive_avg_pool2d(x, (7, 4))",                        # one dimension tiles, one does not
    "F.adaptive_avg_pool1d(x.flatten(2), 5)",
    "F.adaptive_avg_pool3d(x.unsqueeze(1), (2, 3, 2))",
    "F.adaptive_max_pool2d(x, (4, 3))",
    "F.adaptive_max_pool3d(x.unsqueeze(1), (2, 2, 5))",
])
def test_adaptive_pools_with_uneven_windows_are_kernels(write_task, pool):
    """Windows that do not tile the input: one gather, mask and reduction a pooled dimension (the
    mean and the maximum over a box are separable), no torch call; NaN propagates through max."""
    path, prog = _lower(write_task, _task(f"""
class Model(nn.Module):
    def forward(self, x):
        return {pool} * 2.0
""", _NAN_AT_0012 if "max" in pool else "[torch.randn(2, 3, 7, 9)]"))
    assert not [st for st in prog.steps if isinstance(st, FallbackStep)]
    assert _kernels(prog)
    refs, _ = reference_and_program(path, prog)
    assert ("max" not in pool) or bool(torch.isnan(refs[0]).any())     # the NaN reaches an output
    assert_program_matches(path, prog, equal_nan=True)


def test_adaptive_max_pool_indices_stay_a_torch_call_beside_generated_values(write_task):
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def forward(self, x):
        v, i = F.adaptive_max_pool2d(x, (4, 3), return_indices=True)
        return v + 1.0, i
""", "[torch.randn(2, 3, 7, 9)]"))
    assert [s.op for s in prog.steps if isinstance(s, FallbackStep)] == ["aten.adaptive_max_pool2d.default"]
    assert any("max" in r.kind or r.kind == "reduction" for r in _kernels(prog))
    assert_program_matches(path, prog)


def test_unhandled_ops_are_named_fallbacks(write_task):
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def forward(self, x):
        s, _ = torch.sort(x, dim=1)
        return torch.cat([s, x], dim=0) + 1.0
""", "[torch.randn(3, 4)]"))
    falls = [s.op for s in prog.steps if isinstance(s, FallbackStep)]
    assert falls == ["aten.sort.default"]  # cat is a gather now, fused with the add
    assert [r.kind for r in _kernels(prog)] == ["pointwise"]
    assert "gather" in _ops(_kernels(prog)[0].outputs[0].expr)
    assert_program_matches(path, prog)


def test_ints_bools_and_casts(write_task):
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def forward(self, x, t):
        m = (t > 1) & (x > 0)
        return torch.where(m, x, torch.zeros_like(x)).sum(dim=1), (t * 3 + 1), m.float().mean()
""", "[torch.randn(3, 4), torch.randint(0, 4, (3, 4))]"))
    assert all(r.kind in ("pointwise", "reduction") for r in _kernels(prog))
    assert_program_matches(path, prog)


def test_mixed_integer_and_bool_operands_promote_as_torch(write_task):
    """bool + int32 adds int32s (it once cast the int32 operand to bool: 7 + True gave 1);
    int32 against int64 compares int64s (3e9 does not fit an int32)."""
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def forward(self, b, i, j):
        return b + i, i * j - 1, j > i, (b | (i > 0)) & ~(j < 0)
""", "[torch.rand(3, 4) > 0.5, torch.randint(-9, 9, (3, 4), dtype=torch.int32), "
    "torch.randint(-9, 9, (3, 4)) * 3_000_000_000]"))
    assert_program_matches(path, prog)


def test_a_narrowing_cast_between_computations_rounds_there(write_task):
    """``.to(torch.bfloat16)`` then ``.float()``: eager rounds to bfloat16 in between, so the
    lowering must too (the softmax after it amplifies a missed rounding past f32 tolerances)."""
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def forward(self, x):
        y = (x * 1.7 + 0.3).to(torch.bfloat16)
        return (y.float() * 40.0).softmax(-1), y.to(torch.float16).float() - y.float()
""", "[torch.randn(4, 33)]"))
    (k,) = [r for r in _kernels(prog) if r.kind == "reduction"]
    assert "cast" in _ops(k.outputs[0].expr)
    assert_program_matches(path, prog)


def test_cummax_and_cummin_values_are_scans_and_their_indices_a_fallback(write_task):
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def forward(self, x):
        return torch.cummax(x, dim=1).values + torch.cummin(x, 0)[0] * 2
""", "[torch.randn(5, 9)]"))
    assert [r.kind for r in _kernels(prog)].count("scan") == 2
    assert not [s for s in prog.steps if isinstance(s, FallbackStep)]
    assert_program_matches(path, prog)
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def forward(self, x):
        v, i = torch.cummax(x, dim=1)
        return v * i
""", "[torch.randn(5, 9)]"))
    assert [s.op for s in prog.steps if isinstance(s, FallbackStep)] == ["aten.cummax.default"]
    assert_program_matches(path, prog)


def test_an_op_with_non_tensor_results_stays_a_named_fallback(write_task):
    from akg_rag.lower.assemble import lower_task

    path = write_task("""
        class Model(nn.Module):
            def forward(self, x):
                return torch.relu(torch.linalg.inv(x)) * 2

        def get_inputs():
            return [torch.randn(4, 8, 8)]

        def get_init_inputs():
            return []
    """)
    _, report = lower_task(path, "cpp", "cpu", sketch_only=True)
    assert report.partial and any("linalg_inv" in op for op in report.fallbacks)
    assert [k.kind for k in report.kernels] == ["pointwise"]


def test_copy_into_a_fresh_tensor_is_pointwise_with_broadcast_and_cast(write_task):
    """``y.copy_(src)`` traces to ``aten.copy(y, src)``: y's shape and dtype, src's values broadcast
    (cross-entropy with label smoothing produces one); it is fused, not left to torch."""
    path, prog = _lower(write_task, _task("""
class Model(nn.Module):
    def forward(self, x, b):
        y = torch.empty_like(x)
        y.copy_(b)
        return y * x + 1.0, F.cross_entropy(x, b.clamp(0, 4)[:3], label_smoothing=0.2)
""", "[torch.randn(3, 5), torch.randint(-2, 7, (5,))]"))
    assert not [s.op for s in prog.steps if isinstance(s, FallbackStep)]
    assert_program_matches(path, prog)
