"""The guard vocabulary: every rule a candidate can break, by name, with what it means.

Static checks (:mod:`akg_rag.verify.static`) and run-time hooks (:mod:`akg_rag.verify.hooks`)
report violations under these names, so feedback, tests and docs agree on one list.
"""

from __future__ import annotations

GUARDS: dict[str, str] = {
    "no_kernel": "no kernel of the declared DSL is defined and launched (static) or ran (run time)",
    "try_fallback": "a try/except handler falls back to torch ops or the reference model",
    "reference_call": "the candidate uses the task's reference Model or imports the task module",
    "torch_fallback": "torch computes the result: the candidate's torch ops cover every compute op of the "
                      "reference, or the output still matches with every kernel launch skipped",
    "no_work": "every kernel the candidate launches only copies, fills or leaves its data unchanged "
               "(identity or copy kernels decorating torch's work)",
    "spawn": "threads, processes or signals to other processes",
    "side_stream": "work on a CUDA stream other than the current one (escapes the timing events)",
    "patched_timer": "timers or synchronisation were replaced (time.*, torch.cuda.Event/synchronize)",
    "monkeypatch": "torch, builtins, the verifier or another module's attributes were replaced",
    "introspection": "frame, globals, garbage-collector or process-memory introspection",
    "dynamic_code": "eval/exec/compile/__import__/importlib/pickle: code the scan cannot see",
    "file_access": "opening, writing or removing files, or the network (kernels need neither)",
    "early_exit": "the process exited (os._exit, sys.exit) before the verifier wrote its verdict",
    "forged_result": "the verdict file was written by something other than the verifier, or the "
                     "candidate process answered the judge outside the protocol",
    "timing_mismatch": "the candidate's reported times disagree with the judge's wall clock of the timed "
                       "loop, or beat the device's peak bandwidth",
    "cached_output": "outputs reused across calls, correct only on the inputs seen before timing, or timed "
                     "on answers kept from earlier calls",
    "inputs_modified": "the candidate changed its inputs in place (the reference does not)",
    "foreign_output": "an output is a tensor subclass, not a plain torch.Tensor: a subclass can compute "
                      "its values when they are read, outside the forward and its timing",
}


def violation(name: str, detail: str) -> dict[str, str]:
    """A violation record ``{name, detail}``; ``name`` must be one of :data:`GUARDS`."""
    if name not in GUARDS:
        raise ValueError(f"unknown guard {name!r}; known: {', '.join(GUARDS)}")
    return {"name": name, "detail": detail}


def dedupe(violations: list[dict[str, str]]) -> list[dict[str, str]]:
    """Drop repeated (name, detail) pairs, keeping first-seen order."""
    seen: set[tuple[str, str]] = set()
    out = []
    for v in violations:
        key = (v["name"], v["detail"])
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out
