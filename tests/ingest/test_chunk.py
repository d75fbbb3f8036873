"""Chunking along headings with the real tokenizer: fences whole, heading paths, token limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.chunk import TARGET_TOKENS, chunk_markdown, parse_blocks
from ingest.markdown import split_front_matter

REPO = Path(__file__).resolve().parents[2]


def chunks_of(body, embedder, title="Doc"):
    return chunk_markdown(body, title, embedder.count_tokens, embedder.max_tokens)


def embedded(heading, text):
    return f"{heading}\n\n{text}"


def fence(name: str, lines: int) -> str:
    body = "\n".join(f"    acc_{name}_{i} = tl.sum(tl.load(ptr + {i}), axis=0)" for i in range(lines))
    return f"```python\n{body}\n```"


def test_heading_paths_and_preamble(embedder):
    body = "Intro before any heading.\n\n# Triton\n\nTop.\n\n## Reductions\n\n### Row-wise\n\nRows.\n\n## Scans\n\nScan text.\n"
    got = chunks_of(body, embedder, title="Triton guide")
    assert got == [
        ("Triton guide", "Intro before any heading."),
        ("Triton", "Top."),
        ("Triton > Reductions > Row-wise", "Rows."),
        ("Triton > Scans", "Scan text."),
    ]


def test_fences_are_never_split(embedder):
    # Many medium fences and paragraphs in one section: packing must move whole fences.
    parts = []
    for k in range(12):
        parts.append(f"Paragraph {k} explains the next kernel fragment in a sentence or two of prose.")
        parts.append(fence(f"f{k}", 6))
    body = "# Kernels\n\n" + "\n\n".join(parts) + "\n"
    got = chunks_of(body, embedder)
    assert len(got) > 1
    for k in range(12):
        holders = [text for _, text in got if f"acc_f{k}_0 " in text]
        assert len(holders) == 1
        assert fence(f"f{k}", 6) in holders[0]  # the whole fence, opener to closer
    for heading, text in got:
        assert text.count("```") % 2 == 0
        assert embedder.count_tokens(embedded(heading, text)) <= TARGET_TOKENS or text.count("```") == 2


def test_oversized_fence_splits_at_blank_lines_into_valid_fences(embedder):
    groups = [fence(f"g{k}", 5).split("\n")[1:-1] for k in range(20)]
    code = "\n\n".join("\n".join(g) for g in groups)
    body = f"# Big\n\n```python\n{code}\n```\n"
    got = chunks_of(body, embedder)
    assert len(got) > 1
    rebuilt = []
    for heading, text in got:
        assert heading == "Big"
        assert text.startswith("```python\n") and text.endswith("\n```")
        assert embedder.count_tokens(embedded(heading, text)) <= embedder.max_tokens
        inner = text[len("```python\n"):-len("\n```")]
        assert not inner.startswith("\n") and not inner.endswith("\n")
        rebuilt.append(inner)
    assert "\n\n".join(rebuilt) == code  # cut only at blank lines, nothing lost or reordered


def test_fence_without_blank_lines_still_fits(embedder):
    body = "# Dense\n\n" + fence("d", 120) + "\n"
    got = chunks_of(body, embedder)
    assert len(got) > 1
    for heading, text in got:
        assert text.startswith("```python") and text.endswith("```")
        assert embedder.count_tokens(embedded(heading, text)) <= embedder.max_tokens


def test_huge_paragraph_and_single_long_word(embedder):
    prose = " ".join(f"sentence{i} about tiles and warps." for i in range(300))
    blob = "x" * 5000  # no spaces or newlines: cut by characters as the very last resort
    got = chunks_of(f"# Long\n\n{prose}\n\n{blob}\n", embedder)
    for heading, text in got:
        assert embedder.count_tokens(embedded(heading, text)) <= embedder.max_tokens
    assert "".join(t for _, t in got if t.startswith("x")) == blob


def test_tables_and_lists_stay_blocks():
    body = "# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- one\n- two\n"
    kinds = [(b.kind, b.text) for b in parse_blocks(body)]
    assert kinds == [("heading", "# T"), ("text", "| a | b |\n|---|---|\n| 1 | 2 |"), ("text", "- one\n- two")]


@pytest.mark.parametrize("path", sorted((REPO / "knowledge" / "docs").rglob("*.md")), ids=lambda p: p.name)
def test_project_docs_respect_the_window(path, embedder):
    doc = split_front_matter(path.read_text(encoding="utf-8"), path)
    got = chunks_of(doc.body, embedder, title=path.stem)
    assert got
    for heading, text in got:
        assert embedder.count_tokens(embedded(heading, text)) <= embedder.max_tokens, (heading, text[:80])
        assert text.count("```") % 2 == 0 or text.count("~~~") % 2 == 0
