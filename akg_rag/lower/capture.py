"""Capture: a task's ``forward`` as a functional aten graph, built on meta tensors.

The task module, its constructor and its inputs run under the ``meta`` device with the analysis'
CUDA redirection (:class:`akg_rag.analysis.trace.MetaRedirect`), so ``.cuda()`` is a no-op and a
17 GB input costs nothing. ``forward`` is traced with ``make_fx`` over
``torch.func.functional_call``: parameters and buffers become graph inputs, named. Composite ops
(softmax, the norms, gelu, the losses, ...) are decomposed into pointwise ops and reductions by
torch's own decompositions; the cores a region keeps whole (mm/bmm/addmm, convolution, pooling,
cumsum/cumprod/cummax/cummin) stay single nodes.

A decomposition may itself emit an in-place op (``clamp_min_``) that the outer functionalisation
never sees: one on a tensor the decomposition made is rewritten out of place; one that writes
through a view of it (``copy_`` into a slice) makes tracing run once more, under ``functionalize``
over the first graph, which turns such writes into ``slice_scatter``/``select_scatter``.

Mutations of parameters and buffers that no output reads (batch norm's running statistics in
training mode) are dropped (listed in ``Captured.dropped``); one whose state forward also reads is
written back (``Captured.written``), since a later call sees it.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.utils._pytree import tree_flatten

from akg_rag.analysis.trace import MetaRedirect
from akg_rag.lower import adaptive
from akg_rag.errors import TaskError
from akg_rag.lower.factors import scale_products
from akg_rag.lower.matvec import matvec_as_reduction
from akg_rag.lower.scan_prefix import scan_prefix_into_scan
from akg_rag.task import load_task, read_source

aten = torch.ops.aten

# Composite ops decomposed on top of torch's core-aten table, into pointwise ops and reductions.
_EXTRA_DECOMPOSED = (
    "_softmax", "_log_softmax", "native_layer_norm", "native_batch_norm", "_native_batch_norm_legit",
    "_native_batch_norm_legit_no_training", "_native_batch_norm_legit_functional",
    "native_group_norm", "gelu", "silu", "var", "var_mean", "std", "std_mean", "logsumexp",
    "linalg_vector_norm", "mse_loss", "smooth_l1_loss", "huber_loss", "hardswish", "hardsigmoid",
    "mish", "softplus", "elu", "leaky_relu", "log_sigmoid_forward", "nll_loss_forward",
    "hardtanh", "binary_cross_entropy", "celu", "selu", "glu", "logit", "softshrink", "hardshrink",
    "threshold", "relu6", "rsub", "addcmul", "addcdiv", "lerp", "logaddexp", "native_dropout",
    "_fused_rms_norm", "sgn", "aminmax", "baddbmm", "embedding", "nll_loss2d_forward",
    "upsample_bilinear2d", "upsample_trilinear3d", "upsample_bicubic2d", "col2im", "adaptive_max_pool2d",
    "adaptive_max_pool3d", "addmv", "copysign",
)
# Ops kept whole: the cores of GEMM, conv, pool and scan regions, and reductions the partitioner
# reads directly (mean is sum / numel there, which keeps the count symbolic).
_KEPT = (
    "mm", "bmm", "addmm", "mv", "convolution", "cumsum", "cumprod", "cummax", "cummin", "mean", "amax", "amin",
    "max_pool1d", "max_pool2d_with_indices", "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d",
    "avg_pool3d", "_adaptive_avg_pool2d", "adaptive_avg_pool1d",
)
# In-place ops whose functional form has another overload name.
_INPLACE_OVERLOAD = {"transpose_": "int", "squeeze_": "dim"}
# Ops whose result is a mutation of a graph input: dropped when the target is a parameter/buffer.
_MUTATIONS = ("copy_",)


@dataclass
class Captured:
    """A task's ``forward`` as an aten graph over meta tensors.

    Placeholders of ``gm.graph`` are, in order, the parameters and buffers (``param_names``) and
    then forward's tensor arguments (``input_count`` of them). Every node's ``meta["val"]`` is a meta
    tensor (or a tuple of them) giving shape, dtype and strides.
    """

    path: Path
    gm: torch.fx.GraphModule
    param_names: list[str]                  # placeholder order; "linear.weight", "bn.running_mean"
    input_count: int                        # forward's tensor arguments
    input_positions: list[int]              # their positions among forward's arguments
    arg_count: int                          # forward's arguments, tensors or not
    constants: dict[str, torch.Tensor]      # get_attr target -> small literal captured by value
    attributes: dict[str, str]              # get_attr target -> attribute path on the model
    returns_tuple: bool                     # forward returned a tuple/list
    dropped: list[str] = field(default_factory=list)  # mutations left out ("bn.running_mean")
    input_sets: int = 1                     # how many input sets the task gives (dynamic shapes)
    lifted: list[str] = field(default_factory=list)  # plain tensor attributes taken as inputs
    #                                                  (forward mutates one), among param_names
    written: list[str] = field(default_factory=list)  # state forward updates and also reads: the
    #                                                   graph's last outputs are their new values

    @property
    def placeholders(self) -> list[torch.fx.Node]:
        """The graph's placeholder nodes, in order."""
        return [n for n in self.gm.graph.nodes if n.op == "placeholder"]


