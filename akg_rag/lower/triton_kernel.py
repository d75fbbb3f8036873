"""One launch of a sketch as one ``@triton.jit`` kernel (used by :mod:`akg_rag.lower.triton`).

The launch's grid (its joined parallel loops) is flattened onto program axis 0 and decomposed with
``//`` and ``%``, the innermost loop varying fastest. Tensors arrive as pointers with every
stride; loads and stores mask indices outside the tensor (loads read ``other`` there) and lanes
past a tile's extent. With ``USE_INT64`` (set by the host when a tensor spans 2**31 elements or
more) the program id, the strides and the symbols become int64 before any index arithmetic.

A program that reads a tensor again in a later pass (:mod:`akg_rag.lower.reuse`) gets L2 hints
(``CACHE_HINTS``, from the host's ``CACHE_MODE``: the earlier passes load it ``evict_last``, the
last ``evict_first``, the passes' stores stream with ``.cs``), so the written output does not
push the row out of L2 before it is read again; and its launch loops over its ``PROGRAMS`` grid
points, so the host (``GRID_MODE``) can run them on fewer programs. Neither changes a result. A
launch with barriers loops over tickets instead (the next grid point in the order programs ask
for one: akg_rag.lower.triton_barrier).
"""

from __future__ import annotations

from akg_rag.lower.infer import VType
from akg_rag.lower.reuse import reuse, statements
from akg_rag.lower.triton_barrier import barriers, emit_barrier
from akg_rag.lower.sizes import Size, size_of
from akg_rag.lower.triton_expr import ExprWriter
from akg_rag.lower.triton_interior import InteriorMixin
from akg_rag.lower.triton_loops import iterations, staged, unrolled
from akg_rag.lower.triton_signature import SignatureMixin
from akg_rag.lower.triton_span import SpanMixin
from akg_rag.lower.triton_pipe import pipe_lines, pipelinable
from akg_rag.lower.triton_names import ADD, ATOM, CMP, COMPUTE_TL, MUL, WIDEN_TL, Blocks, Em, Namer, lit
from akg_rag.lower.typed import GridAxis, Launch, TypedSketch
from akg_rag.sketch.nodes import (
    Access, Alloc, Assign, Barrier, BinOp, Call, Expr, For, Load, Name, Neg, Num, Slice, Stmt, Store,
)
from akg_rag.sketch.printer import print_stmt

INDENT = "    "
MAX_LINE = 100           # characters; longer load/store lines put one argument per line


