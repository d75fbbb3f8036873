"""Reduction emitter, both forms (one persistent tile; blocked loop with tails): softmax family,
norms, plain reductions over any dims, losses, and seeded random reduction chains, each run by the
interpreter and compared with torch."""

from __future__ import annotations

import random

import pytest
import torch
import torch.nn.functional as F

import akg_rag.lower.emit.coop as coop
import akg_rag.lower.emit.reduction as reduction
import akg_rag.lower.emit.stream as stream_form
from akg_rag.lower.emit import emit_sketch
from akg_rag.lower.interp import run_sketch
from akg_rag.lower.region import Expr, Output, Reduction, ReductionRegion, Value

E, I, C, K = Expr, Expr.input, Expr.call, Expr.const
NUMEL = E("numel")
# small blocks, so that kept and reduced tails are exercised
PARAMS = {"KBLOCK": 2, "RBLOCK": 4}


def R(name: str) -> Expr:
    return E("reduced", ref=name)


@pytest.fixture(params=["persistent", "loop", "split", "coop", "stream"])
def form(request, monkeypatch):
    if request.param in ("loop", "split", "coop", "stream"):
        monkeypatch.setattr(reduction, "PERSISTENT_MAX", 0)
    if request.param in ("split", "stream"):  # every one-level reduction of a few rows takes the split form
        monkeypatch.setattr(reduction, "SPLIT_MIN_REDUCED", 4)
        monkeypatch.setattr(reduction, "SPLIT_CHUNK_MIN", 2)
    if request.param == "coop":  # a target with barriers: rows over the last dim in 2-element chunks
        real = reduction.emit_reduction
        monkeypatch.setattr(reduction, "emit_reduction", lambda region, name, barriers=False, stream=False:
                            real(region, name, True))
        monkeypatch.setattr(coop, "COOP_CHUNK", 2)
        monkeypatch.setattr(coop, "COOP_MAX", 4)
    if request.param == "stream":  # ... or, asked for, the streaming cooperative form in its place
        real = reduction.emit_reduction
        monkeypatch.setattr(reduction, "emit_reduction", lambda region, name, barriers=False, stream=False:
                            real(region, name, True, True))
        monkeypatch.setattr(coop, "COOP_HELD_MAX", 0)
        monkeypatch.setattr(stream_form, "STREAM_MIN", 4)
        monkeypatch.setattr(stream_form, "STREAM_COOP", 3)
    return request.param


def V(name, t_or_shape, dtype="float32"):
    shape = tuple(t_or_shape.shape) if isinstance(t_or_shape, torch.Tensor) else tuple(t_or_shape)
    return Value(name, shape, dtype)


def close(a, b, **kw):
    torch.testing.assert_close(a, b.reshape(a.shape), rtol=1e-5, atol=1e-5, **kw)


def test_forms_differ(form):
    reg = ReductionRegion([V("x", (4, 6))], (4, 6), (1,), [Reduction("s", "sum", I("x"))],
                          [Output(V("y", (4,)), R("s"), "reduced")])
    text = emit_sketch(reg, "k0")
    assert ("RBLOCK" in text) == (form != "persistent")
    assert ("SPLIT" in text) == (form in ("split", "stream"))   # one read of the row already: not streamed


@pytest.mark.parametrize("dim", [0, 1, 2])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_and_log_softmax_over_any_dim(run, form, dim, log):
    x = torch.randn(3, 5, 6) * 3
    ex = C("exp", C("sub", I("x"), R("mx")))
    out = (C("sub", C("sub", I("x"), R("mx")), C("log", R("s"))) if log else C("div", ex, R("s")))
    reg = ReductionRegion([V("x", x)], x.shape, (dim,), [Reduction("mx", "max", I("x")), Reduction("s", "sum", ex)],
                          [Output(V("y", x), out)])
    if form == "stream" and dim:   # (over dim 0 the loop form: 3 elements a row are too few to split)
        assert "barrier(" in emit_sketch(reg, "k0")
    got = run(reg, {"x": x}, PARAMS)["y"]
    close(got, F.log_softmax(x, dim) if log else F.softmax(x, dim))


def test_layer_norm_over_two_trailing_dims(run, form):
    x, w, b = torch.randn(3, 4, 5), torch.randn(4, 5), torch.randn(4, 5)
    mean = C("div", R("s"), NUMEL)
    cen = C("sub", I("x"), mean)
    y = C("add", C("mul", C("mul", cen, C("rsqrt", C("add", C("div", R("v"), NUMEL), K(1e-5)))), I("w")), I("b"))
    reg = ReductionRegion([V("x", x), V("w", w), V("b", b)], x.shape, (1, 2),
                          [Reduction("s", "sum", I("x")), Reduction("v", "sum", C("mul", cen, cen))],
                          [Output(V("y", x), y), Output(V("mu", (3, 1, 1)), mean, "reduced")])
    got = run(reg, {"x": x, "w": w, "b": b}, PARAMS)
    close(got["y"], F.layer_norm(x, (4, 5), w, b, 1e-5))
    close(got["mu"], x.mean((1, 2), keepdim=True))


