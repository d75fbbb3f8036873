"""What the 1-D max-pool probes share (window_prefetch, window_gather, window_regs): the module of
``nn.MaxPool1d``'s arguments at stride 1 without indices, and its output allocated."""
import torch


class Pool1dProbe(torch.nn.Module):
    """``kernel_size``, ``padding`` and ``dilation`` as ``self.k``, ``self.p``, ``self.d``;
    ``output(x)`` is the empty ``[B, C, L_out]`` result and ``L_out``."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False):
        super().__init__()
        if stride not in (None, 1) or return_indices:
            raise ValueError("probe covers stride 1, no indices")
        self.k, self.d, self.p = kernel_size, dilation, padding

    def output(self, x):
        B, C, L = x.shape
        lout = L + 2 * self.p - self.d * (self.k - 1)
        return torch.empty((B, C, lout), device=x.device, dtype=x.dtype), lout
