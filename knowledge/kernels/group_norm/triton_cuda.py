"""GroupNorm of a (batch, channels, d1, d2) float32 tensor as a Triton kernel.

In NCHW layout one (batch, group) slice is one contiguous span of channels_per_group * d1 * d2
floats, and one program normalises one span. Pass 1 reads the span once in BLOCK_SIZE chunks and
merges each chunk's mean and sum of squared deviations into running totals (the pairwise update
of Chan et al.: stable, unlike E[x^2] - mean^2). Pass 2 re-reads the span and writes
(x - mean) * rstd * weight[c] + bias[c]. Grid: (batch * groups,). Runs on CUDA, and on CPU
tensors under TRITON_INTERPRET=1.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_SIZE = 2048  # elements per chunk (power of two); 2048 / (8 warps * 32 lanes) = 8 per lane
NUM_WARPS = 8


@triton.jit
def group_norm_kernel(
    x_ptr,  # *fp32: input, contiguous (batch, channels, plane)
    w_ptr,  # *fp32: weight, one per channel
    b_ptr,  # *fp32: bias, one per channel
    y_ptr,  # *fp32: output, same layout as the input
    span,  # int: elements per (batch, group) = channels_per_group * plane
    plane,  # int: elements per channel plane (d1 * d2)
    channels_per_group,  # int: channels in one group
    groups,  # int: number of groups
    eps,  # fp32: added to the variance before the square root
    BLOCK_SIZE: tl.constexpr,  # elements per chunk, a power of two
):
    pid = tl.program_id(axis=0).to(tl.int64)  # = n * groups + g
    g = pid % groups
    base = pid * span  # int64: spans are laid out back to back
    cols = tl.arange(0, BLOCK_SIZE)
    mean = tl.zeros([], tl.float32)
    m2 = tl.zeros([], tl.float32)  # running sum of squared deviations from `mean`
    count = tl.zeros([], tl.float32)
    for start in range(0, span, BLOCK_SIZE):
        offs = start + cols
        mask = offs < span
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0)
        n_blk = tl.minimum(span - start, BLOCK_SIZE).to(tl.float32)
        mean_blk = tl.sum(x, axis=0) / n_blk
        d = tl.where(mask, x - mean_blk, 0.0)
        m2_blk = tl.sum(d * d, axis=0)
        total = count + n_blk
        delta = mean_blk - mean
        mean += delta * (n_blk / total)
        m2 += m2_blk + delta * delta * (count * n_blk / total)
        count = total
    rstd = 1.0 / tl.sqrt(m2 / count + eps)
    for start in range(0, span, BLOCK_SIZE):
        offs = start + cols
        mask = offs < span
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0)
        ch = g * channels_per_group + offs // plane  # channel of each element
        w = tl.load(w_ptr + ch, mask=mask, other=0.0)
        b = tl.load(b_ptr + ch, mask=mask, other=0.0)
        tl.store(y_ptr + base + offs, (x - mean) * rstd * w + b, mask=mask)


def group_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, groups: int, eps: float) -> torch.Tensor:
    """Group-normalise a contiguous float32 (batch, channels, ...) tensor on its device."""
    for name, t in (("x", x), ("weight", weight), ("bias", bias)):
        if t.dtype != torch.float32:
            raise TypeError(f"group_norm: {name} must be float32, got {t.dtype}")
        if not t.is_contiguous():
            raise ValueError(f"group_norm: {name} must be contiguous; call .contiguous() first")
    if x.dim() < 2:
        raise ValueError(f"group_norm: expected (batch, channels, ...), got {tuple(x.shape)}")
    batch, channels = x.shape[0], x.shape[1]
    if channels % groups != 0:
        raise ValueError(f"group_norm: {channels} channels do not split into {groups} groups")
    if weight.numel() != channels or bias.numel() != channels:
        raise ValueError("group_norm: weight and bias need one value per channel")
    y = torch.empty_like(x)
    if x.numel() == 0:
        return y
    plane = x.numel() // (batch * channels)
    cpg = channels // groups
    span = cpg * plane
    if span >= 2**31:
        raise ValueError(f"group_norm: a group of {span} elements exceeds the kernel's int32 offsets")
    group_norm_kernel[(batch * groups,)](
        x, weight, bias, y, span, plane, cpg, groups, eps, BLOCK_SIZE=BLOCK_SIZE, num_warps=NUM_WARPS
    )
    return y


class ModelNew(nn.Module):
    """GroupNorm with per-channel affine, computed by the Triton kernel above.

    The parameters are created exactly as the task's Model creates them (nn.GroupNorm's ones and
    zeros, then the same two random perturbations in the same order).
    """

    def __init__(self, num_features: int, num_groups: int, eps: float = 1e-5):
        super().__init__()
        self.num_groups = num_groups
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        with torch.no_grad():
            self.weight.add_(0.1 * torch.randn(num_features))
            self.bias.add_(0.1 * torch.randn(num_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the group-normalised x: same shape."""
        return group_norm(x, self.weight, self.bias, self.num_groups, self.eps)
