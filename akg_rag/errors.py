"""Typed errors for misconfiguration and bad input.

Two kinds of failure are kept apart on purpose:

* a *model mistake* -- a candidate that does not compile, computes the wrong numbers, or an LLM
  answer that does not parse -- is data: it is stored in results and state and fed back;
* *our* misconfiguration or unusable input -- a missing package, an unreachable store, a task file
  without ``Model`` -- raises an :class:`AkgError` subclass early, with the fix in the message.
"""

from __future__ import annotations


class AkgError(Exception):
    """Base class of every error akg-rag raises on purpose."""


class ConfigError(AkgError):
    """A setting, flag or optional dependency is wrong or missing."""


class TaskError(AkgError):
    """A task file cannot be loaded or analysed (import error, no ``Model``, ``get_inputs`` raised)."""

    def __init__(self, path: object, problem: str):
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


class VerifierError(AkgError):
    """The verifier itself failed: one of its own steps (say, out of GPU memory while computing the
    reference or comparing outputs), not the candidate under test."""


class MetadataError(AkgError):
    """A kernel metadata sidecar is missing or invalid."""

    def __init__(self, path: object, problem: str):
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


class StoreError(AkgError):
    """The knowledge store cannot be opened or reached."""


class SketchError(AkgError):
    """A Unified Sketch does not parse or does not validate; carries 1-based line and column."""

    def __init__(self, message: str, line: int = 0, column: int = 0):
        self.message = message
        self.line = line
        self.column = column
        where = f"line {line}, column {column}: " if line else ""
        super().__init__(f"{where}{message}")
