"""Comparing a candidate's outputs with the reference's, and describing the first difference.

Tolerances: ``|actual - expected| <= atol + rtol * |expected|`` elementwise, with atol = rtol = 1e-4
for float32/float64 and 1e-2 for float16/bfloat16; integers and booleans must match exactly.
Comparison runs in chunks on the reference's device (float64 temporaries of one chunk only), so
outputs of many gigabytes compare without a whole-tensor float64 copy. Non-finite values: a NaN passes only where the reference has a NaN at the same index (the reference
itself defines the value there), an infinity only where the reference has the same infinity.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from akg_rag.verify.tensors import CHUNK_ELEMS

# (atol, rtol) by output dtype
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-4, 1e-4),
    torch.float32: (1e-4, 1e-4),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (1e-2, 1e-2),
}


def tolerance(dtype: torch.dtype) -> tuple[float, float]:
    """Default (atol, rtol) for ``dtype``; exact (0, 0) for integer and boolean dtypes."""
    if dtype in TOLERANCES:
        return TOLERANCES[dtype]
    if dtype.is_floating_point or dtype.is_complex:
        return (1e-2, 1e-2)  # float8 and friends: no finer check is meaningful
    return (0.0, 0.0)


def as_tensor_list(out: Any) -> list[torch.Tensor] | None:
    """Outputs as a flat list of tensors (a tensor, or a tuple/list of them); None if not that."""
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)) and all(isinstance(t, torch.Tensor) for t in out):
        return list(out)
    return None


def _unravel(flat: int, shape: tuple[int, ...]) -> list[int]:
    idx = []
    for size in reversed(shape):
        idx.append(flat % size if size else 0)
        flat = flat // size if size else 0
    return list(reversed(idx))


def _scalar(t: torch.Tensor) -> float | int | bool | str:
    v = t.item()
    if isinstance(v, float) and v != v:
        return "nan"
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return str(v)
    return v


def check_meta(expected: torch.Tensor, shape: tuple[int, ...], dtype: torch.dtype) -> dict[str, Any] | None:
    """A shape or dtype mismatch dict, or None when both agree with ``expected``."""
    if tuple(shape) != tuple(expected.shape):
        return {"reason": "shape", "expected_shape": list(expected.shape), "actual_shape": list(shape)}
    if dtype != expected.dtype:
        return {"reason": "dtype", "expected_dtype": str(expected.dtype).replace("torch.", ""),
                "actual_dtype": str(dtype).replace("torch.", "")}
    return None


def compare_tensor(expected: torch.Tensor, actual: torch.Tensor, atol: float | None = None,
                   rtol: float | None = None, chunk: int = CHUNK_ELEMS) -> dict[str, Any] | None:
    """None when ``actual`` matches ``expected``; otherwise a dict describing the first difference."""
    meta = check_meta(expected, tuple(actual.shape), actual.dtype)
    if meta is not None:
        return meta
    flat = actual.detach().contiguous().reshape(-1)
    return compare_chunks(expected, lambda start, n: flat[start:start + n], atol, rtol, chunk)


def compare_chunks(expected: torch.Tensor, read: Callable[[int, int], torch.Tensor], atol: float | None = None,
                   rtol: float | None = None, chunk: int = CHUNK_ELEMS) -> dict[str, Any] | None:
    """Compare ``expected`` with an actual tensor of its shape and dtype read ``chunk`` elements at a time.

    ``read(start, n)`` returns the actual tensor's flat elements ``start .. start+n``, on any device;
    they are moved to ``expected``'s device. Memory: a few float64 temporaries of one chunk, never a
    float64 copy of a whole output.
    """
    d_atol, d_rtol = tolerance(expected.dtype)
    atol = d_atol if atol is None else atol
    rtol = d_rtol if rtol is None else rtol
    e_all = expected.detach().contiguous().reshape(-1)
    n_bad = 0
    first: tuple[int, Any, Any] | None = None
    max_abs = max_rel = float("-inf")
    nan_actual = False
    for start in range(0, e_all.numel(), chunk):
        e = e_all[start:start + chunk]
        a = read(start, e.numel()).to(e.device)
        if a.numel() != e.numel():
            raise ValueError(f"read {a.numel()} elements at {start}, expected {e.numel()}")
        bad, diff, ef = _chunk_bad(e, a, atol, rtol)
        nb = int(bad.sum().item())
        if a.is_floating_point() or a.is_complex():
            nan_actual |= bool(torch.isnan(a).any().item())
        if nb:
            if first is None:
                k = int(bad.nonzero()[0].item())
                first = (start + k, e[k], a[k])
            n_bad += nb
        finite = torch.isfinite(diff)
        if bool(finite.any()):
            max_abs = max(max_abs, float(diff[finite].max().item()))
            rel = diff / ef.abs().clamp_min(1e-12)
            max_rel = max(max_rel, float(rel[finite].max().item()))
    if n_bad == 0:
        return None
    assert first is not None
    flat, e_val, a_val = first
    return {
        "reason": "values",
        "index": _unravel(flat, tuple(expected.shape)),
        "expected": _scalar(e_val),
        "actual": _scalar(a_val),
        "mismatched": n_bad,
        "numel": expected.numel(),
        "max_abs_err": max_abs if max_abs != float("-inf") else float("nan"),
        "max_rel_err": max_rel if max_rel != float("-inf") else float("nan"),
        "nan_in_actual": nan_actual,
        "atol": atol,
        "rtol": rtol,
    }


def _chunk_bad(e: torch.Tensor, a: torch.Tensor, atol: float,
               rtol: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(mismatch mask, |a - e|, e) of one chunk, in float64 (complex as real pairs, any-part rule)."""
    if e.is_complex():
        e, a = torch.view_as_real(e), torch.view_as_real(a)
    ef, af = e.to(torch.float64), a.to(torch.float64)
    diff = (af - ef).abs()
    if not e.is_floating_point():
        bad = a != e
    else:
        # an infinite reference makes the tolerance infinite too: demand the same infinity there
        ok = torch.where(torch.isfinite(ef), diff <= atol + rtol * ef.abs(), af == ef)
        ok |= torch.isnan(ef) & torch.isnan(af)
        bad = ~ok
    if bad.dim() > 1:  # complex: an element is bad when either part is
        bad, diff, ef = bad.any(-1), diff.amax(-1), ef.abs().amax(-1)
    return bad, diff, ef


