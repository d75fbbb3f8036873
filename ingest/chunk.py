"""Cutting a markdown body into chunks that fit the embedder's window, along its headings.

Rules, in order of importance:

* every chunk belongs to one heading path ("Triton > Reductions > Row-wise"), which is prefixed to
  the embedded text, so a chunk read alone still says what it is about;
* a chunk never cuts through a block (paragraph, list, table, code fence): blocks of one section
  are packed greedily until the next one would push the chunk past ``target`` tokens (~200);
* the embedded text (prefix included) is measured with the embedder's own tokenizer and never
  exceeds ``limit`` tokens (the model's 256-token window), because the model silently drops
  whatever lies past it.

A single block larger than the window is the one exception to "never cut a block". As a last
resort it is split at its coarsest boundaries first: a code fence at the blank lines inside it
(each piece re-wrapped in the same fence, so it still reads as code of that language), other
blocks at line breaks; only a piece that still does not fit is cut at line breaks, then spaces, then
characters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from markdown_it import MarkdownIt

# Aim for chunks of about this many tokens: well under the 256-token window, so the heading prefix
# and tokenizer differences never push a chunk past it, and small enough to retrieve precisely.
TARGET_TOKENS = 200
# Bumped whenever the chunking rules change, so an unchanged file is re-chunked anyway.
CHUNKER_VERSION = "1"

CountTokens = Callable[[str], int]


@dataclass
class Block:
    """A top-level markdown block as source text; headings carry level and title."""

    kind: str            # "heading", "fence" or "text"
    text: str
    level: int = 0       # heading level 1-6
    title: str = ""      # heading text
    opener: str = ""     # a fence's opening line (e.g. "```python")
    closer: str = ""     # a fence's closing marker (e.g. "```")


def parse_blocks(body: str) -> list[Block]:
    """Split a markdown body into top-level blocks, keeping each block's source lines verbatim."""
    md = MarkdownIt("commonmark").enable("table")
    tokens = md.parse(body)
    lines = body.split("\n")
    blocks: list[Block] = []
    for i, tok in enumerate(tokens):
        if tok.level != 0 or tok.map is None or tok.nesting == -1:
            continue
        start, end = tok.map
        text = "\n".join(line.rstrip() for line in lines[start:end]).strip("\n")
        if tok.type == "heading_open":
            title = tokens[i + 1].content.strip() if i + 1 < len(tokens) else ""
            blocks.append(Block("heading", text, level=int(tok.tag[1:]), title=title))
        elif tok.type == "fence":
            closed = end - start >= 2 and lines[end - 1].strip().startswith(tok.markup)
            blocks.append(Block("fence", text, opener=lines[start].rstrip(), closer=tok.markup if not closed else lines[end - 1].strip()))
        elif text.strip():
            blocks.append(Block("text", text))
    return blocks


def _hard_split(body: str, fits: Callable[[str], bool]) -> list[str]:
    """Cut ``body`` into the longest character prefixes that fit (always at least one character)."""
    pieces = []
    while body:
        lo, hi = 1, len(body)
        while lo < hi:  # largest prefix length that fits, by bisection
            mid = (lo + hi + 1) // 2
            if fits(body[:mid]):
                lo = mid
            else:
                hi = mid - 1
        pieces.append(body[:lo])
        body = body[lo:]
    return pieces


def split_to_fit(
    body: str,
    measure: Callable[[str], int],
    target: int,
    limit: int,
    seps: tuple[str, ...] = ("\n\n", "\n", " "),
) -> list[str]:
    """Split ``body`` at the coarsest separators so each piece measures <= ``limit`` tokens.

    Pieces are packed greedily up to ``target`` tokens; ``measure`` gives the tokens of a piece as
    it will be embedded (prefix and any fence wrapping included).
    """
    if measure(body) <= limit:
        return [body]
    if not seps:
        return _hard_split(body, lambda piece: measure(piece) <= limit)
    sep, finer = seps[0], seps[1:]
    units = [u for u in body.split(sep) if u.strip()]
    if len(units) <= 1:
        return split_to_fit(body, measure, target, limit, finer)
    pieces: list[str] = []
    current: list[str] = []
    for unit in units:
        if measure(unit) > limit:
            if current:
                pieces.append(sep.join(current))
                current = []
            pieces.extend(split_to_fit(unit, measure, target, limit, finer))
        elif current and measure(sep.join([*current, unit])) > target:
            pieces.append(sep.join(current))
            current = [unit]
        else:
            current.append(unit)
    if current:
        pieces.append(sep.join(current))
    return pieces


def _split_block(block: Block, measure: Callable[[str], int], target: int, limit: int) -> list[str]:
    """Pieces of one block too large for a chunk of its own (see the module docstring)."""
    if block.kind != "fence":
        return split_to_fit(block.text, measure, target, limit, ("\n", " "))
    inner = block.text.split("\n")[1:]
    if inner and inner[-1].strip() == block.closer:
        inner = inner[:-1]

    def wrap(code: str) -> str:
        return f"{block.opener}\n{code}\n{block.closer}"

    pieces = split_to_fit("\n".join(inner), lambda code: measure(wrap(code)), target, limit)
    return [wrap(piece) for piece in pieces]


def chunk_markdown(
    body: str,
    title: str,
    count_tokens: CountTokens,
    limit: int,
    target: int = TARGET_TOKENS,
) -> list[tuple[str, str]]:
    """Chunk a markdown body into ``(heading_path, text)`` pairs, in document order.

    ``title`` is the heading path of text that comes before the first heading. Embedded text is
    ``heading_path + "\\n\\n" + text`` and measures at most ``limit`` tokens with ``count_tokens``.
    """
    chunks: list[tuple[str, str]] = []
    stack: list[tuple[int, str]] = []
    path = title
    pending: list[str] = []

    def measure(text: str) -> int:
        return count_tokens(f"{path}\n\n{text}" if path else text)

    def flush() -> None:
        if pending:
            chunks.append((path, "\n\n".join(pending)))
            pending.clear()

    for block in parse_blocks(body):
        if block.kind == "heading":
            flush()
            while stack and stack[-1][0] >= block.level:
                stack.pop()
            stack.append((block.level, block.title))
            path = " > ".join(t for _, t in stack if t) or title
            continue
        if pending and measure("\n\n".join([*pending, block.text])) <= target:
            pending.append(block.text)
            continue
        flush()
        if measure(block.text) <= limit:
            pending.append(block.text)
        else:
            chunks.extend((path, piece) for piece in _split_block(block, measure, target, limit))
    flush()
    return chunks
