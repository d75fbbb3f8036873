"""Shared fixtures for the task-analysis tests: the task zoo under tests/analysis/tasks/."""

from __future__ import annotations

from pathlib import Path

import pytest

from akg_rag.analysis import TaskAnalysis, analyze_task

TASKS = Path(__file__).parent / "tasks"


@pytest.fixture(scope="session")
def analysed() -> dict[str, TaskAnalysis]:
    """Every good task of the zoo, analysed once per session, keyed by file stem."""
    return {p.stem: analyze_task(p) for p in sorted(TASKS.glob("*.py"))}