def compare_outputs(expected: Any, actual: Any, atol: float | None = None,
                    rtol: float | None = None) -> dict[str, Any] | None:
    """Compare whole outputs (tensor or tuple/list of tensors); None on a match."""
    exp = as_tensor_list(expected)
    act = as_tensor_list(actual)
    if exp is None:
        raise TypeError(f"the reference returned {type(expected).__name__}, not tensors")
    if act is None:
        return {"reason": "structure", "detail": f"candidate returned {type(actual).__name__}, "
                f"expected {'a tensor' if len(exp) == 1 else f'{len(exp)} tensors'}"}
    if len(act) != len(exp):
        return {"reason": "structure", "detail": f"candidate returned {len(act)} tensors, expected {len(exp)}"}
    for i, (e, a) in enumerate(zip(exp, act)):
        m = compare_tensor(e, a, atol, rtol)
        if m is not None:
            m["output"] = i
            return m
    return None


def describe(m: dict[str, Any]) -> str:
    """A sentence a coder can act on, from a mismatch dict."""
    where = f"output {m.get('output', 0)}" + (f", input set {m['input_set']}" if "input_set" in m else "") \
        + (f", trial {m['trial']}" if "trial" in m else "")
    if m["reason"] == "structure":
        return f"{where}: {m['detail']}"
    if m["reason"] == "shape":
        return f"{where}: shape {m['actual_shape']} but the reference has {m['expected_shape']}"
    if m["reason"] == "dtype":
        return f"{where}: dtype {m['actual_dtype']} but the reference has {m['expected_dtype']}"
    return (f"{where}: {m['mismatched']} of {m['numel']} elements differ; first at index {m['index']}: "
            f"expected {m['expected']}, got {m['actual']}; max abs error {m['max_abs_err']:.3g}, "
            f"max rel error {m['max_rel_err']:.3g} (atol={m['atol']:g}, rtol={m['rtol']:g})"
            + ("; the output contains NaN" if m.get("nan_in_actual") else ""))
