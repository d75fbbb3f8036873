"""BatchNorm with batch statistics of a (batch, channels, d1, d2) float32 tensor as a Triton kernel.

Channel c's values are `batch` contiguous planes of d1 * d2 floats, channels * d1 * d2 apart; one
program normalises one channel. Pass 1 walks the planes in BLOCK_SIZE chunks and merges each
chunk's mean and sum of squared deviations into running totals (the pairwise update of Chan et
al.: stable, unlike E[x^2] - mean^2). Pass 2 re-reads the planes and writes x * scale + shift with
scale = rstd * weight[c] and shift = bias[c] - mean * scale. Grid: (channels,). Runs on CUDA, and
on CPU tensors under TRITON_INTERPRET=1.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_SIZE = 2048  # elements per chunk (power of two); 2048 / (8 warps * 32 lanes) = 8 per lane
NUM_WARPS = 8


@triton.jit
def batch_norm_kernel(
    x_ptr,  # *fp32: input, contiguous (batch, channels, plane)
    w_ptr,  # *fp32: weight, one per channel
    b_ptr,  # *fp32: bias, one per channel
    y_ptr,  # *fp32: output, same layout as the input
    batch,  # int: number of planes per channel
    channels,  # int: number of channels
    plane,  # int: elements per plane (d1 * d2)
    eps,  # fp32: added to the variance before the square root
    BLOCK_SIZE: tl.constexpr,  # elements per chunk, a power of two
):
    c = tl.program_id(axis=0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mean = tl.zeros([], tl.float32)
    m2 = tl.zeros([], tl.float32)  # running sum of squared deviations from `mean`
    count = tl.zeros([], tl.float32)
    for n in range(0, batch):
        base = (n * channels + c) * plane  # int64 start of plane (n, c)
        for start in range(0, plane, BLOCK_SIZE):
            offs = start + cols
            mask = offs < plane
            x = tl.load(x_ptr + base + offs, mask=mask, other=0.0)
            n_blk = tl.minimum(plane - start, BLOCK_SIZE).to(tl.float32)
            mean_blk = tl.sum(x, axis=0) / n_blk
            d = tl.where(mask, x - mean_blk, 0.0)
            m2_blk = tl.sum(d * d, axis=0)
            total = count + n_blk
            delta = mean_blk - mean
            mean += delta * (n_blk / total)
            m2 += m2_blk + delta * delta * (count * n_blk / total)
            count = total
    rstd = 1.0 / tl.sqrt(m2 / count + eps)
    scale = rstd * tl.load(w_ptr + c)
    shift = tl.load(b_ptr + c) - mean * scale
    for n in range(0, batch):
        base = (n * channels + c) * plane
        for start in range(0, plane, BLOCK_SIZE):
            offs = start + cols
            mask = offs < plane
            x = tl.load(x_ptr + base + offs, mask=mask, other=0.0)
            tl.store(y_ptr + base + offs, x * scale + shift, mask=mask)


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
    batch_norm_kernel[(channels,)](
        x, weight, bias, y, batch, channels, plane, eps, BLOCK_SIZE=BLOCK_SIZE, num_warps=NUM_WARPS
    )
    return y


class ModelNew(nn.Module):
    """Batch-statistics BatchNorm with affine parameters, computed by the Triton kernel above.

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
