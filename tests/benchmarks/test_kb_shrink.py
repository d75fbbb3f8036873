"""benchmarks/kb_shrink.py and benchmarks/shrink_rules.py: which constants shrink, how, and that a
shrunken problem still runs and captures.

The tasks here are written for these tests (KernelBench-format, huge sizes that nothing
allocates: the shrinker measures on meta tensors).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def rules(load_bench):
    return load_bench("shrink_rules")


@pytest.fixture(scope="module")
def shrink(load_bench):
    return load_bench("kb_shrink")


GROUPED_CONV = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, cin, cout, kernel_size, groups):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel_size, groups=groups, padding=1)
        self.norm = nn.GroupNorm(groups, cout)

    def forward(self, x):
        return torch.relu(self.norm(self.conv(x)))

batch = 96
cin = 48
cout = 96
kernel_size = 5
groups = 12
rows = cols = 300

def get_inputs():
    return [torch.rand(batch, cin, rows, cols)]

def get_init_inputs():
    return [cin, cout, kernel_size, groups]
'''

SQUARE_BROADCAST = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, p, t):
        return torch.clamp(1 - p * t, min=0).mean()

n = 20000
width = (20000,)
axis = 1

def get_inputs():
    return [torch.rand(n, *width), torch.rand(n)]

def get_init_inputs():
    return []
'''

INLINE_AND_AXIS = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.cumsum(x, dim=self.dim)

rows = 4001
dim = 1
steps, lanes = 2 * 1024, 3

def get_inputs():
    return [torch.randn(rows, 777, lanes)]

def get_init_inputs():
    return [dim]
'''


def test_slots_are_classified_by_use(rules):
    slots = {s.key: s for s in rules.find_slots(GROUPED_CONV)}
    assert set(slots) == {"batch", "cin", "cout", "kernel_size", "groups", "rows=cols"}
    assert slots["batch"].batch_like and slots["batch"].shrinkable
    assert slots["kernel_size"].structural and slots["groups"].structural
    assert not slots["cout"].batch_like and slots["rows=cols"].shrinkable
    inline = {s.key: s for s in rules.find_slots(INLINE_AND_AXIS)}
    assert inline["dim"].structural  # an axis handed to the constructor, not a length
    assert not inline["rows"].structural and inline["rows"].batch_like
    assert any(k.startswith("get_inputs@") and s.value == 777 for k, s in inline.items())
    assert inline["steps"].value == 2048 and not inline["lanes"].shrinkable
    square = {s.key: s for s in rules.find_slots(SQUARE_BROADCAST)}
    assert square["width[0]"].value == 20000 and not square["axis"].shrinkable


def test_a_length_named_dim_is_a_size_when_inputs_are_built_from_it(rules):
    src = "import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x.relu()\n" \
          "batch = 64\ndim = 100000\ndef get_inputs():\n    return [torch.rand(batch, dim)]\n" \
          "def get_init_inputs():\n    return []\n"
    slots = {s.key: s for s in rules.find_slots(src)}
    assert slots["dim"].shrinkable and slots["batch"].batch_like


def test_halving_keeps_parity_and_divisibility(rules):
    assert rules.halve(4096, {3}) == 2048
    h = rules.halve(4095, {3, 2})
    assert h % 2 == 1 and h % 3 == 0 and 1023 <= h <= 2047
    h = rules.halve(96, {12, 5})
    assert h % 12 == 0 and h % 5 and h <= 48
    assert rules.halve(6, set(), floor=4) is None
    # nothing near half keeps every multiple: parity alone is kept (the meta run decides)
    assert rules.halve(64, {8}, floor=2) == 32 and rules.halve(8, {8}, floor=2) == 4


def test_a_size_several_times_a_kept_integer_stays_above_it(rules):
    """8192 channels in 256 groups shrink, but never onto 256 (one channel per group: a group
    norm would then return its bias whatever the input)."""
    assert rules.halve(8192, {256}) == 4096
    assert rules.halve(1024, {256}) == 512
    assert rules.halve(512, {256}) is None
    assert rules.halve(24, {3, 8}) == 12 and rules.halve(16, {8}) is None


def test_render_changes_only_the_literals(rules):
    slots = rules.find_slots(INLINE_AND_AXIS)
    values = {s.key: (s.value // 7 if s.shrinkable else s.value) for s in slots}
    out = rules.render(INLINE_AND_AXIS, slots, values)
    assert "rows = 571" in out and "torch.randn(rows, 111, lanes)" in out
    assert "steps, lanes = 292, 3" in out and "dim = 1" in out
    assert out.replace("571", "4001").replace("111", "777").replace("292", "2 * 1024") == INLINE_AND_AXIS


def _run(source: str, path: Path):
    from akg_rag.task import load_task

    task = load_task(path, source)
    model = task.model_cls(*task.get_init_inputs())
    inputs = task.get_inputs()
    return model(*inputs), inputs, model


@pytest.mark.parametrize("name", ["GROUPED_CONV", "SQUARE_BROADCAST", "INLINE_AND_AXIS"])
def test_shrunk_problem_runs_under_budget(shrink, tmp_path, name):
    path = tmp_path / f"{name.lower()}.py"
    path.write_text(globals()[name])
    text, row = shrink.shrink_problem(path, (shrink.MAX_NUMEL, shrink.MAX_FLOPS))
    assert text is not None and row["status"] == "shrunk", row
    assert row["numel"] <= shrink.MAX_NUMEL and row["original"]["numel"] > 100 * shrink.MAX_NUMEL
    assert text.startswith("# kb_shrink: ")
    out, inputs, model = _run(text, path)
    assert torch.isfinite(out).all()
    assert max(t.numel() for t in inputs) <= shrink.MAX_NUMEL
    if name == "GROUPED_CONV":
        conv = model.conv
        assert conv.kernel_size == (5, 5) and conv.groups == 12
        assert conv.in_channels % 12 == 0 and conv.out_channels % 12 == 0
        assert inputs[0].shape[0] == 2  # the batch went first, down to 2
    if name == "INLINE_AND_AXIS":
        assert inputs[0].shape[2] == 3 and inputs[0].shape[0] % 2 == 1  # small kept, odd stays odd


def test_output_inside_the_repository_is_refused(shrink, tmp_path):
    (tmp_path / "p.py").write_text(SQUARE_BROADCAST)
    with pytest.raises(SystemExit):
        shrink.main([str(tmp_path), str(BENCH / "shrunk")])
    assert not (BENCH / "shrunk").exists()
