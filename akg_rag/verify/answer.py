"""Checking the candidate process's answer to ``run`` or ``attribute`` against the reference.

The answer describes each output (dtype, shape, file name); the bytes are in files the candidate
process wrote to the shared output directory. Every description is validated (a malformed one is a
:class:`~akg_rag.verify.channel.ProtocolError`, which the judge turns into ``forged_result``), each
file is opened through :class:`~akg_rag.verify.channel.TensorFile` (regular, no link, exactly the
size the reference's output implies), compared chunk by chunk on the reference's device, and deleted.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

import torch

from akg_rag.verify.channel import ProtocolError, TensorFile, parse_dtype
from akg_rag.verify.compare import as_tensor_list, check_meta, compare_chunks
from akg_rag.verify.reference import TaskProblem

Step = Callable[[str, Callable[[], Any]], Any]   # Reference.step: runs a judge step, classifying failures


def compare_answer(expected: Any, answer: dict[str, Any], s: int, out_dir: Path, atol: float | None,
                   rtol: float | None, step: Step) -> dict[str, Any] | None:
    """The first mismatch between the reference output of input set ``s`` and the candidate's
    files for it, as a mismatch record; None when they agree."""
    exp = as_tensor_list(expected)
    if exp is None:
        raise TaskProblem(f"the reference returned {type(expected).__name__}, not tensors")
    sets = answer.get("sets")
    got = sets[s] if isinstance(sets, list) and s < len(sets) and isinstance(sets[s], dict) else {}
    if "structure" in got or not isinstance(got.get("tensors"), list):
        what = got.get("structure", "nothing")
        return {"reason": "structure", "detail": f"candidate returned {what}, expected "
                f"{'a tensor' if len(exp) == 1 else f'{len(exp)} tensors'}"}
    act = got["tensors"]
    if len(act) != len(exp):
        return {"reason": "structure", "detail": f"candidate returned {len(act)} tensors, expected {len(exp)}"}
    for i, (e, desc) in enumerate(zip(exp, act)):
        m = _compare_one(e, desc if isinstance(desc, dict) else {}, out_dir, atol, rtol, step)
        if m is not None:
            m["output"] = i
            return m
    return None


def _compare_one(e: torch.Tensor, desc: dict[str, Any], out_dir: Path, atol: float | None, rtol: float | None,
                 step: Step) -> dict[str, Any] | None:
    dtype = parse_dtype(desc.get("dtype"))
    shape = desc.get("shape")
    if dtype is None or not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
        raise ProtocolError(f"bad output description {str(desc)[:200]}")
    meta = check_meta(e, tuple(shape), dtype)
    if meta is not None:
        return meta
    f = TensorFile(out_dir, desc.get("file"), dtype, e.numel())
    try:
        return step("comparing outputs", lambda: compare_chunks(e, f.read, atol, rtol))
    finally:
        f.close()
        _unlink(out_dir / str(desc.get("file")))


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