class _FullRedirect(MetaRedirect):
    """The analysis' meta redirection without its one-time-step shortcut for recurrent layers:
    a lowered program must compute every step."""

    def _one_step(self, func: Any, args: tuple, kwargs: dict) -> Any:
        return None


def decomposition_table() -> dict:
    """torch's core-aten decompositions plus the composites above, less the kept cores."""
    from torch._decomp import core_aten_decompositions, decomposition_table as full

    table = dict(core_aten_decompositions())
    extra = {getattr(aten, n) for n in _EXTRA_DECOMPOSED if hasattr(aten, n)}
    for op, fn in full.items():
        if getattr(op, "overloadpacket", None) in extra:
            table.setdefault(op, fn)
    kept = {getattr(aten, n) for n in _KEPT if hasattr(aten, n)}
    out = {op: fn for op, fn in table.items() if getattr(op, "overloadpacket", None) not in kept}
    out.update(adaptive.table(full))
    return out


def _call(path: Path, what: str, fn: Any, *args: Any) -> Any:
    """Run task code; any failure becomes a TaskError naming the file and the step."""
    try:
        return fn(*args)
    except TaskError:
        raise
    except Exception as e:  # noqa: BLE001 - any failure of task code is a problem of the task
        text = f"{type(e).__name__}: {e}".splitlines()[0][:300]
        hint = ""
        if "forward" in what:
            hint = (" (lowering traces forward on meta tensors, which hold no values: data-dependent"
                    " code such as .item(), nonzero(), boolean-mask indexing or Python control flow"
                    " on tensor values cannot be captured)")
        raise TaskError(path, f"{what} raised {text}{hint}") from None


def _attribute_paths(model: torch.nn.Module) -> dict[int, str]:
    """id(tensor) -> attribute path for plain tensor attributes (not parameters or buffers)."""
    out: dict[int, str] = {}
    for path, _, _, val in _plain_tensors(model):
        out.setdefault(id(val), path)
    return out


def _plain_tensors(model: torch.nn.Module) -> list[tuple[str, torch.nn.Module, str, torch.Tensor]]:
    """(path, module, attribute name, tensor) of every plain tensor attribute, no parameter or
    buffer (those live outside the module's ``__dict__``), listed before any is changed."""
    return [(f"{prefix}.{key}" if prefix else key, mod, key, val)
            for prefix, mod in model.named_modules() for key, val in vars(mod).items()
            if isinstance(val, torch.Tensor) and not isinstance(val, torch.nn.Parameter)]


def _built_on_cpu(cls: Any, init: list) -> torch.nn.Module | None:
    """``cls(*init)`` built on the CPU, for a constructor that cannot run on meta tensors (it reads
    a value: ``torch.linspace(...)[i].item()``), then moved to meta: parameters, buffers and plain
    tensor attributes alike, so every tensor of the model is read from the real model at run time
    by its path (a value drawn here, ``torch.randn`` in the constructor, is not the run's).
    None when it fails there too, or when ``init`` holds tensors (built on meta, they hold no
    values)."""
    if any(isinstance(a, torch.Tensor) for a in tree_flatten(init)[0]):
        return None
    try:
        model = cls(*init)
    except Exception:  # noqa: BLE001 - the meta build's error is the one reported
        return None
    if not isinstance(model, torch.nn.Module):
        return None
    for _, mod, key, val in _plain_tensors(model):
        setattr(mod, key, val.detach().to("meta"))
    return model.to("meta")


