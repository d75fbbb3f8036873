"""Front matter parsing and document labels from front matter or folders."""

from __future__ import annotations

import pytest

from ingest.markdown import doc_labels, split_front_matter
from ingest.textfile import Rejected


def test_front_matter_subset():
    text = "---\n# comment\ndsl: triton\ntitle: \"Reductions: row-wise\"\ntags: [a, 'b c']\n---\n# Body\n"
    doc = split_front_matter(text, "x.md")
    assert doc.front == {"dsl": "triton", "title": "Reductions: row-wise", "tags": ["a", "b c"]}
    assert doc.body == "# Body\n"


def test_no_front_matter_keeps_body():
    assert split_front_matter("# Title\n---\n", "x.md").body == "# Title\n---\n"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("---\ndsl: triton\n# Body\n", "no closing '---'"),
        ("---\ndls: triton\n---\n", "unknown front matter key 'dls' at line 2; allowed:"),
        ("---\ndsl: triton\ndsl: cpp\n---\n", "duplicate front matter key 'dsl' at line 3"),
        ("---\njust words\n---\n", "malformed front matter at line 2"),
        ("---\ntopic:\n---\n", "empty value for front matter key 'topic'"),
        ("---\ndsl: [a, b]\n---\n", "takes one value"),
    ],
)
def test_malformed_front_matter(text, reason):
    with pytest.raises(Rejected) as info:
        split_front_matter(text, "docs/x.md")
    assert info.value.path == "docs/x.md" and reason in info.value.reason


def labels(front: str, rel: str):
    text = f"---\n{front}\n---\nbody\n" if front else "body\n"
    return doc_labels(split_front_matter(text, rel), rel, rel)


def test_labels_from_folders():
    triton = labels("", "knowledge/docs/triton/reductions.md")
    assert (triton.dsl, triton.backend, triton.topic, triton.hardware) == ("triton", "cuda", "reductions", None)
    cpp = labels("", "knowledge/docs/cpp/simd_loops.md")
    assert (cpp.dsl, cpp.backend, cpp.title) == ("cpp", "cpu", "simd loops")
    ascend = labels("", "knowledge/docs/triton/ascend/cube_units.md")
    assert (ascend.dsl, ascend.backend) == ("triton", "ascend")
    hw = labels("", "knowledge/docs/hardware/h200.md")
    assert (hw.dsl, hw.backend, hw.hardware) == (None, None, "h200")


def test_front_matter_overrides_folders():
    got = labels("dsl: tilelang\ntopic: pipelining\nhardware: H200\ntitle: TileLang pipelines", "k/docs/triton/x.md")
    assert (got.dsl, got.backend, got.topic, got.hardware, got.title) == (
        "tilelang", "cuda", "pipelining", "H200", "TileLang pipelines")


@pytest.mark.parametrize(
    ("front", "reason"),
    [("dsl: fortran", "unknown dsl 'fortran'"), ("backend: tpu", "unknown backend 'tpu'"),
     ("dsl: cpp\nbackend: cuda", "unknown target cpp/cuda")],
)
def test_bad_labels(front, reason):
    with pytest.raises(Rejected, match=reason):
        labels(front, "k/docs/x.md")
