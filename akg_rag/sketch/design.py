"""Building blocks of the deterministic designer: stages, the design being written, and the
sketch expressions of elementwise ops (used by :mod:`akg_rag.sketch.templates`)."""

from __future__ import annotations

from dataclasses import dataclass, field

RECURRENT = ("lstm", "gru", "rnn_tanh", "rnn_relu")

# name -> sketch expression of one elementwise op applied to {v}
UNARY_EXPR: dict[str, str] = {
    "relu": "max({v}, 0)",
    "relu6": "min(max({v}, 0), 6)",
    "leaky_relu": "where(gt({v}, 0), {v}, mul({v}, 0.01))",
    "elu": "where(gt({v}, 0), {v}, sub(exp({v}), 1))",
    "selu": "mul(1.0507009873554805, where(gt({v}, 0), {v}, mul(1.6732632423543772, sub(exp({v}), 1))))",
    "gelu": "mul(mul(0.5, {v}), add(1, erf(mul({v}, 0.7071067811865476))))",
    "gelu_tanh": "mul(mul(0.5, {v}), add(1, tanh(mul(0.7978845608028654, add({v}, mul(0.044715, mul({v}, mul({v}, {v}))))))))",
    "silu": "mul({v}, sigmoid({v}))",
    "mish": "mul({v}, tanh(log(add(1, exp({v})))))",
    "softplus": "log(add(1, exp({v})))",
    "log_sigmoid": "log(sigmoid({v}))",
    "softsign": "div({v}, add(1, abs({v})))",
    "hardsigmoid": "min(max(add(div({v}, 6), 0.5), 0), 1)",
    "hardswish": "mul({v}, min(max(add(div({v}, 6), 0.5), 0), 1))",
    "hardtanh": "min(max({v}, -1), 1)",
    "tanhshrink": "sub({v}, tanh({v}))",
    "square": "mul({v}, {v})",
    **{n: f"{n}({{v}})" for n in ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "abs", "neg", "erf",
                                  "log1p", "expm1", "reciprocal", "floor", "ceil", "sin", "cos")},
}
BINARY_EXPR: dict[str, str] = {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "maximum": "max",
                           "minimum": "min", "pow": "pow"}
REDUCE_OP = {"sum": "reduce_sum", "mean": "reduce_mean", "max": "reduce_max", "min": "reduce_min",
           "prod": "reduce_prod", "argmax": "reduce_argmax", "argmin": "reduce_argmin"}
REDUCE_EXPR = {
    "norm": "sqrt(reduce_sum(mul({v}, {v}), axis=0))",
    "logsumexp": "log(reduce_sum(exp({v}), axis=0))",
    "var": "reduce_mean(mul(sub({v}, reduce_mean({v}, axis=0)), sub({v}, reduce_mean({v}, axis=0))), axis=0)",
    "std": "sqrt(reduce_mean(mul(sub({v}, reduce_mean({v}, axis=0)), sub({v}, reduce_mean({v}, axis=0))), axis=0))",
}
SCAN_OP = {"cumsum": "scan_sum", "cumprod": "scan_prod", "cummax": "scan_max"}


@dataclass
class Stage:
    op: str | None                     # None: a purely elementwise stage
    family: str
    prologue: list[str] = field(default_factory=list)
    epilogue: list[str] = field(default_factory=list)


@dataclass
class Design:
    """Accumulates declarations and body lines while the stage templates run."""

    name: str
    dtype: str
    inputs: list[tuple[str, str]]                           # task inputs not declared yet: (name, dtype)
    symbols: list[str] = field(default_factory=list)
    tensors: list[str] = field(default_factory=list)
    params: dict[str, str] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    _fresh: int = 0

    def symbol(self, base: str) -> str:
        name, k = base, 2
        while name in self.symbols:
            name, k = f"{base}{k}", k + 1
        self.symbols.append(name)
        return name

    def param(self, base: str, value: str) -> str:
        name, k = base, 2
        while name in self.params and self.params[name] != value:
            name, k = f"{base}{k}", k + 1
        self.params[name] = value
        return name

    def tensor(self, name: str, dims: list[str], direction: str, dtype: str | None = None) -> str:
        self.tensors.append(f"{name}[{', '.join(dims)}]: {dtype or self.dtype} {direction}")
        return name

    def take(self, dims: list[str]) -> str | None:
        """Declare the next unused task input with ``dims`` and return its name (None if none left)."""
        if not self.inputs:
            return None
        name, dtype = self.inputs.pop(0)
        return self.tensor(name, dims, "in", dtype)

    def fresh(self, base: str) -> str:
        self._fresh += 1
        return f"{base}{self._fresh}"

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    def hint(self, depth: int, kind: str, context: str) -> None:
        self.emit(depth, f'@llm_hint("{kind}", "{context}")')

    def text(self) -> str:
        head = [f"sketch {self.name} {{", f"  symbols: {', '.join(self.symbols)}",
                f"  tensors: {'; '.join(self.tensors)}"]
        if self.params:
            head.append(f"  params: {', '.join(f'{k} = {v}' for k, v in self.params.items())}")
        return "\n".join(head + [""] + self.lines + ["}"]) + "\n"


def emit_chain(d: Design, ops: list[str], v: str, depth: int, tile: list[str], index: str,
           full: list[str]) -> str:
    """Emit the elementwise ``ops`` on local ``v``, a ``tile`` at ``index`` of a result of dims
    ``full``; a binary op reads a tile of the next task input, else a scalar parameter."""
    for op in ops:
        out = d.fresh("e")
        if op in UNARY_EXPR:
            expr = UNARY_EXPR[op].format(v=v)
        elif op in BINARY_EXPR:
            src = d.take(full)
            if src is not None:
                other = d.fresh("in")
                d.emit(depth, f'{other} = alloc([{", ".join(tile)}], {d.dtype}, hint="input_cache")')
                d.emit(depth, f"load({src}[{index}] -> {other})")
            else:
                other = d.param("alpha", "1.0")
            expr = f"{BINARY_EXPR[op]}({v}, {other})"
        elif op == "clamp":
            expr = f"min(max({v}, {d.param('lo', '-1.0')}), {d.param('hi', '1.0')})"
        else:
            expr = f'apply("{op}", {v})'
        d.emit(depth, f"{out} = {expr}")
        v = out
    return v
