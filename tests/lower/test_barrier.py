"""``barrier``: a wait among the programs of a launch that name the same counter element.

Parsed, printed and validated; run by the reference interpreter in phases (locals kept, groups
checked: a group that could hang a GPU or a read across groups is an error); lowered by the Triton
backend (tickets, zeroed counters, the count lowered to what runs at once: 1 under the
interpreter, the SM count on a GPU, so the GPU run exercises real waits); refused by C++.
"""

from __future__ import annotations

import pytest
import torch

from akg_rag.errors import SketchError
from akg_rag.lower.interp import run_sketch
from akg_rag.sketch import check_sketch, parse_sketch
from akg_rag.sketch.printer import print_sketch
from tests.lower.conftest import INTERPRETED

# x / sum(|x|) per row: C programs a row, each a chunk; partials, a barrier, the row's total
L1 = """
sketch coop {
  symbols: M, N
  tensors: x[M, N]: f32 in; y[M, N]: f32 out; part[M, C]: f32 temp; cnt[M]: i32 temp
  params: C = 4

  @llm_hint("parallel", "grid")
  for pid in range(M * C):
    row = pid // C
    c = pid % C
    r = unsqueeze(c * ((N + C - 1) // C) + iota((N + C - 1) // C), axis=0)
    load(x[row, r] -> v)
    s = reduce_sum(where(lt(r, N), abs(v), 0.0), axis=1, keepdim=1)
    store(s -> part[row, c])
    barrier(cnt[row], C)
    load(part[row, unsqueeze(iota(C), axis=0)] -> ps)
    t = reduce_sum(ps, axis=1, keepdim=1)
    o = div(v, t)
    store(o -> y[row, r])
}
"""


# the same over a joined grid: a row's programs are the inner loop's points, consecutive
_HEAD, _BODY = L1.split("    c = pid % C\n")
L1_JOINED = (_HEAD.replace("  for pid in range(M * C):\n    row = pid // C\n",
                           '  for row in range(M):\n    @llm_hint("parallel", "grid")\n    for c in range(C):\n')
             + "".join("  " + ln if ln.startswith("    ") else ln for ln in _BODY.splitlines(keepends=True)))


def _l1(x: torch.Tensor) -> torch.Tensor:
    return x / x.abs().sum(1, keepdim=True)


def test_a_barrier_prints_and_parses_back():
    sk = check_sketch(L1)
    text = print_sketch(sk)
    assert "barrier(cnt[row], C)" in text
    assert print_sketch(parse_sketch(text)) == text


@pytest.mark.parametrize("edit, message", [
    (("    barrier(cnt[row], C)\n", "    for j in range(1):\n      barrier(cnt[row], C)\n"),
     "directly in the body of a launch's innermost grid loop"),
    (("cnt[M]: i32 temp", "cnt[M]: f32 temp"), "i32 temp tensor"),
    (("cnt[M]: i32 temp", "cnt[M]: i32 out"), "i32 temp tensor"),
    (("barrier(cnt[row], C)", "barrier(cnt[row], 4)"), "count must be a parameter"),
    (("barrier(cnt[row], C)", "barrier(cnt[0:M], C)"), "scalar indices only"),
    (("    t = reduce_sum(ps", "    load(cnt[row] -> n)\n    t = reduce_sum(ps"), "cannot be loaded or stored"),
])
def test_misplaced_or_malformed_barriers_are_refused(edit, message):
    with pytest.raises(SketchError, match=message):
        check_sketch(L1.replace(*edit))


@pytest.mark.parametrize("joined", [False, True])
@pytest.mark.parametrize("programs", [1, 2, 3, 4, 7])
def test_the_interpreter_runs_a_launch_with_a_barrier_in_phases(programs, joined):
    x = torch.randn(3, 10)
    y = torch.full((3, 10), float("nan"))
    run_sketch(L1_JOINED if joined else L1, {"x": x, "y": y}, {"C": programs})
    torch.testing.assert_close(y, _l1(x))


