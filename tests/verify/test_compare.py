"""Output comparison: tolerances by dtype, the NaN/Inf policy, structure, first mismatch."""

from __future__ import annotations

import torch

from akg_rag.verify.compare import compare_outputs, compare_tensor, describe, tolerance


def test_tolerance_by_dtype():
    assert tolerance(torch.float32) == (1e-4, 1e-4)
    assert tolerance(torch.float16) == (1e-2, 1e-2)
    assert tolerance(torch.bfloat16) == (1e-2, 1e-2)
    assert tolerance(torch.int64) == (0.0, 0.0)


def test_fp32_within_and_beyond_tolerance():
    e = torch.ones(4, 4)
    assert compare_tensor(e, e + 1.5e-4) is None                 # atol + rtol*1 = 2e-4
    m = compare_tensor(e, e + torch.eye(4) * 3e-4)
    assert m["reason"] == "values" and m["index"] == [0, 0] and m["mismatched"] == 4
    assert abs(m["max_abs_err"] - 3e-4) < 1e-6


def test_half_precision_uses_looser_tolerance():
    e = torch.ones(8, dtype=torch.float16)
    assert compare_tensor(e, e + 0.005) is None
    assert compare_tensor(e, e + 0.05) is not None


def test_nan_passes_only_where_the_reference_has_nan():
    e = torch.tensor([1.0, float("nan"), 3.0])
    assert compare_tensor(e, torch.tensor([1.0, float("nan"), 3.0])) is None
    m = compare_tensor(e, torch.tensor([float("nan"), float("nan"), 3.0]))
    assert m["index"] == [0] and m["actual"] == "nan" and m["nan_in_actual"]
    assert compare_tensor(torch.tensor([float("inf")]), torch.tensor([float("inf")])) is None
    assert compare_tensor(torch.tensor([float("inf")]), torch.tensor([float("-inf")])) is not None


def test_shape_dtype_and_structure_mismatches():
    e = torch.zeros(2, 3)
    assert compare_tensor(e, torch.zeros(3, 2))["reason"] == "shape"
    assert compare_tensor(e, torch.zeros(2, 3, dtype=torch.float64))["reason"] == "dtype"
    assert compare_outputs(e, [e, e])["reason"] == "structure"
    assert compare_outputs((e, e), (e, e)) is None
    assert compare_outputs((e, e), (e, e + 1))["output"] == 1
    assert compare_outputs(e, 3.0)["reason"] == "structure"


def test_integers_compare_exactly_and_index_is_multidimensional():
    e = torch.arange(24).reshape(2, 3, 4)
    a = e.clone()
    a[1, 2, 3] += 1
    m = compare_tensor(e, a)
    assert m["index"] == [1, 2, 3] and m["expected"] == 23 and m["actual"] == 24
    assert "first at index [1, 2, 3]" in describe(m)
