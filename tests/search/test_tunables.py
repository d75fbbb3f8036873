"""Tunable discovery and exact rewriting, on synthetic sources and on every seed kernel."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from akg_rag.errors import ConfigError
from akg_rag.search.tunables import find_tunables, rewrite, settings, tunable_values

KERNELS = Path(__file__).resolve().parents[2] / "knowledge" / "kernels"

SOURCE = '''"""A candidate whose docstring mentions BLOCK = 7 and constexpr int FAKE = 3; (prose, not code)."""
import triton

BLOCK_SIZE = 1024  # elements per program
NUM_WARPS: int = 4
MIN_PARALLEL_ELEMENTS = 1 << 15
EPS = 1e-5
ENABLED = True
lower_case = 64
NEGATIVE = -8
SHAPE = (4, 4)
TUNABLES = {"GROUP_M": 8, "naïve": "x", "num_stages": 3}

CPP_SOURCE = r"""
#define VEC 8
constexpr int64_t MC = 64, NC = 256, KC = 1 << 8;
const int n = x.numel();
constexpr float SCALE = 2;
"""


def launch(x):
    INNER = 32
    kernel[(1,)](x, BLOCK=BLOCK_SIZE, num_warps=2, TILE=16)
    kernel[(1,)](x, num_warps=8)
'''


def test_finds_every_kind_in_source_order():
    found = [(t.name, t.value, t.kind) for t in find_tunables(SOURCE)]
    assert found == [
        ("BLOCK_SIZE", 1024, "constant"), ("NUM_WARPS", 4, "constant"),
        ("MIN_PARALLEL_ELEMENTS", 32768, "constant"),
        ("GROUP_M", 8, "table"), ("num_stages", 3, "table"),
        ("VEC", 8, "cpp"), ("MC", 64, "cpp"), ("NC", 256, "cpp"), ("KC", 256, "cpp"),
        ("num_warps", 2, "keyword"), ("TILE", 16, "keyword"), ("num_warps@2", 8, "keyword"),
    ]


def test_offsets_point_at_the_literal_text():
    for t in find_tunables(SOURCE):
        text = SOURCE[t.start:t.end]
        assert text in (str(t.value), "1 << 15", "1 << 8"), (t, text)


def test_names_filter_keeps_only_named_tunables():
    assert list(tunable_values(SOURCE, {"VEC", "num_warps"})) == ["VEC", "num_warps", "num_warps@2"]


def test_rewrite_changes_only_the_literals():
    changes = {"BLOCK_SIZE": 256, "KC": 128, "num_warps@2": 4, "GROUP_M": 16, "MIN_PARALLEL_ELEMENTS": 4096}
    new = rewrite(SOURCE, changes)
    assert tunable_values(new) == {**tunable_values(SOURCE), **changes}
    assert "BLOCK_SIZE = 256  # elements per program" in new
    assert "KC = 1 << 7;" in new and "MIN_PARALLEL_ELEMENTS = 1 << 12" in new  # shift form kept
    assert "kernel[(1,)](x, num_warps=4)" in new and "num_warps=2, TILE=16" in new
    # Every difference lies inside one of the changed literals: all other characters are identical.
    spans = [(t.start, t.end) for t in find_tunables(SOURCE) if t.name in changes]
    diffs = [op for op in difflib.SequenceMatcher(None, SOURCE, new, autojunk=False).get_opcodes() if op[0] != "equal"]
    assert diffs and all(any(s <= i1 and i2 <= e for s, e in spans) for _, i1, i2, _, _ in diffs)
    # Round trip: rewriting the old values back restores the source exactly.
    old = {k: v for k, v in tunable_values(SOURCE).items() if k in changes}
    assert rewrite(new, old) == SOURCE


def test_rewrite_after_non_ascii_text_on_the_same_line():
    src = 'TUNABLES = {"naïve→": "ü", "BLOCK": 64}  # größe\nX = 1\n'
    assert tunable_values(src) == {"BLOCK": 64, "X": 1}
    assert rewrite(src, {"BLOCK": 128}) == src.replace("64", "128")


def test_rewrite_rejects_unknown_names_and_bad_values():
    with pytest.raises(ConfigError, match="unknown tunable.*BLOCK_SIZE"):
        rewrite(SOURCE, {"NOT_THERE": 4})
    for bad in (0, -4, 2.0, True):
        with pytest.raises(ConfigError, match="positive int"):
            rewrite(SOURCE, {"BLOCK_SIZE": bad})


def test_text_that_is_not_python_is_scanned_by_line():
    snippet = "BLOCK_SIZE = 512\nk[g](x, num_warps=4)\nconstexpr int TILE = 32;\nif (x) {"
    assert tunable_values(snippet) == {"BLOCK_SIZE": 512, "num_warps": 4, "TILE": 32}
    assert settings(rewrite(snippet, {"TILE": 64})) == "BLOCK_SIZE=512,num_warps=4,TILE=64"


def _seed_candidates() -> list[Path]:
    return sorted(p for p in KERNELS.glob("*/*.py") if p.name != "task.py" and p.with_suffix(".json").is_file())


@pytest.mark.parametrize("path", _seed_candidates(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_seed_kernels_expose_their_sidecar_tunables(path):
    sidecar = json.loads(path.with_suffix(".json").read_text())
    source = path.read_text()
    found = tunable_values(source)
    for name, value in (sidecar.get("tunables") or {}).items():
        if isinstance(value, int) and not isinstance(value, bool):
            assert found.get(name) == value, f"{name}={value} of the sidecar; found {found}"
    for name, value in found.items():  # every one rewrites in place and back
        other = value * 2
        assert tunable_values(rewrite(source, {name: other}))[name] == other
        assert rewrite(rewrite(source, {name: other}), {name: value}) == source
