import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x, v):
        return torch.sign(x), torch.heaviside(x, v), torch.sgn(x) * x.abs(), torch.signbit(x), torch.copysign(torch.ones_like(x), x), torch.sign(x.int())
def get_inputs():
    x = torch.randn(4, 6); x[0, :4] = torch.tensor([-0.0, 0.0, float("nan"), -float("inf")])
    return [x, torch.full((4, 6), 0.5)]
def get_init_inputs(): return []
