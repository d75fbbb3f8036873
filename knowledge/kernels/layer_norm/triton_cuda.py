"""LayerNorm over the trailing dims of a float32 tensor as a Triton kernel.

The input is viewed as (rows, row_len) with row_len = weight.numel(); one program normalises one
row. Three passes over the row in BLOCK_SIZE chunks (the row is re-read from L2): the mean, the
biased variance as the mean of (x - mean)^2 (exact where E[x^2] - mean^2 would cancel), and the
write of (x - mean) * rstd * weight + bias. Per-lane fp32 accumulators are summed at the end of
each pass. Runs on CUDA, and on CPU tensors under TRITON_INTERPRET=1.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_SIZE = 1024  # elements per chunk (power of two); 1024 / (4 warps * 32 lanes) = 8 per lane
NUM_WARPS = 4


@triton.jit
def layer_norm_kernel(
    x_ptr,  # *fp32: input, contiguous (rows, row_len)
    w_ptr,  # *fp32: weight, row_len values
    b_ptr,  # *fp32: bias, row_len values
    y_ptr,  # *fp32: output, contiguous (rows, row_len)
    row_len,  # int: elements normalised together
    eps,  # fp32: added to the variance before the square root
    BLOCK_SIZE: tl.constexpr,  # elements per chunk, a power of two
):
    row = tl.program_id(axis=0).to(tl.int64)  # 64-bit: row * row_len can pass 2**31
    x_row = x_ptr + row * row_len
    y_row = y_ptr + row * row_len
    cols = tl.arange(0, BLOCK_SIZE)
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, row_len, BLOCK_SIZE):
        offs = start + cols
        acc += tl.load(x_row + offs, mask=offs < row_len, other=0.0)
    mean = tl.sum(acc, axis=0) / row_len
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, row_len, BLOCK_SIZE):
        offs = start + cols
        mask = offs < row_len
        x = tl.load(x_row + offs, mask=mask, other=0.0)
        d = tl.where(mask, x - mean, 0.0)  # masked lanes would otherwise add mean^2
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / row_len + eps)
    for start in range(0, row_len, BLOCK_SIZE):
        offs = start + cols
        mask = offs < row_len
        x = tl.load(x_row + offs, mask=mask, other=0.0)
        w = tl.load(w_ptr + offs, mask=mask, other=0.0)
        b = tl.load(b_ptr + offs, mask=mask, other=0.0)
        tl.store(y_row + offs, (x - mean) * rstd * w + b, mask=mask)


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    """Normalise x over its trailing weight.shape dims; all tensors float32, contiguous, one device."""
    for name, t in (("x", x), ("weight", weight), ("bias", bias)):
        if t.dtype != torch.float32:
            raise TypeError(f"layer_norm: {name} must be float32, got {t.dtype}")
        if not t.is_contiguous():
            raise ValueError(f"layer_norm: {name} must be contiguous; call .contiguous() first")
    if tuple(x.shape[x.dim() - weight.dim():]) != tuple(weight.shape) or weight.shape != bias.shape:
        raise ValueError(f"layer_norm: x {tuple(x.shape)} must end in weight/bias shape {tuple(weight.shape)}")
    row_len = weight.numel()
    y = torch.empty_like(x)
    if x.numel() == 0:
        return y
    rows = x.numel() // row_len
    layer_norm_kernel[(rows,)](x, weight, bias, y, row_len, eps, BLOCK_SIZE=BLOCK_SIZE, num_warps=NUM_WARPS)
    return y


class ModelNew(nn.Module):
    """LayerNorm with elementwise affine, computed by the Triton kernel above.

    The parameters are created exactly as the task's Model creates them (ones and zeros, then the
    same two random perturbations in the same order), so one seed gives identical weights.
    """

    def __init__(self, normalized_shape: tuple, eps: float = 1e-5):
        super().__init__()
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(self.normalized_shape))
        self.bias = nn.Parameter(torch.zeros(self.normalized_shape))
        with torch.no_grad():
            self.weight.add_(0.1 * torch.randn(self.normalized_shape))
            self.bias.add_(0.1 * torch.randn(self.normalized_shape))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the layer-normalised x: same shape."""
        return layer_norm(x, self.weight, self.bias, self.eps)
