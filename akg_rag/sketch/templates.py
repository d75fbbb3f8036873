"""The family templates of the deterministic designer (see :mod:`akg_rag.sketch.derive`).

Each template reads ``src`` with ``dims`` (``src`` None: the first stage, which declares the task
inputs it needs), writes ``dst``, and returns the dims of what it wrote.
"""

from __future__ import annotations

from akg_rag.sketch.design import REDUCE_EXPR, REDUCE_OP, SCAN_OP, Design, Stage, emit_chain

def _elementwise(d: Design, st: Stage, src: str | None, dims: list[str], dst: str) -> list[str]:
    n = dims[0] if src is not None and len(dims) == 1 else d.symbol("N")
    src = d.take([n]) if src is None else src
    block, vec = d.param("BLOCK", "1024"), d.param("VEC", "4")
    d.hint(1, "parallel", "grid")
    d.emit(1, f"for b in range(0, {n}, {block}):")
    d.hint(2, "vectorize", "simd")
    d.emit(2, f"for i in range(0, {block}, {vec}):")
    index = f"b + i:b + i + {vec}"
    d.emit(3, f'tv = alloc([{vec}], {d.dtype}, hint="input_cache", tier="register")')
    if src is not None:
        d.emit(3, f"load({src}[{index}] -> tv)")
    else:
        d.emit(3, f"tv = {d.param('alpha', '1.0')}")
    v = emit_chain(d, st.prologue + st.epilogue, "tv", 3, [vec], index, [n])
    d.emit(3, f"store({v} -> {dst}[{index}])")
    return [n]


def _rowwise(d: Design, st: Stage, src: str | None, dims: list[str], dst: str) -> list[str]:
    if src is not None and len(dims) == 2:
        rows, cols = dims
    else:
        rows, cols = d.symbol("R"), (dims[-1] if src is not None else d.symbol("C"))
        if src is not None:  # a 1-D result read as a single row
            rows = "1"
            d.symbols.remove("R")
    if src is None:
        src = d.take([rows, cols]) or ""
    op = st.op or ""
    keeps_shape = st.family in ("softmax", "normalization", "scan")
    d.hint(1, "parallel", "core")
    d.emit(1, f"for m in range({rows}):")
    row = f"m, 0:{cols}" if rows != "1" else f"0:{cols}"
    d.emit(2, f'row = alloc([{cols}], {d.dtype}, hint="input_cache")')
    d.emit(2, f"load({src}[{row}] -> row)")
    v = emit_chain(d, st.prologue, "row", 2, [cols], row, [rows, cols])
    if st.family == "softmax":
        d.emit(2, f"mx = reduce_max({v}, axis=0)")
        d.emit(2, f"ex = exp(sub({v}, mx))")
        d.emit(2, 'den = alloc([1], f32, hint="accumulator", init=0)')
        d.emit(2, "den = reduce_sum(ex, axis=0)")
        result = f"sub(sub({v}, mx), log(den))" if op == "log_softmax" else "div(ex, den)"
    elif st.family == "normalization":
        eps = d.param("eps", "1e-05")
        d.emit(2, 'acc = alloc([1], f32, hint="accumulator", init=0)')
        if op in ("rms_norm", "l2_normalize"):
            d.emit(2, f"acc = reduce_sum(mul({v}, {v}), axis=0)")
            result = (f"mul({v}, rsqrt(add(div(acc, {cols}), {eps})))" if op == "rms_norm"
                      else f"div({v}, max(sqrt(acc), {eps}))")
        else:
            d.emit(2, f"acc = reduce_sum({v}, axis=0)")
            d.emit(2, f"cen = sub({v}, div(acc, {cols}))")
            d.emit(2, f"var = div(reduce_sum(mul(cen, cen), axis=0), {cols})")
            result = f"mul(cen, rsqrt(add(var, {eps})))"
    elif st.family == "scan":
        result = f"{SCAN_OP.get(op, 'scan_sum')}({v}, axis=0)"
    elif st.family == "loss":
        target = d.take([rows, cols]) if rows != "1" else d.take([cols])
        d.emit(2, f'tgt = alloc([{cols}], {d.dtype}, hint="input_cache")')
        d.emit(2, f"load({target or src}[{row}] -> tgt)")
        term = {"mse_loss": f"mul(sub({v}, tgt), sub({v}, tgt))", "l1_loss": f"abs(sub({v}, tgt))",
                "kl_div": f"mul(tgt, sub(log(tgt), {v}))"}.get(op, f'apply("{op}", {v}, tgt)')
        d.emit(2, 'acc = alloc([1], f32, hint="accumulator", init=0)')
        d.emit(2, f"acc = reduce_mean({term}, axis=0)")
        result = "acc"
    else:
        if op in REDUCE_OP:
            expr = f"{REDUCE_OP[op]}({v}, axis=0)"
        else:
            expr = REDUCE_EXPR.get(op, 'reduce_sum(apply("%s", {v}), axis=0)' % op).format(v=v)
        d.emit(2, 'acc = alloc([1], f32, hint="accumulator", init=0)')
        d.emit(2, f"acc = {expr}")
        result = "acc"
    out_tile = [cols] if keeps_shape else ["1"]
    index = row if keeps_shape else ("m:m + 1" if rows != "1" else "0:1")
    out_dims = [rows, cols] if keeps_shape else [rows]
    if rows == "1":
        out_dims = [cols] if keeps_shape else ["1"]
    d.emit(2, f'out = alloc([{", ".join(out_tile)}], {d.dtype}, hint="output_buffer")')
    d.emit(2, f"out = {result}")
    v = emit_chain(d, st.epilogue, "out", 2, out_tile, index, out_dims)
    d.emit(2, f"store({v} -> {dst}[{index}])")
    return out_dims