@pytest.mark.parametrize("edits, message", [
    ([("cnt[M]", "cnt[C]"), ("barrier(cnt[row], C)", "barrier(cnt[c], C)")], "would hang"),  # 3 rows, 4 awaited
    ([("cnt[M]", "cnt[1]"), ("barrier(cnt[row], C)", "barrier(cnt[0], C)")], "would hang"),  # 12 on one
    ([("load(part[row, unsqueeze", "load(part[(row + 1) % M, unsqueeze")], "outside its barrier group"),
    ([("barrier(cnt[row], C)", "barrier(cnt[row + 1], C)")], "outside its shape"),
])
def test_the_interpreter_refuses_what_a_gpu_would_get_wrong(edits, message):
    text = L1
    for edit in edits:
        text = text.replace(*edit)
    with pytest.raises(SketchError, match=message):
        run_sketch(text, {"x": torch.randn(3, 10), "y": torch.empty(3, 10)})


def test_groups_must_be_runs_of_consecutive_grid_points():
    # rows interleaved: row = pid % M, so a row's programs are M grid points apart
    text = L1.replace("row = pid // C\n    c = pid % C", "row = pid % M\n    c = pid // M")
    with pytest.raises(SketchError, match="not consecutive"):
        run_sketch(text, {"x": torch.randn(4, 10), "y": torch.empty(4, 10)}, {"C": 4})


@pytest.mark.parametrize("joined", [False, True])
def test_the_triton_backend_takes_tickets_and_zeroes_counters(build, device, joined):
    fn, module, src = build(L1_JOINED if joined else L1, "k0")
    code = src.code
    assert "pid = tl.atomic_add(ticket_ptr, 1)" in code and "tl.program_id" not in code
    assert 'sem="release"' in code and 'sem="acquire"' in code and 'cache_modifier=".cg"' in code
    assert "volatile=True" in code   # the wait spins on loads, not on the counter's atomic unit
    assert "cnt = torch.zeros((M, 32), " in code and "C = min(C, resident)" in code   # a line a counter
    x = torch.randn(5, 1000, device=device)
    for programs in (1, 3, 8, 64):   # lowered to what runs at once: 1 here without a GPU
        module.K0_C = programs
        y = torch.full_like(x, float("nan"))
        fn(x, y)
        torch.testing.assert_close(y, _l1(x))


@pytest.mark.skipif(INTERPRETED, reason="needs a CUDA GPU: the interpreter runs programs one at a time")
def test_on_a_gpu_the_programs_of_a_row_wait_for_each_other():
    """Many rows of many programs, counts above the SM count lowered to it; repeated calls reuse
    nothing of the last (counters and tickets zeroed)."""
    import importlib.util
    import sys
    import tempfile

    from akg_rag.lower.triton import emit_triton

    src = emit_triton(check_sketch(L1), "k0")
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(src.code)
    spec = importlib.util.spec_from_file_location("coop_gpu", f.name)
    module = importlib.util.module_from_spec(spec)
    sys.modules["coop_gpu"] = module
    spec.loader.exec_module(module)
    x = torch.randn(4096, 65535, device="cuda")
    for programs in (2, 16, 48, 1000):
        module.K0_C = programs
        for _ in range(2):
            y = torch.full_like(x, float("nan"))
            module.k0(x, y)
            torch.testing.assert_close(y, _l1(x), atol=1e-6, rtol=1e-4)


def test_the_cpp_backend_refuses_a_barrier():
    from akg_rag.lower.cpp import emit_cpp

    with pytest.raises(SketchError, match="no barrier"):
        emit_cpp(check_sketch(L1), "k0")


_LONG_ROWS = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1) + x / x.abs().sum(dim=1, keepdim=True)

def get_inputs():
    return [torch.randn(16, 20000)]

def get_init_inputs():
    return []
