"""silu(group_norm(x)) on NCHW input, fused in one Triton kernel (one program per (image, group)).

A group's C/G channels are one contiguous span of (C/G)*H*W floats. Three sweeps over it in BLOCK
chunks: the sum (mean), the centred sum of squares (variance, without cancellation), then
normalise, apply the per-channel affine weight and bias and SiLU. Sums are fp32 per lane, reduced
across lanes once at the end of a sweep.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

# Tunables (H200: 16 images x 8 groups = 128 programs, each sweeping a 512 KiB span).
BLOCK = 2048  # elements per chunk
NUM_WARPS = 8


@triton.jit
def group_norm_silu_kernel(
    x_ptr,  # input (NB, C, H, W) fp32, contiguous
    w_ptr,  # GroupNorm weight (C,) fp32
    b_ptr,  # GroupNorm bias (C,) fp32
    y_ptr,  # output (NB, C, H, W) fp32, contiguous
    C, HW,  # channels, pixels per channel
    groups,  # number of groups (C % groups == 0)
    eps,  # added to the variance
    BLOCK: tl.constexpr,  # elements per chunk
):
    """One (image, group): y = silu((x - mean) * rstd * w[c] + b[c])."""
    pid = tl.program_id(0)
    g = pid % groups
    cg = C // groups  # channels per group
    span = cg * HW
    base = pid.to(tl.int64) * span  # groups are consecutive spans of the NCHW tensor
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for t0 in range(0, span, BLOCK):
        t = t0 + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + base + t, mask=t < span, other=0.0)
    mean = tl.sum(acc, axis=0) / span
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for t0 in range(0, span, BLOCK):
        t = t0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + t, mask=t < span, other=0.0)
        diff = tl.where(t < span, x - mean, 0.0)
        acc += diff * diff
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / span + eps)
    for t0 in range(0, span, BLOCK):
        t = t0 + tl.arange(0, BLOCK)
        live = t < span
        c = g * cg + t // HW  # channel of each element
        x = tl.load(x_ptr + base + t, mask=live, other=0.0)
        w = tl.load(w_ptr + c, mask=live, other=0.0)
        b = tl.load(b_ptr + c, mask=live, other=0.0)
        h = (x - mean) * rstd * w + b
        tl.store(y_ptr + base + t, h * tl.sigmoid(h), mask=live)


def group_norm_silu(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, groups: int,
                    eps: float) -> torch.Tensor:
    """silu(group_norm(x, groups, weight, bias, eps)) for float32 x (N, C, ...)."""
    for name, t in (("x", x), ("weight", weight), ("bias", bias)):
        if t.dtype != torch.float32:
            raise TypeError(f"group_norm_silu: {name} must be float32, got {t.dtype}")
    if x.dim() < 2 or x.shape[1] % groups != 0:
        raise ValueError(f"group_norm_silu: need x (N, C, ...) with C divisible by {groups}, got "
                         f"{tuple(x.shape)}")
    NB, C = x.shape[0], x.shape[1]
    if weight.shape != (C,) or bias.shape != (C,):
        raise ValueError(f"group_norm_silu: weight and bias must be ({C},)")
    x = x.contiguous()
    y = torch.empty_like(x)
    HW = x.numel() // max(NB * C, 1)
    group_norm_silu_kernel[(NB * groups,)](
        x, weight.contiguous(), bias.contiguous(), y, C, HW, groups, float(eps),
        BLOCK=BLOCK, num_warps=NUM_WARPS,
    )
    return y


class ModelNew(nn.Module):
    """GroupNorm + SiLU through the fused Triton kernel; nn.GroupNorm holds weight and bias."""

    def __init__(self, num_groups: int, num_channels: int):
        super().__init__()
        self.group_norm = nn.GroupNorm(num_groups, num_channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gn = self.group_norm
        return group_norm_silu(x, gn.weight, gn.bias, gn.num_groups, gn.eps)
