"""Pulling code and sketches out of chat-model answers.

Models wrap code in Markdown fences, sometimes several (an explanation snippet, then the file). A
missing block is not an exception: the caller records it as a model mistake and feeds it back.
"""

from __future__ import annotations

import re

# ```lang\n ... ``` ; the language tag is optional and the closing fence may be missing at the end.
_FENCE = re.compile(r"```[ \t]*([\w+.-]*)[^\n]*\n(.*?)(?:\n```|\Z)", re.DOTALL)


def code_blocks(text: str) -> list[tuple[str, str]]:
    """Every fenced block of ``text`` as (language tag, body), in order."""
    return [(m.group(1).lower(), m.group(2).strip("\n")) for m in _FENCE.finditer(text or "")]


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
