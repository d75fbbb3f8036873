"""Running a task on meta tensors and recording every aten op with its shapes and dtypes.

Nothing is ever materialised: the task module, ``get_init_inputs()``, ``get_inputs()`` and the model
run under the ``meta`` default device, so ``torch.rand(4096, 393216)`` costs no memory. A torch-function
layer redirects CUDA placement (``.cuda()``, ``.to("cuda")``, ``device="cuda"``) to ``meta`` so tasks
written for a GPU trace on a CPU-only machine, keeps the values of small literal tensors
(``torch.tensor(0.5)``) so elementwise chains can be identified later, and tags every aten op with the
top-level Python call it came from (``mse_loss``, ``layer_norm``...). A dispatch layer below it records
the aten ops of ``forward``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_map

from akg_rag.analysis.record import TensorSpec

# Literal tensors up to this many elements keep their real value (for elementwise identification).
CONST_MAX_NUMEL = 4096
# Recurrent layers (torch.lstm & co.) are traced for one time step and their FLOPs scaled by the
# sequence length: meta kernels run in Python at ~1 ms per op, and a 6-layer LSTM over 512 steps
# would otherwise cost a minute.
_RNN_CALLS = frozenset({"lstm", "gru", "rnn_tanh", "rnn_relu"})
_DEVICE_STR = re.compile(r"^(cuda|cpu|mps|xpu|hip)(:\d+)?$")


@dataclass(frozen=True)
class Ref:
    """Stands for a traced tensor value inside a recorded op's arguments."""

    vid: int


@dataclass
class OpRecord:
    """One aten op executed by ``forward``."""

    index: int
    func: Any                  # torch._ops.OpOverload, kept for replay; not serialised
    name: str                  # overload packet, e.g. "addmm"
    args: tuple[Any, ...]      # positional args, tensors replaced by Ref
    kwargs: dict[str, Any]
    params: dict[str, Any]     # every schema argument by name (defaults filled in), tensors as Ref
    inputs: list[int]          # value ids of the tensor arguments, in order
    outputs: list[int]         # value ids of the tensor results, in order
    in_specs: list[TensorSpec]
    out_specs: list[TensorSpec]
    call: str                  # top-level torch function this op ran under ("" if none)
    call_id: int               # distinguishes two calls of the same function
    tags: frozenset[str] = frozenset()
    repeat: int = 1            # times the op really runs (recurrent layers are traced for one step)


@dataclass
class Trace:
    """Everything recorded while running ``forward`` once."""

    records: list[OpRecord] = field(default_factory=list)
    specs: dict[int, TensorSpec] = field(default_factory=dict)       # value id -> spec
    leaf_kind: dict[int, str] = field(default_factory=dict)          # "input", "param", "const", "external"
    leaf_name: dict[int, str] = field(default_factory=dict)
    constants: dict[int, torch.Tensor] = field(default_factory=dict)  # value id -> real small value
    input_ids: list[int] = field(default_factory=list)
    output_ids: list[int] = field(default_factory=list)
    module_types: list[str] = field(default_factory=list)            # class names of submodules


def dtype_name(dtype: torch.dtype) -> str:
    """``torch.float32`` -> ``"float32"``."""
    return str(dtype).removeprefix("torch.")


def spec_of(t: torch.Tensor) -> TensorSpec:
    """The TensorSpec of a (meta) tensor."""
    return TensorSpec(shape=tuple(int(s) for s in t.shape), dtype=dtype_name(t.dtype))


def _to_meta_device(value: Any) -> Any:
    """Map a CUDA/CPU device (object or string) to meta; leave everything else alone."""
    if isinstance(value, torch.device):
        return torch.device("meta")
    if isinstance(value, str) and _DEVICE_STR.match(value):
        return "meta"
    return value


def _int_list(x: Any) -> bool:
    """A (nested) list of Python ints, bools left out (a bool list is a mask)."""
    if isinstance(x, list):
        return bool(x) and all(_int_list(v) for v in x)
    return isinstance(x, int) and not isinstance(x, bool)


