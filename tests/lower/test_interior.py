"""Interior versions of `vectorize` loops (akg_rag.lower.triton_interior): tiles whose accesses all
lie inside their tensors run the loop without bounds masks, the others the masked loop; both
give torch's result, and an index whose bounds cannot be formed keeps its masks."""

from __future__ import annotations

import torch
import torch.nn.functional as F

POOL1D = """
sketch pool1d {
  symbols: R, W, OW
  tensors: x[R, W]: f32 in; y[R, OW]: f32 out
  params: BW = 6

  @llm_hint("parallel", "grid")
  for pid in range(R * ((OW + BW - 1) // BW)):
    r = pid // ((OW + BW - 1) // BW)
    b = pid % ((OW + BW - 1) // BW)
    ow = b * BW + iota(BW)
    acc = alloc([BW], f32, hint="accumulator", init=-inf)
    @llm_hint("vectorize", "thread")
    for k in range(KS):
      p = ow - PAD + k * DIL
      v = alloc([BW], f32)
      load(x[r, p] -> v, other=-inf)
      acc = max(acc, v)
    store(acc -> y[r, b * BW:b * BW + BW])
}
"""


def _pool(ks: int, pad: int, dil: int, hint: bool = True) -> str:
    text = POOL1D.replace("KS", str(ks)).replace("PAD", str(pad)).replace("DIL", str(dil))
    return text if hint else text.replace('    @llm_hint("vectorize", "thread")\n', "")


def _versions(code: str) -> tuple[str, str]:
    """The interior and the masked version of the versioned loop."""
    head, _, rest = code.partition("if interior:")
    assert rest, "no interior version"
    inside, _, outside = rest.partition("else:")
    return inside, outside


def test_interior_version_matches_torch_at_edges_and_inside(build, device):
    """Rows of 40 in tiles of 6 (a power-of-two block of 8 lanes): the first and last tiles of a
    row touch the padding, the middle ones are interior; every output is torch's."""
    x = torch.randn(3, 40, device=device)
    ref = F.max_pool1d(x[:, None], 5, stride=1, padding=2, dilation=2)[:, 0]
    y = torch.full_like(ref, float("nan"))
    fn, _, src = build(_pool(5, 2, 2))
    inside, outside = _versions(src.code)
    assert "interior = " in src.code
    # the test bounds the padded lanes (BLOCK_BW - 1), not the tile's 6
    test = next(line for line in src.code.splitlines() if "interior = " in line)
    assert "BLOCK_BW - 1" in test and "(r < R)" in test
    load_inside = inside[inside.index("tl.load("):]
    load_inside = load_inside[:load_inside.index(")\n") + 1]
    assert "mask=" not in load_inside and ">= 0" not in load_inside
    assert "mask=" in outside and "(p >= 0)" in outside and "(p < W)" in outside
    fn(x, y)
    torch.testing.assert_close(y, ref)


def test_interior_version_and_hidden_alignment_are_host_switches(build, device):
    """``{NAME}_INTERIOR_MODE``: 2 (the default) runs the interior version where it applies, 1
    only the masked code (the kernel's INTERIOR flag off). ``{NAME}_ALIGN_MODE`` (a kernel with an
    interior version): 1 (the default) leaves the pointers as they are, 2 moves each by
    ``lane_off`` -- a 0 the kernel never specialises on -- so the compiler proves no access
    aligned. Every combination gives torch's result; other values are refused before any launch,
    and a kernel without an interior version has neither switch."""
    import pytest

    x = torch.randn(3, 40, device=device)
    ref = F.max_pool1d(x[:, None], 5, stride=1, padding=2, dilation=2)[:, 0]
    fn, module, src = build(_pool(5, 2, 2))
    assert src.tunables["K_INTERIOR_MODE"] == 2 and "INTERIOR=int(K_INTERIOR_MODE == 2)" in src.code
    assert "& (INTERIOR == 1)" in src.code
    assert src.tunables["K_ALIGN_MODE"] == 1 and '@triton.jit(do_not_specialize=["lane_off"])' in src.code
    assert "lane_off=0" in src.code and "HIDE_ALIGN=int(K_ALIGN_MODE == 2)" in src.code
    assert "x_ptr += lane_off" in src.code and "y_ptr += lane_off" in src.code
    for align in (1, 2):
        for interior in (1, 2):
            module.K_ALIGN_MODE, module.K_INTERIOR_MODE = align, interior
            y = torch.full_like(ref, float("nan"))
            fn(x, y)
            torch.testing.assert_close(y, ref)
    for knob, bad in (("K_INTERIOR_MODE", 3), ("K_ALIGN_MODE", 0)):
        setattr(module, knob, bad)
        with pytest.raises(ValueError, match=knob[2:]):
            fn(x, torch.empty_like(ref))
        setattr(module, knob, 1)
    _, _, plain = build(_pool(5, 2, 2, hint=False))
    assert "INTERIOR_MODE" not in plain.code and "ALIGN_MODE" not in plain.code and "lane_off" not in plain.code


def test_interior_version_with_every_tile_at_an_edge(build, device):
    """A window wider than a tile reaches past both ends of a short row from every tile: the
    masked version runs everywhere, still torch's result."""
    x = torch.randn(2, 9, device=device)
    ref = F.max_pool1d(x[:, None], 9, stride=1, padding=4, dilation=1)[:, 0]
    y = torch.full_like(ref, float("nan"))
    fn, _, _ = build(_pool(9, 4, 1))
    fn(x, y)
    torch.testing.assert_close(y, ref)


