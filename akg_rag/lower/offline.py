"""Compile a Triton candidate's kernels for an NVIDIA GPU on a machine without one.

``python -m akg_rag.lower.offline TASK CANDIDATE [--arch 90] [--json]`` runs the candidate's
``forward`` on *meta* tensors of the task's full shapes (nothing is allocated, no kernel runs),
records every kernel launch with the arguments Triton would specialise on (integers equal to 1,
multiples of 16, 16-byte aligned pointers), compiles each launch for ``sm_<arch>`` exactly as the
launch would, and reports per launch: grid, warps, stages, registers and spill bytes (``ptxas
-v``), the loads (how many, how many vectorised, the thread layout of each tile) and the PTX
instruction count (``benchmarks/offline_diff.py`` compares two candidate trees by these), the
machine code's instruction and load counts (``nvdisasm`` of the cubin: ptxas merges loads two
accesses share, and splits unaligned ones, so these are the loads a thread really issues), and
how many programs a multiprocessor holds at once with what limits them (registers, shared
memory, warps, blocks), and the waves the grid makes of them.

What it tells before any GPU time is spent: a kernel that spills at its default tunables, a tile
whose warps walk a strided dim, a load that could be vectorised and is not, a launch that needs
more shared memory than the architecture gives a block (reported as an error: it would fail to
launch there). What it cannot tell: speed. Needs Triton with its NVIDIA backend (the wheel
bundles ptxas); ``TRITON_INTERPRET`` must be unset (the interpreter replaces the compiler).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# shared memory one block may use, bytes (opt-in maximum): sm_80 163 KiB, sm_89 99 KiB, sm_90 227 KiB
SHARED_LIMIT = {80: 166912, 86: 101376, 89: 101376, 90: 232448}


@dataclass(frozen=True)
class SMLimits:
    """What one multiprocessor holds at once (CUDA's occupancy rules for the architecture)."""

    warps: int                # resident warps
    blocks: int               # resident blocks (programs)
    shared: int               # shared memory, bytes, over all its blocks
    registers: int = 65536    # 32-bit registers, in four equal sub-partitions (a warp lives in one)
    reserved_shared: int = 1024   # shared memory the system keeps per block


SM_LIMITS = {80: SMLimits(64, 32, 167936), 86: SMLimits(48, 16, 102400), 89: SMLimits(48, 24, 102400),
             90: SMLimits(64, 32, 233472)}
# multiprocessors of the usual part of each architecture (waves are counted against these; --sms overrides)
SM_COUNT = {80: 108, 90: 132}


def residency(arch: int, num_warps: int, registers: int, shared_bytes: int) -> tuple[int, str]:
    """(programs one multiprocessor runs at once, the resource that limits them) for a kernel of
    ``num_warps`` warps, ``registers`` a thread and ``shared_bytes`` of shared memory a program:
    the least of the warp, block, register and shared-memory limits. Registers are allocated per
    warp in units of 256 and a warp's registers come from one of four sub-partitions. (0, "")
    for an architecture without a table."""
    lim = SM_LIMITS.get(arch)
    if lim is None or num_warps < 1:
        return 0, ""
    bounds = {"warps": lim.warps // num_warps, "blocks": lim.blocks}
    if registers:
        per_warp = -(-registers * 32 // 256) * 256
        bounds["registers"] = 4 * (lim.registers // 4 // per_warp) // num_warps
    if shared_bytes:
        bounds["shared memory"] = lim.shared // (shared_bytes + lim.reserved_shared)
    limit = min(bounds, key=bounds.get)   # on a tie the first named: a cap, not a cost
    return bounds[limit], limit


DTYPES = {"float32": "*fp32", "float16": "*fp16", "bfloat16": "*bf16", "float64": "*fp64",
          "int64": "*i64", "int32": "*i32", "int16": "*i16", "int8": "*i8", "uint8": "*u8", "bool": "*i1"}


@dataclass
class LaunchReport:
    """One recorded launch, compiled."""

    kernel: str
    grid: list[int]
    num_warps: int
    num_stages: int
    registers: int = 0
    spill_bytes: int = 0
    loads: int = 0                  # global loads in the PTX (ld.global and cp.async)
    vector_loads: int = 0           # of which 8 or 16 bytes wide (.v2 / .v4, cp.async of 8 / 16)
    load_layouts: list[str] = field(default_factory=list)   # TTGIR layout of each tile load
    mma: int = 0                    # tensor-core instructions in the PTX (wgmma, mma.sync)
    instructions: int = 0           # PTX instructions (statements; not directives, labels or comments)
    shared_bytes: int = 0           # shared memory one program needs (Triton's pipeline buffers and scratch)
    programs_per_sm: int = 0        # programs one multiprocessor runs at once (:func:`residency`)
    occupancy_limit: str = ""       # what bounds them: warps, blocks, registers or shared memory
    waves: float = 0.0              # grid programs over programs_per_sm x multiprocessors (0: count unknown)
    sass_instructions: int = 0      # machine instructions (nvdisasm of the cubin; 0 where it is not bundled)
    sass_loads: int = 0             # global load instructions (LDG; LDGSTS, the asynchronous copies) in the machine code ...
    sass_vector_loads: int = 0      # ... of which 8 or 16 bytes a thread
    sass_shared: int = 0            # shared-memory loads and stores (LDS, STS, LDSM)
    error: str = ""


@dataclass
class _Launch:
    fn: Any
    bound: dict[str, Any]
    grid: list[int]
    options: dict[str, int]


def _capture(task: Path, candidate: Path) -> list[_Launch]:
    """Run ``ModelNew`` of ``candidate`` on meta inputs of ``task``; the launches it makes."""
    import torch
    import triton.runtime.jit as jit

    if os.environ.get("TRITON_INTERPRET") == "1":
        raise RuntimeError("TRITON_INTERPRET=1 replaces the compiler: unset it to compile offline")
    task_mod, cand_mod = _load(task, "_offline_task"), _load(candidate, "_offline_candidate")
    launches: list[_Launch] = []

    def record(self, *args, grid, warmup, **kwargs):  # noqa: ARG001 - JITFunction.run's signature
        names = [p.name for p in self.params]
        bound = dict(zip(names, args))
        options = {k: kwargs.pop(k) for k in ("num_warps", "num_stages") if k in kwargs}
        bound.update(kwargs)
        if callable(grid):
            grid = grid(bound)
        launches.append(_Launch(self, bound, [int(g) for g in grid], options))

    real = jit.JITFunction.run
    jit.JITFunction.run = record
    try:
        with torch.device("meta"), torch.no_grad():
            inputs = task_mod.get_inputs()
            init = task_mod.get_init_inputs() if hasattr(task_mod, "get_init_inputs") else []
            model = cand_mod.ModelNew(*init)
            model(*inputs)
    finally:
        jit.JITFunction.run = real
    return launches


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _signature(launch: _Launch) -> tuple[dict, dict, dict]:
    """Triton's view of the launch: (signature, constexprs, attrs), specialised as at run time."""
    import torch

    sig, consts, attrs = {}, {}, {}
    for i, p in enumerate(launch.fn.params):
        v = launch.bound.get(p.name, p.default if hasattr(p, "default") else None)
        if p.is_constexpr:
            sig[p.name], consts[p.name] = "constexpr", v
        elif isinstance(v, torch.Tensor):
            sig[p.name] = DTYPES.get(str(v.dtype).removeprefix("torch."), "*fp32")
            attrs[(i,)] = [["tt.divisibility", 16]]   # torch's allocations are 16-byte aligned
        elif isinstance(v, bool) or v is None:
            sig[p.name], consts[p.name] = "constexpr", v
        elif isinstance(v, int) and getattr(p, "do_not_specialize", False):
            sig[p.name] = "i32" if -2**31 <= v < 2**31 else "i64"   # no value or divisibility known
        elif isinstance(v, int):
            if v == 1:
                sig[p.name], consts[p.name] = "constexpr", 1
            else:
                sig[p.name] = "i32" if -2**31 <= v < 2**31 else "i64"
                if v % 16 == 0:
                    attrs[(i,)] = [["tt.divisibility", 16]]
        elif isinstance(v, float):
            sig[p.name] = "fp32"
        else:
            raise TypeError(f"argument {p.name} of {launch.fn.__name__}: {type(v).__name__} is not handled")
    return sig, consts, attrs


def _compile(launch: _Launch, arch: int, sms: int = 0) -> LaunchReport:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    rep = LaunchReport(launch.fn.__name__, launch.grid, launch.options.get("num_warps", 4),
                       launch.options.get("num_stages", 3))
    try:
        sig, consts, attrs = _signature(launch)
        compiled = triton.compile(ASTSource(fn=launch.fn, signature=sig, constexprs=consts, attrs=attrs),
                                  target=GPUTarget("cuda", arch, 32),
                                  options={"num_warps": rep.num_warps, "num_stages": rep.num_stages})
    except Exception as e:  # noqa: BLE001 - reported per launch
        rep.error = f"{type(e).__name__}: {str(e).strip().splitlines()[-1] if str(e).strip() else ''}"[:500]
        return rep
    ptx, ttgir = compiled.asm["ptx"], compiled.asm["ttgir"]
    # plain loads, and the asynchronous copies of pipelined loops (16 or 8 bytes: vectorised)
    rep.loads = len(re.findall(r"\bld\.global\b", ptx)) + len(re.findall(r"\bcp\.async\.c[ag]\.shared\.global", ptx))
    rep.vector_loads = len(re.findall(r"\bld\.global[\w.]*\.v[24]\.", ptx)) + \
        len(re.findall(r"\bcp\.async\.c[ag]\.shared\.global[^;]*,\s*(?:16|8|0x10|0x8)\s*(?:,|;)", ptx))
    rep.mma = len(re.findall(r"\b(?:wgmma\.mma_async|mma\.sync)\.", ptx))
    rep.instructions = sum(1 for ln in ptx.splitlines()
                           if ln.strip().endswith(";") and not ln.strip().startswith((".", "//")))
    layouts = dict(re.findall(r"^(#\w+) = (#ttg\.\w+<.*>)$", ttgir, re.M))
    rep.load_layouts = [layouts.get(m, m) for m in re.findall(r"tt\.load .*?: tensor<.*?, (#\w+)>", ttgir)]
    rep.registers, rep.spill_bytes = _ptxas(ptx, arch)
    _sass(compiled.asm.get("cubin"), rep)
    rep.shared_bytes = int(getattr(compiled.metadata, "shared", 0) or 0)
    limit = SHARED_LIMIT.get(arch)
    if limit is not None and rep.shared_bytes > limit:
        # the launch would fail with "out of resource: shared memory" on the device
        rep.error = f"needs {rep.shared_bytes} bytes of shared memory per program; sm_{arch} allows {limit}"
        return rep
    rep.programs_per_sm, rep.occupancy_limit = residency(arch, rep.num_warps, rep.registers, rep.shared_bytes)
    sms = sms or SM_COUNT.get(arch, 0)
    if rep.programs_per_sm and sms:
        programs = 1
        for g in rep.grid:
            programs *= max(int(g), 1)
        rep.waves = round(programs / (rep.programs_per_sm * sms), 4)
    return rep


def _tool(name: str) -> Path:
    """A CUDA tool the Triton wheel bundles (ptxas, nvdisasm)."""
    import triton

    return Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / name


def _ptxas(ptx: str, arch: int) -> tuple[int, int]:
    """(registers, spill-store bytes) from ``ptxas -v`` of the bundled ptxas."""
    ptxas = _tool("ptxas")
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(ptx)
    try:
        info = subprocess.run([str(ptxas), f"-arch=sm_{arch}a" if arch >= 90 else f"-arch=sm_{arch}", "-v",
                               f.name, "-o", os.devnull], capture_output=True, text=True, timeout=300).stderr
    finally:
        os.unlink(f.name)
    regs = max([int(n) for n in re.findall(r"Used (\d+) registers", info)] or [0])
    return regs, sum(int(n) for n in re.findall(r"(\d+) bytes spill stores", info))


# one SASS instruction of `nvdisasm -c`: /*0230*/  @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;
_SASS_OP = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_]+)*)")


def sass_counts(sass: str) -> dict[str, int]:
    """Instruction counts of an ``nvdisasm -c`` listing: all, global loads (LDG, and LDGSTS: the
    asynchronous copies of pipelined loops, global to shared), those of them 8 or 16 bytes a
    thread, and shared-memory loads and stores. Static counts: a loop's body once."""
    out = {"instructions": 0, "loads": 0, "vector_loads": 0, "shared": 0}
    for line in sass.splitlines():
        m = _SASS_OP.match(line)
        if not m:
            continue
        op, mods = m.group(1), m.group(2).split(".")
        out["instructions"] += 1
        if op in ("LDG", "LDGSTS"):
            out["loads"] += 1
            out["vector_loads"] += "64" in mods or "128" in mods
        elif op in ("LDS", "STS", "LDSM"):
            out["shared"] += 1
    return out


def _sass(cubin: bytes | None, rep: LaunchReport) -> None:
    """Fill ``rep``'s SASS counts from the cubin, with the nvdisasm Triton bundles (if any)."""
    nvdisasm = _tool("nvdisasm")
    if not cubin or not nvdisasm.exists():
        return
    with tempfile.NamedTemporaryFile("wb", suffix=".cubin", delete=False) as f:
        f.write(cubin)
    try:
        sass = subprocess.run([str(nvdisasm), "-c", f.name], capture_output=True, text=True, timeout=300).stdout
    finally:
        os.unlink(f.name)
    counts = sass_counts(sass)
    rep.sass_instructions, rep.sass_loads = counts["instructions"], counts["loads"]
    rep.sass_vector_loads, rep.sass_shared = counts["vector_loads"], counts["shared"]


def inspect_candidate(task: str | Path, candidate: str | Path, arch: int = 90, sms: int = 0) -> list[LaunchReport]:
    """Every launch of one forward of ``candidate`` on ``task``'s shapes, compiled for ``sm_<arch>``
    (waves counted against ``sms`` multiprocessors, else the architecture's usual part)."""
    return [_compile(launch, arch, sms) for launch in _capture(Path(task), Path(candidate))]


def inspect_isolated(task_source: str, candidate_source: str, arch: int = 90, sms: int = 0,
                     timeout_s: float = 300.0) -> list[dict[str, Any]]:
    """:func:`inspect_candidate` for untrusted code (a generated or retrieved candidate): the task
    and the candidate are written to a fresh directory and compiled by this module's command inside
    the verifier's sandbox (:func:`akg_rag.verify.sandbox.choose`, no GPU; the candidate's
    ``forward`` runs there, on meta tensors). Returns the launches as :class:`LaunchReport`
    dicts; raises RuntimeError with the command's last words when it records none."""
    import shutil

    from akg_rag.verify import env as envmod
    from akg_rag.verify import sandbox

    box = sandbox.choose(gpu=False)
    root = Path(tempfile.mkdtemp(prefix="akg-offline-"))
    try:
        (root / "task.py").write_text(task_source, encoding="utf-8")
        (root / "candidate.py").write_text(candidate_source, encoding="utf-8")
        (root / "triton").mkdir()
        box.grant([root])
        env = envmod.child_env(dsl="triton", backend="cuda", extensions_dir=str(root), scale=None)
        env.update(HOME=str(root), TRITON_CACHE_DIR=str(root / "triton"))
        argv = [sys.executable, "-P", "-m", "akg_rag.lower.offline", str(root / "task.py"),
                str(root / "candidate.py"), "--arch", str(arch), "--sms", str(sms), "--json"]
        try:
            done = subprocess.run(box.command(argv, writable=[root], cwd=root, gpu=False), cwd=root, env=env,
                                  capture_output=True, text=True, timeout=timeout_s, **box.popen_kwargs())
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"offline compile ran past {timeout_s:g} s") from None
    finally:
        shutil.rmtree(root, ignore_errors=True)
    try:
        reports = json.loads(done.stdout)
    except json.JSONDecodeError:
        reports = None
    if not isinstance(reports, list) or not reports:
        tail = (done.stderr or done.stdout).strip()[-600:]
        raise RuntimeError(f"offline compile recorded no launch (exit {done.returncode}): {tail}")
    return reports


