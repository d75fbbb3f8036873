"""A generated kernel's parameter list and docstring (used by :mod:`akg_rag.lower.triton_kernel`):
each parameter with the comment that says what it holds and which host switch sets it."""

from __future__ import annotations

from akg_rag.sketch.printer import print_expr

INDENT = "    "


class SignatureMixin:
    """``signature``, ``tensors`` and ``header`` of a ``KernelWriter`` (written after its body:
    the body decides which switches the kernel reads)."""

    def signature(self) -> list[tuple[str, str]]:
        """Kernel parameters with their comments, in call order."""
        out: list[tuple[str, str]] = []
        tensors = self.tensors()
        for name in tensors:
            d = self.t.tensor(name)
            dims = ", ".join(s.text for s in self.t.shapes[name])
            out.append((self.ptr(name), f"*{d.dtype}: {name}[{dims}] ({d.direction})"))
        for name in tensors:
            for k in range(len(self.t.shapes[name])):
                out.append((self.stride(name, k), f"elements between {name}[..., i, ...] and the next "
                            f"along dim {k}"))
        for sym in self.launch.symbols:
            t, d = self.t.bindings[sym]
            out.append((self.var(sym), f"size: {t}.shape[{d}]"))
        if self.barriers:
            out.append((self.ticket, "*i32: the next grid point to run, zeroed by the host"))
        if self.reread:
            how = ("each program takes tickets until they run out" if self.barriers
                   else "each program runs every num_programs-th one")
            out.append(("PROGRAMS", f"grid points; {how} (host: GRID_MODE)"))
        for tun in self.launch.tunables:
            out.append((f"{self.var(tun)}: tl.constexpr", f"tunable (default {self.t.tunables[tun]})"))
        for key, s in self.sizes.items():
            if self.blocks.const_block(s) is None:
                out.append((f"{self.blocks.name(s)}: tl.constexpr",
                            f"power-of-two tile extent >= {s.text}"))
        if self.dot_x3:
            out.append(("DOT_X3: tl.constexpr", "f32 dots: 0 IEEE products, 1 three TF32 products of split operands (host: DOT_MODE)"))
        if self.reread:
            out.append(("CACHE_HINTS: tl.constexpr", "L2 hints on re-read rows and streamed stores (host: CACHE_MODE)"))
        if self.versioned:
            out += self.interior_params()
        if self.span_used:
            out.append(("SPAN: tl.constexpr", "0, or the launch's warps: unrolled tap loops whose tiles give each "
                        "thread four lanes read their taps from each lane group's span (host: SPAN_MODE)"))
        if self.loop_staged:
            out.append(("LOOP_STAGES: tl.constexpr", "loads of a streaming loop in flight: 1 as written, more "
                        "software-pipelined through shared memory (host: LOOP_STAGES)"))
        if self.piped:
            out.append(("PIPE: tl.constexpr", "1: programs loop over tickets, each arriving for its next grid point "
                        "before it waits on the one it holds (host: PIPE; akg_rag.lower.triton_pipe)"))
        out.append(("USE_INT64: tl.constexpr", "int64 index arithmetic (a tensor spans >= 2**31 elements)"))
        return out

    def tensors(self) -> list[str]:
        order = [d.name for d in self.t.sketch.tensors]
        return [n for n in order if n in self.launch.tensors]

    def header(self) -> list[str]:
        grid = " x ".join(f"{ax.var} in range({', '.join(print_expr(x) for x in (ax.start, ax.stop, ax.step))})"
                          for ax in self.launch.grid)
        reads, writes = ", ".join(self.launch.reads) or "nothing", ", ".join(self.launch.writes) or "nothing"
        lines = [self.jit_line(), f"def {self.kernel}("]
        for arg, comment in self.signature():
            lines.append(f"{INDENT}{arg},  # {comment}")
        lines.append("):")
        lines.append(f'{INDENT}"""Launch {self.launch.index} of sketch `{self.t.sketch.name}`: one program per '
                     f"grid point of {grid}.")
        lines.append("")
        lines.append(f"{INDENT}Reads {reads}; writes {writes}.")
        lines.append(f'{INDENT}"""')
        return lines