def _gemm(d: Design, st: Stage, src: str | None, dims: list[str], dst: str) -> list[str]:
    conv = st.family == "conv"
    if src is not None and len(dims) == 2:
        m, k = dims
    else:
        m, k = d.symbol("P" if conv else "M"), d.symbol("R" if conv else "K")
        src = d.take([m, k]) if src is None else src
    n = d.symbol("CO" if conv else "N")
    w = (d.take([k, n]) if st.op == "matmul" else None) or d.tensor(d.fresh("w"), [k, n], "in")
    bias = d.tensor(d.fresh("bias"), [n], "in") if st.op == "linear" or conv else None
    bm, bn, bk = d.param("BM", "64"), d.param("BN", "64"), d.param("BK", "32")
    d.hint(1, "parallel", "grid")
    d.emit(1, f"for i in range(0, {m}, {bm}):")
    d.hint(2, "parallel", "grid")
    d.emit(2, f"for j in range(0, {n}, {bn}):")
    d.emit(3, f'acc = alloc([{bm}, {bn}], f32, hint="accumulator", tier="register", init=0)')
    d.hint(3, "pipeline", "core")
    d.emit(3, f"for k in range(0, {k}, {bk}):")
    d.emit(4, f'ta = alloc([{bm}, {bk}], {d.dtype}, hint="input_cache", tier="shared")')
    d.emit(4, f'tb = alloc([{bk}, {bn}], {d.dtype}, hint="weight_cache", tier="shared")')
    d.emit(4, f"load({src}[i:i + {bm}, k:k + {bk}] -> ta)")
    d.emit(4, f"load({w}[k:k + {bk}, j:j + {bn}] -> tb)")
    d.emit(4, "acc = add(acc, matmul(ta, tb))")
    v = "acc"
    if bias:
        d.emit(3, f'tbias = alloc([{bn}], {d.dtype}, hint="weight_cache")')
        d.emit(3, f"load({bias}[j:j + {bn}] -> tbias)")
        d.emit(3, "biased = add(acc, tbias)")
        v = "biased"
    index = f"i:i + {bm}, j:j + {bn}"
    v = emit_chain(d, st.prologue + st.epilogue, v, 3, [bm, bn], index, [m, n])
    d.emit(3, f"store({v} -> {dst}[{index}])")
    return [m, n]


def _bmm(d: Design, st: Stage, src: str | None, dims: list[str], dst: str) -> list[str]:
    if src is not None and len(dims) == 3:
        b, m, k = dims
    else:
        b, m, k = d.symbol("B"), d.symbol("M"), d.symbol("K")
        src = d.take([b, m, k]) if src is None else src
    n = d.symbol("N")
    other = d.take([b, k, n]) or d.tensor(d.fresh("w"), [b, k, n], "in")
    bm, bn, bk = d.param("BM", "64"), d.param("BN", "64"), d.param("BK", "32")
    d.hint(1, "parallel", "grid")
    d.emit(1, f"for bt in range({b}):")
    d.hint(2, "parallel", "grid")
    d.emit(2, f"for i in range(0, {m}, {bm}):")
    d.hint(3, "parallel", "grid")
    d.emit(3, f"for j in range(0, {n}, {bn}):")
    d.emit(4, f'acc = alloc([{bm}, {bn}], f32, hint="accumulator", tier="register", init=0)')
    d.hint(4, "pipeline", "core")
    d.emit(4, f"for k in range(0, {k}, {bk}):")
    d.emit(5, f'ta = alloc([{bm}, {bk}], {d.dtype}, hint="input_cache", tier="shared")')
    d.emit(5, f'tb = alloc([{bk}, {bn}], {d.dtype}, hint="input_cache", tier="shared")')
    d.emit(5, f"load({src}[bt, i:i + {bm}, k:k + {bk}] -> ta)")
    d.emit(5, f"load({other}[bt, k:k + {bk}, j:j + {bn}] -> tb)")
    d.emit(5, "acc = add(acc, matmul(ta, tb))")
    index = f"bt, i:i + {bm}, j:j + {bn}"
    v = emit_chain(d, st.prologue + st.epilogue, "acc", 4, [bm, bn], index, [b, m, n])
    d.emit(4, f"store({v} -> {dst}[{index}])")
    return [b, m, n]