class MetaRedirect(TorchFunctionMode):
    """Torch-function layer: keeps everything on meta and notes the current top-level call."""

    def __init__(self) -> None:
        super().__init__()
        self.constants: dict[int, torch.Tensor] = {}  # id(meta tensor) -> real value
        self._keep: list[torch.Tensor] = []            # keeps ids in `constants` unique
        self.call = ""
        self.call_id = -1
        self._calls = 0
        self.quiet = False  # True while building a literal: its CPU-side ops are not the task's
        self.repeat = 1     # multiplier for ops recorded now (see _RNN_CALLS)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        name = getattr(func, "__name__", "")
        first = args[0] if args else None
        if name in ("cuda", "cpu") and isinstance(first, torch.Tensor):
            return first
        if "device" in kwargs:
            kwargs["device"] = _to_meta_device(kwargs["device"]) if kwargs["device"] is not None else None
        if name == "to":
            args = (args[0],) + tuple(_to_meta_device(a) for a in args[1:])
        if "generator" in kwargs:
            kwargs.pop("generator")  # a CPU generator cannot drive meta tensors; values do not matter
        if name in ("tensor", "as_tensor", "asarray") and not isinstance(first, torch.Tensor):
            return self._literal(func, args, kwargs)
        if name in ("__getitem__", "__setitem__") and len(args) > 1:
            # a literal list index (``x[:, [2, 0]]``) becomes an index tensor inside torch, on meta
            # here, so its values would be lost: it is built as a literal first
            args = (args[0], self._index_literals(args[1])) + tuple(args[2:])
        self._calls += 1
        outer = (self.call, self.call_id)
        self.call, self.call_id = name, self._calls
        try:
            if name in _RNN_CALLS:
                short = self._one_step(func, args, kwargs)
                if short is not None:
                    return short
            return func(*args, **kwargs)
        finally:
            self.call, self.call_id = outer

    def _one_step(self, func: Callable, args: tuple, kwargs: dict) -> Any:
        """Run a recurrent layer on the first time step only, then stretch its output over the
        whole sequence; None when the call is not the plain (input, hx, params, ...) form."""
        x = args[0] if args else None
        batch_first = args[8] if len(args) == 9 else None
        if not isinstance(x, torch.Tensor) or x.dim() != 3 or not isinstance(batch_first, bool):
            return None
        t_dim = 1 if batch_first else 0
        steps = int(x.shape[t_dim])
        if steps <= 1:
            return None
        self.repeat = steps
        try:
            out = func(x.narrow(t_dim, 0, 1), *args[1:], **kwargs)
        finally:
            self.repeat = 1
        full = list(out[0].shape)
        full[t_dim] = steps
        return (out[0].expand(full).contiguous(),) + tuple(out[1:])

    def _index_literals(self, index: Any) -> Any:
        """``index`` with each list of integers (nested lists too) a literal int64 tensor."""
        if isinstance(index, tuple):
            return tuple(self._index_literals(i) for i in index)
        if isinstance(index, list) and index and _int_list(index):
            return self._literal(torch.tensor, (index,), {"dtype": torch.int64})
        return index

    def _literal(self, func: Callable, args: tuple, kwargs: dict) -> torch.Tensor:
        """Build a literal tensor for real on the CPU, keep its value if small, hand back a meta copy."""
        self.quiet = True
        try:
            real = func(*args, **{**kwargs, "device": "cpu"})
            meta = real.to("meta")
        finally:
            self.quiet = False
        if real.numel() <= CONST_MAX_NUMEL:
            self.constants[id(meta)] = real
            self._keep.append(meta)
        return meta


class OpRecorder(TorchDispatchMode):
    """Dispatch layer: records each aten op with value ids for its tensor inputs and outputs."""

    def __init__(self, redirect: MetaRedirect, trace: Trace) -> None:
        super().__init__()
        self.redirect = redirect
        self.trace = trace
        self._vid: dict[int, int] = {}          # id(tensor) -> current value id
        self._alive: list[torch.Tensor] = []    # keeps ids stable while recording

    def value_id(self, t: torch.Tensor, kind: str = "external", name: str = "") -> int:
        """The value id of ``t``, registering it as a leaf of ``kind`` when first seen."""
        key = id(t)
        if key in self._vid:
            return self._vid[key]
        vid = len(self.trace.specs)
        self._vid[key] = vid
        self._alive.append(t)
        self.trace.specs[vid] = spec_of(t)
        const = self.redirect.constants.get(key)
        if const is not None and kind == "external":
            kind = "const"
            self.trace.constants[vid] = const
        self.trace.leaf_kind[vid] = kind
        if name:
            self.trace.leaf_name[vid] = name
        return vid

    def _new_value(self, t: torch.Tensor) -> int:
        vid = len(self.trace.specs)
        self._vid[id(t)] = vid
        self._alive.append(t)
        self.trace.specs[vid] = spec_of(t)
        return vid

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if not self.redirect.quiet:
            self._record(func, args, kwargs, out)
        return out

    def _record(self, func, args, kwargs, out) -> None:
        inputs: list[int] = []

        def ref(x: Any) -> Any:
            if isinstance(x, torch.Tensor):
                vid = self.value_id(x)
                inputs.append(vid)
                return Ref(vid)
            return x

        r_args = tree_map(ref, tuple(args))
        r_kwargs = tree_map(ref, dict(kwargs))
        params = _schema_params(func, r_args, r_kwargs)
        in_specs = [self.trace.specs[v] for v in inputs]
        outputs = [self._new_value(t) for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor)]
        self.trace.records.append(
            OpRecord(
                index=len(self.trace.records),
                func=func,
                name=func.overloadpacket.__name__,
                args=r_args,
                kwargs=r_kwargs,
                params=params,
                inputs=inputs,
                outputs=outputs,
                in_specs=in_specs,
                out_specs=[self.trace.specs[v] for v in outputs],
                call=self.redirect.call,
                call_id=self.redirect.call_id,
                tags=frozenset(t.name for t in getattr(func, "tags", ())),
                repeat=self.redirect.repeat,
            )
        )


def _schema_params(func: Any, args: tuple, kwargs: dict) -> dict[str, Any]:
    """Name every argument of an aten call after its schema, filling in defaults."""
    params: dict[str, Any] = {}
    schema = getattr(func, "_schema", None)
    if schema is None:
        return params
    for i, arg in enumerate(schema.arguments):
        if not arg.kwarg_only and i < len(args):
            params[arg.name] = args[i]
        elif arg.name in kwargs:
            params[arg.name] = kwargs[arg.name]
        elif arg.has_default_value():
            params[arg.name] = arg.default_value
    return params
