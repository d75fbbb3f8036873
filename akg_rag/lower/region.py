"""Regions: the units the partitioner cuts an aten graph into, one generated kernel each.

This is the contract between ``partition`` (which builds regions from the captured graph) and
``emit`` (which writes one Unified Sketch per region). A region names its tensors by ``Value``;
``assemble`` binds values to run-time tensors. Shapes are those of the capture (the first input set);
the emitted sketch uses symbols for every size, so the kernel works for other sizes too.

Elementwise computations are ``Expr`` trees whose op names are the sketch's compute ops
(``add``, ``exp``, ``where``, ``cast``, ...). Leaves are region inputs (``input``), constants
(``const``), the core's result (``acc``: the GEMM / conv / pool / scan value at this element) and,
in reduction regions, a reduction's result (``reduced``) or the number of reduced elements
(``numel``). Two leaves address elements by position:

* ``index`` (``value=d``): the element's position (int64) along dim ``d`` of the region's domain;
* ``gather`` (``ref=name``, ``args=(i0, i1, ...)``, ``value=other``): the region input ``name``
  read at the position whose index along its dim ``j`` is the int Expr ``args[j]`` (one per dim of
  the input; none for a 0-d one). An index outside the input in any dim reads ``other`` (None: 0).
  The input is addressed by its own shape, not broadcast to the region's.

Region exprs use non-negative dims; inside the partitioner, before a tree joins a region, an
``index`` dim counts from the end (right-aligned, like broadcasting inputs), and an ``index`` leaf
never sits on a size-1 dim (there it is the constant 0), so broadcasting a tree keeps its meaning.
Index arithmetic in ``gather`` args uses the captured sizes (as torch's own decompositions do:
``triu`` becomes ``arange(0, 8)``): such a region is specialised to the captured shapes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Union


@dataclass(frozen=True)
class Value:
    """A tensor of the program: a task input, a parameter, a constant or an intermediate."""

    name: str                     # unique in the program; a valid identifier
    shape: tuple[int, ...]
    dtype: str                    # torch dtype name: "float32", "int64", "bool", ...

    @property
    def itemsize(self) -> int:
        """Bytes of one element (torch's, for the dtype name; 4 for a name torch lacks)."""
        import torch

        return getattr(torch, self.dtype, torch.float32).itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of the whole tensor."""
        n = self.itemsize
        for d in self.shape:
            n *= d
        return n


@dataclass(frozen=True)
class Expr:
    """One node of an elementwise expression tree (see the module docstring for leaves)."""

    op: str                              # sketch compute op, or a leaf kind: "input" | "const" |
    #                                      "acc" | "reduced" | "numel" | "index" | "gather"
    args: tuple["Expr", ...] = ()        # gather: one index Expr per dim of the gathered input
    ref: str | None = None               # input, gather: Value.name; reduced: Reduction.name
    value: float | int | bool | None = None   # const; index: the dim; gather: other (None: 0)
    dtype: str | None = None             # cast target (torch dtype name); const dtype if not float

    @staticmethod
    def input(name: str) -> "Expr":
        """The region input ``name`` at the current element (broadcast to the region's shape)."""
        return Expr("input", ref=name)

    @staticmethod
    def const(value: float | int | bool, dtype: str | None = None) -> "Expr":
        """A constant."""
        return Expr("const", value=value, dtype=dtype)

    @staticmethod
    def index(dim: int) -> "Expr":
        """The element's position (int64) along ``dim`` of the region's domain."""
        return Expr("index", value=dim)

    @staticmethod
    def gather(name: str, idx: tuple["Expr", ...] | list["Expr"], other: float | int | bool | None = None) -> "Expr":
        """Input ``name`` read at per-dim indices ``idx``; out of range reads ``other`` (None: 0)."""
        return Expr("gather", args=tuple(idx), ref=name, value=other)

    @staticmethod
    def call(op: str, *args: "Expr", dtype: str | None = None) -> "Expr":
        """A compute op applied to sub-expressions (``dtype`` only for ``cast``)."""
        return Expr(op, args=tuple(args), dtype=dtype)


def expr_inputs(e: Expr) -> list[str]:
    """Names of the region inputs an expression reads (plain or gathered), first-seen order."""
    out: list[str] = []

    def walk(x: Expr) -> None:
        if x.op in ("input", "gather") and x.ref not in out:
            out.append(x.ref)  # type: ignore[arg-type]
        for a in x.args:
            walk(a)

    walk(e)
    return out


def expr_ops(e: Expr) -> set[str]:
    """Every op and leaf kind an expression uses."""
    out = {e.op}
    for a in e.args:
        out |= expr_ops(a)
    return out


def plain_inputs(exprs: list[Expr]) -> set[str]:
    """Names of the inputs some expression reads as a plain ``input`` leaf (broadcast to the
    region's domain); an input read only by ``gather`` leaves is addressed by its own shape."""
    out: set[str] = set()

    def walk(x: Expr) -> None:
        if x.op == "input":
            out.add(x.ref)  # type: ignore[arg-type]
        for a in x.args:
            walk(a)

    for e in exprs:
        walk(e)
    return out


@dataclass
class Output:
    """A tensor a region writes: ``value`` holds ``expr`` evaluated at every element."""

    value: Value
    expr: Expr
    # reduction regions only: "full" (the region's shape) or "reduced" (reduced dims of size 1,
    # dropped when value.shape has fewer dims: keepdim=False)
    domain: Literal["full", "reduced"] = "full"


@dataclass
class PointwiseRegion:
    """Elementwise outputs over ``shape``; inputs broadcast to it NumPy-style (right-aligned)."""

    inputs: list[Value]
    outputs: list[Output]
    shape: tuple[int, ...]
    kind: Literal["pointwise"] = "pointwise"


@dataclass
class Reduction:
    """``name = kind(expr)`` over the region's reduced dims; ``expr`` is on the full domain.

    argmax/argmin give the index (int64) of the first extreme element in the flattened reduced
    dims, as torch does."""

    name: str
    kind: Literal["sum", "max", "min", "prod", "argmax", "argmin"]
    expr: Expr


@dataclass
class ReductionRegion:
    """Reductions over ``dims`` of the domain ``shape``, with prologue and epilogue fused.

    ``reductions`` run in order; a later one's expr may read earlier ones (``reduced``), as softmax
    reads the max. Outputs are on the full domain (softmax, layer norm) or on the reduced domain
    (sum, mean, a loss before its final scalar)."""

    inputs: list[Value]
    shape: tuple[int, ...]
    dims: tuple[int, ...]              # reduced dims, sorted, non-negative
    reductions: list[Reduction]
    outputs: list[Output]
    kind: Literal["reduction"] = "reduction"


@dataclass
class GemmRegion:
    """``acc = a @ b`` with batch broadcasting, then ``outputs`` (epilogue, ``acc`` leaf) fused.

    ``a`` is [..., M, K], ``b`` is [..., K, N] (transposed operands arrive as strided views);
    epilogue inputs broadcast to the output shape [..., M, N]."""

    a: Value
    b: Value
    inputs: list[Value]                # epilogue operands (bias, scale, residual)
    outputs: list[Output]
    shape: tuple[int, ...]             # output shape [..., M, N]
    kind: Literal["gemm"] = "gemm"


@dataclass
class ConvRegion:
    """An N-d convolution (or transposed convolution) with its epilogue fused.

    x: [N, C_in, *spatial]; w: [C_out, C_in / groups, *k] (transposed: [C_in, C_out / groups, *k]);
    bias, if any, is the first entry of ``inputs`` and is added before the epilogue."""

    x: Value
    w: Value
    bias: Value | None
    stride: tuple[int, ...]
    padding: tuple[int, ...]
    dilation: tuple[int, ...]
    groups: int
    transposed: bool
    output_padding: tuple[int, ...]
    inputs: list[Value]                # epilogue operands
    outputs: list[Output]
    shape: tuple[int, ...]             # output shape
    kind: Literal["conv"] = "conv"


@dataclass
class PoolRegion:
    """Max or average pooling over the trailing ``len(kernel)`` dims, epilogue fused.

    With a ``prologue`` the pooled tensor is not stored: ``x`` only names its shape and dtype,
    and each element the window reads is ``prologue`` evaluated there (an expression over x's
    domain whose input leaves are ``prologue_inputs``, broadcast right-aligned to x's shape, and
    whose ``index`` leaves are x's positions) -- a convolution's bias and activation before the
    pooling (:mod:`akg_rag.lower.refinement`)."""

    x: Value
    op: Literal["max", "avg"]
    kernel: tuple[int, ...]
    stride: tuple[int, ...]
    padding: tuple[int, ...]
    dilation: tuple[int, ...]
    ceil_mode: bool
    count_include_pad: bool
    divisor_override: int | None
    inputs: list[Value]
    outputs: list[Output]
    shape: tuple[int, ...]
    kind: Literal["pool"] = "pool"
    prologue: Expr | None = None
    prologue_inputs: list[Value] = field(default_factory=list)


@dataclass
class ScanRegion:
    """Inclusive prefix scan of ``expr`` (prologue fused) along ``dim``; epilogue on ``acc``."""

    inputs: list[Value]
    op: Literal["sum", "prod", "max", "min"]
    dim: int
    expr: Expr                         # the scanned values (prologue), on the full domain
    reverse: bool
    outputs: list[Output]
    shape: tuple[int, ...]
    kind: Literal["scan"] = "scan"


Region = Union[PointwiseRegion, ReductionRegion, GemmRegion, ConvRegion, PoolRegion, ScanRegion]


@dataclass
class KernelStep:
    """Run one region's kernel: region inputs and outputs are bound by Value name."""

    region: Region
    name: str                          # kernel name in the candidate ("k0", "k1", ...)


@dataclass
class ViewStep:
    """A host-side view or layout op producing ``out`` from ``src`` (no compute).

    ``op`` is a torch.Tensor method name (``view``, ``permute``, ``expand``, ``transpose``,
    ``select``, ``narrow``, ``unsqueeze``, ``squeeze``, ``contiguous``, ``reshape``...) and ``args``
    its arguments."""

    out: Value
    src: Value
    op: str
    args: tuple = ()


@dataclass
class FallbackStep:
    """An aten op the lowering leaves to torch: ``outs = aten_op(*args)``; named in the report."""

    outs: list[Value]
    op: str                            # "aten.sort.default"
    args: tuple                        # Values stand for tensors; other items are literals
    kwargs: dict = field(default_factory=dict)


@dataclass
class LibraryStep(FallbackStep):
    """A GEMM-like or conv-like core kept as a vendor-library call through torch (cuBLAS, cuDNN,
    oneDNN): ``outs = aten_op(*args)``, one output. The lowering's ``cores="library"`` mode makes
    these instead of gemm and conv regions; the tail that reads ``outs[0]`` is generated. A
    candidate with one is *partial*; the report names the op under ``library``, not ``fallbacks``."""

    kind: Literal["gemm", "conv"] = "gemm"


Step = Union[KernelStep, ViewStep, FallbackStep]


@dataclass
class Program:
    """Everything ``forward`` does, in order."""

    inputs: list[Value]                # forward's tensor arguments, in order
    params: dict[str, Value]           # "linear.weight" -> its Value (parameters and buffers)
    constants: dict[str, object]       # Value.name -> a small torch tensor captured by value
    steps: list[Step]
    outputs: list[Value]               # what forward returns, in order
    returns_tuple: bool = False        # forward returned a tuple/list (even of one tensor)
    attributes: frozenset[str] = frozenset()  # the params that are plain tensor attributes (no
    #                                           parameter or buffer: .to(device) leaves them)
    writes: list[tuple[str, Value]] = field(default_factory=list)  # state updates written back
    #                                  after the steps: param path -> its new value (Captured.written)

    def live_out(self) -> set[str]:
        """Names of the values that must survive the steps: the outputs and the state written back."""
        return {v.name for v in self.outputs} | {v.name for _, v in self.writes}