def test_batch_norm_training_uses_batch_statistics(run, form):
    x = torch.randn(3, 4, 2, 5)
    w, b = torch.randn(4, 1, 1), torch.randn(4, 1, 1)
    mean = C("div", R("s"), NUMEL)
    cen = C("sub", I("x"), mean)
    var = C("div", R("v"), NUMEL)
    y = C("add", C("mul", C("mul", cen, C("rsqrt", C("add", var, K(1e-5)))), I("w")), I("b"))
    reg = ReductionRegion([V("x", x), V("w", w), V("b", b)], x.shape, (0, 2, 3),
                          [Reduction("s", "sum", I("x")), Reduction("v", "sum", C("mul", cen, cen))],
                          [Output(V("y", x), y), Output(V("var", (4,)), var, "reduced")])
    got = run(reg, {"x": x, "w": w, "b": b}, PARAMS)
    ref = F.batch_norm(x, None, None, w.flatten(), b.flatten(), training=True, eps=1e-5)
    close(got["y"], ref)
    close(got["var"], x.var((0, 2, 3), unbiased=False))


def test_group_norm_on_the_grouped_view(run, form):
    n, g, cg, h, w_ = 2, 3, 2, 2, 3
    x = torch.randn(n, g * cg, h, w_)
    weight, bias = torch.randn(g * cg), torch.randn(g * cg)
    xv = x.view(n, g, cg, h, w_)  # the host-side view a partition hands over
    wv, bv = weight.view(g, cg, 1, 1), bias.view(g, cg, 1, 1)
    mean = C("div", R("s"), NUMEL)
    cen = C("sub", I("x"), mean)
    y = C("add", C("mul", C("mul", cen, C("rsqrt", C("add", C("div", R("v"), NUMEL), K(1e-5)))), I("w")), I("b"))
    reg = ReductionRegion([V("x", xv), V("w", wv), V("b", bv)], xv.shape, (2, 3, 4),
                          [Reduction("s", "sum", I("x")), Reduction("v", "sum", C("mul", cen, cen))],
                          [Output(V("y", xv), y)])
    got = run(reg, {"x": xv, "w": wv, "b": bv}, PARAMS)
    close(got["y"].view_as(x), F.group_norm(x, g, weight, bias, 1e-5))


def test_rms_norm(run, form):
    x, w = torch.randn(5, 7), torch.randn(7)
    y = C("mul", C("mul", I("x"), C("rsqrt", C("add", C("div", R("ss"), NUMEL), K(1e-6)))), I("w"))
    reg = ReductionRegion([V("x", x), V("w", w)], x.shape, (1,), [Reduction("ss", "sum", C("mul", I("x"), I("x")))],
                          [Output(V("y", x), y)])
    got = run(reg, {"x": x, "w": w}, PARAMS)["y"]
    close(got, x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w)


@pytest.mark.parametrize("p", [1, 2])
def test_lp_normalize(run, form, p):
    x = torch.randn(4, 6)
    norm = C("abs", I("x")) if p == 1 else C("mul", I("x"), I("x"))
    n = R("n") if p == 1 else C("sqrt", R("n"))
    reg = ReductionRegion([V("x", x)], x.shape, (1,), [Reduction("n", "sum", norm)],
                          [Output(V("y", x), C("div", I("x"), C("max", n, K(1e-12))))])
    close(run(reg, {"x": x}, PARAMS)["y"], F.normalize(x, p=p, dim=1))


TORCH_RED = {"sum": torch.sum, "max": torch.amax, "min": torch.amin, "prod": lambda t, d, keepdim: torch.prod(t.flatten(d[0], d[-1]), d[0], keepdim=keepdim)}


@pytest.mark.parametrize("kind", ["sum", "max", "min", "prod", "mean", "argmax", "argmin"])
@pytest.mark.parametrize("dims", [(0,), (1,), (2,), (0, 2), (1, 2), (0, 1, 2)])
def test_plain_reductions_over_any_dims(run, form, kind, dims):
    x = torch.randn(3, 4, 5)
    keepdim = len(dims) == 1 and dims[0] == 1
    kept = [d for d in range(3) if d not in dims]
    out_shape = tuple(1 if d in dims else s for d, s in enumerate(x.shape)) if keepdim else tuple(x.shape[d] for d in kept)
    red = {"mean": "sum"}.get(kind, kind)
    expr = C("div", R("r"), NUMEL) if kind == "mean" else R("r")
    dtype = "int64" if kind.startswith("arg") else "float32"
    reg = ReductionRegion([V("x", x)], x.shape, dims, [Reduction("r", red, I("x"))],
                          [Output(V("y", out_shape, dtype), expr, "reduced")])
    got = run(reg, {"x": x}, PARAMS)["y"]
    moved = x.permute(*kept, *dims).reshape(*[x.shape[d] for d in kept], -1)
    ref = {"sum": moved.sum(-1), "mean": moved.mean(-1), "max": moved.amax(-1), "min": moved.amin(-1),
           "prod": moved.prod(-1), "argmax": moved.argmax(-1), "argmin": moved.argmin(-1)}[kind]
    if kind.startswith("arg"):
        assert torch.equal(got.reshape(ref.shape), ref)
    else:
        close(got, ref)


@pytest.mark.parametrize("kind", ["max", "min", "argmax", "argmin", "sum"])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_reductions_stay_exact(run, form, kind, dtype):
    """Integer max/min/argmax/argmin/sum of values no float holds exactly (int32 past 2**24, int64
    at its bounds) give the exact value: padded lanes hold the type's bounds, not a float infinity."""
    g = torch.Generator().manual_seed(4)
    hi = 2**31 - 1 if dtype == "int32" else 2**63 - 1
    x = torch.randint(-2**30, 2**30, (3, 11), generator=g, dtype=getattr(torch, dtype)) * 2 + 1
    if dtype == "int64":
        x[0, 3], x[1, 5], x[2, :] = hi, -hi - 1, -hi - 1       # the bounds, and a row of the minimum
    out_dtype = "int64" if kind.startswith("arg") or kind == "sum" else dtype
    reg = ReductionRegion([V("x", x, dtype)], x.shape, (1,), [Reduction("r", kind, I("x"))],
                          [Output(V("y", (3,), out_dtype), R("r"), "reduced")])
    got = run(reg, {"x": x}, PARAMS)["y"]
    ref = {"max": x.amax(1), "min": x.amin(1), "argmax": x.argmax(1), "argmin": x.argmin(1), "sum": x.sum(1)}[kind]
    assert got.dtype == ref.dtype and torch.equal(got, ref), (got, ref)


