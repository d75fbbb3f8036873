import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x, y, n):
        # remainder takes the divisor's sign, fmod the dividend's; integers too
        return torch.remainder(x, y), torch.fmod(x, y), x % -1.5, torch.remainder(n, -7), torch.fmod(n, -7), n % 5, torch.remainder(-x, 2.0)
def get_inputs():
    x = torch.randn(6, 8) * 10
    y = torch.randn(6, 8) * 3
    x[0, :3] = torch.tensor([6.0, -6.0, 0.0]); y[0, :3] = torch.tensor([-3.0, 3.0, -2.0])
    return [x, y, torch.randint(-50, 50, (6, 8))]
def get_init_inputs(): return []
