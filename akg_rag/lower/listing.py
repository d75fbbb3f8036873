"""A readable listing of a partitioned ``Program`` (for the CLI, reports and test failures)."""

from __future__ import annotations

from akg_rag.lower.region import Expr, FallbackStep, KernelStep, LibraryStep, Program, Value, ViewStep


def format_expr(e: Expr) -> str:
    """``add(mul(acc, 2.0), in:bias)``; ``#1`` is the position along dim 1, ``x[#0, in1]`` a
    gather (``or 0.5``: its out-of-range value)."""
    if e.op == "input":
        return f"{e.ref}"
    if e.op == "const":
        return repr(e.value) if e.dtype in (None, "float32") else f"{e.value!r}:{e.dtype}"
    if e.op == "reduced":
        return f"<{e.ref}>"
    if e.op in ("acc", "numel"):
        return e.op
    if e.op == "index":
        return f"#{e.value}"
    if e.op == "gather":
        other = "" if e.value is None else f" or {e.value!r}"
        return f"{e.ref}[{', '.join(format_expr(a) for a in e.args)}]{other}"
    inner = ", ".join(format_expr(a) for a in e.args)
    return f"{e.op}({inner}{', ' + e.dtype if e.op == 'cast' else ''})"


def _v(v: Value) -> str:
    return f"{v.name}{list(v.shape)}:{v.dtype}"


def format_program(p: Program) -> str:
    """One line per step (kernels with their region's outputs, reductions and core)."""
    lines = [f"inputs: {', '.join(_v(v) for v in p.inputs)}",
             f"params: {', '.join(f'{k}={_v(v)}' for k, v in p.params.items())}"]
    for s in p.steps:
        if isinstance(s, ViewStep):
            lines.append(f"view   {s.out.name}{list(s.out.shape)} = {s.src.name}.{s.op}{s.args}")
        elif isinstance(s, LibraryStep):
            args = ", ".join(a.name if isinstance(a, Value) else repr(a) for a in s.args)
            lines.append(f"library {', '.join(v.name for v in s.outs)}{list(s.outs[0].shape)} = {s.op}({args})")
        elif isinstance(s, FallbackStep):
            lines.append(f"torch  {', '.join(v.name for v in s.outs)} = {s.op}")
        elif isinstance(s, KernelStep):
            r = s.region
            head = f"kernel {s.name} {r.kind} {list(r.shape)}"
            if r.kind == "reduction":
                head += f" dims={list(r.dims)}"
                for red in r.reductions:
                    lines.append(f"{head}  {red.name} = {red.kind}({format_expr(red.expr)})")
                    head = " " * len(head)
            elif r.kind == "gemm":
                head += f" {r.a.name} @ {r.b.name}"
            elif r.kind == "conv":
                head += f" conv({r.x.name}, {r.w.name}, bias={r.bias.name if r.bias else None})"
            elif r.kind == "pool":
                src = r.x.name if r.prologue is None else format_expr(r.prologue)
                head += f" {r.op}pool({src}, k={r.kernel}, s={r.stride}, p={r.padding})"
            elif r.kind == "scan":
                head += f" scan_{r.op}({format_expr(r.expr)}, dim={r.dim}, reverse={r.reverse})"
            lines.append(head)
            for o in r.outputs:
                lines.append(f"         {o.value.name}{list(o.value.shape)} [{o.domain}] = {format_expr(o.expr)}")
    lines.append(f"outputs: {', '.join(_v(v) for v in p.outputs)}")
    return "\n".join(lines)