def test_argmax_takes_the_first_of_ties(run, form):
    x = torch.tensor([[1.0, 3.0, 3.0, 0.0, 3.0, 2.0, 3.0], [5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0]])
    reg = ReductionRegion([V("x", x)], x.shape, (1,), [Reduction("a", "argmax", I("x"))],
                          [Output(V("y", (2,), "int64"), R("a"), "reduced")])
    assert run(reg, {"x": x}, PARAMS)["y"].tolist() == [1, 0]


@pytest.mark.parametrize("kind", ["argmax", "argmin"])
def test_argmax_and_argmin_take_the_first_nan(run, form, kind):
    """torch.argmax / argmin return the index of a row's first NaN; a NaN never compares greater."""
    x = torch.randn(4, 11)
    x[0, 6] = x[0, 9] = float("nan")        # a NaN behind the row's extreme, then another
    x[1, 0] = float("nan")
    x[2, 10] = float("nan")                 # in the last, partial block
    x[3, 2] = float("inf") if kind == "argmax" else -float("inf")
    x[3, 8] = float("nan")                  # NaN beats an infinity
    reg = ReductionRegion([V("x", x)], x.shape, (1,), [Reduction("a", kind, I("x"))],
                          [Output(V("y", (4,), "int64"), R("a"), "reduced")])
    got = run(reg, {"x": x}, PARAMS)["y"]
    assert got.tolist() == getattr(x, kind)(1).tolist() == [6, 0, 10, 8]


def _mean_all(x_shape, term, inputs, tensors, run):
    """mean over every element of ``term``: a 0-d output."""
    reg = ReductionRegion(inputs, x_shape, tuple(range(len(x_shape))), [Reduction("s", "sum", term)],
                          [Output(V("loss", ()), C("div", R("s"), NUMEL), "reduced")])
    return run(reg, tensors, PARAMS)["loss"]


def test_mse_huber_hinge_losses(run, form):
    p, t = torch.randn(4, 6), torch.randn(4, 6)
    ins, ts = [V("p", p), V("t", t)], {"p": p, "t": t}
    d = C("sub", I("p"), I("t"))
    close(_mean_all(p.shape, C("mul", d, d), ins, ts, run), F.mse_loss(p, t))
    ad = C("abs", d)
    huber = C("where", C("lt", ad, K(1.0)), C("mul", K(0.5), C("mul", d, d)), C("sub", ad, K(0.5)))
    close(_mean_all(p.shape, huber, ins, ts, run), F.smooth_l1_loss(p, t))
    sign = torch.randint(0, 2, (4, 6)).float() * 2 - 1
    hinge = C("max", C("sub", K(1.0), C("mul", I("p"), I("t"))), K(0.0))
    close(_mean_all(p.shape, hinge, ins, {"p": p, "t": sign}, run), torch.clamp(1 - p * sign, min=0).mean())


def test_kl_div_batchmean(run, form):
    logp = F.log_softmax(torch.randn(3, 5), 1)
    t = F.softmax(torch.randn(3, 5), 1)
    term = C("mul", I("t"), C("sub", C("log", I("t")), I("logp")))
    reg = ReductionRegion([V("logp", logp), V("t", t)], (3, 5), (0, 1), [Reduction("s", "sum", term)],
                          [Output(V("loss", ()), C("div", R("s"), K(3)), "reduced")])
    close(run(reg, {"logp": logp, "t": t}, PARAMS)["loss"], F.kl_div(logp, t, reduction="batchmean"))


def test_cross_entropy_with_label_smoothing_per_row(run, form):
    n, c, eps = 4, 7, 0.1
    x, tgt = torch.randn(n, c), torch.randint(0, c, (n,))
    cls = torch.arange(c)
    lse = C("add", R("mx"), C("log", R("s")))
    picked = C("sub", R("pk"), lse)
    mean_logp = C("div", C("sub", R("sx"), C("mul", NUMEL, lse)), NUMEL)
    loss = C("neg", C("add", C("mul", K(1 - eps), picked), C("mul", K(eps), mean_logp)))
    reg = ReductionRegion(
        [V("x", x), V("tgt", (n, 1), "int64"), V("cls", cls, "int64")], (n, c), (1,),
        [Reduction("mx", "max", I("x")), Reduction("s", "sum", C("exp", C("sub", I("x"), R("mx")))),
         Reduction("pk", "sum", C("where", C("eq", I("cls"), I("tgt")), I("x"), K(0.0))),
         Reduction("sx", "sum", I("x"))],
        [Output(V("loss", (n,)), loss, "reduced")])
    got = run(reg, {"x": x, "tgt": tgt.view(n, 1), "cls": cls}, PARAMS)["loss"]
    close(got, F.cross_entropy(x, tgt, reduction="none", label_smoothing=eps))


