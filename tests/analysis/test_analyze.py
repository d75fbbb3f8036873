"""analyze_task on the zoo: names, types, shapes, FLOPs, bytes, dynamic shapes and JSON round trip."""

from __future__ import annotations

import json
import resource

import pytest

from akg_rag.analysis import TaskAnalysis, TensorSpec, analyze_task
from akg_rag.task import source_hash

from .conftest import TASKS

EXPECTED = {
    # stem: (op_name, op_types)
    "softmax": ("softmax", ["softmax"]),
    "softmax_manual": ("softmax", ["softmax"]),
    "log_softmax_manual": ("log_softmax", ["softmax"]),
    "gelu_tanh": ("gelu_tanh", ["elementwise"]),
    "gelu_tanh_manual": ("gelu_tanh", ["elementwise"]),
    "relu": ("relu", ["elementwise"]),
    "relu_clamp": ("relu", ["elementwise"]),
    "relu_maximum": ("relu", ["elementwise"]),
    "linear": ("linear", ["matmul"]),
    "linear_manual": ("linear", ["matmul"]),
    "gemm_bias_relu": ("gemm_bias_relu", ["matmul", "elementwise"]),
    "matmul": ("matmul", ["matmul"]),
    "bmm": ("bmm", ["matmul"]),
    "conv2d": ("conv2d", ["conv"]),
    "conv2d_add_relu": ("conv2d_add_relu", ["conv", "elementwise"]),
    "conv_transpose3d_chain": ("conv_transpose3d_tanh_mul_add_sum", ["conv", "reduction", "elementwise"]),
    "layer_norm": ("layer_norm", ["normalization"]),
    "norms_bn_gn": ("conv2d_batch_norm_group_norm", ["conv", "normalization"]),
    "rms_norm_manual": ("rms_norm", ["normalization"]),
    "max_pool2d": ("max_pool2d", ["pooling"]),
    "cumsum": ("cumsum", ["scan"]),
    "mse_loss": ("mse_loss", ["loss"]),
    "cross_entropy": ("cross_entropy", ["loss"]),
    "sum_reduce": ("sum", ["reduction"]),
    "argmax": ("argmax", ["reduction"]),
    "attention": ("scaled_dot_product_attention", ["attention"]),
    "embedding": ("embedding", ["indexing"]),
    "lstm": ("lstm_gemm_bias", ["matmul", "elementwise"]),
    "gru": ("gru", ["matmul", "elementwise"]),
}


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_names_and_types(analysed, stem):
    a = analysed[stem]
    name, types = EXPECTED[stem]
    assert (a.op_name, a.op_types) == (name, types)
    assert a.op_type == types[0]


def test_every_zoo_task_is_covered_by_expectations(analysed):
    assert set(EXPECTED) <= set(analysed)


def test_shapes_dtypes_and_hash(analysed):
    mm = analysed["matmul"]
    assert mm.inputs == [TensorSpec((4096, 4096), "float32")] * 2
    assert mm.outputs == [TensorSpec((4096, 4096), "float32")]
    assert mm.task_hash == source_hash((TASKS / "matmul.py").read_text())
    ce = analysed["cross_entropy"]
    assert [s.dtype for s in ce.inputs] == ["float32", "int64"]
    assert ce.outputs == [TensorSpec((), "float32")]
    assert analysed["attention"].dtype == "float16"
    assert analysed["argmax"].outputs == [TensorSpec((16, 256), "int64")]


def test_flops_follow_the_documented_rules(analysed):
    assert analysed["matmul"].flops == 2 * 4096**3
    assert analysed["bmm"].flops == 2 * 128 * 128 * 512 * 256
    # conv: 2 * out elements * Cin * Kh * Kw (no bias)
    assert analysed["conv2d"].flops == 2 * (16 * 64 * 254 * 254) * 3 * 3 * 3
    # addmm: 2*M*N*K plus the bias, then one per element for relu
    assert analysed["gemm_bias_relu"].flops == 2 * 128 * 512 * 1024 + 2 * 128 * 512
    assert analysed["softmax"].flops == 5 * 64 * 1024
    assert analysed["relu"].flops == 16 * 16384


def test_min_bytes_counts_inputs_params_and_outputs_once(analysed):
    # linear: x (256x1024) + W (512x1024) + b (512) + y (256x512), float32
    assert analysed["linear"].min_bytes == 4 * (256 * 1024 + 512 * 1024 + 512 + 256 * 512)
    assert analysed["matmul"].min_bytes == 4 * 3 * 4096 * 4096


def test_recurrent_layers_count_every_time_step(analysed):
    # one GRU layer step: 2 gemms (input and hidden) of 3*H gates, per batch row
    gru = analysed["gru"]
    layer0 = 2 * 10 * 3 * 256 * (128 + 256)
    assert gru.flops > 512 * layer0
    assert gru.outputs == [TensorSpec((512, 10, 256), "float32")]


def test_reduced_dims_and_ranks_in_computation_but_not_sizes(analysed):
    text = analysed["sum_reduce"].computation
    assert "over dimension 1" in text and "3-D float32" in text
    assert "256" not in text and "16" not in text
    assert "the last dimension" in analysed["softmax"].computation


def test_aten_ops_are_ordered_and_unique(analysed):
    ops = analysed["gemm_bias_relu"].aten_ops
    assert len(ops) == len(set(ops))
    assert ops.index("aten.addmm") < ops.index("aten.relu")


def test_dynamic_shapes_mark_differing_dims():
    a = analyze_task(TASKS / "dynamic_relu.py")
    assert a.inputs == [TensorSpec((-1, 1024), "float32")]
    assert a.outputs == [TensorSpec((-1, 1024), "float32")]
    assert [s[0].shape for s in a.input_sets] == [(32, 1024), (7, 1024), (513, 1024)]
    assert a.dynamic


def test_cuda_placement_is_traced_on_meta(analysed):
    # conv2d_add_relu calls .cuda() in get_inputs, gemm_bias_relu passes device="cuda"
    assert analysed["conv2d_add_relu"].inputs == [TensorSpec((128, 3, 32, 32), "float32")]
    assert analysed["gemm_bias_relu"].inputs == [TensorSpec((128, 1024), "float32")]


def test_json_round_trip(analysed):
    for a in analysed.values():
        back = TaskAnalysis.from_dict(json.loads(json.dumps(a.to_dict())))
        assert back == a


def test_source_argument_overrides_the_file(tmp_path):
    src = (TASKS / "relu.py").read_text().replace("F.relu(x)", "torch.sigmoid(x)")
    a = analyze_task(TASKS / "relu.py", source=src)
    assert a.op_name == "sigmoid"
    assert a.task_hash == source_hash(src)


def test_huge_input_is_never_materialised():
    # 4096 x 393216 float32 is 6 GiB; tracing must stay on meta tensors
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    a = analyze_task(TASKS / "huge_softmax.py")
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert a.inputs == [TensorSpec((4096, 393216), "float32")]
    assert a.min_bytes == 2 * 4 * 4096 * 393216
    assert grown_mib < 512
