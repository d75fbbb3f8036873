"""Adapting a retrieved, verified kernel to a new task: the deterministic coder's first move.

A retrieved kernel is a candidate for the task when it computes the same thing (same operator name
or the same canonical computation text); shapes may differ, since kernels read their sizes from the
inputs and the verifier checks the task's own shapes. What must line up is the constructor: the
task's ``Model(...)`` arguments are what the verifier passes to ``ModelNew``. When the signatures
differ, the retrieved class is renamed and a thin ``ModelNew`` subclass with the task's signature
forwards the arguments the kernel takes by name (its other parameters must have defaults); a kernel
that needs an argument the task does not give is skipped for the next hit.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

_RENAMED = "_RetrievedModelNew"


@dataclass
class Param:
    """One constructor parameter (``self`` excluded) and its default's source text, if any."""

    name: str
    default: str | None
    kind: str  # "positional" (positional-or-keyword), "keyword" (keyword-only), "var" (*args/**kw)


@dataclass
class Adapted:
    """A candidate built from a retrieved kernel, and how it was adapted (one line)."""

    code: str
    hit_id: str
    note: str


def init_params(source: str, class_name: str) -> list[Param] | None:
    """Parameters of ``class_name.__init__`` in ``source``; [] without ``__init__``; None if no class."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    return _params(source, item.args)
            return []
    return None


def _params(source: str, args: ast.arguments) -> list[Param]:
    positional = [*args.posonlyargs, *args.args][1:]  # drop self
    n_plain = len(positional) - len(args.defaults)
    out = []
    for i, a in enumerate(positional):
        default = args.defaults[i - n_plain] if i >= n_plain else None
        out.append(Param(a.arg, ast.get_source_segment(source, default) if default else None, "positional"))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out.append(Param(a.arg, ast.get_source_segment(source, d) if d else None, "keyword"))
    for a in (args.vararg, args.kwarg):
        if a is not None:
            out.append(Param(a.arg, None, "var"))
    return out


def matches_task(hit: dict[str, Any], analysis: dict[str, Any]) -> bool:
    """Whether a retrieved kernel computes what the task computes (same op name or computation)."""
    if hit.get("op_name") and hit.get("op_name") == analysis.get("op_name"):
        return True
    norm = lambda text: " ".join(str(text or "").split())  # noqa: E731 - whitespace-insensitive compare
    return bool(hit.get("computation")) and norm(hit.get("computation")) == norm(analysis.get("computation"))


def adapt_kernel(task_source: str, code: str, hit_id: str = "") -> Adapted | str:
    """Fit ``code`` (defining ``ModelNew``) to the task's constructor; a reason string if it cannot."""
    task_params = init_params(task_source, "Model")
    if task_params is None:
        return "the task defines no class Model"
    cand_params = init_params(code, "ModelNew")
    if cand_params is None:
        return "the kernel defines no class ModelNew"
    if _same_signature(task_params, cand_params):
        return Adapted(code, hit_id, "used as retrieved (constructor signatures match)")
    if any(p.kind == "var" for p in task_params):
        return "the task's constructor takes *args/**kwargs; cannot map them"
    given = {p.name for p in task_params}
    takes_var_kw = any(p.kind == "var" for p in cand_params)
    forwarded = [p.name for p in cand_params if p.kind != "var" and p.name in given]
    missing = [p.name for p in cand_params if p.kind != "var" and p.name not in given and p.default is None]
    if missing:
        return f"the kernel's constructor needs {', '.join(missing)}, which the task does not give"
    if takes_var_kw:
        forwarded = sorted(given)  # it accepts anything: hand over every task argument by name
    return Adapted(_wrap(code, task_params, forwarded), hit_id,
                   f"wrapped: task constructor ({', '.join(p.name for p in task_params) or 'no args'}) "
                   f"forwards {', '.join(forwarded) or 'nothing'}")


def _same_signature(a: list[Param], b: list[Param]) -> bool:
    return [(p.name, p.kind) for p in a] == [(p.name, p.kind) for p in b]


def _wrap(code: str, task_params: list[Param], forwarded: list[str]) -> str:
    renamed = re.sub(r"\bModelNew\b", _RENAMED, code)
    sig = []
    keyword_only = False
    for p in task_params:
        if p.kind == "keyword" and not keyword_only:
            sig.append("*")
            keyword_only = True
        sig.append(p.name if p.default is None else f"{p.name}={p.default}")
    params = ", ".join(["self", *sig])
    call = ", ".join(f"{n}={n}" for n in forwarded)
    wrapper = (
        "\n\n# Adapted to the task's constructor: same kernel, the task's arguments forwarded by name.\n"
        f"class ModelNew({_RENAMED}):\n"
        f"    def __init__({params}):\n"
        f"        super().__init__({call})\n"
    )
    return renamed.rstrip() + "\n" + wrapper


def pick_and_adapt(task_source: str, analysis: dict[str, Any], hits: list[dict[str, Any]],
                   tried: list[str]) -> tuple[Adapted | None, list[str]]:
    """The first untried hit that computes the task and fits its constructor, and why others were skipped."""
    skipped: list[str] = []
    for hit in hits:
        if hit["id"] in tried:
            continue
        if not matches_task(hit, analysis):
            skipped.append(f"{hit['id']}: computes {hit.get('op_name')}, not {analysis.get('op_name')}")
            continue
        adapted = adapt_kernel(task_source, hit.get("code", ""), hit["id"])
        if isinstance(adapted, Adapted):
            return adapted, skipped
        skipped.append(f"{hit['id']}: {adapted}")
    return None, skipped