def test_cosine_and_triplet_losses_per_row(run, form):
    a, p, q = torch.randn(3, 8), torch.randn(3, 8), torch.randn(3, 8)
    ins, ts = [V("a", a), V("p", p), V("q", q)], {"a": a, "p": p, "q": q}
    cos = C("div", R("dot"), C("sqrt", C("max", C("mul", R("na"), R("np")), K(1e-16))))
    reg = ReductionRegion(ins, a.shape, (1,),
                          [Reduction("dot", "sum", C("mul", I("a"), I("p"))), Reduction("na", "sum", C("mul", I("a"), I("a"))),
                           Reduction("np", "sum", C("mul", I("p"), I("p")))],
                          [Output(V("loss", (3,)), C("sub", K(1.0), cos), "reduced")])
    close(run(reg, ts, PARAMS)["loss"], 1 - F.cosine_similarity(a, p, dim=1, eps=1e-8))
    dap = C("add", C("sub", I("a"), I("p")), K(1e-6))
    daq = C("add", C("sub", I("a"), I("q")), K(1e-6))
    reg = ReductionRegion(ins, a.shape, (1,),
                          [Reduction("sp", "sum", C("mul", dap, dap)), Reduction("sq", "sum", C("mul", daq, daq))],
                          [Output(V("loss", (3,)), C("max", C("add", C("sub", C("sqrt", R("sp")), C("sqrt", R("sq"))), K(1.0)), K(0.0)), "reduced")])
    close(run(reg, ts, PARAMS)["loss"], F.triplet_margin_loss(a, p, q, margin=1.0, reduction="none"))


@pytest.mark.parametrize("seed", range(6))
def test_random_reduction_chains(run, evaluate, form, seed):
    rng = random.Random(seed)
    g = torch.Generator().manual_seed(seed)
    rank = rng.randint(1, 4)
    shape = tuple(rng.randint(1, 5) for _ in range(rank))
    dims = tuple(sorted(rng.sample(range(rank), rng.randint(1, rank))))
    x = torch.randn(shape, generator=g)
    b_shape = tuple(1 if rng.random() < 0.5 else s for s in shape)
    b = torch.randn(b_shape, generator=g)
    unary = rng.choice(["exp", "tanh", "abs", "sigmoid"])
    kind = rng.choice(["sum", "max", "min", "prod"])
    term = C(unary, C(rng.choice(["add", "mul", "sub"]), I("x"), I("b")))
    keep = rng.random() < 0.5
    red_shape = tuple(1 if d in dims else s for d, s in enumerate(shape)) if keep else \
        tuple(s for d, s in enumerate(shape) if d not in dims)
    reg = ReductionRegion([V("x", x), V("b", b)], shape, dims, [Reduction("r", kind, term)],
                          [Output(V("y", shape), C("sub", I("x"), R("r"))), Output(V("z", red_shape), R("r"), "reduced")])
    got = run(reg, {"x": x, "b": b}, PARAMS)
    t = evaluate(term, {"x": x, "b": b}).expand(shape)
    ref = {"sum": torch.sum, "max": torch.amax, "min": torch.amin}.get(kind)
    r = ref(t, dims, keepdim=True) if ref else torch.prod(t.permute(*[d for d in range(rank) if d not in dims], *dims)
                                                          .reshape(*[s for d, s in enumerate(shape) if d not in dims], -1), -1) \
        .reshape(tuple(1 if d in dims else s for d, s in enumerate(shape)))
    close(got["z"], r)
    close(got["y"], x - r)


def test_epilogue_operand_over_a_reduced_dim_of_size_one(run, form):
    """mean over (D, H, W) with D = 1, then + bias[C, 1, 1, 1]: the bias's dim 1 lands on the
    reduced D, where the domain has size 1 too; the epilogue must still read it as a broadcast
    (it once failed with 'reduced output varies along the reduced dims')."""
    x, bias = torch.randn(2, 3, 1, 5, 7), torch.randn(3, 1, 1, 1)
    reg = ReductionRegion([V("x", x), V("bias", bias)], x.shape, (2, 3, 4), [Reduction("s", "sum", I("x"))],
                          [Output(V("y", (2, 3, 1, 1, 1)), C("add", C("div", R("s"), NUMEL), I("bias")), "reduced")])
    text = emit_sketch(reg, "k0")
    assert "bias[D1, 1, 1, 1]" in text and "x[D0, D1, D2, D3, D4]" in text  # x keeps its symbol
    got = run(reg, {"x": x, "bias": bias}, PARAMS)["y"]
    close(got, x.mean(dim=(2, 3, 4), keepdim=True) + bias)


@pytest.mark.parametrize("kind", ["sum", "argmin"])
def test_a_middle_dim_reduction_reads_rows_of_contiguous_kept_elements(run, kind):
    """Reducing dim 1 of [2, 1024, 40]: a persistent tile (R = 1024) would hold 4 kept elements,
    each read down a strided column; the loop form takes [KBLOCK >= 16, RBLOCK] blocks instead.
    A reduction over the last dim, or one with few kept elements, stays persistent."""
    x = torch.randn(2, 1024, 40)
    dtype = "int64" if kind == "argmin" else "float32"
    reg = ReductionRegion([V("x", x)], x.shape, (1,), [Reduction("r", kind, I("x"))],
                          [Output(V("y", (2, 40), dtype), R("r"), "reduced")])
    text = emit_sketch(reg, "k0")
    assert "RBLOCK" in text and "KBLOCK = 32," in text, text
    got = run(reg, {"x": x}, {})["y"]
    ref = x.argmin(1) if kind == "argmin" else x.sum(1)
    if kind == "argmin":
        assert torch.equal(got, ref)
    else:
        close(got, ref)
    last = ReductionRegion([V("x", (80, 1024))], (80, 1024), (1,), [Reduction("r", "sum", I("x"))],
                           [Output(V("y", (80,)), R("r"), "reduced")])
    few = ReductionRegion([V("x", (1024, 3))], (1024, 3), (0,), [Reduction("r", "sum", I("x"))],
                          [Output(V("y", (3,)), R("r"), "reduced")])
    assert "RBLOCK" not in emit_sketch(last, "k0") and "RBLOCK" not in emit_sketch(few, "k0")


