import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x, y=None, *, scale: float = 2.0, shift=None, dims=(1,)):
        if y is None:
            y = torch.ones_like(x)
        out = x * scale + y
        if shift is not None:
            out = out + shift
        return [out, out.sum(dim=dims), out.new_zeros(2) + 1]
def get_inputs(): return [torch.randn(3, 5)]
def get_init_inputs(): return []