class KernelWriter(SignatureMixin, SpanMixin, InteriorMixin, ExprWriter):
    """Writes the kernel of one launch; ``source()`` returns its text."""

    def __init__(self, typed: TypedSketch, launch: Launch, blocks: Blocks, namer: Namer,
                 helpers: set[str], kernel: str) -> None:
        self.t, self.launch, self.blocks, self.namer = typed, launch, blocks, namer
        self.helpers, self.kernel = helpers, kernel
        self.lines: list[str] = []
        self.depth = 1
        self.sizes: dict[str, Size] = {}               # extents whose offs_/mask_ are used
        self.masked: set[str] = set()
        self.loops: list[tuple[str, Expr, Expr, Expr | None]] = []   # var, start, stop, step
        self.carried = {n for s in _loops(launch.body) for n in typed.loop_carried(s)}
        self.nonneg_locals: dict[str, bool] = {}
        self.dot_x3 = False                            # an f32 tl.dot reads the DOT_X3 switch
        # local -> (tensor, the tensor dim of each tile axis) while it holds a plain slice load
        self.tile_dims: dict[str, tuple[str, tuple[int, ...]]] = {}
        # per f32 dot, when both operands are plain slice loads: (A tensor, A's dim along K, A's dim
        # along M, B tensor, B's dim along K, B's dim along N); None otherwise
        self.dot_operands: list[tuple[str, int, int, str, int, int] | None] = []
        self.gathered: set[str] = set()                # locals loaded through computed (tile) indices
        self.dot_gathers = False                       # a dot operand is such a load (a conv's patches)
        # tensors a program reads in more than one pass (akg_rag.lower.reuse): their loads and the
        # passes' stores get L2 hints, and the launch loops over its grid points (``PROGRAMS``)
        # a launch with barriers (akg_rag.lower.triton_barrier) takes its grid points from tickets
        self.barriers = barriers(launch.body)
        self.after_barrier = False
        self.barrier_at = (0, 0, 0)       # the barrier's arrival, wait and end in the body's lines
        self.piped = False                # written with a pipelined form too (host: PIPE)
        self.decomp_at = (0, 0)           # the prologue's lines from pid to the grid variables
        self.ticket = namer.fresh("ticket_ptr") if self.barriers else ""
        self.reuse = reuse(launch.body)
        self.reread = self.reuse.reread
        self.next_ticket = namer.fresh("tk") if self.barriers and self.reread else ""
        self.loop_staged = False          # a streaming loop reads LOOP_STAGES (see `staged`)
        self.init_interior(launch.body)   # interior versions of `vectorize` loops and programs
        self.init_span()                  # their unrolled tap loops' span form (akg_rag.lower.triton_span)

    # ---- names ---------------------------------------------------------------------------------
    def dot_switch(self, a: Expr, b: Expr) -> str:
        self.dot_x3 = True
        ta, tb = self._operand_dims(a), self._operand_dims(b)
        if any(self._gathered(e) or (t is not None and None in t[1]) for e, t in ((a, ta), (b, tb))):
            self.dot_gathers = True
        if ta and tb and len(ta[1]) >= 2 and len(tb[1]) >= 2 and None not in (ta[1][-1], tb[1][-2]):
            self.dot_operands.append((ta[0], ta[1][-1], ta[1][-2], tb[0], tb[1][-2], tb[1][-1]))
        else:
            self.dot_operands.append(None)
        return "DOT_X3"

    def _gathered(self, e: Expr) -> bool:
        """Is a dot operand (or the transpose of one) a load through computed tile indices?"""
        while isinstance(e, Call) and e.func == "transpose" and len(e.args) == 1:
            e = e.args[0]
        return isinstance(e, Name) and e.id in self.gathered

    def _operand_dims(self, e: Expr) -> tuple[str, tuple[int | None, ...]] | None:
        """(tensor, the tensor dim of each tile axis; None for a gathered axis) of a dot operand
        that is a slice load or the transpose of one; None for anything else."""
        if isinstance(e, Call) and e.func == "transpose" and len(e.args) == 1:
            inner = self._operand_dims(e.args[0])
            if inner is None or len(inner[1]) != 2:
                return None
            return inner[0], inner[1][::-1]
        return self.tile_dims.get(e.id) if isinstance(e, Name) else None

    def var(self, name: str) -> str:
        return Namer.py(name)

    def ptr(self, tensor: str) -> str:
        return self.namer.fresh(f"{Namer.py(tensor)}_ptr")

    def stride(self, tensor: str, dim: int) -> str:
        return self.namer.fresh(f"{Namer.py(tensor)}_stride{dim}")

    def offs(self, s: Size) -> str:
        self.sizes.setdefault(s.key, s)
        return self.namer.fresh(f"offs_{self.blocks.label(s)}")

    def mask(self, s: Size) -> str:
        self.offs(s)
        self.masked.add(s.key)
        return self.namer.fresh(f"mask_{self.blocks.label(s)}")

    def emit(self, line: str) -> None:
        self.lines.append(INDENT * self.depth + line)

    def emit_call(self, target: str, fn: str, args: list[str], suffix: str = "") -> None:
        """``target = fn(args)suffix`` (a bare call without target), one argument a line if long."""
        head = f"{target} = " if target else ""
        line = f"{head}{fn}({', '.join(args)}){suffix}"
        if len(INDENT * self.depth + line) <= MAX_LINE:
            self.emit(line)
            return
        self.emit(f"{head}{fn}(")
        for arg in args:
            self.emit(f"{INDENT}{arg},")
        self.emit(f"){suffix}")

    # ---- statements ----------------------------------------------------------------------------
    def block(self, body: list[Stmt]) -> None:
        for s in body:
            if isinstance(s, For):
                self.loop(s)
            elif isinstance(s, Alloc):
                self.alloc(s)
            elif isinstance(s, Assign):
                self.tile_dims.pop(s.target, None)
                d = self.t.definition(s)
                self.emit(f"{self.var(s.target)} = {self.value(s.value, d.value, d.target).text}")
                self.defs[s.target] = s.value
                # a local holding a non-negative index (an iota plus loop variables) needs no >= 0 mask
                self.nonneg_locals[s.target] = s.target not in self.carried and self.nonneg(s.value)
            elif isinstance(s, Load):
                self.load(s)
                self.nonneg_locals[s.dst] = False
            elif isinstance(s, Store):
                self.store(s)
            elif isinstance(s, Barrier):
                emit_barrier(self, s)

    def value(self, e: Expr, src: VType | None, dst: VType) -> Em:
        """Expression ``e`` (of type ``src``) as a value of the local type ``dst``."""
        assert src is not None
        em = self.operand(e, dst.dtype)
        if src.weak and src.rank == 0 and dst.rank == 0 and isinstance(e, (Num, Neg)):
            # Python literals are f32 / i32 in Triton; others get a typed scalar (a carried local
            # must keep its type across iterations)
            return em if dst.dtype in ("f32", "i32") else Em(f"tl.cast({em.text}, {COMPUTE_TL[dst.dtype]})")
        if src.weak and src.rank == 0 and dst.rank == 0:
            return Em(f"tl.cast({em.text}, {COMPUTE_TL[dst.dtype]})")
        return self.reshape(em, VType(src.shape, dst.dtype), dst)

    def alloc(self, s: Alloc) -> None:
        d = self.t.definition(s)
        self.nonneg_locals[s.target] = False
        what = f"{s.target}: {d.target} ({s.role or 'alloc'})"
        if s.init is None and s.target not in self.carried:
            self.emit(f"# {what}: defined by its first assignment")
            return
        fill = self.operand(s.init, d.target.dtype) if s.init is not None else lit(0, d.target.dtype)
        if d.target.rank == 0:
            self.emit(f"{self.var(s.target)} = tl.cast({fill.text}, {COMPUTE_TL[d.target.dtype]})  # {what}")
        else:
            self.emit(f"{self.var(s.target)} = tl.full({self.block_shape(d.target.shape)}, {fill.text}, "
                      f"{COMPUTE_TL[d.target.dtype]})  # {what}")

    def plain_loop(self, s: For) -> None:
        """The loop as written (``loop``, from InteriorMixin, may write it twice)."""
        start = self.index(s.start) if s.start is not None else Em("0")
        stop, step = self.index(s.stop), (self.index(s.step) if s.step is not None else None)
        args = [stop.text] if s.start is None and step is None else [start.text, stop.text] + (
            [step.text] if step is not None else [])
        rng = "range"
        its = unrolled(s, self.t)
        if its is not None:
            rng = "tl.static_range"
        elif staged(s):
            rng = "tl.range"
            args.append("num_stages=LOOP_STAGES")
            self.loop_staged = True
        hints = ", ".join(f"{h.kind}/{h.context}" for h in s.hints)
        carried = self.t.loop_carried(s)
        note = f"  # {hints}" if hints else ""
        if carried:
            note += f"{'  #' if not hints else ';'} carries {', '.join(carried)}"
        self.emit(f"for {self.var(s.var)} in {rng}({', '.join(args)}):{note}")
        self.loops.append((s.var, s.start or Num(0), s.stop, s.step))
        self.depth += 1
        mark = len(self.lines)
        once = iterations(s, self.t)
        repeats = once is None or len(once) != 1   # a loop of one iteration leaves a window 1-D
        self.loops_around += repeats
        self.block(s.body)
        self.loops_around -= repeats
        if len(self.lines) == mark or all(x.strip().startswith("#") for x in self.lines[mark:]):
            self.emit("pass")
        self.depth -= 1
        self.loops.pop()

    # ---- loads and stores ----------------------------------------------------------------------
    def access(self, a: Access, shape: tuple[Size, ...], store: bool) -> tuple[str, str | None]:
        """Pointer tile and mask of an access whose loaded/stored shape is ``shape``."""
        dims = self.t.shapes[a.tensor]
        nslices = sum(isinstance(i, Slice) for i in a.indices)
        rank, g = len(shape), len(shape) - nslices
        terms: list[str] = []
        masks: list[str] = []
        j = 0
        for d, idx in enumerate(a.indices):
            dim = dims[d]
            if isinstance(idx, Slice):
                axis, ext = g + j, shape[g + j]
                j += 1
                offs = self.expand(self.offs(ext), axis, rank)
                start = self.index(idx.start)
                pos = Em(offs) if _is_zero(idx.start) else Em(f"{start.at(ADD)} + {offs}", ADD)
                if self.blocks.padded(ext):
                    masks.append(self.expand(self.mask(ext), axis, rank))
                inside = (id(a), d) in self.proven   # the interior version's test covers it
                if not inside and not self.nonneg(idx.start):
                    masks.append(f"({pos.text} >= 0)")
                if not inside and (size_of(idx.stop, self._values()) != dim or not self.nonneg(idx.start)):
                    masks.append(f"({pos.text} < {self.size(dim).at(CMP + 1)})")
            else:
                t = self.t.type_of(idx)
                em = self.expr(idx)
                if t.rank and nslices:
                    em = Em(f"{em.at(ATOM)}[{', '.join([':'] * t.rank + ['None'] * nslices)}]")
                pos = em
                inside = (id(a), d) in self.proven   # the interior version's test covers it
                if not inside and not self.nonneg(idx):
                    masks.append(f"({pos.text} >= 0)")
                if not inside and not self.below(idx, dim):
                    masks.append(f"({pos.text} < {self.size(dim).at(CMP + 1)})")
            terms.append(f"{pos.at(MUL)} * {self.stride(a.tensor, d)}")
        if store and g:
            m = self.valid(shape, list(range(g)))
            if m:
                masks.insert(0, m)
        ptr = " + ".join([self.ptr(a.tensor)] + terms)
        return ptr, (" & ".join(masks) if masks else None)

    def load_call(self, a: Access, shape: tuple[Size, ...], other: Expr | None) -> tuple[list[str], str]:
        """Arguments of the ``tl.load`` of an access, and the conversion to its compute dtype."""
        decl = self.t.tensor(a.tensor)
        ptr, mask = self.access(a, shape, store=False)
        args = [ptr]
        if mask is not None:
            kind = "float" if decl.dtype in ("f16", "bf16", "f32", "f64") else decl.dtype
            dt = {"float": "f32", "bool": "bool"}.get(kind, "i32")
            fill = self.operand(other, dt) if other is not None else lit(0, dt)
            args += [f"mask={mask}", f"other={fill.text}"]
        compute = WIDEN_TL.get(decl.dtype)
        return args, (f".to({compute})" if compute else "")

    def whole_tensor(self, name: str) -> Em:
        decl = self.t.tensor(name)
        a = Access(name, [Slice(Num(0), e) for e in decl.shape])
        args, suffix = self.load_call(a, self.t.shapes[name], None)
        return Em(f"tl.load({', '.join(args)}){suffix}")

    def load(self, s: Load) -> None:
        d = self.t.definition(s)
        assert d.value is not None
        self.emit(f"# {print_stmt(s)}")
        dst = self.var(s.dst)
        if id(s) in self.span_taps:   # the tap from the registers of its span (akg_rag.lower.triton_span)
            self.emit(f"{dst} = {self.span_tap(self.span_taps[id(s)], self.loops[-1][0])}")
        else:
            self.emit_load(s, dst)
        em = Em(dst)
        if d.value.dtype != d.target.dtype:
            em = self.convert(em, d.value, d.target.dtype)
        em = self.reshape(em, VType(d.value.shape, d.target.dtype), d.target)
        if em.text != dst:
            self.emit(f"{dst} = {em.text}")
        self.tile_dims.pop(s.dst, None)
        dims = [k for k, ix in enumerate(s.src.indices) if isinstance(ix, Slice)]
        ranks = [self.t.type_of(ix).rank for ix in s.src.indices if not isinstance(ix, Slice)]
        if any(ranks):
            self.gathered.add(s.dst)
        else:
            self.gathered.discard(s.dst)
        lead = len(d.target.shape) - len(dims)   # gathered tile axes before the sliced ones
        if d.value.shape == d.target.shape and (lead == 0 and not any(ranks) or lead == 1 and max(ranks, default=0) == 1):
            # a plain slice load, or one gathered axis (a convolution's pixel rows: no tensor dim)
            # ahead of plain slices
            self.tile_dims[s.dst] = (s.src.tensor, (None,) * lead + tuple(dims))

    def emit_load(self, s: Load, dst: str) -> None:
        args, suffix = self.load_call(s.src, self.t.definition(s).value.shape, s.other)
        if id(s) in self.reuse.evict:
            args.append(f'eviction_policy="{self.reuse.evict[id(s)]}" if CACHE_HINTS else ""')
        elif self.after_barrier and s.src.tensor in self.launch.writes:  # written by the group: not from L1
            args.append('cache_modifier=".cg"')
        self.emit_call(dst, "tl.load", args, suffix)

    def store(self, s: Store) -> None:
        v = self.t.type_of(s)
        tile = self.t.type_of(s.dst)
        decl = self.t.tensor(s.dst.tensor)
        self.emit(f"# {print_stmt(s)}")
        ptr, mask = self.access(s.dst, tile.shape, store=True)
        em = Em(self.var(s.src))
        if v.rank:
            em = self.reshape(em, v, VType(tile.shape, v.dtype))
        em = self.convert(em, v, "bool") if decl.dtype == "bool" else self.to_storage(em, v, decl.dtype)
        args = [ptr, em.text] + ([f"mask={mask}"] if mask else [])
        if id(s) in self.reuse.streamed:
            args.append('cache_modifier=".cs" if CACHE_HINTS else ""')
        self.emit_call("", "tl.store", args)

    # ---- facts about indices -------------------------------------------------------------------
    def _values(self) -> dict[str, Expr]:
        return {k: v for k, v in self.t.params.items() if k not in self.t.tunables}

    def _loop(self, name: str) -> tuple[str, Expr, Expr, Expr | None] | None:
        for entry in reversed(self.loops):
            if entry[0] == name:
                return entry
        return None

    def nonneg(self, e: Expr) -> bool:
        """Provably >= 0 (numbers, sizes, loop variables counting up from >= 0, iota)."""
        if isinstance(e, Num):
            return e.value >= 0
        if isinstance(e, Name):
            loop = self._loop(e.id)
            if loop is not None:
                return self.nonneg(loop[1]) and (loop[3] is None or self.nonneg(loop[3]))
            if e.id in self.nonneg_locals:
                return self.nonneg_locals[e.id]
            if e.id in self.t.params:
                return self.nonneg(self.t.params[e.id])
            return any(s.name == e.id for s in self.t.sketch.symbols)
        if isinstance(e, BinOp):
            return e.op in ("+", "*", "//", "%") and self.nonneg(e.left) and self.nonneg(e.right)
        if isinstance(e, Call):
            if e.func == "iota":
                return True
            return e.func in ("unsqueeze", "transpose") and self.nonneg(e.args[0])
        return False

    def below(self, e: Expr, dim: Size) -> bool:
        """Provably < ``dim``: a loop variable whose range stops at ``dim``, or a small number."""
        if isinstance(e, Num):
            return dim.value is not None and e.value < dim.value
        if isinstance(e, Name):
            loop = self._loop(e.id)
            return loop is not None and size_of(loop[2], self._values()) == dim and (
                loop[3] is None or self.nonneg(loop[3]))
        return False

    # ---- the kernel ----------------------------------------------------------------------------
    def source(self) -> str:
        """The kernel's full text."""
        grid = self.launch.grid
        for ax in grid:
            self.loops.append((ax.var, ax.start, ax.stop, ax.step))
        if self.reread:
            self.depth += 1
        self.program(self.launch.body, grid)
        body = self.lines
        if self.reread and self.barriers:   # the next ticket, at the end of the ticket loop
            body.append(f"{INDENT * 2}{self.next_ticket} = tl.atomic_add({self.ticket}, 1)")
        self.lines = []
        self.depth = 1
        self.hide_alignment()
        self.prologue()
        head = self.lines
        if pipelinable(self):   # the barrier's wait behind the next grid point's loads (triton_pipe)
            d0, d1 = self.decomp_at
            total = grid_count(self.launch.grid[0], self, "tl.cdiv", self.t)
            piped = pipe_lines(self, head[d0:d1], body, total)
            if piped is not None:
                self.piped = True
                head, body = head[:d0] + head[d1:], [INDENT + line for line in piped]
        return "\n".join(self.header() + head + [""] + body) + "\n"

    def prologue(self) -> None:
        syms = [self.var(s) for s in self.launch.symbols]
        strides = [self.stride(n, k) for n in self.tensors() for k in range(len(self.t.shapes[n]))]
        if self.reread:
            # grid-stride: this program runs grid points program_id, program_id + num_programs, ...
            if strides or syms:
                self.emit("if USE_INT64:  # offsets past 2**31 elements: index arithmetic in int64")
                for name in strides + syms:
                    self.emit(f"{INDENT}{name} = tl.cast({name}, tl.int64)")
            if self.barriers:
                # with barriers: a loop over tickets, taken in order (akg_rag.lower.triton_barrier)
                self.emit(f"{self.next_ticket} = tl.atomic_add({self.ticket}, 1)")
                self.emit(f"while {self.next_ticket} < PROGRAMS:")
                self.depth += 1
                self.emit(f"pid = {self.next_ticket}")
            else:
                self.emit("for pid_g in range(tl.program_id(0), PROGRAMS, tl.num_programs(0)):")
                self.depth += 1
                self.emit("pid = pid_g")
            self.emit("if USE_INT64:")
            self.emit(f"{INDENT}pid = tl.cast(pid, tl.int64)")
        else:
            # a launch with barriers runs its grid points in the order its programs start
            self.emit(f"pid = tl.atomic_add({self.ticket}, 1)" if self.barriers else "pid = tl.program_id(0)")
            self.emit("if USE_INT64:  # offsets past 2**31 elements: index arithmetic in int64")
            for name in ["pid"] + strides + syms:
                self.emit(f"{INDENT}{name} = tl.cast({name}, tl.int64)")
        grid = self.launch.grid
        d0 = len(self.lines)
        if len(grid) > 1:
            self.emit(f"# grid point -> ({', '.join(ax.var for ax in grid)}), {grid[-1].var} fastest")
        rest = "pid"
        for k in range(len(grid) - 1, -1, -1):
            ax = grid[k]
            if k == 0:
                idx = Em(rest, ATOM if rest == "pid" else ATOM)
            else:
                count = self.namer.fresh(f"num_{ax.var}")
                self.emit(f"{count} = {grid_count(ax, self, 'tl.cdiv', self.t)}")
                idx = Em(f"{rest} % {count}", MUL)
            self.emit(f"{self.var(ax.var)} = {_affine(idx, self.index(ax.start), self.index(ax.step))}")
            if k > 0:
                nxt = self.namer.fresh("rest")
                self.emit(f"{nxt} = {rest} // {count}")
                rest = nxt
        self.decomp_at = (d0, len(self.lines))
        for key, s in self.sizes.items():
            offs, block = self.offs(s), self.blocks.name(s)
            self.emit(f"{offs} = tl.arange(0, {block})  # lanes of extent {s.text}")
            if key not in self.masked or not self.blocks.padded(s):
                continue
            if s.names and set(s.names) <= set(self.t.tunables):
                # an extent made of tunables is known at compile time: no mask when it is a power of two
                self.emit(f"if {block} == {self.size(s).text}:")
                self.emit(f"{INDENT}{self.mask(s)} = tl.full(({block},), 1, tl.int1)")
                self.emit("else:")
                self.emit(f"{INDENT}{self.mask(s)} = {offs} < {self.size(s).at(CMP + 1)}")
            else:
                self.emit(f"{self.mask(s)} = {offs} < {self.size(s).at(CMP + 1)}")


def grid_count(ax: GridAxis, printer: ExprWriter, cdiv: str, t: TypedSketch) -> str:
    """Iterations of a grid loop: ``cdiv(stop - start, step)`` (the span simplified)."""
    values = {k: v for k, v in t.params.items() if k not in t.tunables}
    span = printer.index(size_of(BinOp("-", ax.stop, ax.start), values).expr)
    if isinstance(ax.step, Num) and ax.step.value == 1:
        return span.text
    return f"{cdiv}({span.text}, {printer.index(ax.step).text})"


def _affine(idx: Em, start: Em, step: Em) -> str:
    text = idx.text if step.text == "1" else f"{idx.at(MUL)} * {step.at(MUL + 1)}"
    prec = ATOM if step.text == "1" else MUL
    if start.text == "0":
        return text
    return f"{start.at(ADD)} + {Em(text, prec).at(ADD + 1)}"


def _is_zero(e: Expr) -> bool:
    return isinstance(e, Num) and e.value == 0


def _loops(body: list[Stmt]):  # noqa: ANN202
    return (s for s in statements(body) if isinstance(s, For))