@pytest.mark.parametrize("shape,dims", [((3, 20, 37), (1,)), ((20, 37), (0,)), ((2, 5, 6, 33), (0, 2)),
                                        ((4, 7, 19), (0, 1))])
def test_programs_own_a_run_of_the_kept_last_dim(run, form, shape, dims):
    """With the last dim kept and >= 16 long, a program's kept lanes are a run of that dim (the
    other kept dims come from the program id): softmax (a full-domain output) and a sum, with
    tails in both the run and the reduced blocks."""
    x = torch.randn(*shape)
    kept = [d for d in range(len(shape)) if d not in dims]
    reg = ReductionRegion([V("x", x)], x.shape, dims,
                          [Reduction("m", "max", I("x")), Reduction("s", "sum", C("exp", C("sub", I("x"), R("m"))))],
                          [Output(V("y", x), C("div", C("exp", C("sub", I("x"), R("m"))), R("s")), "full"),
                           Output(V("t", tuple(shape[d] for d in kept)), R("s"), "reduced")])
    if form == "persistent":
        assert "kq" in emit_sketch(reg, "k0") or len(kept) == 1
    got = run(reg, {"x": x}, PARAMS)
    m = x.amax(dim=dims, keepdim=True)
    e = torch.exp(x - m)
    close(got["y"], e / e.sum(dim=dims, keepdim=True))
    close(got["t"], e.sum(dim=dims))


@pytest.mark.parametrize("log", [False, True])
def test_loop_softmax_keeps_a_running_max_and_rescaled_sum_in_one_pass(run, monkeypatch, log):
    """Long rows: the max and the sum of exp(x - max) share one pass (online softmax). Rows with
    -inf entries (masked attention) and a row that is -inf throughout behave as torch's."""
    monkeypatch.setattr(reduction, "PERSISTENT_MAX", 0)
    x = torch.randn(4, 3, 37) * 4
    x[0, :, :20] = float("-inf")          # lanes that see only -inf in the first blocks
    x[1, 1, 5::3] = float("-inf")
    x[2, 2, :] = float("-inf")            # a row of -inf: nan, as torch gives
    x[3, 0, 30] = 60.0                    # the max arrives late: earlier sums are rescaled
    ex = C("exp", C("sub", I("x"), R("mx")))
    out = (C("sub", C("sub", I("x"), R("mx")), C("log", R("s"))) if log else C("div", ex, R("s")))
    reg = ReductionRegion([V("x", x)], x.shape, (2,), [Reduction("mx", "max", I("x")), Reduction("s", "sum", ex)],
                          [Output(V("y", x), out)])
    text = emit_sketch(reg, "k0")
    assert text.count('"pipeline"') == 2 and "mnew" in text      # one pass for max and sum, one for y
    got = run(reg, {"x": x}, PARAMS)["y"]
    close(got, F.log_softmax(x, 2) if log else F.softmax(x, 2), equal_nan=True)


def test_a_sum_of_another_expression_keeps_its_own_pass(run, monkeypatch):
    monkeypatch.setattr(reduction, "PERSISTENT_MAX", 0)
    x = torch.randn(3, 40)
    ex = C("exp", C("sub", C("mul", I("x"), K(2.0)), R("mx")))    # exp(2x - max(x)): not max(2x)
    reg = ReductionRegion([V("x", x)], x.shape, (1,), [Reduction("mx", "max", I("x")), Reduction("s", "sum", ex)],
                          [Output(V("y", (3,)), R("s"), "reduced")])
    text = emit_sketch(reg, "k0")
    assert "mnew" not in text and text.count('"pipeline"') == 2
    close(run(reg, {"x": x}, PARAMS)["y"], torch.exp(2 * x - x.amax(1, keepdim=True)).sum(1))


@pytest.mark.parametrize("loop_form", ["loop", "split"])
def test_a_variance_shares_its_means_pass_and_survives_a_large_offset(run, monkeypatch, loop_form):
    """sum((x - sum(x) / n)**2) over long rows: one pass keeps a count, mean and sum of squared
    deviations per lane (Welford) and merges lanes and chunks (Chan et al.), so the input is read
    once for both statistics. With a mean of 1e4 and a spread of 1 a sum of squares would lose
    every digit in f32; the merged deviations keep the variance to f32 accuracy."""
    monkeypatch.setattr(reduction, "PERSISTENT_MAX", 0)
    if loop_form == "split":
        monkeypatch.setattr(reduction, "SPLIT_MIN_REDUCED", 4)
        monkeypatch.setattr(reduction, "SPLIT_CHUNK_MIN", 2)
    x = 1e4 + torch.randn(3, 37, dtype=torch.float64)
    mean = C("div", R("s"), NUMEL)
    cen = C("sub", I("x"), mean)
    reg = ReductionRegion([V("x", x.float())], x.shape, (1,),
                          [Reduction("s", "sum", I("x")), Reduction("v", "sum", C("mul", cen, cen))],
                          [Output(V("var", (3,)), C("div", R("v"), NUMEL), "reduced"),
                           Output(V("y", x.float()), C("mul", cen, K(2.0)))])
    text = emit_sketch(reg, "k0")
    assert "wn_s" in text and "part_v" not in text      # no partials of the variance's own
    # loop form: one pass for both statistics, one for y; split: one partial launch, one combine, y
    assert text.count('"pipeline"') == 2 and text.count('"parallel"') == (1 if loop_form == "loop" else 3)
    got = run(reg, {"x": x.float()}, {"KBLOCK": 2, "RBLOCK": 4, "SPLIT": 3})
    xf = x.float().double()  # the f32 input, exactly
    torch.testing.assert_close(got["var"].double(), xf.var(1, unbiased=False), rtol=2e-3, atol=0)
    torch.testing.assert_close(got["y"].double(), (xf - xf.mean(1, keepdim=True)) * 2, rtol=0, atol=5e-3)


