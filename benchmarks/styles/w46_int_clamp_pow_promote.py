import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, i, x):
        return (torch.clamp(i, min=-2.5, max=3), i ** 2, 2 ** i.clamp(0, 10), i.float() ** 0.5, torch.true_divide(i, 4),
                i.sum(dtype=torch.float64), i.max(), i.cumsum(0), torch.clamp(i, min=x), i.abs())
def get_inputs(): return [torch.randint(-9, 9, (4, 6), dtype=torch.int32), torch.randn(4, 6)]
def get_init_inputs(): return []
