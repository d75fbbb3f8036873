"""``verify()``: the parent side of a sandboxed verification.

The parent scans the candidate statically, then starts the judge (``python -P -m
akg_rag.verify.judge``, trusted: reference, comparison, verdict) with a per-verification key on an
inherited pipe, and, once the judge has timed its baselines, the candidate process (``python -P -m
akg_rag.verify.child``) inside the sandbox, with a private working directory and a stripped
environment; the two talk over pipes the parent made. It enforces the wall-clock limit (and, on
GPU, an RSS limit on the candidate), kills both process trees when the judge ends, and trusts only a
verdict sealed with the key. Whatever the child does -- crash, hang, exit early, print fake results -- the caller gets a
:class:`VerifyResult`, never an exception.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from akg_rag.dsl import check_target
from akg_rag.errors import ConfigError, TaskError, VerifierError
from akg_rag.task import read_source
from akg_rag.verify import env as envmod
from akg_rag.verify import figures as task_figures
from akg_rag.verify import process, sandbox
from akg_rag.verify.guards import violation
from akg_rag.verify.options import VerifyOptions
from akg_rag.verify.result import Timings, VerifyResult
from akg_rag.verify.seal import new_key, unseal
from akg_rag.verify.static import scan_source

LOG_TAIL_CHARS = 4000


def _require_cuda() -> None:
    try:
        import torch
    except ImportError as e:
        raise ConfigError(f"torch is not importable ({e}); install torch to verify kernels") from None
    if not torch.cuda.is_available():
        raise ConfigError("no CUDA device: backend 'cuda' needs a GPU; verify on a GPU machine "
                          "(e.g. through an executor) or use --backend cpu (cpp, or triton via the interpreter)")


def verify(task: str | Path, candidate: str | Path | None = None, *, candidate_source: str | None = None,
           dsl: str, backend: str, options: VerifyOptions | dict[str, Any] | None = None) -> VerifyResult:
    """Verify one candidate for one task on one target; see the module docstring.

    Raises ``ConfigError`` for an unknown or unrunnable target and ``TaskError`` for a task that
    does not load or whose reference fails; every candidate failure is a result.
    """
    check_target(dsl, backend)
    if backend == "ascend":
        raise ConfigError("backend 'ascend' is documented knowledge only: no NPU runtime to verify on")
    opts = options if isinstance(options, VerifyOptions) else VerifyOptions.from_dict(options)
    task_path = Path(task)
    task_source = read_source(task_path)
    if candidate_source is None:
        if candidate is None:
            raise ConfigError("verify() needs a candidate path or candidate_source")
        candidate_source = read_source(candidate)
    if backend == "cuda":
        _require_cuda()
    started = time.monotonic()
    base = dict(dsl=dsl, backend=backend, task=str(task_path),
                candidate=str(candidate) if candidate is not None else "<source>")

    static = scan_source(candidate_source, dsl)
    if static.syntax_error:
        return VerifyResult("compile_error", feedback=f"syntax error: {static.syntax_error}", **base)
    if not static.has_model_new:
        return VerifyResult("compile_error", feedback="the candidate defines no class ModelNew", **base)
    if opts.static_guards and static.violations:
        lines = [f"- {v['name']}: {v['detail']}" for v in static.violations]
        return VerifyResult("guard_violation", feedback="static guard violations (nothing was run):\n"
                            + "\n".join(lines), guard_violations=static.violations, **base,
                            wall_s=round(time.monotonic() - started, 3))
    # the roofline's task figures: memoised from an earlier verification of this task, else asked
    # for in the background for the next one (this judge works them out); on a CPU backend nothing
    # runs beside the timings
    figures = None
    if backend == "cuda" and opts.timing:
        figures = task_figures.cached(task_path.name, task_source, opts.scale)
        if figures is None:
            task_figures.prefetch(task_path.name, task_source, opts.scale)
    result = _run_child(task_path, task_source, candidate_source, dsl, backend, opts, base, figures)
    result.wall_s = round(time.monotonic() - started, 3)
    if result.phases:
        # what the judge's steps do not cover: interpreters starting (torch imports), the sandbox,
        # the candidate's module import and builds, clean-up
        result.phases["outside the judge's steps"] = round(max(0.0, result.wall_s - sum(result.phases.values())), 3)
    return result


def _run_child(task_path: Path, task_source: str, candidate_source: str, dsl: str, backend: str,
               opts: VerifyOptions, base: dict[str, Any], figures: dict | None = None) -> VerifyResult:
    memory_mb = opts.memory_mb or envmod.default_memory_mb(backend)
    box = sandbox.choose(gpu=backend == "cuda")
    base = dict(base, isolation=box.describe())
    root = Path(tempfile.mkdtemp(prefix="akg-verify-"))
    claim = contextlib.ExitStack()
    try:
        judge_dir, work = root / "judge", root / "work"
        out_dir = work / "out"
        for d in (judge_dir, work, out_dir, work / "task"):
            d.mkdir()
        (judge_dir / task_path.name).write_text(task_source, encoding="utf-8")
        (work / "task" / task_path.name).write_text(task_source, encoding="utf-8")
        cand_path = work / "candidate.py"
        cand_path.write_text(candidate_source, encoding="utf-8")
        common = {"task_source": task_source, "dsl": dsl, "backend": backend, "options": opts.to_dict(),
                  "memory_mb": memory_mb, "out_dir": str(out_dir)}
        judge_job = dict(common, task_path=str(judge_dir / task_path.name))
        if figures is not None:   # the judge's only: the candidate's job file never carries them
            judge_job["analysis"] = figures
        (judge_dir / "job.json").write_text(json.dumps(judge_job))
        (work / "job.json").write_text(json.dumps(dict(common, task_path=str(work / "task" / task_path.name),
                                                       candidate_path=str(cand_path))))
        cache_dir = opts.cache_dir
        if box.uid is not None:
            # the candidate runs as another user: it may traverse (not list) the root, never read the
            # judge's directory, and builds into a cache of its own user (root's home is closed to it)
            os.chmod(root, 0o711)
            os.chmod(judge_dir, 0o700)
            cache_dir = str(Path(tempfile.gettempdir()) / f"akg-rag-cache-uid{box.uid}")
            Path(cache_dir).mkdir(mode=0o755, exist_ok=True)
            os.chown(cache_dir, box.uid, box.uid)
        ext_dir = envmod.extensions_dir(candidate_source, cache_dir)
        try:
            stale = claim.enter_context(envmod.claim_build_dir(ext_dir, opts.timeout_s))
        except envmod.BuildDirBusy as exc:
            raise VerifierError(str(exc)) from None
        (ext_dir / "triton").mkdir(exist_ok=True)
        env = envmod.child_env(dsl=dsl, backend=backend, extensions_dir=str(ext_dir), scale=opts.scale,
                               cpu_threads=opts.cpu_threads)
        cand_env = dict(env, HOME=str(work), TRITON_CACHE_DIR=str(ext_dir / "triton"))
        box.grant([work, ext_dir])
        j_in, c_out = os.pipe()      # candidate -> judge
        c_in, j_out = os.pipe()      # judge -> candidate
        ready_r, ready_w = os.pipe()
        go_r, go_w = os.pipe()       # parent -> candidate: the judge has timed its baselines
        # the judge's KEY_FD is appended by run_pair
        judge = process.Spawn([sys.executable, "-P", "-m", "akg_rag.verify.judge", str(judge_dir), str(ready_w),
                               str(j_in), str(j_out)], judge_dir, env, judge_dir / "judge.log", (ready_w, j_in, j_out))
        cmd = [sys.executable, "-P", "-m", "akg_rag.verify.child", str(work), str(c_in), str(c_out), str(go_r)]
        cand = process.Spawn(box.command(cmd, writable=[work, ext_dir], cwd=work, gpu=backend == "cuda"),
                             work, cand_env, root / "candidate.log", (c_in, c_out, go_r), box.popen_kwargs())
        key = new_key()
        outcome = process.run_pair(judge, cand, key=key, ready_fd=ready_r, go_fd=go_w,
                                   timeout_s=opts.timeout_s,
                                   rss_limit_mb=memory_mb if backend == "cuda" else None)
        log = _tail(root / "candidate.log")
        if stale:
            log = "removed build locks left by an interrupted build: " + ", ".join(map(str, stale)) + "\n" + log
        judge_log = _tail(judge_dir / "judge.log").strip()
        if judge_log:
            log += "\njudge: " + judge_log[-1500:]
        phase = _read(judge_dir / "phase.txt") or "starting"
        return _interpret(judge_dir, key, outcome, log, phase, opts, memory_mb, task_path, base)
    finally:
        claim.close()
        shutil.rmtree(root, ignore_errors=True)


def _interpret(root: Path, key: bytes, outcome: process.PairOutcome, log: str, phase: str,
               opts: VerifyOptions, memory_mb: int, task_path: Path, base: dict[str, Any]) -> VerifyResult:
    """Turn what the judge and the candidate process left behind into a VerifyResult."""
    if outcome.timed_out:
        return VerifyResult("timeout", feedback=f"did not finish within {opts.timeout_s:g} s (killed while "
                            f"{phase}); look for an infinite loop, a deadlock or a far too slow kernel",
                            log=log, **base)
    if outcome.rss_exceeded:
        return VerifyResult("crashed", feedback=f"exceeded the memory limit of {memory_mb} MB while {phase} "
                            "(killed)", log=log, **base)
    raw = _read(root / "result.json")
    verdict = None
    if raw is not None:
        try:
            verdict = unseal(json.loads(raw), key)
        except ValueError:
            verdict = None
        if verdict is None:
            v = violation("forged_result", "the verdict file does not carry the verifier's seal")
            return VerifyResult("guard_violation", feedback="guard violation: forged_result: the verdict "
                                "was not written by the verifier", guard_violations=[v], log=log, **base)
    if verdict is None:
        raise VerifierError(f"the judge process ended without a verdict (exit status "
                            f"{outcome.judge_returncode}, while {phase}):\n{log[-1500:]}")
    if "task_error" in verdict:
        raise TaskError(task_path, verdict["task_error"])
    if "verifier_error" in verdict:
        raise VerifierError(f"{task_path}: {verdict['verifier_error']}")
    if verdict.get("status") == "candidate_gone":
        return _candidate_gone(outcome.candidate_returncode, phase, log, base)
    return _from_verdict(verdict, log, base)


def _candidate_gone(code: int | None, phase: str, log: str, base: dict[str, Any]) -> VerifyResult:
    """The candidate process ended before the judge was done with it."""
    tail = "\n".join(log.strip().splitlines()[-15:])
    if code is not None and 128 < code < 160:
        code = 128 - code  # bwrap (like a shell) reports a child killed by signal N as 128 + N
    if code == 0:
        v = violation("early_exit", f"the process exited with status 0 while {phase}, before the verdict")
        return VerifyResult("guard_violation", feedback="guard violation: early_exit: the process exited "
                            f"before the verifier wrote its verdict (while {phase})", guard_violations=[v],
                            log=log, **base)
    if code is not None and code < 0:
        name = _signal_name(-code)
        why = {"SIGSEGV": "segmentation fault (out-of-bounds access?)", "SIGABRT": "aborted",
               "SIGBUS": "bus error (misaligned or unmapped access)", "SIGFPE": "arithmetic fault",
               "SIGKILL": "killed (out of memory?)", "SIGILL": "illegal instruction"}.get(name, name)
        feedback = f"crashed while {phase}: {why}"
    else:
        feedback = f"exited with status {code} while {phase} without a verdict"
    return VerifyResult("crashed", feedback=feedback + (f"\n{tail}" if tail else ""), log=log, **base)


def _from_verdict(v: dict[str, Any], log: str, base: dict[str, Any]) -> VerifyResult:
    notes = v.get("notes") or []
    return VerifyResult(
        status=v["status"], feedback=v.get("feedback", ""),
        guard_violations=list(v.get("guard_violations") or []), mismatch=v.get("mismatch"),
        timings=Timings.from_dict(v["timings"]) if v.get("timings") else None,
        review=bool(v.get("review")), partial=bool(v.get("partial")),
        partial_ops=list(v.get("partial_ops") or []), builds=list(v.get("builds") or []),
        profile=list(v.get("profile") or []),
        phases={str(k): float(x) for k, x in (v.get("phases") or {}).items()},
        log=("\n".join(f"note: {n}" for n in notes) + "\n" + log).strip(), **base)


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _tail(path: Path) -> str:
    text = _read(path) or ""
    return text[-LOG_TAIL_CHARS:]