def capture(task_path: str | Path, source: str | None = None, input_set: int = 0) -> Captured:
    """Trace ``Model(*get_init_inputs()).forward(*inputs)`` into a :class:`Captured`, ``inputs``
    being the task's input set number ``input_set`` (0: ``get_inputs()``; a dynamic-shape task's
    ``get_inputs_dyn_list()`` gives more; ``Captured.input_sets`` says how many).

    Nothing is materialised. Raises ``TaskError`` when the task does not load, when building the
    model or its inputs fails, or when ``forward`` cannot be traced on meta tensors.
    """
    path = Path(task_path)
    text = read_source(path) if source is None else source
    redirect = _FullRedirect()
    with torch.device("meta"), redirect:
        task = load_task(path, text)
        init = _call(path, "get_init_inputs()", lambda: list(task.get_init_inputs()))
        try:
            model = _call(path, "Model(*get_init_inputs())", task.model_cls, *init)
        except TaskError as e:
            failed: TaskError | None = e
        else:
            failed = None
    if failed is not None:  # a constructor that reads tensor values (.item()): built for real
        model = _built_on_cpu(task.model_cls, init)
        if model is None:
            raise failed
    with torch.device("meta"), redirect:
        sets = _call(path, "get_inputs()", task.input_sets)
        if not 0 <= input_set < len(sets):
            raise TaskError(path, f"input set {input_set} asked for; the task has {len(sets)}")
        args = sets[input_set]
    if not isinstance(model, torch.nn.Module):
        raise TaskError(path, "Model(*get_init_inputs()) is not a torch.nn.Module")
    positions = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
    lifted: list[str] = []
    try:
        gm, out, names, rebound = _trace(path, model, args, positions, redirect)
    except TaskError as e:
        # forward writes into a plain tensor attribute (``self.h.copy_(h0)``): functionalization
        # needs every tensor it mutates to be an input, so the attributes become inputs
        lifted = _lift_attributes(model)
        if not lifted:
            raise
        try:
            gm, out, names, rebound = _trace(path, model, args, positions, redirect)
        except TaskError:
            raise e from None
    dropped, written = _drop_mutations(gm, names, rebound)
    _out_of_place(gm)
    _whole_dropout(gm)
    matvec_as_reduction(gm)
    scan_prefix_into_scan(gm)
    scale_products(gm)
    attrs = _attribute_paths(model)
    constants: dict[str, torch.Tensor] = {}
    attributes: dict[str, str] = {}
    for node in gm.graph.nodes:
        if node.op != "get_attr":
            continue
        val = getattr(gm, node.target)
        real = redirect.constants.get(id(val))
        if real is not None:
            constants[node.target] = real
        elif id(val) in attrs:
            attributes[node.target] = attrs[id(val)]
        elif isinstance(val, torch.Tensor) and val.device.type != "meta":
            constants[node.target] = val
        else:
            raise TaskError(path, f"forward uses a tensor constant of shape {tuple(val.shape)} whose "
                            "value was not captured (build it in __init__ as a buffer)")
    _check_outputs(path, out)
    return Captured(path=path, gm=gm, param_names=names, input_count=len(positions),
                    input_positions=positions, arg_count=len(args), constants=constants,
                    attributes=attributes, returns_tuple=isinstance(out, (tuple, list)),
                    dropped=dropped, input_sets=len(sets), lifted=lifted, written=written)


class _Rebinding(torch.nn.Module):
    """``model`` called inside ``functional_call``, returning also the buffers forward rebound
    (``self.count = self.count + 1`` puts a new tensor under the name: no in-place op to trace)."""

    def __init__(self, model: torch.nn.Module, given: dict[str, torch.Tensor], rebound: list[str]) -> None:
        super().__init__()
        self.inner, self.given, self.rebound = model, given, rebound

    def forward(self, *args: Any) -> tuple[Any, tuple[torch.Tensor, ...]]:
        out = self.inner(*args)
        now = dict(self.inner.named_buffers(remove_duplicate=False))
        self.rebound[:] = [n for n, t in now.items() if n in self.given and t is not self.given[n]]
        return out, tuple(now[n] for n in self.rebound)


