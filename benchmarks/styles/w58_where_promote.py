import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, c, n, x):
        # where of an int tensor and a float scalar promotes to float; two ints stay int64
        return torch.where(c, n, 0.5), torch.where(c, n, -1), torch.where(c, x, n), torch.where(c, 2, 3.5), torch.where(n > 0, n, n * -2)
def get_inputs():
    return [torch.rand(4, 6) > 0.5, torch.randint(-5, 5, (4, 6)), torch.randn(4, 6)]
def get_init_inputs(): return []
