"""softmax(Q K^T / sqrt(D)) V on (B, H, S, D) tensors: a flash-attention-style Triton kernel.

Each program owns BLOCK_M queries of one (batch, head) and streams the keys and values in BLOCK_N
blocks. An online softmax keeps a running row max m, a running denominator l and an unnormalised
output accumulator; when a new block raises the max, l and the accumulator are rescaled by
exp(m_old - m_new). The S x S score matrix never exists in memory. Both products run on the tensor
cores as three TF32 products (tl.dot tf32x3: hi*hi + hi*lo + lo*hi, fp32 accuracy; a single TF32
product is never used for a float32 task), which on Hopper need 32-bit operands unit-stride along
the product's K axis: K tiles are read as stored (D contiguous) and transposed in the kernel, and V
is copied once to (B*H, D, SK) so that its tiles are contiguous along the keys. Scores are scaled by
log2(e) / sqrt(D) so the softmax runs on exp2.
"""

import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

# Tunables (H200, fp32 via three TF32 products, head_dim 64).
BLOCK_M = 64  # queries per program
BLOCK_N = 64  # keys per step
NUM_WARPS = 4
NUM_STAGES = 2


@triton.jit
def attention_kernel(
    q_ptr,  # Q (B*H, SQ, HEAD_DIM) fp32, contiguous
    k_ptr,  # K (B*H, SK, HEAD_DIM) fp32, contiguous
    vt_ptr,  # V transposed: (B*H, HEAD_DIM, SK) fp32, contiguous
    o_ptr,  # output (B*H, SQ, HEAD_DIM) fp32, contiguous
    SQ, SK,  # query and key sequence lengths
    qk_scale,  # log2(e) / sqrt(HEAD_DIM)
    HEAD_DIM: tl.constexpr,  # D, a power of two in [16, 256]
    BLOCK_M: tl.constexpr,  # queries per program
    BLOCK_N: tl.constexpr,  # keys per step
):
    """Attention output for BLOCK_M queries of one (batch, head)."""
    bh = tl.program_id(1).to(tl.int64)  # int64: B*H*S*D can pass 2**31
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    d = tl.arange(0, HEAD_DIM)
    q_base = q_ptr + bh * SQ * HEAD_DIM
    k_base = k_ptr + bh * SK * HEAD_DIM
    vt_base = vt_ptr + bh * HEAD_DIM * SK
    q = tl.load(q_base + rows[:, None] * HEAD_DIM + d[None, :], mask=rows[:, None] < SQ, other=0.0)
    m = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)  # running row max of the scores
    l = tl.zeros((BLOCK_M,), dtype=tl.float32)  # running sum of exp(score - m)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)  # running sum of exp(score - m) * v
    for n0 in range(0, SK, BLOCK_N):
        keys = n0 + tl.arange(0, BLOCK_N)
        k = tl.load(k_base + keys[:, None] * HEAD_DIM + d[None, :], mask=keys[:, None] < SK, other=0.0)
        vt = tl.load(vt_base + d[:, None] * SK + keys[None, :], mask=keys[None, :] < SK, other=0.0)
        s = tl.dot(q, tl.trans(k), input_precision="tf32x3") * qk_scale  # log2-scaled scores
        s = tl.where(keys[None, :] < SK, s, float("-inf"))  # keys past the end get no weight
        # Every block holds at least one real key, so m_new is finite from the first block on.
        m_new = tl.maximum(m, tl.max(s, axis=1))
        alpha = tl.exp2(m - m_new)  # rescales what was summed under the old max (0 at first)
        p = tl.exp2(s - m_new[:, None])
        l = l * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p, tl.trans(vt), input_precision="tf32x3")
        m = m_new
    out = acc / l[:, None]
    tl.store(o_ptr + bh * SQ * HEAD_DIM + rows[:, None] * HEAD_DIM + d[None, :], out,
             mask=rows[:, None] < SQ)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """scaled_dot_product_attention(q, k, v) without mask or dropout, float32 (B, H, S, D)."""
    for name, t in (("Q", q), ("K", k), ("V", v)):
        if t.dtype != torch.float32 or t.dim() != 4:
            raise TypeError(f"attention: {name} must be float32 (B, H, S, D), got "
                            f"{t.dtype} {tuple(t.shape)}")
    if k.shape != v.shape or q.shape[:2] != k.shape[:2] or q.shape[3] != k.shape[3]:
        raise ValueError(f"attention: need Q (B, H, SQ, D) and K, V (B, H, SK, D), got "
                         f"{tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}")
    B, H, SQ, D = q.shape
    SK = k.shape[2]
    if D not in (16, 32, 64, 128, 256):
        raise ValueError(f"attention: head_dim must be a power of two in [16, 256], got {D}")
    if SK < 1:
        raise ValueError("attention: at least one key required")
    q = q.contiguous()
    k = k.contiguous()
    vt = v.transpose(2, 3).contiguous()  # (B, H, D, SK): V tiles contiguous along the keys
    out = torch.empty_like(q)
    grid = (triton.cdiv(SQ, BLOCK_M), B * H)
    attention_kernel[grid](
        q, k, vt, out, SQ, SK, math.log2(math.e) / math.sqrt(D),
        HEAD_DIM=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=NUM_WARPS, num_stages=NUM_STAGES,
    )
    return out


class ModelNew(nn.Module):
    """Scaled dot-product attention through the Triton flash-attention kernel."""

    def __init__(self):
        super().__init__()

    def forward(self, Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
        return attention(Q, K, V)
