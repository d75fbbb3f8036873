"""2D max pooling (NCHW, square kernel, stride, padding) as a Triton kernel.

Each program computes BLOCK outputs of the flattened (n, c, oh, ow) output, taking the maximum over
the window's taps; taps in the padding load -inf so they never win, as in PyTorch.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

# Tunables (H200: memory-bound; each input is read by at most ceil(k / s)^2 windows).
BLOCK = 512  # outputs per program
NUM_WARPS = 4


@triton.jit
def max_pool2d_kernel(
    x_ptr,  # input (NB, C, H, W) fp32, contiguous
    out_ptr,  # output (NB, C, OH, OW) fp32, contiguous
    total,  # number of outputs NB * C * OH * OW
    H, W, OH, OW,  # spatial sizes
    KSIZE, stride, padding,  # window size, stride, zero padding (same in both dimensions)
    BLOCK: tl.constexpr,  # outputs per program
):
    """BLOCK consecutive outputs of max pooling."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = offs < total
    ow = offs % OW
    oh = (offs // OW) % OH
    plane = offs // (OW * OH)  # n * C + c
    best = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
    for kh in range(0, KSIZE):
        ih = oh * stride - padding + kh
        for kw in range(0, KSIZE):
            iw = ow * stride - padding + kw
            inside = live & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            v = tl.load(x_ptr + (plane * H + ih) * W + iw, mask=inside, other=float("-inf"))
            best = tl.maximum(best, v)
    tl.store(out_ptr + offs, best, mask=live)


def max_pool2d(x: torch.Tensor, kernel_size: int, stride: int, padding: int) -> torch.Tensor:
    """Max pooling of float32 NCHW x (ceil_mode=False, dilation 1)."""
    if x.dtype != torch.float32 or x.dim() != 4:
        raise TypeError(f"max_pool2d: float32 (N, C, H, W) only, got {x.dtype} {tuple(x.shape)}")
    if kernel_size < 1 or stride < 1 or padding < 0 or 2 * padding > kernel_size:
        raise ValueError("max_pool2d: need kernel >= 1, stride >= 1, 0 <= padding <= kernel / 2")
    x = x.contiguous()
    NB, C, H, W = x.shape
    OH = (H + 2 * padding - kernel_size) // stride + 1
    OW = (W + 2 * padding - kernel_size) // stride + 1
    if OH < 1 or OW < 1:
        raise ValueError("max_pool2d: the window is larger than the padded input")
    if x.numel() >= 2**31:
        raise ValueError("max_pool2d: inputs of 2**31 elements or more need int64 offsets")
    out = torch.empty((NB, C, OH, OW), device=x.device, dtype=torch.float32)
    total = out.numel()
    max_pool2d_kernel[(triton.cdiv(total, BLOCK),)](
        x, out, total, H, W, OH, OW, kernel_size, stride, padding, BLOCK=BLOCK, num_warps=NUM_WARPS,
    )
    return out


class ModelNew(nn.Module):
    """Max pooling through the Triton kernel."""

    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return max_pool2d(x, self.kernel_size, self.stride, self.padding)