def _pooling(d: Design, st: Stage, src: str | None, dims: list[str], dst: str) -> list[str]:
    p, win = d.symbol("P"), d.symbol("WIN")
    # the input is read through its window view: one row of WIN elements per output position
    view = d.take([p, win]) if src is None else d.tensor(d.fresh("win"), [p, win], "temp")
    if src is not None:  # gather the previous result into its window view first
        _copy_rows(d, src, dims, view, p, win)
    block = d.param("BLOCK", "256")
    red = "reduce_mean" if "avg" in (st.op or "") else "reduce_max"
    d.hint(1, "parallel", "grid")
    d.emit(1, f"for q in range(0, {p}, {block}):")
    d.emit(2, f'w = alloc([{block}, {win}], {d.dtype}, hint="input_cache")')
    d.emit(2, f"load({view}[q:q + {block}, 0:{win}] -> w)")
    v = emit_chain(d, st.prologue, "w", 2, [block, win], f"q:q + {block}, 0:{win}", [p, win])
    d.emit(2, f'out = alloc([{block}], {d.dtype}, hint="output_buffer")')
    d.emit(2, f"out = {red}({v}, axis=1)")
    v = emit_chain(d, st.epilogue, "out", 2, [block], f"q:q + {block}", [p])
    d.emit(2, f"store({v} -> {dst}[q:q + {block}])")
    return [p]


def _copy_rows(d: Design, src: str, dims: list[str], view: str, p: str, win: str) -> None:
    """Gather a previous stage's result into a [P, WIN] window view (index arithmetic is the coder's)."""
    block = d.param("BLOCK", "256")
    d.hint(1, "parallel", "grid")
    d.emit(1, f"for q in range(0, {p}, {block}):")
    d.emit(2, f'g = alloc([{block}, {win}], {d.dtype}, hint="scratch")')
    d.emit(2, f"g = apply(\"window_gather\", {src})")
    d.emit(2, f"store(g -> {view}[q:q + {block}, 0:{win}])")


def _attention(d: Design, st: Stage, src: str | None, dims: list[str], dst: str) -> list[str]:
    bh, lq, s, dh = d.symbol("BH"), d.symbol("L"), d.symbol("S"), d.symbol("D")
    q = d.take([bh, lq, dh]) if src is None else src
    k = d.take([bh, s, dh]) or d.tensor(d.fresh("k"), [bh, s, dh], "in")
    v = d.take([bh, s, dh]) or d.tensor(d.fresh("v"), [bh, s, dh], "in")
    bm, bn, scale = d.param("BM", "64"), d.param("BN", "64"), d.param("scale", "0.125")
    d.hint(1, "parallel", "grid")
    d.emit(1, f"for h in range({bh}):")
    d.hint(2, "parallel", "grid")
    d.emit(2, f"for i in range(0, {lq}, {bm}):")
    d.emit(3, f'tq = alloc([{bm}, {dh}], {d.dtype}, hint="input_cache", tier="shared")')
    d.emit(3, f"load({q}[h, i:i + {bm}, 0:{dh}] -> tq)")
    d.emit(3, f'mi = alloc([{bm}, 1], f32, hint="accumulator", init=-1e+30)')
    d.emit(3, f'li = alloc([{bm}, 1], f32, hint="accumulator", init=0)')
    d.emit(3, f'acc = alloc([{bm}, {dh}], f32, hint="accumulator", tier="register", init=0)')
    d.hint(3, "pipeline", "core")
    d.emit(3, f"for j in range(0, {s}, {bn}):")
    d.emit(4, f'tk = alloc([{bn}, {dh}], {d.dtype}, hint="input_cache", tier="shared")')
    d.emit(4, f'tv = alloc([{bn}, {dh}], {d.dtype}, hint="input_cache", tier="shared")')
    d.emit(4, f"load({k}[h, j:j + {bn}, 0:{dh}] -> tk)")
    d.emit(4, f"load({v}[h, j:j + {bn}, 0:{dh}] -> tv)")
    d.emit(4, f"sc = mul(matmul(tq, transpose(tk)), {scale})")
    d.emit(4, "mnew = max(mi, reduce_max(sc, axis=1, keepdim=1))")
    d.emit(4, "p = exp(sub(sc, mnew))")
    d.emit(4, "alpha = exp(sub(mi, mnew))")
    d.emit(4, "li = add(mul(li, alpha), reduce_sum(p, axis=1, keepdim=1))")
    d.emit(4, "acc = add(mul(acc, alpha), matmul(p, tv))")
    d.emit(4, "mi = mnew")
    d.emit(3, f'out = alloc([{bm}, {dh}], {d.dtype}, hint="output_buffer")')
    d.emit(3, "out = div(acc, li)")
    index = f"h, i:i + {bm}, 0:{dh}"
    out = emit_chain(d, st.epilogue, "out", 3, [bm, dh], index, [bh, lq, dh])
    d.emit(3, f"store({out} -> {dst}[{index}])")
    return [bh, lq, dh]


