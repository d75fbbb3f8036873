import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, c, x, y, k):
        a = torch.where(c, x, y)
        b = torch.where(c, 1.5, -2.0)
        d = torch.where(x > 0, k, 0.5)
        e = torch.where(c, x, 3)
        return a, b, d, e
def get_inputs(): return [torch.rand(4, 1, 6) > 0.5, torch.randn(1, 5, 6), torch.randn(5, 1), torch.randint(-9, 9, (1, 5, 6))]
def get_init_inputs(): return []
