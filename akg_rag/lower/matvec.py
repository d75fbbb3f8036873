"""Matrix-vector products as reductions.

A product with one output dimension of 1 (``A[M, K] @ B[K, 1]``, ``x[1, K] @ W[K, N]``, ``mv``, a
batched form, a linear layer with one output) is memory-bound: each element of the matrix is read
once and used once. As a GEMM it gets a 1-wide output tile and most of every tile is wasted; as a
reduction (``sum(A * B^T, dim)``) the matrix streams through the reduction emitters, which keep
loads contiguous, split long rows and fuse the tail. The rewrite works on the captured graph, so
the region planner sees a multiply and a sum. Half-precision operands are widened to float32
before the multiply (a GEMM accumulates exact products in float32) and the result is narrowed back.
"""

from __future__ import annotations

import torch

from akg_rag.lower.fx_rewrite import emit, replace, val

aten = torch.ops.aten
prims = torch.ops.prims


def _plan(name: str, a: torch.Tensor, b: torch.Tensor) -> tuple[str, list[int], int, bool] | None:
    """How to rewrite ``name(a, b)``: (operand to transpose 'a'/'b'/'', its permutation, the summed
    dim, keepdim); None when no output dim is 1."""
    if name == "mv":
        return "", [], 1, False
    if a.dim() != b.dim() or a.dim() not in (2, 3):
        return None
    lead = [0] if a.dim() == 3 else []
    n = len(lead)
    m_dim, n_dim = a.shape[-2], b.shape[-1]
    if n_dim == 1:  # rows of A times the column of B: B transposed to a row, sum over K (last dim)
        return "b", lead + [n + 1, n], n + 1, True
    if m_dim == 1:  # the row of A times the columns of B: A transposed to a column, sum over K
        return "a", lead + [n + 1, n], n, True
    return None


def matvec_as_reduction(gm: torch.fx.GraphModule) -> int:
    """Rewrite every matrix-vector ``mm`` / ``bmm`` / ``mv`` / ``addmm`` of ``gm`` into a multiply
    and a sum (see the module doc); returns how many were rewritten."""
    g = gm.graph
    count = 0
    for node in list(g.nodes):
        if node.op != "call_function" or not hasattr(node.target, "_schema"):
            continue
        name = node.target._schema.name.split("::")[-1]
        if name not in ("mm", "bmm", "mv", "addmm") or node.kwargs:
            continue
        bias, (a, b) = (node.args[0], node.args[1:3]) if name == "addmm" else (None, node.args[:2])
        va, vb, out = val(a), val(b), val(node)
        if not all(isinstance(v, torch.Tensor) for v in (va, vb, out)) or va.dtype != vb.dtype:
            continue
        if not va.dtype.is_floating_point or va.shape[-1] < 2:
            continue
        plan = _plan(name, va, vb)
        if plan is None:
            continue
        which, perm, dim, keep = plan
        with g.inserting_before(node):
            if which == "a":
                a = emit(g, aten.permute.default, a, perm)
            elif which == "b":
                b = emit(g, aten.permute.default, b, perm)
            if va.dtype in (torch.float16, torch.bfloat16):  # after the views: widened in the kernel
                a = emit(g, prims.convert_element_type.default, a, torch.float32)
                b = emit(g, prims.convert_element_type.default, b, torch.float32)
            r = emit(g, aten.sum.dim_IntList, emit(g, aten.mul.Tensor, a, b), [dim], keep)
            if val(r).dtype != out.dtype:
                r = emit(g, prims.convert_element_type.default, r, out.dtype)
            if bias is not None:
                r = emit(g, aten.add.Tensor, r, bias)
        replace(g, node, r, "matvec")
        count += 1
    if count:
        g.eliminate_dead_code()
        gm.recompile()
    return count