def _trace(path: Path, model: torch.nn.Module, args: list, positions: list[int],
           redirect: MetaRedirect) -> tuple[torch.fx.GraphModule, Any, list[str], list[str]]:
    """``model(*args)`` traced functionally on meta tensors: (graph, forward's output, the
    parameter and buffer names its first placeholders stand for, the buffers forward rebinds).
    The graph returns ``(forward's output, the rebound buffers' new values)``."""
    state = dict(model.named_parameters(remove_duplicate=False))
    state.update(model.named_buffers(remove_duplicate=False))
    names = list(state)
    table = decomposition_table()
    rebound: list[str] = []

    def forward(*flat: torch.Tensor) -> Any:
        params = dict(zip(names, flat[: len(names)]))
        call_args = list(args)
        for pos, t in zip(positions, flat[len(names):]):
            call_args[pos] = t
        wrapper = _Rebinding(model, params, rebound)
        return torch.func.functional_call(wrapper, {f"inner.{k}": v for k, v in params.items()}, tuple(call_args))

    flat_in = [state[n] for n in names] + [args[p] for p in positions]
    with torch.device("meta"), redirect, torch.no_grad():
        gm = _call(path, "tracing forward", lambda: make_fx(
            torch.func.functionalize(forward, remove="mutations"), decomposition_table=table,
            tracing_mode="real")(*flat_in))
        if _writes_through_a_view(gm):
            # a decomposition wrote into views of a tensor it made (circular padding fills the
            # borders of an empty tensor by ``copy_`` into its slices), below the outer
            # functionalisation: once more over the decomposed graph, the writes become scatters
            gm = _call(path, "tracing forward", lambda: make_fx(
                torch.func.functionalize(gm, remove="mutations"), tracing_mode="real")(*flat_in))
        out, _ = _call(path, "running forward", forward, *flat_in)
    return gm, out, names, list(rebound)


def _writes_through_a_view(gm: torch.fx.GraphModule) -> bool:
    """Whether an in-place op of ``gm`` writes into a view (its target is the result of a view op:
    a slice, a select), a write that rewriting the op out of place would lose."""
    for node in gm.graph.nodes:
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        name = node.target._schema.name.split("::")[-1]
        if not name.endswith("_") or name.endswith("__") or not node.args:
            continue
        target = node.args[0]
        if isinstance(target, torch.fx.Node) and target.op == "call_function" and \
                isinstance(target.target, torch._ops.OpOverload) and target.target.is_view:
            return True
    return False


def _lift_attributes(model: torch.nn.Module) -> list[str]:
    """Plain tensor attributes of ``model`` re-registered as (non-persistent) buffers, so a
    functional trace takes them as inputs; their paths (read from the real model at run time)."""
    out = []
    for path, mod, key, val in _plain_tensors(model):
        delattr(mod, key)
        mod.register_buffer(key, val, persistent=False)
        out.append(path)
    return out


def _whole_dropout(gm: torch.fx.GraphModule) -> None:
    """Fold a traced training-mode dropout back into one ``native_dropout`` (left to torch).

    On meta tensors ``F.dropout(x, p)`` traces as ``x * (bernoulli(expand(empty), 1 - p) / (1 - p))``,
    eager's fallback formula; on a GPU eager runs the fused ``native_dropout``, which consumes the
    generator differently, so only the whole op draws the reference's mask (the verifier reseeds
    both sides before each forward). A hand-written ``bernoulli`` of a real tensor is not this
    pattern and stays as written."""
    g = gm.graph
    changed = False
    for b in list(g.nodes):
        if b.op != "call_function" or b.target != aten.bernoulli.p or len(b.users) != 1:
            continue
        src, q = b.args[0], b.args[1]
        if not (isinstance(src, torch.fx.Node) and src.target == aten.expand.default
                and isinstance(src.args[0], torch.fx.Node) and src.args[0].target == aten.empty.memory_format):
            continue
        (div,) = b.users
        if div.target != aten.div.Scalar or div.args != (b, q) or len(div.users) != 1:
            continue
        (mul,) = div.users
        if mul.target != aten.mul.Tensor or len(mul.args) != 2 or div not in mul.args:
            continue
        x = mul.args[1] if mul.args[0] is div else mul.args[0]
        val, xval = mul.meta.get("val"), getattr(x, "meta", {}).get("val")
        if not (isinstance(xval, torch.Tensor) and isinstance(val, torch.Tensor) and xval.shape == val.shape
                and xval.dtype == val.dtype):
            continue
        with g.inserting_before(mul):
            p = float(f"{1.0 - float(q):.12g}")  # 0.3, not 0.30000000000000004 (1 - 0.7)
            node = g.call_function(aten.native_dropout.default, (x, p, True))
            node.meta["val"] = (val, torch.empty(val.shape, dtype=torch.bool, device="meta"))
            out = g.call_function(operator.getitem, (node, 0))
            out.meta["val"] = val
        mul.replace_all_uses_with(out)
        for dead in (mul, div, b):
            g.erase_node(dead)
        changed = True
    if changed:
        g.eliminate_dead_code()
        gm.recompile()