def test_no_hint_no_version(build):
    _, _, src = build(_pool(5, 2, 2, hint=False))
    assert "if interior" not in src.code


def test_an_index_without_bounds_keeps_its_masks(build, device):
    """A ``%`` in the window index: no bound can be formed, so nothing is versioned."""
    text = _pool(3, 1, 1).replace("p = ow - 1 + k * 1", "p = (ow + k) % W")
    x = torch.randn(2, 16, device=device)
    y = torch.empty(2, 16, device=device)
    fn, _, src = build(text)
    assert "if interior" not in src.code
    fn(x, y)
    idx = (torch.arange(16)[:, None] + torch.arange(3)[None, :]) % 16
    torch.testing.assert_close(y, x.cpu()[:, idx].amax(-1).to(device))


def test_a_local_assigned_twice_is_not_bounded(build):
    """An index through a local assigned twice before the loop: its value at the loop is not
    its first definition, so its masks stay and the loop is not versioned."""
    text = _pool(3, 1, 1).replace(
        "    ow = b * BW + iota(BW)\n",
        "    ow = b * BW + iota(BW)\n    ow = ow - 1\n")
    _, _, src = build(text)
    assert "if interior" not in src.code


def test_a_stride_one_pooling_task_lowers_to_an_interior_version(monkeypatch):
    """The suite's 1-D pooling at stride 1 (verified end to end in test_suite_tasks' Triton
    sample) lowers to an unrolled window loop with an interior version; a strided one does not."""
    from pathlib import Path

    from akg_rag.lower.assemble import lower_task

    monkeypatch.setenv("AKG_TASK_SCALE", "small")
    tasks = Path(__file__).resolve().parents[2] / "benchmarks" / "tasks"
    source, _ = lower_task(tasks / "pool_max1d_dilated_s1.py", "triton", "cuda")
    assert "if interior:" in source and "tl.static_range(5)" in source
    source, _ = lower_task(tasks / "pool_max1d_strided.py", "triton", "cuda")
    assert "if interior:" not in source


_ODD_POINTWISE = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x, y):
        return torch.relu(x) * y + 1.0

def get_inputs():
    return [torch.randn(15003), torch.randn(15003)]

def get_init_inputs():
    return []
"""


def test_pointwise_programs_inside_the_tensor_drop_their_bounds_masks(tmp_path):
    """15003 elements (no multiple of 16) in blocks of 2048: the first seven blocks take the
    interior version (only the lane mask left), the last the masked one; torch's result. A
    region of several rows (a broadcast keeps [3, 5001] two-dimensional) stays one version: its
    rows start at addresses Triton cannot prove aligned, so nothing would be vectorised."""
    import importlib.util
    import sys

    from akg_rag.lower.assemble import lower_task

    task = tmp_path / "odd_task.py"
    task.write_text(_ODD_POINTWISE)
    source, _ = lower_task(task, "triton", "cuda")
    inside, outside = _versions(source)
    assert "interior = " in source and "tl.load(" in inside and "tl.store(" in inside
    for line in inside.splitlines():
        if "tl.load(" in line or "tl.store(" in line or "mask=" in line:
            assert "< D" not in line and ">= 0" not in line, line
    assert "< D" in outside
    path = tmp_path / "odd_candidate.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("odd_candidate", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["odd_candidate"] = module
    spec.loader.exec_module(module)
    x, y = torch.randn(15003), torch.randn(15003)
    with torch.no_grad():
        got = module.ModelNew()(x, y)
    torch.testing.assert_close(got, torch.relu(x) * y + 1.0)
    task.write_text(_ODD_POINTWISE.replace("torch.randn(15003), torch.randn(15003)",
                                           "torch.randn(3, 5001), torch.randn(5001)"))
    source, _ = lower_task(task, "triton", "cuda")
    assert "if interior" not in source


SHIFTED = """
sketch shifted {
  symbols: R, W, OW, T
  tensors: x[R, W]: f32 in; taps[T]: f32 in; y[R, OW]: f32 out
  params: BW = 8

  @llm_hint("parallel", "grid")
  for pid in range(R * ((OW + BW - 1) // BW)):
    r = pid // ((OW + BW - 1) // BW)
    b = pid % ((OW + BW - 1) // BW)
    ow = b * BW + iota(BW)
    acc = alloc([BW], f32, hint="accumulator", init=0)
    @llm_hint("vectorize", "thread")
    for k in range(T):
      for j in range(k, T):
        p = (ow * 2 + j) // 2 - 1
        v = alloc([BW], f32)
        load(x[r, p] -> v)
        acc = add(acc, v)
    store(acc -> y[r, b * BW:b * BW + BW])
}
"""


def test_symbolic_and_triangular_ranges_and_floor_division(build, device):
    """A loop bound by a symbol, an inner loop starting at the outer one's variable, and an index
    through ``// 2``: bounded (the loop is versioned) and torch's result at both edges of a row
    and inside it."""
    R, W, T = 2, 45, 3
    x = torch.randn(R, W, device=device)
    taps = torch.zeros(T, device=device)
    y = torch.full((R, W), float("nan"), device=device)
    fn, _, src = build(SHIFTED)
    assert "if interior:" in src.code
    fn(x, taps, y)
    ref = torch.zeros(R, W)
    xc = x.cpu()
    for k in range(T):
        for j in range(k, T):
            p = (torch.arange(W) * 2 + j) // 2 - 1
            ok = (p >= 0) & (p < W)
            ref += torch.where(ok, xc[:, p.clamp(0, W - 1)], torch.zeros(()))
    torch.testing.assert_close(y.cpu(), ref)
