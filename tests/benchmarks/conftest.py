"""Shared by the benchmark-script tests: the scripts under benchmarks/ imported by path."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    """Import ``benchmarks/<name>.py`` as module ``bench_<name>``. The scripts are not a package and
    import their siblings (figures, shrink_rules), so the folder goes on ``sys.path``."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def load_bench():
    """``load_bench("kernelbench")`` -> the module of benchmarks/kernelbench.py."""
    return _load