def _check_outputs(path: Path, out: Any) -> None:
    """forward must return tensors (a tensor, or a flat tuple/list of tensors)."""
    items = out if isinstance(out, (tuple, list)) else [out]
    flat, _ = tree_flatten(out)
    if len(flat) != len(items) or not all(isinstance(t, torch.Tensor) for t in flat):
        raise TaskError(path, "forward must return a tensor or a flat tuple of tensors")


def _drop_mutations(gm: torch.fx.GraphModule, names: list[str], rebound: list[str]) -> tuple[list[str], list[str]]:
    """Remove ``copy_`` into placeholders; returns (dropped, written back).

    The graph returns ``(forward's output, new values of the buffers in rebound)`` (``_trace``); a
    rebound buffer is a state update like a ``copy_`` into it, and the graph is left returning
    forward's output.

    A state update no output reads (batch norm's running statistics in training mode) is dropped.
    One whose parameter or buffer ``forward`` also reads on the way to an output (an output that
    adds the running mean) is kept: a later call reads the updated state, so the candidate must
    write it back. Its new value becomes an extra output of the graph, after forward's own, in the
    order of the names returned second. Writes into forward's arguments are always dropped (the
    caller's tensors: outputs read the new values inside the graph)."""
    holders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    index = {n: i for i, n in enumerate(holders)}
    out = next(n for n in gm.graph.nodes if n.op == "output")
    forward_out, new_values = out.args[0]
    out.args = (forward_out,)
    updates: list[tuple[int, Any]] = [(names.index(n), v) for n, v in zip(rebound, new_values)]
    # a buffer's rebinding comes after any copy_ into the old tensor: the rebound value is final
    final = {i for i, _ in updates}
    for node in list(gm.graph.nodes):
        if node.op == "call_function" and getattr(node.target, "__name__", "").split(".")[0] in _MUTATIONS:
            target, value = node.args[0], node.args[1]
            if target in index and node.users and _same_tensor_type(target, value):
                node.replace_all_uses_with(value)   # a later read of the updated state: its value
            if target in index and not node.users:
                if index[target] not in final:
                    updates.append((index[target], value))
                gm.graph.erase_node(node)
    read: set[torch.fx.Node] = set()     # every node an output depends on
    todo = [a for a in tree_flatten(out.args[0])[0] if isinstance(a, torch.fx.Node)]
    while todo:
        n = todo.pop()
        if n not in read:
            read.add(n)
            todo.extend(n.all_input_nodes)
    dropped: list[str] = []
    written: list[str] = []
    values: list[torch.fx.Node] = []
    for i, value in updates:
        name = names[i] if i < len(names) else f"input{i - len(names)}"
        if i < len(names) and holders[i] in read and isinstance(value, torch.fx.Node):
            written.append(name)
            values.append(value)
        else:
            dropped.append(name)
    if values:
        out.args = (tuple(tree_flatten(out.args[0])[0]) + tuple(values),)
    gm.graph.eliminate_dead_code()
    gm.recompile()
    return dropped, written


def _same_tensor_type(a: Any, b: Any) -> bool:
    """Whether two nodes' values have one shape and dtype (so ``b`` can stand for ``a.copy_(b)``)."""
    va = getattr(a, "meta", {}).get("val")
    vb = getattr(b, "meta", {}).get("val")
    return isinstance(va, torch.Tensor) and isinstance(vb, torch.Tensor) and va.shape == vb.shape \
        and va.dtype == vb.dtype


def _out_of_place(gm: torch.fx.GraphModule) -> None:
    """Rewrite in-place ops a decomposition emitted (``sigmoid_``, ``add_``) as their functional
    forms: later readers of the mutated tensor read the op's result instead. Decompositions only
    mutate tensors they created, so no alias of the target is read elsewhere."""
    order = {n: i for i, n in enumerate(gm.graph.nodes)}
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        name = node.target._schema.name.split("::")[-1]
        if not name.endswith("_") or name.endswith("__") or not node.args:
            continue
        packet = getattr(aten, name[:-1], None)
        functional = getattr(packet, node.target._overloadname, None) if packet is not None else None
        if functional is None and packet is not None:  # transpose_.default -> transpose.int
            functional = getattr(packet, _INPLACE_OVERLOAD.get(name, "default"), None)
        target = node.args[0]
        if functional is None or not isinstance(target, torch.fx.Node):
            continue
        node.target = functional
        for user in list(target.users):
            if user is not node and order.get(user, -1) > order[node]:
                user.replace_input_with(target, node)
    gm.graph.lint()
    gm.recompile()
