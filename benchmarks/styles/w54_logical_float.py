import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x, y):
        # a float is true when nonzero; NaN is true; -0.0 is false
        return torch.logical_and(x, y), torch.logical_or(x, y), torch.logical_not(x), x.bool(), torch.logical_xor(x, y).sum(), (x != x) | (y == y)
def get_inputs():
    x = torch.randint(-1, 2, (4, 7)).float(); y = torch.randint(-1, 2, (4, 7)).float()
    x[0, :3] = torch.tensor([float("nan"), -0.0, 0.0]); y[1, :2] = torch.tensor([float("nan"), -0.0])
    return [x, y]
def get_init_inputs(): return []
