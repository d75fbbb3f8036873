"""The static half of ``kb_shrink.py``: which module-level integers of a task are sizes, and how
one is made smaller without breaking the problem.

A *slot* is one literal integer assigned at module level: ``batch_size = 128`` is one slot,
``D, H, W = 16, 32, 32`` three, ``kernel_size = (3, 5)`` two, ``M = 1024 * 2`` one (its whole
constant expression), ``height = width = 128`` one; so is a size written inline in a tensor
factory call of ``get_inputs()`` (the ``224`` of ``torch.rand(batch, 3, 224, 224)``). Expressions that name other constants (``bias_shape = (out_channels, 1,
1)``) are not slots: they follow the slots they name when the module runs again.

A slot is *shrinkable* when its value is above ``SMALL`` and it is not structural. Structural is
decided by use: a constant whose name, or the name of the ``Model.__init__`` parameter it is
passed to through ``get_init_inputs()``, says kernel size, stride, padding, dilation, groups,
heads, pool, scale or a reduction axis (``dim``, ``axis``, ``*_dim``), unless ``get_inputs()``
builds tensor shapes from it (``dim = 393216`` there is a length, not an axis).

Halving keeps what the problem may need: parity, and for every kept integer ``g`` of the task
(kernel sizes, strides, groups, ...) whether the size is a multiple of ``g`` (channels stay
divisible by groups; a length that did not fit a pooling window evenly still does not).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

SMALL = 8            # integers up to this are never shrunk (kernel sizes, small channel counts)
FLOOR = 4            # a shrunk size never goes below this (batch-like sizes: 2, or 3 when odd)
STRUCTURAL = re.compile(r"kernel|stride|pad|dilation|group|head|pool|scale|axis|^dim$|_dim$|^dims?$")
FACTORIES = {"rand": 0, "randn": 0, "zeros": 0, "ones": 0, "empty": 0, "full": 0, "randint": None}


@dataclass
class Slot:
    """One module-level literal integer."""

    key: str          # "batch_size", or "kernel_size[1]" for an element of a tuple literal
    name: str         # the assigned name
    value: int        # its value in the original file
    start: int        # byte span of the literal expression in the source
    end: int
    structural: bool = False
    batch_like: bool = False

    @property
    def shrinkable(self) -> bool:
        return self.value > SMALL and not self.structural


def _int_literal(node: ast.AST) -> int | None:
    """The value of a constant integer expression (``1024 * 2``, ``-3``), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _int_literal(node.operand)
        return None if v is None else -v
    if isinstance(node, ast.BinOp):
        a, b = _int_literal(node.left), _int_literal(node.right)
        if a is None or b is None:
            return None
        ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
               ast.FloorDiv: lambda: a // b if b else None, ast.Pow: lambda: a ** b if 0 <= b < 64 else None}
        fn = ops.get(type(node.op))
        return fn() if fn else None
    return None


def _span(offsets: list[int], node: ast.AST) -> tuple[int, int]:
    return offsets[node.lineno - 1] + node.col_offset, offsets[node.end_lineno - 1] + node.end_col_offset


def find_slots(source: str) -> list[Slot]:
    """Every module-level literal integer of ``source``, classified by how the task uses it."""
    tree = ast.parse(source)
    data = source.encode("utf-8")
    offsets, pos = [], 0
    for line in data.splitlines(keepends=True):
        offsets.append(pos)
        pos += len(line)
    offsets.append(pos)
    slots: list[Slot] = []
    for stmt in tree.body:
        if not isinstance(stmt, ast.Assign):
            continue
        target, value = stmt.targets[0], stmt.value
        pairs: list[tuple[str, str, ast.AST]] = []
        if len(stmt.targets) > 1 and all(isinstance(t, ast.Name) for t in stmt.targets):
            names = "=".join(t.id for t in stmt.targets)   # height = width = 128: one slot
            pairs = [(names, names, value)]
        elif isinstance(target, ast.Name) and isinstance(value, (ast.Tuple, ast.List)):
            pairs = [(f"{target.id}[{i}]", target.id, e) for i, e in enumerate(value.elts)]
        elif isinstance(target, ast.Name):
            pairs = [(target.id, target.id, value)]
        elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            pairs = [(t.id, t.id, v) for t, v in zip(target.elts, value.elts) if isinstance(t, ast.Name)]
        for key, name, node in pairs:
            v = _int_literal(node)
            if v is not None:
                slots.append(Slot(key, name, v, *_span(offsets, node)))
    for fn in (_function(tree, "get_inputs"), _function(tree, "get_inputs_dyn_list")):
        for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)) if fn else ():
            for d in _shape_args(call) or ():
                v = _int_literal(d)
                if v is not None:  # a size written inline: torch.rand(batch_size, 3, 224, 224)
                    slots.append(Slot(f"{fn.name}@{d.lineno}:{d.col_offset}", fn.name, v, *_span(offsets, d)))
    _classify(tree, slots)
    return slots


def _function(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    return next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == name), None)


def _names(node: ast.AST | None) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} if node is not None else set()


