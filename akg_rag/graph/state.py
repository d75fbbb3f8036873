"""The graph's state: what a generation run knows at each step.

Every value is plain JSON (str, int, float, bool, list, dict, None) so that a SQLite checkpoint
stores and restores it exactly; typed records (``TaskAnalysis``, ``VerifyResult``) are kept as their
``to_dict()`` form and rebuilt where a node needs them.

Fields without a reducer are overwritten by the node that returns them. ``attempts`` and ``events``
accumulate (list concatenation) and ``elapsed_s`` sums, so that a node returns only what it adds.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

Phase = Literal["functional", "optimize"]
"""``functional``: drive a candidate to correctness; ``optimize``: try to beat the best verified time."""

RunStatus = Literal["running", "verified", "no_match", "failed"]
"""Final outcome: a verified kernel, nothing in the knowledge base to adapt, or no verified kernel."""

Route = Literal["coder", "designer", "analyst", "finish"]
"""Where the conductor sends the run next (the closed set ``routing.route_from_conductor`` returns)."""


class Feedback(TypedDict):
    """Targeted feedback the conductor or analyst hands to the next agent."""

    to: Literal["coder", "designer"]
    kind: str  # compile_error, incorrect, sketch_error, runtime_error, no_code, optimize, redesign, ...
    text: str  # what the agent reads in its prompt: compiler excerpt, mismatch, SketchError position


class InputState(TypedDict):
    """What a caller passes to start a run."""

    task_path: str
    """Path of the KernelBench-format task file (``Model``, ``get_inputs``, ``get_init_inputs``)."""
    dsl: str
    """Target DSL: ``triton``, ``cpp``, ``cuda_c`` or ``tilelang``."""
    backend: str
    """Target backend: ``cuda``, ``cpu`` or ``ascend``."""


class State(InputState, total=False):
    """The full state of a generation run (see docs/graph.md for how each node uses it)."""

    analysis: dict[str, Any]
    """``TaskAnalysis.to_dict()`` of the task: op name, types, computation logic, shapes, roofline."""
    kernel_hits: list[dict[str, Any]]
    """Retrieved kernels, best first: id, op_name, score, code, sketch, computation, speedup."""
    doc_hits: list[dict[str, Any]]
    """Retrieved document chunks for the DSL/backend: id, heading, text."""
    retrieval_report: list[dict[str, Any]]
    """Per retrieval stage: name, candidates in and out (explains the hits)."""

    sketch: str
    """Current Unified Sketch text (validated before the coder sees it); "" when none yet."""
    sketch_error: dict[str, Any] | None
    """The last sketch's SketchError as {message, line, column}; None when the sketch validated."""
    designer_rounds: int
    """How many times the designer has run (budget: ``max_designer_rounds``)."""
    plan: list[dict[str, Any]]
    """The lowering's regions, one kernel each: name, kind, sketch (the designer's revision where it
    made one), outputs, revised."""
    revisions: dict[str, str]
    """The designer's accepted sketches per plan kernel (name -> text): the coder lowers them in place
    of the emitted ones. Each one lowered when the designer checked it."""
    implement: Literal["lower", "code"]
    """How a chat-model run turns the design into a candidate: ``lower`` -- the lowering generates it
    from the plan's sketches, no code-writing model call; ``code`` -- the coder model writes it."""
    lowering: dict[str, Any] | None
    """The report of the lowered candidate (kernels, fallbacks, partial, program), None if none was made."""
    library_lowering: dict[str, Any] | None
    """The report of the library candidate (GEMM/conv cores as vendor calls, the tail generated;
    ``library`` names the cores), None when the task has no library form or none was made."""
    lowered: bool
    """The deterministic coder already generated the lowered candidate (the lowering is deterministic)."""

    candidate: str
    """Source of the candidate the verifier checks next or checked last (defines ``ModelNew``)."""
    candidate_origin: str
    """Where the candidate came from: ``llm``, a retrieved kernel id, ``lowered``, ``designed`` (lowered
    from the designer's revised sketches) or ``mutation:<change>``."""
    alternatives: list[dict[str, Any]]
    """Other candidates the verifier checks with ``candidate`` (code, origin, note); the faster
    correct one is kept. The deterministic coder offers a reused and a lowered candidate this way."""
    coder_outcome: Literal["code", "no_code", "no_match", "exhausted"]
    """What the last coder run produced: a candidate, an answer without code, nothing to adapt,
    or no untried variant left (deterministic optimiser)."""
    coder_note: str
    """The coder's message when it produced no candidate (no code block, nothing to adapt)."""
    coder_input: dict[str, Any]
    """What the coder was given for the current candidate: iteration, phase, feedback, kernel/doc ids."""
    tried_hits: list[str]
    """Kernel ids the deterministic coder already adapted (it moves to the next on failure)."""
    tried_variants: list[str]
    """Tunable settings the deterministic optimiser already tried, as ``NAME=value`` strings."""
    iteration: int
    """Coder attempts so far (budget: ``max_iterations``); each one is verified or fed back."""
    failures_on_sketch: int
    """Consecutive failed attempts on the current sketch (``max_failures_per_sketch`` triggers a redesign)."""
    phase: Phase
    """Functional phase until a candidate verifies, then optimisation passes."""
    opt_pass: int
    """Optimisation passes started so far (budget: ``max_opt_passes``)."""
    passes_without_gain: int
    """Consecutive optimisation passes whose best time did not improve by ``min_gain``."""

    last_result: dict[str, Any] | None
    """``VerifyResult.to_dict()`` of the last verification (status, feedback, mismatch, timings)."""
    feedback: Feedback | None
    """Feedback for the next agent, set by the conductor or analyst and read by coder/designer."""
    recommendations: list[str]
    """The analyst's recommendations for the next optimisation pass."""
    last_step: Literal["designer", "coder", "verifier"]
    """The agent whose output the conductor judges next."""
    route: Route
    """The conductor's last decision."""
    best: dict[str, Any] | None
    """Best verified kernel so far: code, sketch, timings, iteration, origin."""

    status: RunStatus
    """``running`` until the ``finish`` node sets the outcome."""
    message: str
    """One line explaining the outcome (budget exhausted, no match, verified with speedup ...)."""
    written_back: list[str]
    """Kernel record ids written to the knowledge base by this run."""

    attempts: Annotated[list[dict[str, Any]], operator.add]
    """One record per verified candidate: iteration, phase, feedback received, status, timings, ids."""
    events: Annotated[list[dict[str, Any]], operator.add]
    """One record per node execution: node, status, route, detail (drives progress and the report)."""
    elapsed_s: Annotated[float, operator.add]
    """Wall-clock seconds spent inside nodes, summed (budget: ``max_wall_s``; survives resume)."""
