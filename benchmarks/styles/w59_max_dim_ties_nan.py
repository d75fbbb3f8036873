import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x, y):
        v, i = torch.max(x, dim=1)
        w, j = x.min(dim=0, keepdim=True)
        u, k = torch.max(y, dim=-1)
        return v, i, w, j, u, k, torch.median(x, dim=1).values
def get_inputs():
    x = torch.randint(-2, 3, (5, 7)).float()
    y = torch.randn(4, 6); y[1, 2] = float("nan"); y[1, 4] = float("nan"); y[2, 5] = float("nan")
    return [x, y]
def get_init_inputs(): return []