def _line(r: LaunchReport) -> str:
    if r.error:
        return f"{r.kernel}: compile failed: {r.error}"
    warps = ", ".join(sorted({re.sub(r"^#ttg\.blocked<\{(.*)\}>$", r"\1", lay) for lay in r.load_layouts}))
    flag = "  SPILLS" if r.spill_bytes else ""
    return (f"{r.kernel}: grid {r.grid}, {r.num_warps} warps, {r.num_stages} stages; {r.registers} registers, "
            f"{r.spill_bytes} bytes spilled{flag}; {r.shared_bytes} bytes of shared memory; "
            f"{r.loads} global loads, {r.vector_loads} vectorised; {r.instructions} PTX instructions"
            + (f"; {r.mma} tensor-core instructions" if r.mma else "")
            + (f"\n    machine code: {r.sass_instructions} instructions, {r.sass_loads} global loads "
               f"({r.sass_vector_loads} vectorised), {r.sass_shared} shared-memory accesses"
               if r.sass_instructions else "")
            + (f"\n    resident: {r.programs_per_sm} program(s) a multiprocessor ({r.occupancy_limit}), "
               f"{r.programs_per_sm * r.num_warps} warps" + (f"; {r.waves:g} waves" if r.waves else "")
               if r.programs_per_sm else "")
            + (f"\n    load layouts: {warps}" if warps else ""))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m akg_rag.lower.offline", description=__doc__.split("\n\n")[0],
                                epilog=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("task", help="KernelBench-format task file (its get_inputs gives the shapes)")
    p.add_argument("candidate", help="Triton candidate file (ModelNew)")
    p.add_argument("--arch", type=int, default=90, help="compute capability x 10 (90: H100/H200)")
    p.add_argument("--sms", type=int, default=0,
                   help="multiprocessors the waves are counted against (default: 132 for sm_90, 108 for sm_80)")
    p.add_argument("--json", action="store_true", help="one JSON object per launch")
    args = p.parse_args(argv)
    if args.sms < 0:
        p.error("--sms must be a positive count")
    try:
        reports = inspect_candidate(args.task, args.candidate, args.arch, args.sms)
    except Exception as e:  # noqa: BLE001 - one message, exit 2
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([asdict(r) for r in reports], indent=1))
    else:
        if not reports:
            print("no Triton launch recorded (is the candidate a Triton one?)")
        for r in reports:
            print(_line(r))
    return 1 if any(r.error for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
