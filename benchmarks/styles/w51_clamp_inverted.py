import torch, torch.nn as nn
import torch.nn.functional as F
class Model(nn.Module):
    def forward(self, x):
        # min > max: every element becomes max; NaN stays NaN through clamp and hardtanh
        return torch.clamp(x, min=1.0, max=0.0), x.clamp(-0.5, 0.5), F.hardtanh(x, -2.0, 2.0), x.clamp_min(0.25).clamp_max(0.75), torch.clamp(x.int(), -1, 1)
def get_inputs():
    x = torch.randn(5, 6) * 3; x[0, 0] = float("nan"); x[1, 1] = float("inf")
    return [x]
def get_init_inputs(): return []