"""


def test_a_task_over_long_rows_lowers_cooperatively_for_triton_and_runs(tmp_path):
    """Triton on a GPU gets the cooperative form (COOP programs a row, barriers); C++ the loop form.
    The candidate runs under the Triton interpreter in a fresh process (one program a row there)."""
    import os
    import subprocess
    import sys

    from akg_rag.lower.assemble import lower_task
    from tests.lower.test_assemble import _DRIVER

    path = tmp_path / "task.py"
    path.write_text(_LONG_ROWS)
    source, report = lower_task(path, "triton", "cuda")
    assert any("barrier(" in k.sketch and "COOP = 5" in k.sketch for k in report.kernels), \
        [k.sketch for k in report.kernels]
    _, cpp = lower_task(path, "cpp", "cpu", sketch_only=True)
    assert not any("barrier(" in k.sketch for k in cpp.kernels)
    (tmp_path / "candidate.py").write_text(source)
    (tmp_path / "driver.py").write_text(_DRIVER)
    run = subprocess.run([sys.executable, str(tmp_path / "driver.py"), str(tmp_path)],
                         env={**os.environ, "TRITON_INTERPRET": "1"}, capture_output=True, text=True, timeout=600)
    assert "MATCH" in run.stdout, run.stderr[-3000:]


def coop_region(stat: str):
    """A reduction region over rows of 10000 (a tail in the last chunk): online softmax with an L1
    normalisation (``softmax_l1``: one level, two statistics), or a layer norm (Welford partials
    merged) with its mean as a reduced-domain output (``layer_norm``)."""
    from akg_rag.lower.region import Expr, Output, Reduction, ReductionRegion, Value

    E, I, C = Expr, Expr.input, Expr.call
    R = lambda name: E("reduced", ref=name)  # noqa: E731
    shape = (6, 10000)
    x_v = Value("x", shape, "float32")
    if stat == "softmax_l1":
        ex = C("exp", C("sub", I("x"), R("mx")))
        return ReductionRegion([x_v], shape, (1,), [
            Reduction("mx", "max", I("x")), Reduction("a", "sum", C("abs", I("x"))), Reduction("s", "sum", ex)],
            [Output(Value("y", shape, "float32"), C("add", C("div", ex, R("s")), C("div", I("x"), R("a"))))])
    n = E("numel")
    mean = C("div", R("s"), n)
    cen = C("sub", I("x"), mean)
    y = C("mul", cen, C("rsqrt", C("add", C("div", R("v"), n), Expr.const(1e-5))))
    return ReductionRegion([x_v], shape, (1,), [Reduction("s", "sum", I("x")), Reduction("v", "sum", C("mul", cen, cen))],
                           [Output(Value("y", shape, "float32"), y), Output(Value("mu", (6,), "float32"), mean, "reduced")])


def check_coop(fn, stat: str, x: torch.Tensor) -> None:
    """``fn`` (a lowered ``coop_region(stat)``) on ``x`` against torch."""
    y = torch.full_like(x, float("nan"))
    if stat == "softmax_l1":
        fn(x, y)
        torch.testing.assert_close(y, torch.softmax(x, 1) + _l1(x), atol=1e-6, rtol=1e-4)
        return
    mu = torch.full((x.shape[0],), float("nan"), device=x.device)
    fn(x, y, mu)
    torch.testing.assert_close(y, torch.nn.functional.layer_norm(x, (x.shape[1],), eps=1e-5), atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(mu, x.mean(1), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("stat", ["softmax_l1", "layer_norm"])
def test_the_emitted_cooperative_form_lowers_and_computes(build, device, stat):
    """The reduction emitter's cooperative form through the Triton backend: online softmax with an
    L1 normalisation (one level, two statistics), and a layer norm (Welford partials merged) with
    its mean as a reduced-domain output; rows of 10000 (a tail in the last chunk). Under the
    interpreter the count is lowered to 1; on a GPU the programs of a row really wait."""
    from akg_rag.lower.emit import emit_sketch

    region = coop_region(stat)
    text = emit_sketch(region, "k0", barriers=True)
    assert text.count("barrier(") == 1 and "COOP = 3" in text, text
    fn, module, _ = build(text, "k0")
    x = torch.randn(6, 10000, device=device) * 2 + 1
    for programs in (1, 3, 8):
        module.K0_COOP = programs
        check_coop(fn, stat, x)


def _stream_region(shape: tuple[int, int], stat: str = "layer_norm"):
    """``coop_region``'s statistics over rows of ``shape``."""
    from akg_rag.lower.region import ReductionRegion, Value

    r = coop_region(stat)
    x_v = Value("x", shape, "float32")
    outs = [type(o)(type(o.value)(o.value.name, shape if o.domain == "full" else shape[:1], "float32"), o.expr, o.domain)
            for o in r.outputs]
    return ReductionRegion([x_v], shape, (1,), r.reductions, outs)


