import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, a, b, w, c):
        return torch.lerp(a, b, 0.3), torch.lerp(a, b, w), torch.addcmul(a, b, c, value=0.5), torch.addcdiv(a, b, c.abs() + 0.5, value=-2), a.lerp(b, 1.7)
def get_inputs(): return [torch.randn(4, 6), torch.randn(1, 6), torch.rand(4, 1), torch.randn(4, 6)]
def get_init_inputs(): return []
