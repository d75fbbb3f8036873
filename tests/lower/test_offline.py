"""akg_rag.lower.offline: a Triton candidate's launches compiled for sm_90 on a machine without a
GPU, from meta tensors of the task's full shapes (nothing allocated: the shapes below would need
~34 GB). Run as the command, in a child without TRITON_INTERPRET (the conftest sets it here)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from akg_rag.lower.assemble import lower_task

ROOT = Path(__file__).resolve().parents[2]

TASK = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y):
        return torch.relu(x @ y) * 0.5


def get_inputs():
    return [torch.randn(65536, 65536), torch.randn(65536, 1024)]


def get_init_inputs():
    return []
"""

SPILLING = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sa, sb, sc, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    i, j = tl.program_id(0), tl.program_id(1)
    rm = i * BM + tl.arange(0, BM)[:, None]
    rn = j * BN + tl.arange(0, BN)[None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        a = tl.load(a_ptr + rm * sa + rk[None, :], mask=(rm < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * sb + rn, mask=(rk[:, None] < K) & (rn < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm * sc + rn, acc, mask=(rm < M) & (rn < N))


class ModelNew(nn.Module):
    def forward(self, x, y):
        M, K = x.shape
        N = y.shape[1]
        out = torch.empty(M, N, device=x.device, dtype=x.dtype)
        mm_kernel[(triton.cdiv(M, 128), triton.cdiv(N, 128))](x, y, out, M, N, K, x.stride(0), y.stride(0),
                                                             out.stride(0), BM=128, BN=128, BK=32, num_warps=4)
        return torch.relu(out) * 0.5
'''


def _offline(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "akg_rag.lower.offline", *args], capture_output=True, text=True,
                          env=env, timeout=600)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("offline")
    (d / "task.py").write_text(TASK)
    code, _ = lower_task(d / "task.py", "triton", "cuda")
    (d / "lowered.py").write_text(code)
    (d / "spilling.py").write_text(SPILLING)
    return d


def test_the_lowered_candidates_launches_compile_for_sm90_without_spilling(files):
    run = _offline(str(files / "task.py"), str(files / "lowered.py"), "--json")
    if run.returncode != 0 and "backends" in run.stderr:
        pytest.skip(f"this Triton cannot compile for NVIDIA offline: {run.stderr[-300:]}")
    assert run.returncode == 0, run.stderr
    launches = json.loads(run.stdout)
    assert launches and all(not ln["error"] for ln in launches), launches
    # y is row-major and each of its elements meets 65536 rows of x: DOT_MODE 3 copies it K-major
    # first, then the GEMM takes three TF32 products on the tensor cores
    copy, gemm = launches
    assert copy["kernel"] == "_k_major_kernel" and copy["grid"] == [(65536 // 64) * (1024 // 64), 1]
    assert gemm["grid"][0] == (65536 // 128) * (1024 // 128)        # the full shape's grid
    assert gemm["num_warps"] == 8 and gemm["registers"] > 0 and gemm["spill_bytes"] == 0
    assert gemm["loads"] > 0 and gemm["vector_loads"] == gemm["loads"]   # 16-byte async copies
    assert gemm["sass_loads"] > 0 and gemm["sass_vector_loads"] == gemm["sass_loads"]   # LDGSTS.128 in the machine code
    assert gemm["mma"] > 0
    assert 0 < gemm["shared_bytes"] <= 232448          # its pipeline buffers fit a block
    # resident programs from the compiled registers and shared memory; waves over the H100/H200's 132
    assert gemm["programs_per_sm"] >= 1 and gemm["occupancy_limit"] in ("registers", "shared memory", "warps")
    assert gemm["waves"] == round(gemm["grid"][0] / (gemm["programs_per_sm"] * 132), 4)
    narrow = _offline(str(files / "task.py"), str(files / "lowered.py"), "--json", "--sms", "66")
    assert json.loads(narrow.stdout)[1]["waves"] == pytest.approx(2 * gemm["waves"], abs=2e-4)


@pytest.mark.parametrize("arch, warps, regs, shared, expect", [
    (90, 8, 218, 98304, (1, "registers")),       # a 128x128 f32 GEMM tile on three TF32 products
    (90, 4, 32, 2048, (16, "warps")),            # a pooling tile: 64 warps, whatever else it leaves
    (90, 4, 32, 16384, (13, "shared memory")),   # 13 x (16384 + 1024 reserved) <= 228 KiB
    (90, 1, 16, 0, (32, "blocks")),              # one-warp programs: 32 blocks before 64 warps
    # 200 registers: 6400 a warp, two warps in a sub-partition's 16384 -> 8 warps, not 65536 // 6400 = 10
    (90, 2, 200, 0, (4, "registers")),
    (86, 4, 32, 0, (12, "warps")),               # sm_86 holds 48 warps
    (75, 4, 32, 0, (0, "")),                     # no table: unknown, not guessed
])
def test_resident_programs_follow_the_multiprocessor_limits(arch, warps, regs, shared, expect):
    from akg_rag.lower.offline import residency

    assert residency(arch, warps, regs, shared) == expect


def test_a_hand_written_wide_dot_on_four_warps_is_reported_spilling(files):
    run = _offline(str(files / "task.py"), str(files / "spilling.py"))
    if run.returncode != 0 and "backends" in run.stderr:
        pytest.skip(f"this Triton cannot compile for NVIDIA offline: {run.stderr[-300:]}")
    assert run.returncode == 0, run.stderr
    assert "mm_kernel: grid [512, 8], 4 warps" in run.stdout and "SPILLS" in run.stdout, run.stdout


def test_a_launch_needing_more_shared_memory_than_sm90_has_is_an_error(files):
    """The same hand-written GEMM with 64 x 64 x 256 f32 tiles over eight pipeline stages needs
    far more than a block's 227 KiB: on the device it would fail to launch."""
    big = files / "big_tiles.py"
    big.write_text((files / "spilling.py").read_text()
                   .replace("triton.cdiv(M, 128), triton.cdiv(N, 128)", "triton.cdiv(M, 64), triton.cdiv(N, 64)")
                   .replace("BM=128, BN=128, BK=32, num_warps=4", "BM=64, BN=64, BK=256, num_warps=4, num_stages=8"))
    run = _offline(str(files / "task.py"), str(big), "--json")
    if run.returncode != 0 and "backends" in run.stderr:
        pytest.skip(f"this Triton cannot compile for NVIDIA offline: {run.stderr[-300:]}")
    assert run.returncode == 1, run.stderr
    (launch,) = json.loads(run.stdout)
    assert launch["shared_bytes"] > 232448 and "bytes of shared memory per program; sm_90 allows 232448" in launch["error"]


def test_the_interpreter_is_refused_with_one_message(files):
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-m", "akg_rag.lower.offline", str(files / "task.py"),
                          str(files / "lowered.py")], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 2 and "TRITON_INTERPRET" in run.stderr and "Traceback" not in run.stderr


POOL_TASK = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool1d(8, stride=1, padding=4, dilation=3)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.rand(64, 192, 65536)]


def get_init_inputs():
    return []
"""


def _pool_switch(tmp_path, switch: str, task: str = POOL_TASK, other: int = 2,
                 fixed: tuple[tuple[str, int], ...] = ()) -> tuple[list, list]:
    """The offline reports (one per launch) of the lowered task (a 1-D pool) with ``switch`` at 1
    and at ``other``, whichever its default; the ``fixed`` tunables set first."""
    (tmp_path / "task.py").write_text(task)
    code, _ = lower_task(tmp_path / "task.py", "triton", "cuda")
    for name, value in fixed:
        code = re.sub(rf"^{name} = \d+$", f"{name} = {value}", code, flags=re.M)
    assert re.search(rf"^{switch} = \d+$", code, flags=re.M)
    out = []
    for mode in (1, other):
        (tmp_path / f"mode{mode}.py").write_text(re.sub(rf"^{switch} = \d+$", f"{switch} = {mode}", code, flags=re.M))
        run = _offline(str(tmp_path / "task.py"), str(tmp_path / f"mode{mode}.py"), "--json")
        if run.returncode != 0 and "backends" in run.stderr:
            pytest.skip(f"this Triton cannot compile for NVIDIA offline: {run.stderr[-300:]}")
        assert run.returncode == 0, run.stderr
        out.append(json.loads(run.stdout))
    return out[0], out[1]


def test_hidden_alignment_gives_every_access_one_element_a_thread(tmp_path):
    """A 1-D max pool with dilation 3: two of its eight taps sit at 16-byte aligned offsets. With
    ALIGN_MODE 1 they (and the store) load vectors and every access, the six unaligned taps too,
    takes four elements a thread; with 2 (pointers moved by an unspecialised 0) no access is
    vectorised and each takes one element a thread -- a warp's load over 32 consecutive elements.
    The taps are loaded one by one (SPAN_MODE 1; the span form has its own test below)."""
    (known,), (hidden,) = _pool_switch(tmp_path, "K0_ALIGN_MODE", fixed=(("K0_SPAN_MODE", 1),))
    assert not known["error"] and not hidden["error"]
    assert known["vector_loads"] > 0 and all("sizePerThread = [1, 4]" in lay for lay in known["load_layouts"])
    assert hidden["vector_loads"] == 0 and all("sizePerThread = [1, 1]" in lay for lay in hidden["load_layouts"])
    # the machine code says the same: vector LDGs only where an access is provably aligned, and
    # no more loads than the PTX asks for (ptxas merges, never adds)
    assert 0 < known["sass_vector_loads"] <= known["sass_loads"] <= known["loads"]
    assert hidden["sass_vector_loads"] == 0 and 0 < hidden["sass_loads"] <= hidden["loads"]
    assert known["sass_instructions"] > 0 and hidden["sass_instructions"] > 0


def test_sass_counts_reads_an_nvdisasm_listing():
    """Opcodes with predicates and modifiers; an 8- or 16-byte LDG (or asynchronous LDGSTS copy) is
    a vector load; labels, directives and comments are not instructions."""
    from akg_rag.lower.offline import sass_counts

    listing = """
        .text.k0_kernel:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/              @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;
        /*0020*/               @P1 LDG.E R8, desc[UR4][R6.64] ;
        /*0030*/                   LDG.E.64.CONSTANT R10, desc[UR4][R6.64+0x8] ;
        /*0040*/                   STS.128 [R0], R4 ;
        /*0050*/                   LDS R12, [R0+0x4] ;
        /*0060*/                   FMNMX.NAN R4, R4, R8, !PT ;
        /*0068*/                   LDGSTS.E.BYPASS.128 [R3], desc[UR6][R14.64] ;
.L_x_0:
        /*0070*/                   EXIT ;
        // a comment
    """
    assert sass_counts(listing) == {"instructions": 9, "loads": 4, "vector_loads": 3, "shared": 2}



def test_the_span_form_loads_aligned_vectors_and_no_shared_memory(tmp_path):
    """The same pool with SPAN_MODE 2: the interior version's tap loop is compiled in its span form
    (akg_rag.lower.triton_span), whose loads are whole 16-byte vectors -- each group of four lanes
    reads its 25-element span as seven -- and whose taps come from registers: the machine code
    issues fewer loads in all (the interior path's 8 split taps gone), at least seven of them
    vectors, and not one more shared-memory access (a tap rebuilt through shared memory would
    add them)."""
    (plain,), (span,) = _pool_switch(tmp_path, "K0_SPAN_MODE")
    assert not plain["error"] and not span["error"] and span["spill_bytes"] == 0
    assert span["sass_loads"] <= plain["sass_loads"] - 5 and span["sass_vector_loads"] >= 7
    assert span["sass_shared"] == plain["sass_shared"]
    assert any("sizePerThread = [1, 1, 4]" in lay for lay in span["load_layouts"])


NORM_TASK = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm((64, 256, 256))

    def forward(self, x):
        return self.ln(x)


def get_inputs():
    return [torch.randn(16, 64, 256, 256)]


def get_init_inputs():
    return []
"""


def test_a_staged_streaming_loop_copies_its_loads_asynchronously(tmp_path):
    """A layer norm over 16 rows of 4M elements takes the split form: a statistics launch and an
    output launch each stream their chunk in a loop. With LOOP_STAGES 3 the loop's loads become
    asynchronous copies into shared memory (LDGSTS, a stage's tile each), two tiles ahead of their
    use; at 1 both launches load straight into registers and use no more shared memory than the
    statistics' own cross-warp sum."""
    plain, staged = _pool_switch(tmp_path, "K0_LOOP_STAGES", NORM_TASK, other=3)
    streams = [k for k, r in enumerate(plain) if r["grid"][0] > 16]   # the combine launch is one program a row
    assert len(streams) == 2 and len(staged) == len(plain)
    for k in streams:
        p, s = plain[k], staged[k]
        assert not p["error"] and not s["error"] and s["spill_bytes"] == 0
        assert p["shared_bytes"] < 1024 <= s["shared_bytes"] - p["shared_bytes"]
        assert s["sass_shared"] > p["sass_shared"] and s["loads"] > p["loads"]
