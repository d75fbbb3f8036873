"""The search's rewrite hook with a chat model: the analyst reads a kernel's verdict, the coder rewrites it.

:func:`akg_rag.search.run_search` calls ``rewrite(source, feedback) -> source | None`` for a share of
the children it makes (``rewrite_share``). :class:`AnalystRewrite` answers in two model calls, the
same prompts the graph's ``analyst`` and ``coder`` nodes use:

1. analyst -- the kernel, the search's verdict on it (status, speedup, tunables, verifier feedback)
   and the rule-based findings (roofline position from the task analysis, tunables, DSL advice)
   go into the analyst prompt; its ``- `` lines are the recommendations (the rules when it has none);
2. coder -- the task, the kernel and those recommendations go into the coder prompt; the answer's
   ``ModelNew`` block is the child. An answer without one gives None, and the search falls back to a
   tunable mutation for that child.

The search verifies every child, so a wrong rewrite costs one verification, never a wrong result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from akg_rag.graph import prompts
from akg_rag.graph.analyst import _bullets, findings
from akg_rag.graph.extract import extract_candidate
from akg_rag.task import read_source


class AnalystRewrite:
    """A ``rewrite(source, feedback)`` hook for the island search, steered by the analyst."""

    def __init__(self, model: Any, task: str | Path, dsl: str, backend: str) -> None:
        from akg_rag.analysis import analyze_task

        self.model = model
        self.dsl, self.backend = dsl, backend
        self.task_source = read_source(Path(task))
        self.analysis = analyze_task(task).to_dict()
        self.calls: list[dict[str, Any]] = []  # per rewrite: recommendations and whether code came back

    def _ask(self, prompt: str) -> str:
        answer = self.model.invoke([SystemMessage(prompts.SYSTEM), HumanMessage(prompt)])
        return str(answer.content)

    def recommendations(self, source: str, feedback: str) -> list[str]:
        """The analyst's recommendations for ``source`` (the rule-based findings if it gives none)."""
        rules = findings(self.analysis, None, source, self.dsl)
        prompt = prompts.ANALYST.format(dsl=self.dsl, backend=self.backend, code=source.strip(),
                                        measurements=feedback.strip() or "(none)",
                                        findings="\n".join(f"- {f}" for f in rules))
        return _bullets(self._ask(prompt)) or rules

    def __call__(self, source: str, feedback: str) -> str | None:
        """A rewritten candidate of ``source``, or None when the model gave no ``ModelNew`` block."""
        recs = self.recommendations(source, feedback)
        current = (f"\n## Current kernel ({feedback.splitlines()[0] if feedback else 'not verified'}): "
                   f"make it faster\n```python\n{source.strip()}\n```\n"
                   "\n## Analyst recommendations\n" + "\n".join(f"- {r}" for r in recs) + "\n")
        prompt = prompts.CODER.format(
            dsl=self.dsl, backend=self.backend, dsl_rules=prompts.DSL_RULES.get(self.dsl, ""),
            task_source=self.task_source.strip(), sketch="(none: rewrite the current kernel)",
            context="(the current kernel below)", current=current, feedback="")
        code = extract_candidate(self._ask(prompt))
        self.calls.append({"recommendations": recs, "code": code is not None})
        return code