def _module_refs(tree: ast.Module) -> dict[str, set[str]]:
    """name -> names its module-level assignment reads (``bias_shape`` -> {``out_channels``})."""
    refs: dict[str, set[str]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                for n in _names(t):
                    refs.setdefault(n, set()).update(_names(stmt.value))
    return refs


def _closure(names: set[str], refs: dict[str, set[str]]) -> set[str]:
    out, todo = set(), list(names)
    while todo:
        n = todo.pop()
        if n not in out:
            out.add(n)
            todo.extend(refs.get(n, ()))
    return out


def _shape_args(call: ast.Call) -> list[ast.AST] | None:
    """The size expressions of a tensor factory call (``torch.rand(a, b)``, ``randint(lo, hi, (a,))``)."""
    fn = call.func
    attr = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else None
    if attr not in FACTORIES:
        return None
    if attr == "randint":
        size = next((k.value for k in call.keywords if k.arg == "size"), None)
        if size is None and call.args:
            size = call.args[-1]
        args = [size] if size is not None else []
    else:
        args = list(call.args[:1]) if attr == "full" else list(call.args)
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        return list(args[0].elts)
    return args


def _classify(tree: ast.Module, slots: list[Slot]) -> None:
    """Mark structural and batch-like slots (see the module docstring)."""
    refs = _module_refs(tree)
    inputs_fns = [f for f in (_function(tree, "get_inputs"), _function(tree, "get_inputs_dyn_list")) if f]
    in_shapes = _closure(set().union(*(_names(f) for f in inputs_fns)) if inputs_fns else set(), refs)
    # get_init_inputs() position -> Model.__init__ parameter name
    init_param: dict[str, str] = {}
    init_fn, model = _function(tree, "get_init_inputs"), next(
        (s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == "Model"), None)
    ctor = next((s for s in model.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None) if model else None
    ret = next((n.value for n in ast.walk(init_fn) if isinstance(n, ast.Return)), None) if init_fn else None
    params = [a.arg for a in ctor.args.args[1:]] if ctor else []
    if isinstance(ret, (ast.List, ast.Tuple)):
        for i, e in enumerate(ret.elts):
            if i < len(params):
                for n in _closure(_names(e), refs):
                    init_param.setdefault(n, params[i])
    for s in slots:
        names = s.name.split("=")
        said = any(STRUCTURAL.search(n.lower()) or STRUCTURAL.search(init_param.get(n, "").lower()) for n in names)
        s.structural = said and not in_shapes & set(names)
    # batch-like: the first size of every tensor get_inputs builds, and no other size of any
    firsts, others = [], set()
    for f in inputs_fns:
        for call in (n for n in ast.walk(f) if isinstance(n, ast.Call)):
            dims = _shape_args(call)
            if not dims:
                continue
            firsts.append(dims[0].id if isinstance(dims[0], ast.Name) else None)
            for d in dims[1:]:
                others |= _closure(_names(d), refs)
    if firsts and len(set(firsts)) == 1 and firsts[0] and firsts[0] not in others and firsts[0] not in init_param:
        for s in slots:
            s.batch_like = s.key == firsts[0]


def kept_divisors(slots: list[Slot]) -> set[int]:
    """The integers the task keeps (structural or small) that a size may need to stay a multiple of."""
    return {s.value for s in slots if not s.shrinkable and s.value > 1}


def halve(value: int, divisors: set[int], floor: int = FLOOR, stay_above: bool = True) -> int | None:
    """About half of ``value``: same parity and, for every kept ``g``, a multiple of ``g`` exactly
    when ``value`` is. Searched from ``value // 2`` down to ``value // 4``; when nothing fits, the
    'not a multiple' half of the rule goes, then every ``g`` but parity (the meta run then says
    whether the size had to be a multiple); None when nothing fits at all or the result would
    fall below ``floor``. With ``stay_above`` (every size but a batch) a size that is several
    times a kept ``g`` stays above it under every rule: channels split into groups keep several
    per group, a length several pooling windows long keeps several (shrunk onto ``g`` the problem
    would change its nature: a group norm of one channel per group normalises every value to its
    bias)."""
    must = {g for g in divisors | {2} if value % g == 0}
    must_not = {g for g in divisors | {2} if value % g}
    above = max((g for g in divisors if value % g == 0 and value > g), default=0) if stay_above else 0
    lo = max(floor, value // 4, above + 1)
    for need, avoid in ((must, must_not), (must, set()), ({2} & must, {2} & must_not)):
        for c in range(value // 2, lo - 1, -1):
            if all(c % g == 0 for g in need) and all(c % g for g in avoid):
                return c
    return None


def render(source: str, slots: list[Slot], values: dict[str, int]) -> str:
    """``source`` with each slot's literal replaced by ``values[slot.key]`` (others unchanged)."""
    data = source.encode("utf-8")
    for s in sorted(slots, key=lambda s: s.start, reverse=True):
        if values.get(s.key, s.value) != s.value:
            data = data[: s.start] + str(values[s.key]).encode() + data[s.end:]
    return data.decode("utf-8")