@pytest.mark.parametrize("loop_form", ["loop", "split"])
def test_squared_deviations_about_any_multiple_of_the_sum(run, monkeypatch, loop_form):
    """sum((x - c * sum(x))**2) for a c that is not 1/n (the pattern holds, the mean does not):
    M2 + n * (mean - c * sum)**2 gives it exactly; a squared difference of another expression
    keeps its own pass."""
    monkeypatch.setattr(reduction, "PERSISTENT_MAX", 0)
    if loop_form == "split":
        monkeypatch.setattr(reduction, "SPLIT_MIN_REDUCED", 4)
        monkeypatch.setattr(reduction, "SPLIT_CHUNK_MIN", 2)
    x = torch.randn(2, 3, 29)
    cen = C("sub", I("x"), C("mul", R("s"), K(0.01)))
    reg = ReductionRegion([V("x", x)], x.shape, (2,),
                          [Reduction("s", "sum", I("x")), Reduction("q", "sum", C("pow", cen, K(2)))],
                          [Output(V("q", (2, 3)), R("q"), "reduced")])
    assert "wn_s" in emit_sketch(reg, "k0")
    got = run(reg, {"x": x}, PARAMS)["q"]
    close(got, ((x - 0.01 * x.sum(2, keepdim=True)) ** 2).sum(2))
    other = C("sub", C("mul", I("x"), K(2.0)), C("div", R("s"), NUMEL))     # 2x - mean: not sum's term
    reg2 = ReductionRegion([V("x", x)], x.shape, (2,),
                           [Reduction("s", "sum", I("x")), Reduction("q", "sum", C("mul", other, other))],
                           [Output(V("q", (2, 3)), R("q"), "reduced")])
    assert "wn_s" not in emit_sketch(reg2, "k0")
    close(run(reg2, {"x": x}, PARAMS)["q"], ((2 * x - x.mean(2, keepdim=True)) ** 2).sum(2))


