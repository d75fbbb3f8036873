"""Library cores: GEMM-like and conv-like ops kept as vendor-library calls, their tails generated.

The partitioner's ``cores="library"`` mode (docs/lowering.md, "Two core modes"). Where the
generated mode opens a gemm or conv region (an implicit-GEMM kernel with the tail as epilogue),
this mode emits a :class:`~akg_rag.lower.region.LibraryStep`: the same aten op through torch, so
cuBLAS / cuDNN / oneDNN compute it, under whatever TF32 settings the task runs with (nothing here
touches ``torch.backends``). Its output is a program value; everything after it (bias, activations,
norms, reductions, pooling) fuses into generated kernels exactly as any other input would.

The core's own bias is *folded* into the generated tail when the core has one: cuDNN adds a conv
bias in a separate pass over the output, and addmm copies its bias into the output before the GEMM,
so adding it where the tail reads the output anyway saves a full read and write of the core's
result. Low-precision cores keep the bias inside the library call (one rounding, as torch's fused
epilogues give), and so does a core whose output feeds no generated op (a lone ``nn.Linear``
stays one ``addmm``, and then there is nothing to generate: such a task has no library form).
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import torch

from akg_rag.lower.region import Expr, LibraryStep, Value, ViewStep
from akg_rag.lower.views import IDENTITY_OPS, VIEW_OPS

if TYPE_CHECKING:
    from akg_rag.lower.partition import Partitioner

CORE_MODES = ("generated", "library")
# aten ops that are GEMM-like or conv-like cores (what the generated mode makes gemm/conv regions of)
GEMM_OPS = frozenset({"mm", "bmm", "addmm", "mv"})
CONV_OPS = frozenset({"convolution"})
# dtypes whose bias is added in the generated tail (computed there in the same precision)
_FOLD_DTYPES = ("float32", "float64")


def _name(target: Any) -> str:
    schema = getattr(target, "_schema", None)
    return schema.name.split("::")[-1] if schema is not None else getattr(target, "__name__", "")


def has_tail(node: torch.fx.Node) -> bool:
    """True when a compute op other than another core reads the node's result directly (aliases
    such as ``clone`` followed): a generated kernel reads it there, so a bias added in that kernel
    costs nothing. A view in between does not count: the partitioner would store the biased value
    before the view, one more pass than the library call's own bias (a 3-D ``nn.Linear``)."""
    todo, seen = list(node.users), set()
    while todo:
        user = todo.pop()
        if user in seen:
            continue
        seen.add(user)
        if user.op != "call_function":
            continue  # the graph's output
        name = _name(user.target)
        if user.target is operator.getitem or name in IDENTITY_OPS or \
                (name == "_to_copy" and "dtype" not in user.kwargs):
            todo.extend(user.users)
        elif name not in VIEW_OPS and name not in GEMM_OPS and name not in CONV_OPS:
            return True
    return False


def _shape(node: torch.fx.Node) -> tuple[int, ...]:
    return tuple(int(s) for s in node.meta["val"].shape)


def _dtype(node: torch.fx.Node) -> str:
    return str(node.meta["val"].dtype).removeprefix("torch.")


class LibraryCores:
    """Builds library steps for a :class:`~akg_rag.lower.partition.Partitioner` in library mode."""

    def __init__(self, p: "Partitioner") -> None:
        self.p = p

    def visit(self, node: torch.fx.Node, name: str) -> bool:
        """Handle ``node`` if it is a GEMM-like or conv-like core; False otherwise."""
        if name in GEMM_OPS:
            self.gemm(node, name)
            return True
        if name in CONV_OPS:
            self.conv(node)
            return True
        return False

    def _emit(self, node: torch.fx.Node, op: str, args: tuple, kwargs: dict, kind: str) -> Value:
        p = self.p
        out = p.new_value(f"t_{node.name}", _shape(node), _dtype(node))
        p.steps.append(LibraryStep(outs=[out], op=op, args=args, kwargs=kwargs, kind=kind))  # type: ignore[arg-type]
        return out

    def _stored(self, node: Any) -> Value:
        return self.p.use(self.p.value_of(node))

    def gemm(self, node: torch.fx.Node, name: str) -> None:
        """mm / bmm / mv as they are; addmm as mm plus its bias in the tail (see the module doc)."""
        from akg_rag.lower.partition import _Sym

        p = self.p
        if name != "addmm":
            a, b = node.args[0], node.args[1]
            p.env[node] = self._emit(node, str(node.target), (self._stored(a), self._stored(b)), {}, "gemm")
            return
        bias, a, b = node.args[0], node.args[1], node.args[2]
        dtype = _dtype(node)
        if dtype not in _FOLD_DTYPES or not has_tail(node):
            args = (self._stored(bias), self._stored(a), self._stored(b))
            p.env[node] = self._emit(node, str(node.target), args, dict(node.kwargs), "gemm")
            return
        out = self._emit(node, "aten.mm.default", (self._stored(a), self._stored(b)), {}, "gemm")
        acc = Expr.input(out.name)
        alpha, beta = node.kwargs.get("alpha", 1), node.kwargs.get("beta", 1)
        if alpha != 1:
            acc = Expr.call("mul", acc, Expr.const(float(alpha)))
        bexpr = p.cores._operand(bias, out.shape)
        if beta != 1:
            bexpr = Expr.call("mul", bexpr, Expr.const(float(beta)))
        p.env[node] = _Sym(Expr.call("add", acc, bexpr), out.shape, dtype)

    def conv(self, node: torch.fx.Node) -> None:
        """aten.convolution (transposed too), its bias in the tail when it has one."""
        from akg_rag.lower.partition import _Sym

        p = self.p
        x, w, bias = node.args[0], node.args[1], node.args[2]
        rest = tuple(list(a) if isinstance(a, (list, tuple)) else a for a in node.args[3:9])
        fold = isinstance(bias, torch.fx.Node) and _dtype(node) in _FOLD_DTYPES and has_tail(node)
        vb = self._stored(bias) if isinstance(bias, torch.fx.Node) and not fold else None
        args = (self._stored(x), self._stored(w), vb) + rest
        out = self._emit(node, str(node.target), args, {}, "conv")
        if not fold:
            p.env[node] = out
            return
        # bias [C_out] broadcast over [N, C_out, *spatial]: viewed [C_out, 1, ...] on the host
        stored = self._stored(bias)
        col = p.new_value(f"{stored.name}_col", (stored.shape[0],) + (1,) * (len(out.shape) - 2), stored.dtype)
        p.steps.append(ViewStep(out=col, src=stored, op="reshape", args=(col.shape,)))
        p.env[node] = _Sym(Expr.call("add", Expr.input(out.name), Expr.input(col.name)), out.shape, out.dtype)
