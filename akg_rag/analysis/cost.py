"""FLOP counts per aten op: the compute side of the roofline.

Counting rules (one multiply-add = 2 FLOPs; transcendental functions count as 1):

* matmul family: ``2*M*N*K`` (times the batch for ``bmm``); ``addmm``/``baddbmm`` add one per output
  element for the bias;
* convolution: ``2 * out_elements * Cin/groups * prod(kernel)`` (transposed: ``2 * in_elements *
  Cout/groups * prod(kernel)``), plus one per output element with a bias;
* fused attention: ``4*B*H*L*S*D`` for the two products plus 5 per score element for the softmax;
* softmax/log-softmax: 5 per element (max, subtract, exp, sum, divide);
* normalization: 7 per element (mean, variance, normalise, scale, shift);
* pooling: one per window element per output element (adaptive pooling: one per input element);
* reductions and scans: one per input element (variance, std and norms: two);
* losses: three per input element (difference, square or log, accumulate);
* elementwise ops: one per output element; views, copies, factories and indexing: zero.
"""

from __future__ import annotations

from math import prod

from akg_rag.analysis.optable import base_name, is_factory, is_view, op_type_of
from akg_rag.analysis.trace import OpRecord


def _numel(shape: tuple[int, ...]) -> int:
    return prod(shape) if shape else 1


def record_flops(rec: OpRecord) -> int:
    """FLOPs of one recorded aten op under the rules in the module docstring."""
    name = base_name(rec.name)
    if is_view(rec.name) or is_factory(rec.name) or not rec.out_specs:
        return 0
    ins = [s.shape for s in rec.in_specs]
    out = _numel(rec.out_specs[0].shape)
    first = _numel(ins[0]) if ins else out
    kind = op_type_of(rec.name)
    if name in ("mm", "addmm", "bmm", "baddbmm", "mv", "addmv", "dot", "vdot"):
        a, b = (ins[1], ins[2]) if name in ("addmm", "baddbmm", "addmv") else (ins[0], ins[1])
        k = a[-1] if a else 1
        bias = out if name in ("addmm", "baddbmm", "addmv") else 0
        return 2 * out * k + bias
    if name in ("convolution", "_convolution"):
        weight = ins[1]
        per = _numel(weight[1:])
        base = 2 * (first if rec.params.get("transposed") else out) * per
        return base + (out if len(ins) > 2 else 0)
    if kind == "attention":
        q, k = ins[0], ins[1]
        lead = _numel(q[:-2])
        scores = lead * q[-2] * k[-2]
        return 4 * scores * q[-1] + 5 * scores
    if kind == "softmax":
        return 5 * out
    if kind == "normalization":
        return 7 * first
    if kind == "pooling":
        if name.startswith("adaptive") or name.startswith("_adaptive"):
            return first
        window = rec.params.get("kernel_size") or [1]
        return out * _numel(tuple(int(k) for k in window))
    if kind == "reduction":
        return (2 if name in ("var", "std", "var_mean", "std_mean", "norm", "linalg_vector_norm") else 1) * first
    if kind == "scan":
        return first
    if kind == "loss":
        return 3 * first
    if kind == "indexing":
        return 0
    return out


def total_flops(records: list[OpRecord]) -> int:
    """Sum of :func:`record_flops` over a trace (ops traced once for a whole sequence count
    ``repeat`` times)."""
    return sum(record_flops(r) * r.repeat for r in records)
