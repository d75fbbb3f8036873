"""The span form of unrolled tap loops (akg_rag.lower.triton_span): inside an interior version, each
group of four lanes loads its input span once and forms every tap in registers. Both forms give
torch's result at the edges and inside, for dilations, output strides, negative offsets and
two-dimensional tiles; a tile whose extent is not a multiple of four, or a program whose span
leaves the row, takes the usual loads; loops whose indices do not fit keep their loads."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

POOL1D = """
sketch pool1d {
  symbols: R, W, OW
  tensors: x[R, W]: f32 in; y[R, OW]: f32 out
  params: BW = TILE

  @llm_hint("parallel", "grid")
  for pid in range(R * ((OW + BW - 1) // BW)):
    r = pid // ((OW + BW - 1) // BW)
    b = pid % ((OW + BW - 1) // BW)
    ow = b * BW + iota(BW)
    acc = alloc([BW], f32, hint="accumulator", init=-inf)
    @llm_hint("vectorize", "thread")
    for k0 in range(1):
      @llm_hint("unroll", "core")
      for k in range(KS):
        p = ow * ST - PAD + k * DIL
        load(x[r, p] -> v, other=-inf)
        acc = max(acc, v)
    store(acc -> y[r, b * BW:b * BW + BW])
}
"""

DEPTHWISE = """
sketch dw {
  symbols: N, C, H, W, OH, OW
  tensors: x[N, C, H, W]: f32 in; w[C, 3, 3]: f32 in; y[N, C, OH, OW]: f32 out
  params: BH = 4, BW = 32

  @llm_hint("parallel", "grid")
  for pid in range(N * C * ((OH + BH - 1) // BH) * ((OW + BW - 1) // BW)):
    bw = pid % ((OW + BW - 1) // BW)
    q = pid // ((OW + BW - 1) // BW)
    bh = q % ((OH + BH - 1) // BH)
    q1 = q // ((OH + BH - 1) // BH)
    c = q1 % C
    n = q1 // C
    oh = unsqueeze(bh * BH + iota(BH), axis=1)
    ow = unsqueeze(bw * BW + iota(BW), axis=0)
    acc = alloc([BH, BW], f32, hint="accumulator", init=0)
    @llm_hint("unroll", "core")
    @llm_hint("vectorize", "thread")
    for k0 in range(3):
      @llm_hint("unroll", "core")
      for k1 in range(3):
        p0 = oh + k0 - 1
        p1 = ow + k1 - 1
        load(x[n, c, p0, p1] -> xv)
        load(w[c, k0, k1] -> wv)
        acc = acc + xv * wv
    store(acc -> y[n, c, oh, ow])
}
"""


def _pool(ks: int, pad: int, dil: int, st: int = 1, tile: int = 128) -> str:
    return (POOL1D.replace("KS", str(ks)).replace("PAD", str(pad)).replace("DIL", str(dil))
            .replace("ST", str(st)).replace("TILE", str(tile)))


def _run_modes(fn, module, args, out, ref) -> None:
    """Both modes on one warp: tiles of 128 lanes give each of its threads four."""
    module.K_NUM_WARPS = 1
    for mode in (1, 2):
        module.K_SPAN_MODE = mode
        out.fill_(float("nan"))
        fn(*args, out)
        torch.testing.assert_close(out, ref)


@pytest.mark.parametrize("ks,pad,dil,st", [(8, 4, 3, 1), (5, 2, 1, 1), (3, 0, 2, 2), (4, 1, 1, 3)])
def test_pool_taps_from_the_span_match_torch(build, device, ks, pad, dil, st):
    """Rows of 1501 (so spans at both ends leave the row, the middle ones not), tiles of 128: both
    forms are torch's max pooling, whatever the dilation, padding and output stride."""
    x = torch.randn(3, 1501, device=device)
    ref = F.max_pool1d(x[:, None], ks, stride=st, padding=pad, dilation=dil)[:, 0]
    fn, module, src = build(_pool(ks, pad, dil, st))
    assert src.tunables["K_SPAN_MODE"] == 2 and "SPAN=K_NUM_WARPS if K_SPAN_MODE == 2 else 0" in src.code
    assert "tl.split(" in src.code and "tl.join(" in src.code
    _run_modes(fn, module, (x,), torch.empty_like(ref), ref)


def test_span_groups_and_first_element_follow_the_offsets(build):
    """Dilation 3 with padding 4 and 8 taps: lane 0's taps reach offsets -4 .. 17, so each group
    of four lanes reads 3 + 21 + 1 = 25 span elements -> 7 aligned vectors, from b * BW - 4."""
    _, _, src = build(_pool(8, 4, 3))
    assert "span0_a = b * BW - 4" in src.code
    assert "span0_g6 = tl.load(" in src.code and "span0_g7" not in src.code
    assert "span0[0 + 3 * k]" in src.code and "span0[3 + 3 * k]" in src.code


def test_a_tile_that_is_no_multiple_of_four_takes_the_usual_loads(build, device):
    """Tiles of 6 lanes (a padded block of 8), or of 16 over four warps (a lane a thread): the
    span form's compile-time test fails and the taps load as before, in either mode."""
    x = torch.randn(2, 61, device=device)
    ref = F.max_pool1d(x[:, None], 5, stride=1, padding=2, dilation=2)[:, 0]
    fn, module, src = build(_pool(5, 2, 2, tile=6))
    assert "(BLOCK_BW == BW) & (BW % 4 == 0)" in src.code and "(BLOCK_BW >= 128 * SPAN)" in src.code
    _run_modes(fn, module, (x,), torch.empty_like(ref), ref)
    fn, module, src = build(_pool(5, 2, 2, tile=16))
    module.K_SPAN_MODE, module.K_NUM_WARPS = 2, 4
    y = torch.full_like(ref, float("nan"))
    fn(x, y)
    torch.testing.assert_close(y, ref)


def test_depthwise_rows_hoist_the_row_index_and_keep_the_weight_load(build, device):
    """A 3 x 3 depthwise convolution over [4, 32] tiles: the row index (a [BH, 1] local of the
    tap loop) is written before the span, the weight (a scalar load) stays in the loop."""
    x = torch.randn(2, 3, 13, 70, device=device)
    w = torch.randn(3, 3, 3, device=device)
    ref = F.conv2d(x, w[:, None], padding=1, groups=3)
    fn, module, src = build(DEPTHWISE)
    # the span's bounds are part of the program's interior test: no run-time branch per row
    assert "span_ok" not in src.code and "reads up to 3 elements past its taps" in src.code
    form = src.code[src.code.index("# taps from each lane group's span"):]
    taps = form[form.index("for k1 in tl.static_range(3)"):form.index("else:")]
    assert "tl.load(w_ptr" in taps and "tl.load(x_ptr" not in taps and "xv = tl.reshape(tl.join(" in taps
    assert "p0[:, :, None]" in src.code
    _run_modes(fn, module, (x, w), torch.empty_like(ref), ref)


def test_a_span_that_moves_with_an_outer_tap_keeps_its_own_test(build, device):
    """Taps at ``k * 2 + k0`` for an outer unrolled ``k0``: the span's first element changes with
    ``k0`` inside the versioned region, so its bounds cannot join the interior test; the loop
    keeps a run-time test of its own, and both modes give the reference."""
    text = _pool(3, 1, 2).replace("for k0 in range(1):", "for k0 in range(2):").replace(
        "p = ow * 1 - 1 + k * 2", "p = ow * 1 - 1 + k * 2 + k0")
    x = torch.randn(3, 1501, device=device)
    xp = F.pad(x, (1, 8), value=float("-inf"))
    ref = torch.stack([xp[:, k * 2 + k0:k * 2 + k0 + 1501] for k in range(3) for k0 in range(2)]).amax(0)
    fn, module, src = build(text)
    assert "span_ok" in src.code
    _run_modes(fn, module, (x,), torch.empty_like(ref), ref)


def test_loops_whose_indices_do_not_fit_keep_their_loads(build):
    """No span form: a tap index through ``%``, a tap loop that is not unrolled, lanes that do not
    move with the loaded tile's last axis, or no interior version at all."""
    wrap = _pool(3, 1, 1).replace("p = ow * 1 - 1 + k * 1", "p = (ow + k) % W")
    rolled = _pool(3, 1, 1).replace('      @llm_hint("unroll", "core")\n', "")
    unhinted = _pool(3, 1, 1).replace('    @llm_hint("vectorize", "thread")\n', "")
    # the tap loop is itself the versioned loop (written plain in its interior copy): no span
    # form, and no span bounds in its interior test
    itself = _pool(3, 1, 1).replace("""    for k0 in range(1):
      @llm_hint("unroll", "core")
      for k in range(3):
        p = ow * 1 - 1 + k * 1
        load(x[r, p] -> v, other=-inf)
        acc = max(acc, v)""", """    @llm_hint("unroll", "core")
    for k in range(3):
      p = ow * 1 - 1 + k * 1
      load(x[r, p] -> v, other=-inf)
      acc = max(acc, v)""")
    assert "k0" not in itself
    for text in (wrap, rolled, unhinted, itself):
        _, _, src = build(text)
        assert "SPAN_MODE" not in src.code and "span_ok" not in src.code and "past its taps" not in src.code
    transposed = DEPTHWISE.replace("p0 = oh + k0 - 1", "p0 = ow + k0 - 1").replace(
        "p1 = ow + k1 - 1", "p1 = oh + k1 - 1").replace("store(acc -> y[n, c, oh, ow])", "store(acc -> y[n, c, ow, oh])")
    _, _, src = build(transposed)
    assert "span_ok" not in src.code


def test_span_mode_is_a_checked_host_switch(build, device):
    fn, module, _ = build(_pool(3, 1, 1))
    x = torch.randn(2, 40, device=device)
    module.K_SPAN_MODE = 3
    with pytest.raises(ValueError, match="SPAN_MODE"):
        fn(x, torch.empty(2, 40, device=device))


def test_span_mode_is_a_tunable_of_the_search(build):
    from akg_rag.lower.tune_space import kernel_knobs
    from akg_rag.sketch import check_sketch

    _, _, src = build(_pool(8, 4, 3))
    knobs = kernel_knobs("k", check_sketch(_pool(8, 4, 3)), src.tunables, {"R": 3, "W": 701, "OW": 701}, "triton")
    span = next(k for k in knobs if k.param == "SPAN_MODE")
    assert span.values == (1, 2) and span.value == 2


def test_a_one_dimensional_window_defaults_to_the_span_form_and_a_two_dimensional_one_does_not(build):
    """Measured on an H100 (akg_rag.lower.triton_span, DEFAULT_SPAN_MODE): a 1-D window gained from
    the span form, 2-D windows lost. A pool's taps in a loop of one iteration are still 1-D; a
    depthwise 3x3 (its taps inside a loop over the window's three rows) is 2-D; so is the pool with
    its tap loop inside a loop of two iterations."""
    _, _, flat = build(_pool(8, 4, 3), "k")
    _, _, rows = build(DEPTHWISE, "k")
    assert flat.tunables["K_SPAN_MODE"] == 2 and rows.tunables["K_SPAN_MODE"] == 1
    two_rows = _pool(8, 4, 3).replace("for k0 in range(1):", "for k0 in range(2):")
    _, _, looped = build(two_rows, "k")
    assert "K_SPAN_MODE" in looped.tunables and looped.tunables["K_SPAN_MODE"] == 1