def test_rows_too_long_for_registers_stream_twice_through_one_cooperative_launch():
    """Asked for (``stream``), a row of 2M elements (a group norm's group): one launch, a barrier,
    the row streamed per level and again (last block first) for the outputs; not asked for, or
    without barriers, the split form (three launches). Rows the register form holds keep it; a
    row moving more than STREAM_ROW_BYTES through L2 is not this form."""
    from akg_rag.lower.emit import emit_sketch
    from akg_rag.lower.emit.stream import STREAM_ROW_BYTES

    text = emit_sketch(_stream_region((896, 1 << 21)), "k0", barriers=True, stream=True)
    assert text.count("barrier(") == 1 and "COOP = 128" in text and "RBLOCK = 2048" in text, text
    assert text.count("for r0") == 2 and "- RBLOCK - r01 + iota(RBLOCK)" in text, text
    assert text.count("@llm_hint(\"parallel\", \"grid\")") == 1
    for split in (emit_sketch(_stream_region((896, 1 << 21)), "k0", barriers=False, stream=True),
                  emit_sketch(_stream_region((896, 1 << 21)), "k0", barriers=True)):
        assert "barrier(" not in split and split.count("@llm_hint(\"parallel\", \"grid\")") == 3
    held = emit_sketch(_stream_region((4096, 393216), "softmax_l1"), "k0", barriers=True, stream=True)
    assert "barrier(" in held and "RBLOCK" not in held      # the register form: each chunk read once
    rows = STREAM_ROW_BYTES // 8 // 4096 * 4096 + 4096       # x read, y written: 8 bytes an element
    assert "barrier(" not in emit_sketch(_stream_region((8, rows)), "k0", barriers=True, stream=True)


@pytest.fixture
def streamed(monkeypatch):
    """The streaming form for ``coop_region``'s short rows (10000 elements)."""
    from akg_rag.lower.emit import coop, reduction, stream

    monkeypatch.setattr(stream, "STREAM_MIN", 1000)
    monkeypatch.setattr(reduction, "SPLIT_MIN_FEW", 1000)   # rows the split form would take
    monkeypatch.setattr(coop, "COOP_HELD_MAX", 0)   # no row held in registers


