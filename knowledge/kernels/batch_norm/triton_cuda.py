"""BatchNorm with batch statistics of a (batch, channels, d1, d2) float32 tensor as two Triton kernels.

Channel c's values are `batch` contiguous planes of d1 * d2 floats, channels * d1 * d2 apart.
Spreading the work over every plane, not one program per channel, keeps all SMs streaming:

1. `plane_stats_kernel`, one program per (plane, chunk of SPLIT elements): the chunk's mean and
   sum of squared deviations from it (two sweeps over the chunk; the second hits L2), written
   to a (batch * channels * chunks) buffer. Centred sums, not E[x^2] - mean^2: no cancellation.
2. `normalize_kernel`, one program per (plane, BLOCK-wide tile): merges its channel's partials
   (equal counts, so the mean is the mean of means and M2 = sum m2_i + count * sum (mean_i -
   mean)^2, Chan et al.), then writes x * scale + shift with scale = rstd * weight[c] and
   shift = bias[c] - mean * scale.

The input is read twice and the output written once, the minimum without holding a channel in
on-chip memory. Runs on CUDA, and on CPU tensors under TRITON_INTERPRET=1.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

SPLIT = 8192  # elements per statistics chunk (a plane is cut into cdiv(plane, SPLIT) chunks)
STAT_BLOCK = 2048  # elements per load in the statistics pass (power of two)
BLOCK = 4096  # elements per program in the normalise pass (power of two)
MERGE_BLOCK = 64  # partials merged per step in the normalise pass (power of two)
NUM_WARPS = 8


@triton.jit
def plane_stats_kernel(
    x_ptr,  # *fp32: input, contiguous (batch, channels, plane)
    mean_ptr,  # *fp32: (batch * channels * chunks) chunk means
    m2_ptr,  # *fp32: (batch * channels * chunks) chunk sums of squared deviations
    plane,  # int: elements per plane (d1 * d2)
    chunks,  # int: chunks per plane, cdiv(plane, SPLIT)
    SPLIT: tl.constexpr,  # elements per chunk
    STAT_BLOCK: tl.constexpr,  # elements per load, a power of two dividing SPLIT
):
    p = tl.program_id(0).to(tl.int64)  # plane index n * channels + c
    k = tl.program_id(1)  # chunk within the plane
    start = k * SPLIT
    n = tl.minimum(plane - start, SPLIT)
    base = x_ptr + p * plane + start
    cols = tl.arange(0, STAT_BLOCK)
    acc = tl.zeros([STAT_BLOCK], tl.float32)
    for off in range(0, SPLIT, STAT_BLOCK):
        live = off + cols < n
        acc += tl.load(base + off + cols, mask=live, other=0.0)
    mean = tl.sum(acc, axis=0) / n.to(tl.float32)
    acc = tl.zeros([STAT_BLOCK], tl.float32)
    for off in range(0, SPLIT, STAT_BLOCK):
        live = off + cols < n
        d = tl.where(live, tl.load(base + off + cols, mask=live, other=0.0) - mean, 0.0)
        acc += d * d
    slot = p * chunks + k
    tl.store(mean_ptr + slot, mean)
    tl.store(m2_ptr + slot, tl.sum(acc, axis=0))


@triton.jit
def normalize_kernel(
    x_ptr,  # *fp32: input, contiguous (batch, channels, plane)
    mean_ptr,  # *fp32: chunk means from plane_stats_kernel
    m2_ptr,  # *fp32: chunk sums of squared deviations
    w_ptr,  # *fp32: weight, one per channel
    b_ptr,  # *fp32: bias, one per channel
    y_ptr,  # *fp32: output, same layout as the input
    batch,  # int: planes per channel
    channels,  # int: number of channels
    plane,  # int: elements per plane
    chunks,  # int: chunks per plane
    eps,  # fp32: added to the variance before the square root
    SPLIT: tl.constexpr,
    BLOCK: tl.constexpr,  # elements per program
    MERGE_BLOCK: tl.constexpr,  # partials per merge step
):
    p = tl.program_id(0).to(tl.int64)  # plane index n * channels + c
    c = p % channels
    # merge the channel's batch * chunks partials; every chunk but a plane's last holds SPLIT
    # values, so weight each by its count
    j = tl.arange(0, MERGE_BLOCK)
    total = batch * chunks
    s_mean = tl.zeros([MERGE_BLOCK], tl.float32)  # sum of count_i * mean_i
    for i0 in range(0, total, MERGE_BLOCK):
        i = i0 + j
        live = i < total
        slot = ((i // chunks) * channels + c) * chunks + i % chunks
        cnt = tl.minimum(plane - (i % chunks) * SPLIT, SPLIT).to(tl.float32)
        s_mean += tl.where(live, cnt * tl.load(mean_ptr + slot, mask=live, other=0.0), 0.0)
    count = (batch * plane).to(tl.float32)
    mean = tl.sum(s_mean, axis=0) / count
    s_m2 = tl.zeros([MERGE_BLOCK], tl.float32)  # sum of m2_i + count_i * (mean_i - mean)^2
    for i0 in range(0, total, MERGE_BLOCK):
        i = i0 + j
        live = i < total
        slot = ((i // chunks) * channels + c) * chunks + i % chunks
        cnt = tl.minimum(plane - (i % chunks) * SPLIT, SPLIT).to(tl.float32)
        d = tl.load(mean_ptr + slot, mask=live, other=0.0) - mean
        s_m2 += tl.where(live, tl.load(m2_ptr + slot, mask=live, other=0.0) + cnt * d * d, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(s_m2, axis=0) / count + eps)
    scale = rstd * tl.load(w_ptr + c)
    shift = tl.load(b_ptr + c) - mean * scale
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    live = offs < plane
    x = tl.load(x_ptr + p * plane + offs, mask=live, other=0.0)
    tl.store(y_ptr + p * plane + offs, x * scale + shift, mask=live)


def batch_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    """Batch-normalise (batch statistics) a contiguous float32 (batch, channels, ...) tensor."""
    for name, t in (("x", x), ("weight", weight), ("bias", bias)):
        if t.dtype != torch.float32:
            raise TypeError(f"batch_norm: {name} must be float32, got {t.dtype}")
        if not t.is_contiguous():
            raise ValueError(f"batch_norm: {name} must be contiguous; call .contiguous() first")
    if x.dim() < 2:
        raise ValueError(f"batch_norm: expected (batch, channels, ...), got {tuple(x.shape)}")
    batch, channels = x.shape[0], x.shape[1]
    if weight.numel() != channels or bias.numel() != channels:
        raise ValueError("batch_norm: weight and bias need one value per channel")
    y = torch.empty_like(x)
    if x.numel() == 0:
        return y
    plane = x.numel() // (batch * channels)
    chunks = triton.cdiv(plane, SPLIT)
    mean = torch.empty(batch * channels * chunks, device=x.device, dtype=torch.float32)
    m2 = torch.empty_like(mean)
    plane_stats_kernel[(batch * channels, chunks)](
        x, mean, m2, plane, chunks, SPLIT=SPLIT, STAT_BLOCK=STAT_BLOCK, num_warps=NUM_WARPS
    )
    normalize_kernel[(batch * channels, triton.cdiv(plane, BLOCK))](
        x, mean, m2, weight, bias, y, batch, channels, plane, chunks, eps,
        SPLIT=SPLIT, BLOCK=BLOCK, MERGE_BLOCK=MERGE_BLOCK, num_warps=NUM_WARPS,
    )
    return y


class ModelNew(nn.Module):
    """Batch-statistics BatchNorm with affine parameters, computed by the Triton kernels above.

    weight and bias are drawn exactly as the task's Model draws them (same expressions, same order).
    """

    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(num_features))
        self.bias = nn.Parameter(0.1 * torch.randn(num_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the batch-normalised x: same shape."""
        return batch_norm(x, self.weight, self.bias, self.eps)
