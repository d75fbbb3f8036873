"""Structural checks on the curated documents under ``knowledge/docs``.

The ingester chunks these files along their headings, so a broken front matter, a stray
second title, an empty section or an unbalanced fence turns into a bad retrieval unit. The
checks here use only the standard library and markdown-it-py, and read the real files.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

DOCS = Path(__file__).resolve().parents[2] / "knowledge" / "docs"

ALLOWED_KEYS = {"dsl", "backend", "hardware", "topic", "title"}
DSLS = {"triton", "cuda_c", "cpp", "tilelang"}
BACKENDS = {"cuda", "cpu", "ascend"}
HARDWARE = {"h100_h200", "x86_64", "ascend_910b"}
# Folder -> the dsl its pages must declare (None: hardware pages, which declare no dsl).
FOLDER_DSL = {"triton": "triton", "cuda_c": "cuda_c", "cpp": "cpp", "tilelang": "tilelang", "hardware": None}
# A fence longer than this cannot be kept whole inside one embedding window.
MAX_FENCE_LINES = 40
# Prose words in one leaf section; past this a section stops being one retrieval unit.
MAX_SECTION_WORDS = 380
PYTHON_LANGS = {"python", "py"}
C_LANGS = {"c", "cpp", "c++", "cuda", "cu"}
SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass
class Section:
    """One heading with the prose and code that sit directly under it."""

    level: int
    title: str
    line: int
    words: int = 0
    blocks: int = 0
    children: int = 0
    fences: list[tuple[str, str, int]] = field(default_factory=list)


def doc_files() -> list[Path]:
    """Every markdown page of the corpus, sorted for stable test ids."""
    return sorted(DOCS.rglob("*.md"))


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """Return the ``key: value`` pairs between the leading ``---`` lines and the body after them."""
    lines = text.splitlines()
    assert lines and lines[0] == "---", "file must start with a '---' front-matter line"
    try:
        end = lines.index("---", 1)
    except ValueError:
        raise AssertionError("front matter is not closed by a '---' line") from None
    meta: dict[str, str] = {}
    for raw in lines[1:end]:
        key, sep, value = raw.partition(":")
        assert sep and key.strip() and value.strip(), f"front-matter line is not 'key: value': {raw!r}"
        key = key.strip()
        assert key not in meta, f"front-matter key {key!r} repeated"
        meta[key] = value.strip()
    return meta, "\n".join(lines[end + 1 :])


def sections(body: str) -> list[Section]:
    """Walk the markdown tokens and group blocks under the heading that owns them."""
    tokens = MarkdownIt("commonmark").enable("table").parse(body)
    out: list[Section] = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            level = int(tok.tag[1])
            for parent in reversed(out):
                if parent.level < level:
                    parent.children += 1
                    break
            out.append(Section(level, tokens[i + 1].content, (tok.map or [0])[0] + 1))
        elif not out:
            if tok.type in ("paragraph_open", "fence", "bullet_list_open", "table_open"):
                raise AssertionError("content appears before the '#' title")
        elif tok.type == "fence":
            out[-1].blocks += 1
            out[-1].fences.append((tok.info.strip().lower(), tok.content, (tok.map or [0])[0] + 1))
        elif tok.type == "inline" and tokens[i - 1].type != "heading_open":
            out[-1].words += len(tok.content.split())
            if tok.level <= 2:
                out[-1].blocks += 1
        elif tok.type in ("bullet_list_open", "ordered_list_open", "table_open") and tok.level == 0:
            out[-1].blocks += 1
    return out


def strip_c_noise(code: str) -> str:
    """Drop C/C++ comments, string and char literals so braces inside them do not count."""
    code = re.sub(r"/\*.*?\*/", "", code, flags=re.S)
    code = re.sub(r"//[^\n]*", "", code)
    code = re.sub(r'"(\\.|[^"\\\n])*"', '""', code)
    return re.sub(r"'(\\.|[^'\\\n])*'", "''", code)


def balanced(code: str) -> bool:
    """True when (), [] and {} nest properly in ``code``."""
    pairs = {")": "(", "]": "[", "}": "{"}
    stack: list[str] = []
    for ch in code:
        if ch in "([{":
            stack.append(ch)
        elif ch in pairs:
            if not stack or stack.pop() != pairs[ch]:
                return False
    return not stack


FILES = doc_files()
IDS = [str(p.relative_to(DOCS)) for p in FILES]


def test_corpus_covers_every_folder() -> None:
    """The corpus has one folder per DSL plus hardware, and enough pages to be worth retrieving."""
    folders = {p.parent.name for p in FILES}
    assert folders == set(FOLDER_DSL), f"folders {sorted(folders)} != {sorted(FOLDER_DSL)}"
    assert len(FILES) >= 25, f"only {len(FILES)} pages"
    assert not [p for p in FILES if p.parent.parent != DOCS], "pages must sit one folder deep"


def test_topics_unique_within_a_target() -> None:
    """Two pages of one dsl/backend (or hardware) never claim the same topic."""
    seen: dict[tuple[str, str, str], str] = {}
    for path in FILES:
        meta, _ = split_front_matter(path.read_text(encoding="utf-8"))
        key = (meta.get("dsl", ""), meta.get("backend", ""), meta.get("hardware", ""), meta["topic"])
        assert key not in seen, f"{path.name} repeats topic of {seen[key]}"
        seen[key] = path.name


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_front_matter(path: Path) -> None:
    """Keys and values come from the closed vocabulary, and the folder agrees with the dsl."""
    meta, _ = split_front_matter(path.read_text(encoding="utf-8"))
    assert set(meta) <= ALLOWED_KEYS, f"unknown keys {sorted(set(meta) - ALLOWED_KEYS)}"
    assert SNAKE.match(meta.get("topic", "")), "topic must be non-empty snake_case"
    assert meta.get("title"), "title missing"
    assert meta.get("backend") in BACKENDS, f"backend {meta.get('backend')!r} not in {sorted(BACKENDS)}"
    expected = FOLDER_DSL[path.parent.name]
    if expected is None:
        assert "dsl" not in meta, "hardware pages declare no dsl"
        assert meta.get("hardware") in HARDWARE, f"hardware {meta.get('hardware')!r} not in {sorted(HARDWARE)}"
    else:
        assert meta.get("dsl") == expected, f"dsl {meta.get('dsl')!r} but folder {path.parent.name}/"
        assert meta["dsl"] in DSLS
        assert "hardware" not in meta, "DSL pages declare no hardware"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_heading_structure(path: Path) -> None:
    """One '#' title equal to the front-matter title, no skipped levels, no empty or oversized sections."""
    meta, body = split_front_matter(path.read_text(encoding="utf-8"))
    secs = sections(body)
    titles = [s for s in secs if s.level == 1]
    assert len(titles) == 1, f"expected one '#' title, found {len(titles)}"
    assert secs[0].level == 1 and secs[0].title == meta["title"], "first heading must be the front-matter title"
    for prev, cur in zip(secs, secs[1:]):
        assert cur.level <= prev.level + 1, f"line {cur.line}: '{cur.title}' skips a heading level"
    for s in secs:
        assert s.blocks or s.children, f"line {s.line}: section '{s.title}' is empty"
        if not s.children:
            assert s.words <= MAX_SECTION_WORDS, f"line {s.line}: '{s.title}' has {s.words} words"
    assert any(s.level == 2 for s in secs), "a page needs '##' sections"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_code_fences(path: Path) -> None:
    """Fences are closed, short, tagged, and their code at least parses (Python) or nests (C/C++)."""
    text = path.read_text(encoding="utf-8")
    fence_lines = [ln for ln in text.splitlines() if ln.lstrip().startswith("```")]
    assert len(fence_lines) % 2 == 0, "unbalanced ``` fences"
    _, body = split_front_matter(text)
    fences = [f for s in sections(body) for f in s.fences]
    meta, _ = split_front_matter(text)
    if "dsl" in meta:
        assert fences, "a DSL page must show at least one code snippet"
    for lang, code, line in fences:
        assert lang, f"line {line}: fence without a language tag"
        n = len(code.splitlines())
        assert n < MAX_FENCE_LINES, f"line {line}: fence of {n} lines"
        if lang in PYTHON_LANGS:
            try:
                ast.parse(code)
            except SyntaxError as err:
                raise AssertionError(f"line {line}: python fence does not parse: {err}") from None
        elif lang in C_LANGS:
            assert balanced(strip_c_noise(code)), f"line {line}: unbalanced brackets in {lang} fence"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_tables_are_closed(path: Path) -> None:
    """A table ends at a blank line: text glued under it would be swallowed as a table row."""
    lines = path.read_text(encoding="utf-8").splitlines()
    in_fence = False
    for i, line in enumerate(lines[:-1]):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        nxt = lines[i + 1]
        if not in_fence and line.startswith("|") and nxt.strip() and not nxt.startswith("|"):
            raise AssertionError(f"line {i + 2}: text directly under a table; add a blank line")


@pytest.mark.parametrize("path", [p for p in FILES if p.parent.name in ("triton", "tilelang")],
                         ids=[i for i, p in zip(IDS, FILES) if p.parent.name in ("triton", "tilelang")])
def test_python_dsl_pages_show_python(path: Path) -> None:
    """Triton and TileLang pages carry their snippets as Python fences, so the parse check applies."""
    _, body = split_front_matter(path.read_text(encoding="utf-8"))
    langs = {f[0] for s in sections(body) for f in s.fences}
    assert langs & PYTHON_LANGS, f"no python fence (tags: {sorted(langs)})"


def test_checks_reject_broken_pages() -> None:
    """The helpers catch what they are meant to: a bad fence, a lost brace, an empty section."""
    assert not balanced(strip_c_noise("int f() { if (x) { return 1; }"))
    assert balanced(strip_c_noise('int f() { puts("}"); return 0; } // }'))
    with pytest.raises(SyntaxError):
        ast.parse("def f(:\n    pass")
    secs = sections("# T\n\n## Empty\n\n## Full\n\nSome words here.\n")
    assert [(s.title, bool(s.blocks or s.children)) for s in secs] == [("T", True), ("Empty", False), ("Full", True)]
    with pytest.raises(AssertionError):
        split_front_matter("---\ntopic x\n---\n# T\n")