def _indexing(d: Design, st: Stage, src: str | None, dims: list[str], dst: str) -> list[str]:
    t, vocab_size, dim = d.symbol("T"), d.symbol("V"), d.symbol("D")
    if src is None and d.inputs:
        name, _ = d.inputs.pop(0)
        idx = d.tensor(name, [t], "in", "i64")
    else:
        idx = d.tensor(d.fresh("idx"), [t], "in", "i64")
    table = d.tensor(d.fresh("table"), [vocab_size, dim], "in")
    d.hint(1, "parallel", "grid")
    d.emit(1, f"for r in range({t}):")
    d.emit(2, 'ix = alloc([1], i64, hint="input_cache", tier="register")')
    d.emit(2, f"load({idx}[r:r + 1] -> ix)")
    d.emit(2, f'row = alloc([{dim}], {d.dtype}, hint="input_cache")')
    d.emit(2, f"load({table}[ix, 0:{dim}] -> row)")
    v = emit_chain(d, st.epilogue, "row", 2, [dim], f"r, 0:{dim}", [t, dim])
    d.emit(2, f"store({v} -> {dst}[r, 0:{dim}])")
    return [t, dim]


def _recurrent(d: Design, st: Stage, src: str | None, dims: list[str], dst: str) -> list[str]:
    steps, batch, inp, hid = d.symbol("T"), d.symbol("B"), d.symbol("I"), d.symbol("H")
    x = d.take([steps, batch, inp]) if src is None else src
    w_ih = d.tensor("w_ih", [inp, hid], "in")
    w_hh = d.tensor("w_hh", [hid, hid], "in")
    d.emit(1, f'h = alloc([{batch}, {hid}], f32, hint="accumulator", tier="shared", init=0)')
    d.emit(1, f'wi = alloc([{inp}, {hid}], {d.dtype}, hint="weight_cache", tier="shared")')
    d.emit(1, f'wh = alloc([{hid}, {hid}], {d.dtype}, hint="weight_cache", tier="shared")')
    d.emit(1, f"load({w_ih}[0:{inp}, 0:{hid}] -> wi)")
    d.emit(1, f"load({w_hh}[0:{hid}, 0:{hid}] -> wh)")
    d.emit(1, f"for t in range({steps}):")  # sequential: step t needs step t-1
    d.emit(2, f'xt = alloc([{batch}, {inp}], {d.dtype}, hint="input_cache")')
    d.emit(2, f"load({x}[t, 0:{batch}, 0:{inp}] -> xt)")
    d.emit(2, f'h = apply("{st.op}_cell", add(matmul(xt, wi), matmul(h, wh)))')
    v = emit_chain(d, st.epilogue, "h", 2, [batch, hid], f"t, 0:{batch}, 0:{hid}", [steps, batch, hid])
    d.emit(2, f"store({v} -> {dst}[t, 0:{batch}, 0:{hid}])")
    return [steps, batch, hid]


# Rank of the tensor each family reads from the previous stage (None: any rank).
READS_RANK: dict[str, int | None] = {
    "elementwise": 1, "softmax": 2, "normalization": 2, "reduction": 2, "scan": 2, "loss": 2,
    "matmul": 2, "conv": 2, "bmm": 3, "attention": 3, "recurrent": 3, "pooling": None, "indexing": None,
}

TEMPLATES = {
    "elementwise": _elementwise, "softmax": _rowwise, "normalization": _rowwise,
    "reduction": _rowwise, "scan": _rowwise, "loss": _rowwise, "matmul": _gemm, "conv": _gemm,
    "bmm": _bmm, "pooling": _pooling, "attention": _attention, "indexing": _indexing,
    "recurrent": _recurrent,
}
