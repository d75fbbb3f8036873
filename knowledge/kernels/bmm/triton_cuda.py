"""Batched C[b] = A[b] @ B[b]: a tiled Triton GEMM with the batch entry on grid axis 1.

Each program owns a BLOCK_M x BLOCK_N tile of one batch entry's C and walks K in BLOCK_K steps
with fp32 tl.dot (three TF32 products, or IEEE) and fp32 accumulation. Masks cover every tail.
Hopper's tensor cores read 32-bit operands only along K, so a row-major B (unit stride along N) is
first copied K-major by a tiled transpose kernel when A has enough rows to pay for the copy.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

# Tunables (H200, fp32; tl.dot on the tensor cores as three TF32 products when both operands are
# K-major, IEEE products on the FMA units otherwise: see _split_tf32).
BLOCK_M = 128  # rows of C per program
BLOCK_N = 128  # columns of C per program
BLOCK_K = 64  # depth of one tl.dot step; a stage holds (BLOCK_M + BLOCK_N) * BLOCK_K floats
GROUP_M = 8  # row tiles launched together so their B panels are shared in L2
NUM_WARPS = 8
NUM_STAGES = 3  # software-pipelined K loads: 3 stages * 64 KiB of shared memory (of 227 KiB)
COPY_B_MIN_ROWS = 256  # a row-major B is copied K-major (for the split products) from this many rows of A
TRANSPOSE_TILE = 64  # the copy's square tile: read along B's rows, written along the copy's rows
# (H200, batched 256 x 512 @ 512 x 1024: IEEE products 0.90-0.96 ms; B copied by a generic strided
# torch copy, then split products, 0.94 ms; copied by a tiled transpose kernel like the one below,
# then split products, 0.67 ms, 1.10x eager: docs/results/h200/seed-sweeps-run11.jsonl)


@triton.jit
def k_major_kernel(
    src_ptr,  # B (L, R, C) fp32, addressed through s_b, s_r, s_c (unit stride along C)
    dst_ptr,  # the copy (L, C, R) fp32, contiguous: B's transpose per batch entry
    R, C,  # rows and columns of one batch entry of B
    s_b, s_r, s_c,  # element strides of B
    TILE: tl.constexpr,  # square tile side
):
    """dst[l, c, r] = src[l, r, c] for one TILE x TILE block; the tile is loaded along C and stored
    along R, Triton exchanging it through shared memory, so both sides move whole lines."""
    pid = tl.program_id(0)
    batch = tl.program_id(1).to(tl.int64)
    tiles_c = tl.cdiv(C, TILE)
    r = (pid // tiles_c) * TILE + tl.arange(0, TILE)
    c = (pid % tiles_c) * TILE + tl.arange(0, TILE)
    inside = (r[:, None] < R) & (c[None, :] < C)
    tile = tl.load(src_ptr + batch * s_b + r[:, None] * s_r + c[None, :] * s_c, mask=inside)
    tl.store(dst_ptr + batch * R * C + c[None, :] * R + r[:, None], tile, mask=inside)


def _k_major_copy(b: torch.Tensor) -> torch.Tensor:
    """B (L, K, N) with unit stride along N as a view of a (L, N, K) contiguous copy: unit stride along K."""
    L, K, N = b.shape
    if K * N >= 2**31:  # the kernel's in-entry offsets are 32-bit
        return b.transpose(1, 2).contiguous().transpose(1, 2)
    out = torch.empty((L, N, K), device=b.device, dtype=b.dtype)
    grid = (triton.cdiv(K, TRANSPOSE_TILE) * triton.cdiv(N, TRANSPOSE_TILE), L)
    k_major_kernel[grid](b, out, K, N, b.stride(0), b.stride(1), b.stride(2), TILE=TRANSPOSE_TILE, num_warps=4)
    return out.transpose(1, 2)


@triton.jit
def bmm_kernel(
    a_ptr,  # A (M, K) fp32, addressed through stride_am, stride_ak
    b_ptr,  # B (K, N) fp32, addressed through stride_bk, stride_bn
    c_ptr,  # C (M, N) fp32 output, contiguous; one (M, N) slice per batch entry
    M, N, K,  # problem sizes in elements
    stride_am, stride_ak,  # element strides of A
    stride_bk, stride_bn,  # element strides of B
    stride_ab, stride_bb,  # element strides between batch entries of A and B
    BLOCK_M: tl.constexpr,  # rows of C per program
    BLOCK_N: tl.constexpr,  # columns of C per program
    BLOCK_K: tl.constexpr,  # K depth per tl.dot step
    GROUP_M: tl.constexpr,  # row tiles per launch group (L2 reuse of B)
    SPLIT_TF32: tl.constexpr,  # 1: three TF32 tensor-core products; 0: IEEE products (FMA)
):
    """C[b] = A[b] @ B[b] for one tile of one batch entry."""
    # Launch order: consecutive programs walk GROUP_M row tiles down one column of tiles, so
    # the B panel they share is still in L2 when the next group starts.
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    group = pid // (GROUP_M * tiles_n)
    first_m = group * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * tiles_n)) % group_rows
    pid_n = (pid % (GROUP_M * tiles_n)) // group_rows
    # Axis 1 is the batch entry; offsets in int64 (a batch of slices can pass 2**31 elements).
    batch = tl.program_id(1).to(tl.int64)
    a_ptr += batch * stride_ab
    b_ptr += batch * stride_bb
    c_ptr += batch * M * N

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_tile = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        # Tails of M, N and K load zeros, which add nothing to the products.
        a = tl.load(a_tile, mask=(rows[:, None] < M) & (ks[None, :] + k0 < K), other=0.0)
        b = tl.load(b_tile, mask=(ks[:, None] + k0 < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="tf32x3" if SPLIT_TF32 else "ieee")  # never 1 TF32 product
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc, mask=inside)


def _check(name: str, *tensors: torch.Tensor) -> None:
    """Raise a clear error for inputs the kernels do not handle: float32 only, one device."""
    for t in tensors:
        if t.dtype != torch.float32:
            raise TypeError(f"{name}: float32 tensors only, got {t.dtype}")
        if t.device != tensors[0].device:
            raise ValueError(f"{name}: all tensors must be on one device")


def _split_tf32(stride_ak: int, stride_bk: int) -> bool:
    """Whether tl.dot splits its fp32 products into three TF32 tensor-core products (tf32x3).

    Hopper's tensor cores read 32-bit operand tiles only along K: both operands must have unit
    stride along K (A row-major, B column-major), else Triton transposes the tiles through shared
    memory at a cost above what the tensor cores gain, and IEEE products on the FMA units are
    faster. Three TF32 products (hi*hi + hi*lo + lo*hi) keep fp32 accuracy; one TF32 product would
    not, and a float32 task never gets one.
    """
    return stride_ak == 1 and stride_bk == 1


def bmm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """C = bmm(a, b) for 3-D float32 tensors (batch, M, K) and (batch, K, N)."""
    _check("bmm", a, b)
    if a.dim() != 3 or b.dim() != 3 or a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise ValueError(f"bmm: need (L, M, K) and (L, K, N), got "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    L, M, K = a.shape
    N = b.shape[2]
    c = torch.empty((L, M, N), device=a.device, dtype=torch.float32)
    if a.stride(-1) == 1 and b.stride(-2) != 1 and b.stride(-1) == 1 and M >= COPY_B_MIN_ROWS:
        # a K-major copy of B (one tiled transpose pass over K * N floats) lets the tensor cores
        # take the products; it pays for itself from a few hundred rows of A
        b = _k_major_copy(b)
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N), L)
    bmm_kernel[grid](
        a, b, c, M, N, K,
        a.stride(1), a.stride(2), b.stride(1), b.stride(2), a.stride(0), b.stride(0),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M,
        SPLIT_TF32=_split_tf32(a.stride(2), b.stride(1)),
        num_warps=NUM_WARPS, num_stages=NUM_STAGES,
    )
    return c


class ModelNew(nn.Module):
    """Batched matrix multiplication through the Triton GEMM."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return bmm(A, B)