@pytest.mark.parametrize("stat", ["softmax_l1", "layer_norm"])
def test_the_streaming_form_computes_at_any_chunking(streamed, stat):
    """The sketch semantics (the reference interpreter runs the barrier's groups in phases): online
    softmax with an L1 term, and a layer norm (Welford lanes, chunks merged) with its mean as a
    reduced-domain output; chunks of 1-4 blocks, empty chunks past the row's end."""
    from akg_rag.lower.emit import emit_sketch

    text = emit_sketch(coop_region(stat), "k0", barriers=True, stream=True)
    assert "RBLOCK" in text and text.count("barrier(") == 1, text
    x = torch.randn(6, 10000) * 2 + 1
    for count, rb in ((1, 2048), (3, 1024), (7, 512), (8, 2048)):
        y = torch.full_like(x, float("nan"))
        if stat == "softmax_l1":
            run_sketch(text, {"x": x, "y": y}, {"COOP": count, "RBLOCK": rb})
            torch.testing.assert_close(y, torch.softmax(x, 1) + _l1(x), atol=1e-6, rtol=1e-4)
            continue
        mu = torch.full((6,), float("nan"))
        run_sketch(text, {"x": x, "y": y, "mu": mu}, {"COOP": count, "RBLOCK": rb})
        torch.testing.assert_close(y, torch.nn.functional.layer_norm(x, (10000,), eps=1e-5), atol=1e-4, rtol=1e-4)
        torch.testing.assert_close(mu, x.mean(1), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("stat", ["softmax_l1", "layer_norm"])
def test_the_streaming_form_loops_over_tickets_in_triton(streamed, build, device, stat):
    """Through the Triton backend a launch with a barrier and a row read again takes its grid
    points from tickets in a loop (so the host may launch fewer programs than grid points), with
    the first pass's loads kept in L2 and the second's evicted first; the L2-sized grid a choice
    (GRID_MODE 2; 1, one program a grid point, the default). Under the interpreter the count is
    lowered to 1; on a GPU the programs really wait, on fewer programs than grid points in
    GRID_MODE 2."""
    from akg_rag.lower.emit import emit_sketch

    fn, module, src = build(emit_sketch(coop_region(stat), "k0", barriers=True, stream=True), "k0")
    code = src.code
    assert "tk = tl.atomic_add(ticket_ptr, 1)\n    while tk < PROGRAMS:" in code
    assert code.count("tl.atomic_add(ticket_ptr, 1)") == 2 and "tl.program_id" not in code
    assert '"evict_last" if CACHE_HINTS' in code and '"evict_first" if CACHE_HINTS' in code
    assert module.K0_GRID_MODE == 1 and "_l2_grid(programs, (x,), K0_GRID_MODE)" in code
    x = torch.randn(6, 10000, device=device) * 2 + 1
    for mode, count, rb in ((1, 3, 1024), (2, 8, 512), (2, 1, 2048)):
        module.K0_GRID_MODE, module.K0_COOP, module.K0_RBLOCK = mode, count, rb
        check_coop(fn, stat, x)


_GROUP_NORM = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.gn = nn.GroupNorm(2, 8)

    def forward(self, x):
        return self.gn(x)


def get_inputs():
    return [torch.randn(4, 8, 256, 512)]


def get_init_inputs():
    return []
"""


def test_the_cli_takes_the_streaming_form_only_when_asked(tmp_path, capsys):
    """``python -m akg_rag.lower --stream``: a group norm over 8 groups of 512K elements (the split
    form's three launches by default) becomes one cooperative launch streaming its groups; C++
    has no barriers and keeps the split form."""
    from akg_rag.lower.__main__ import main

    (tmp_path / "task.py").write_text(_GROUP_NORM)
    sketches = {}
    for flag, dsl, backend in (("", "triton", "cuda"), ("--stream", "triton", "cuda"), ("--stream", "cpp", "cpu")):
        out = tmp_path / f"out{flag}{dsl}"
        args = [str(tmp_path / "task.py"), "--dsl", dsl, "--backend", backend, "--sketch-only", "--no-store",
                "--out", str(out)] + ([flag] if flag else [])
        assert main(args) == 0, capsys.readouterr().err
        sketches[flag, dsl] = (out / "k0.sketch").read_text()
    split, streamed, cpp = sketches["", "triton"], sketches["--stream", "triton"], sketches["--stream", "cpp"]
    assert "barrier(" not in split and split.count('"parallel"') == 3
    assert streamed.count("barrier(") == 1 and streamed.count('"parallel"') == 1 and "RBLOCK = 2048" in streamed
    assert "barrier(" not in cpp and cpp.count('"parallel"') == 3


def test_a_row_sharing_its_affine_with_every_row_keeps_the_split_form():
    """A layer norm whose weight and bias span the normalised dims: streamed, every row would read
    them again (timed on an H100: 731 MB read against the split form's 602); the split form's
    output launch shares them across rows, so the streaming form is not taken even when asked."""
    from akg_rag.lower.emit import emit_sketch
    from akg_rag.lower.region import Expr, Output, Reduction, ReductionRegion, Value

    shape = (16, 1 << 20)
    I, C, R = Expr.input, Expr.call, (lambda n: Expr("reduced", ref=n))
    n = Expr("numel")
    cen = C("sub", I("x"), C("div", R("s"), n))
    y = C("add", C("mul", C("mul", cen, C("rsqrt", C("add", C("div", R("v"), n), Expr.const(1e-5)))), I("w")), I("b"))
    region = ReductionRegion([Value("x", shape, "float32"), Value("w", shape[1:], "float32"),
                              Value("b", shape[1:], "float32")], shape, (1,),
                             [Reduction("s", "sum", I("x")), Reduction("v", "sum", C("mul", cen, cen))],
                             [Output(Value("y", shape, "float32"), y)])
    text = emit_sketch(region, "k0", barriers=True, stream=True)
    assert "barrier(" not in text and "SPLIT" in text, text
    plain = ReductionRegion(region.inputs[:1], shape, (1,), region.reductions,
                            [Output(Value("y", shape, "float32"), C("mul", cen, Expr.const(2.0)))])
    assert "barrier(" in emit_sketch(plain, "k0", barriers=True, stream=True)
