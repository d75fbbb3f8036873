"""Pulling code and sketches out of chat-model answers.

Models wrap code in Markdown fences, sometimes several (an explanation snippet, then the file). A
missing block is not an exception: the caller records it as a model mistake and feeds it back.
A designer revising the lowering's plan answers with one block per kernel, tagged with the
kernel's name (```sketch k0); :func:`plan_sketches` sorts such an answer by kernel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# ```lang info\n ... ``` ; the language tag and the info after it (```sketch k0) are optional, and
# the closing fence may be missing at the end.
_FENCE = re.compile(r"```[ \t]*([\w+.-]*)([^\n]*)\n(.*?)(?:\n```|\Z)", re.DOTALL)


def fenced_blocks(text: str) -> list[tuple[str, str, str]]:
    """Every fenced block of ``text`` as (language tag, the rest of the opening line, body), in order."""
    return [(m.group(1).lower(), m.group(2).strip(), m.group(3).strip("\n")) for m in _FENCE.finditer(text or "")]


def code_blocks(text: str) -> list[tuple[str, str]]:
    """Every fenced block of ``text`` as (language tag, body), in order."""
    return [(lang, body) for lang, _, body in fenced_blocks(text)]


def extract_candidate(text: str) -> str | None:
    """The candidate source in an answer: the last fenced block defining ``ModelNew``.

    Falls back to the whole answer when it is bare Python defining ``ModelNew``; None when there is
    nothing that could be a candidate.
    """
    blocks = [body for _, body in code_blocks(text) if "class ModelNew" in body]
    if blocks:
        return blocks[-1].strip() + "\n"
    if "```" not in (text or "") and "class ModelNew" in (text or ""):
        return text.strip() + "\n"
    return None


def extract_sketch(text: str) -> str | None:
    """The Unified Sketch in an answer: a ```sketch block, else any block starting with ``sketch``."""
    blocks = code_blocks(text)
    for lang, body in reversed(blocks):
        if lang == "sketch":
            return body.strip() + "\n"
    for _, body in reversed(blocks):
        if body.lstrip().startswith("sketch "):
            return body.strip() + "\n"
    stripped = (text or "").strip()
    if stripped.startswith("sketch ") and "```" not in stripped:
        return stripped + "\n"
    return None


# The name in a sketch's own header line: ``sketch k0 {``.
_HEADER = re.compile(r"\A\s*sketch\s+([A-Za-z_]\w*)")
_NAME = re.compile(r"[A-Za-z_]\w*")


@dataclass
class SketchAnswer:
    """The sketches of a designer's answer, sorted by the plan kernel each one is for."""

    kernels: dict[str, str] = field(default_factory=dict)  # plan kernel -> sketch (the last block wins)
    unknown: list[str] = field(default_factory=list)       # fence tags naming no kernel of the plan
    free: list[str] = field(default_factory=list)          # blocks naming no kernel: a design to write as code


def plan_sketches(text: str, names: list[str]) -> SketchAnswer:
    """Sort the sketch blocks of ``text`` by kernel: the fence's tag (```sketch k0) names the kernel,
    else the sketch's own header (``sketch k0 {``) when it is one of ``names``; any other sketch is
    ``free``. A bare answer (no fence) that is one sketch counts as one block."""
    answer = SketchAnswer()
    blocks = fenced_blocks(text)
    if not blocks and (text or "").strip().startswith("sketch "):
        blocks = [("sketch", "", text.strip())]
    for lang, info, body in blocks:
        if lang != "sketch" and not body.lstrip().startswith("sketch "):
            continue
        tag = _NAME.match(info) if lang == "sketch" else None
        header = _HEADER.match(body)
        sketch = body.strip() + "\n"
        if tag and tag.group(0) not in names:
            answer.unknown.append(tag.group(0))
        elif tag or (header and header.group(1) in names):
            answer.kernels[tag.group(0) if tag else header.group(1)] = sketch  # type: ignore[union-attr]
        else:
            answer.free.append(sketch)
    return answer
