"""Triplet margin loss of (batch, dim) float32 embeddings as two Triton kernels.

Per row r: d_pos = ||a_r - p_r + eps||_2 and d_neg = ||a_r - n_r + eps||_2 (eps = 1e-6, the
pairwise-distance convention of nn.TripletMarginLoss), loss_r = max(d_pos - d_neg + margin, 0).
Kernel 1 (row_loss_kernel), one program per row: one pass over the three vectors in BLOCK_SIZE
chunks accumulating both squared distances in per-lane fp32 registers. Kernel 2 (mean_kernel),
one program: the mean of the row losses, written as a 0-dim tensor. Runs on CUDA, and on CPU
tensors under TRITON_INTERPRET=1.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_SIZE = 1024  # elements per chunk (power of two); 1024 / (4 warps * 32 lanes) = 8 per lane
NUM_WARPS = 4
MEAN_BLOCK = 1024  # rows per chunk in the mean kernel (power of two)
EPS = 1e-6  # added to every difference, as torch's pairwise distance does


@triton.jit
def row_loss_kernel(
    a_ptr,  # *fp32: anchor, contiguous (rows, dim)
    p_ptr,  # *fp32: positive, contiguous (rows, dim)
    n_ptr,  # *fp32: negative, contiguous (rows, dim)
    loss_ptr,  # *fp32: output, one loss per row
    dim,  # int: embedding length
    margin,  # fp32: required gap between the negative and positive distances
    eps,  # fp32: added to every difference
    BLOCK_SIZE: tl.constexpr,  # elements per chunk, a power of two
):
    row = tl.program_id(axis=0).to(tl.int64)  # 64-bit: row * dim can pass 2**31
    base = row * dim
    cols = tl.arange(0, BLOCK_SIZE)
    acc_p = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    acc_n = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, dim, BLOCK_SIZE):
        offs = start + cols
        mask = offs < dim
        a = tl.load(a_ptr + base + offs, mask=mask, other=0.0)
        p = tl.load(p_ptr + base + offs, mask=mask, other=0.0)
        n = tl.load(n_ptr + base + offs, mask=mask, other=0.0)
        dp = tl.where(mask, a - p + eps, 0.0)  # masked lanes would otherwise add eps^2
        dn = tl.where(mask, a - n + eps, 0.0)
        acc_p += dp * dp
        acc_n += dn * dn
    d_pos = tl.sqrt(tl.sum(acc_p, axis=0))
    d_neg = tl.sqrt(tl.sum(acc_n, axis=0))
    tl.store(loss_ptr + row, tl.maximum(d_pos - d_neg + margin, 0.0))


@triton.jit
def mean_kernel(
    loss_ptr,  # *fp32: per-row losses
    out_ptr,  # *fp32: 0-dim output
    rows,  # int: number of rows
    BLOCK_SIZE: tl.constexpr,  # rows per chunk, a power of two
):
    cols = tl.arange(0, BLOCK_SIZE)
    total = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, rows, BLOCK_SIZE):
        offs = start + cols
        total += tl.load(loss_ptr + offs, mask=offs < rows, other=0.0)
    tl.store(out_ptr, tl.sum(total, axis=0) / rows)


def triplet_margin_loss(anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor,
                        margin: float) -> torch.Tensor:
    """Mean triplet margin loss of three contiguous float32 (rows, dim) tensors, as a 0-dim tensor."""
    for name, t in (("anchor", anchor), ("positive", positive), ("negative", negative)):
        if t.dtype != torch.float32:
            raise TypeError(f"triplet_margin_loss: {name} must be float32, got {t.dtype}")
        if not t.is_contiguous():
            raise ValueError(f"triplet_margin_loss: {name} must be contiguous; call .contiguous() first")
    if anchor.dim() != 2 or anchor.shape != positive.shape or anchor.shape != negative.shape:
        raise ValueError("triplet_margin_loss: expected three (rows, dim) tensors of one shape")
    rows, dim = anchor.shape
    if rows == 0:
        raise ValueError("triplet_margin_loss: empty batch")
    losses = torch.empty(rows, dtype=torch.float32, device=anchor.device)
    out = torch.empty((), dtype=torch.float32, device=anchor.device)
    row_loss_kernel[(rows,)](anchor, positive, negative, losses, dim, float(margin), EPS,
                             BLOCK_SIZE=BLOCK_SIZE, num_warps=NUM_WARPS)
    mean_kernel[(1,)](losses, out, rows, BLOCK_SIZE=MEAN_BLOCK, num_warps=NUM_WARPS)
    return out


class ModelNew(nn.Module):
    """Triplet margin loss (p = 2, mean reduction), computed by the Triton kernels above."""

    def __init__(self, margin: float = 1.0):
        super().__init__()
        self.margin = margin

    def forward(self, anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor) -> torch.Tensor:
        """Return the 0-dim mean triplet margin loss."""
        return triplet_margin_loss(anchor, positive, negative, self.margin)