def test_a_middle_dim_reduction_over_many_kept_elements_takes_wide_tiles_on_eight_warps():
    """[64, 512, 4095] reduced over dim 1: 512-byte rows of the contiguous kept dim per block
    ([128, 64], eight warps on Triton); with few kept elements the tile narrows (to 32) so the
    grid keeps >= PROGRAMS_MIN programs, and that smaller accumulator stays on four warps."""
    from akg_rag.lower.emit import reduction
    from akg_rag.lower.triton import emit_triton
    from akg_rag.sketch import check_sketch

    def lowered(shape):
        reg = ReductionRegion([V("x", shape)], shape, (1,), [Reduction("r", "max", I("x"))],
                              [Output(V("y", (shape[0], shape[2])), R("r"), "reduced")])
        text = emit_sketch(reg, "k0")
        return text, emit_triton(check_sketch(text), "k0").tunables

    text, tun = lowered((64, 512, 4095))
    assert "KBLOCK = 128," in text and "RBLOCK = 64" in text, text
    assert tun["K0_NUM_WARPS"] == 8
    text, tun = lowered((2, 512, 1000))   # 2000 kept elements: 16 programs at 128
    assert "KBLOCK = 32," in text and -(-2000 // 32) < reduction.PROGRAMS_MIN
    assert tun["K0_NUM_WARPS"] == 4


def test_long_rows_take_wide_blocks_on_sixteen_warps():
    """One row per program over >= LONG_ROW elements: LONG_RBLOCK lanes, which the Triton backend
    gives LONG_ROW_WARPS; a shorter row keeps the short block (ROW_LANES lanes: eight warps, a
    16-byte vector a thread); a row reduced whole in one tile keeps four."""
    from akg_rag.lower import triton as tri
    from akg_rag.lower.triton import emit_triton
    from akg_rag.sketch import check_sketch

    n = reduction.LONG_ROW
    reg = ReductionRegion([V("x", (64, n))], (64, n), (1,), [Reduction("s", "sum", C("abs", I("x")))],
                          [Output(V("y", (64, n)), C("div", I("x"), R("s")), "full")])
    text = emit_sketch(reg, "k0")
    assert f"RBLOCK = {reduction.LONG_RBLOCK}" in text, text
    assert emit_triton(check_sketch(text), "k0").tunables["K0_NUM_WARPS"] == tri.LONG_ROW_WARPS
    short = ReductionRegion([V("x", (64, n // 2))], (64, n // 2), (1,), [Reduction("s", "sum", I("x"))],
                            [Output(V("y", (64,)), R("s"), "reduced")])
    text = emit_sketch(short, "k0")
    assert f"RBLOCK = {tri.ROW_LANES}" in text, text
    assert emit_triton(check_sketch(text), "k0").tunables["K0_NUM_WARPS"] == tri.DOT_WARPS == 8
    whole = ReductionRegion([V("x", (64, 4096))], (64, 4096), (1,), [Reduction("s", "sum", I("x"))],
                            [Output(V("y", (64,)), R("s"), "reduced")])
    text = emit_sketch(whole, "k0")   # the row in one tile, reduced in registers: no accumulator
    assert "RBLOCK" not in text, text
    assert emit_triton(check_sketch(text), "k0").tunables["K0_NUM_WARPS"] == tri.DEFAULT_NUM_WARPS


@pytest.mark.parametrize("kn, rn, want", [(1, 1 << 15, 8), (4, 1 << 14, 4), (1, (1 << 14) - 1, 1),
                                          (reduction.SPLIT_FEW_ROWS + 1, 1 << 15, 1), (16, 1 << 17, 2)])
def test_a_handful_of_rows_over_a_moderate_extent_splits(kn, rn, want):
    """Up to SPLIT_FEW_ROWS kept elements split from SPLIT_MIN_FEW reduced elements on, chunks of
    at least SPLIT_CHUNK_FEW; more kept elements wait for SPLIT_MIN_REDUCED (chunks of 64K)."""
    reg = ReductionRegion([V("x", (kn, rn))], (kn, rn), (1,), [Reduction("s", "sum", I("x"))],
                          [Output(V("y", (kn,)), R("s"), "reduced")])
    got = reduction.split_count(kn, rn, reg)
    assert got == want
    if got > 1:
        assert rn // got >= reduction.SPLIT_CHUNK_FEW


def test_a_mean_over_many_rows_splits_and_matches_torch(run):
    """Cross-entropy's last step: the mean over rows of each row's picked log-probability, one
    output from >= SPLIT_MIN_FEW rows, takes the split form and still matches torch."""
    n, c = reduction.SPLIT_MIN_FEW + 37, 5
    logits = torch.randn(n, c)
    target = torch.randint(0, c, (n,))
    want = F.cross_entropy(logits, target)
    lp = torch.log_softmax(logits, 1)
    picked = lp.gather(1, target[:, None])[:, 0]
    reg = ReductionRegion([V("p", picked)], (n,), (0,), [Reduction("s", "sum", C("neg", I("p")))],
                          [Output(V("y", (1,)), C("div", R("s"), K(float(n))), "reduced")])
    text = emit_sketch(reg, "k0")
    assert "SPLIT" in text, text
    close(run(reg, {"p": picked}, {"RBLOCK": 256})["y"], want)


def _l1_and_softmax(shape):
    x = V("x", shape)
    l1 = ReductionRegion([x], shape, (len(shape) - 1,), [Reduction("s", "sum", C("abs", I("x")))],
                         [Output(V("y", shape), C("div", I("x"), R("s")))])
    ex = C("exp", C("sub", I("x"), R("mx")))
    soft = ReductionRegion([x], shape, (len(shape) - 1,), [Reduction("mx", "max", I("x")), Reduction("s", "sum", ex)],
                           [Output(V("y", shape), C("div", ex, R("s")))])
    return l1, soft


@pytest.mark.parametrize("shape, count", [((32768, 65535), 16), ((4096, 393216), 48), ((64, 20000), 5),
                                          ((16, 8, 12289), 4)])
def test_long_rows_on_a_target_with_barriers_take_the_cooperative_form(shape, count):
    """A row longer than the persistent form takes, over the last dim, with a full-domain output:
    COOP programs a row, chunks of 8192 elements where a row still gets 16 programs, else 4096,
    doubled while a row would need more than COOP_MAX programs; one barrier (the online softmax's
    max and sum share one); eight warps."""
    from akg_rag.lower.triton import emit_triton
    from akg_rag.sketch import check_sketch

    for reg in _l1_and_softmax(shape):
        text = emit_sketch(reg, "k0", barriers=True)
        assert f"COOP = {count}" in text and text.count("barrier(") == 1, text
        assert "RBLOCK" not in text and text.count('"parallel"') == 1
        assert emit_triton(check_sketch(text), "k0").tunables["K0_NUM_WARPS"] == 8
        assert "barrier(" not in emit_sketch(reg, "k0")   # a target without barriers: the loop form


def test_what_stays_out_of_the_cooperative_form():
    """Rows the persistent form holds, rows whose chunks would hold more than a thread's registers
    keep (longer than COOP_MAX chunks of 8192), a reduction over a middle dim, argmax, and a lone
    reduction with no full-domain output (the loop form reads its row once already) keep their
    forms."""
    for shape in ((64, reduction.PERSISTENT_MAX), (64, coop.COOP_MAX * 2 * coop.COOP_CHUNK + 1)):
        for reg in _l1_and_softmax(shape):
            assert "barrier(" not in emit_sketch(reg, "k0", barriers=True)
    mid = ReductionRegion([V("x", (64, 65536, 8))], (64, 65536, 8), (1,), [Reduction("s", "sum", I("x"))],
                          [Output(V("y", (64, 65536, 8)), C("div", I("x"), R("s")))])
    arg = ReductionRegion([V("x", (64, 65536))], (64, 65536), (1,), [Reduction("a", "argmax", I("x"))],
                          [Output(V("y", (64,), "int64"), R("a"), "reduced")])
    lone = ReductionRegion([V("x", (64, 65536))], (64, 65536), (1,), [Reduction("s", "sum", I("x"))],
                           [Output(V("y", (64,)), R("s"), "reduced")])
    for reg in (mid, arg, lone):
        assert "barrier(" not in emit_sketch(reg, "k0", barriers=True)


@pytest.mark.parametrize("rn, tensors, count", [
    (262144, 1, 32),     # one tensor: 8192-element chunks, 32 elements a thread
    (65535, 1, 16),      # fewer than COOP_MIN programs on 8192: 4096
    (262144, 2, 64),     # two tensors: 8192 would hold 96 a thread, 4096 holds 48
    (258064, 6, 0),      # six tensors an element: 4096 already holds 112 a thread
    (532512, 3, 0),      # 16384-element chunks needed (COOP_MAX): 256 a thread
    (16384, 1, 4),
])
def test_cooperative_count_by_row_length_and_tensors_read(rn, tensors, count):
    assert coop.coop_count(rn, tensors) == count


def test_rows_reading_several_tensors_an_element_or_read_once_keep_the_loop_form():
    """A group-norm-like row whose elements each read several tensors varying along the row
    (held across the barrier, they would crowd a thread's registers), and a layer norm's mean and
    variance with no full-domain output (one merged pass: the loop form reads the row once) keep
    the loop form; the same row reading one tensor takes the cooperative one."""
    shape = (1024, 258064)
    x = V("x", shape)
    ws = [V(f"w{i}", (shape[1],)) for i in range(5)]
    pre = I("x")
    for w in ws[:3]:
        pre = C("add", pre, I(w.name))
    cen = C("sub", pre, C("div", R("s"), NUMEL))
    y = C("add", C("mul", C("mul", cen, C("rsqrt", C("add", C("div", R("v"), NUMEL), K(1e-5)))), I(ws[3].name)),
          I(ws[4].name))
    many = ReductionRegion([x, *ws], shape, (1,), [Reduction("s", "sum", pre), Reduction("v", "sum", C("mul", cen, cen))],
                           [Output(V("y", shape), y)])
    assert "barrier(" not in emit_sketch(many, "k0", barriers=True)
    cen1 = C("sub", I("x"), C("div", R("s"), NUMEL))
    stats = ReductionRegion([x], shape, (1,), [Reduction("s", "sum", I("x")), Reduction("v", "sum", C("mul", cen1, cen1))],
                            [Output(V("mu", (1024,)), C("div", R("s"), NUMEL), "reduced"),
                             Output(V("var", (1024,)), C("div", R("v"), NUMEL), "reduced")])
    assert "barrier(" not in emit_sketch(stats, "k0", barriers=True)
    one = ReductionRegion([x], shape, (1,), [Reduction("s", "sum", I("x")), Reduction("v", "sum", C("mul", cen1, cen1))],
                          [Output(V("y", shape), C("mul", cen1, C("rsqrt", C("add", C("div", R("v"), NUMEL), K(1e-5)))))])
    assert "barrier(" in emit_sketch(one, "k0", barriers=True)


@pytest.mark.parametrize("programs", [1, 2, 3, 5])
def test_the_cooperative_form_keeps_the_reduced_outputs_of_one_program_a_row(monkeypatch, programs):
    """A layer norm over long rows with its mean as a second output: a variance merged from the
    chunks' counts, sums and squared deviations; the mean stored by the row's first program only
    (the interpreter would flag the others' stores as races)."""
    x, w = torch.randn(3, 7) * 2 + 5, torch.randn(7)
    mean = C("div", R("s"), NUMEL)
    cen = C("sub", I("x"), mean)
    y = C("mul", C("mul", cen, C("rsqrt", C("add", C("div", R("v"), NUMEL), K(1e-5)))), I("w"))
    reg = ReductionRegion([V("x", x), V("w", w)], x.shape, (1,),
                          [Reduction("s", "sum", I("x")), Reduction("v", "sum", C("mul", cen, cen))],
                          [Output(V("y", x), y), Output(V("mu", (3,)), mean, "reduced")])
    monkeypatch.setattr(reduction, "PERSISTENT_MAX", 0)
    monkeypatch.setattr(coop, "COOP_CHUNK", 2)
    text = emit_sketch(reg, "k0", barriers=True)
    assert text.count("barrier(") == 1 and "k_first = where(eq(sk, 0)" in text, text
    outs = {"y": torch.full((3, 7), float("nan")), "mu": torch.full((3,), float("nan"))}
    run_sketch(text, {"x": x, "w": w, **outs}, {"COOP": programs})
    close(outs["y"], F.layer_norm(x, (7,), w, None, 1e-5))
    close(outs["mu"], x.mean(1))


def test_split_output_pass_runs_a_chunk_over_all_rows_side_by_side_when_they_share_an_input(monkeypatch):
    """The split form's last launch: where a full-domain output reads an input that varies along
    the reduced dims only (a layer norm's weight and bias), neighbouring programs take one chunk
    of consecutive rows (the chunk's blocks of that input read once from memory, then from L2);
    otherwise (a batch norm's per-channel weight) a row's chunks stay neighbours."""
    monkeypatch.setattr(reduction, "PERSISTENT_MAX", 0)
    monkeypatch.setattr(reduction, "SPLIT_MIN_REDUCED", 4)
    monkeypatch.setattr(reduction, "SPLIT_CHUNK_MIN", 2)
    y = C("add", C("mul", C("sub", I("x"), C("div", R("s"), NUMEL)), I("w")), I("b"))
    for wshape, dims, shared in [((4, 5), (1, 2), True), ((4, 1, 1), (0, 2, 3), False)]:
        shape = (3, 4, 5) if shared else (3, 4, 2, 5)
        reg = ReductionRegion([V("x", shape), V("w", wshape), V("b", wshape)], shape, dims,
                              [Reduction("s", "sum", I("x"))], [Output(V("y", shape), y)])
        text = emit_sketch(reg, "k0")
        last = text[text.rindex('"parallel"'):]
        assert ("// SPLIT" in last) != shared and (" // D0" in last) == shared, last
