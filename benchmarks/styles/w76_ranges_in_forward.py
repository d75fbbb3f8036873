import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        n = x.shape[-1]
        pos = torch.arange(n, device=x.device, dtype=x.dtype)
        lin = torch.linspace(-1.0, 1.0, n, device=x.device)
        ar = torch.arange(2, 2 + 3 * x.shape[0], 3, device=x.device).unsqueeze(1)
        return x * pos + lin, x + ar, torch.full_like(x, 0.5) * torch.arange(n, 0, -1, device=x.device), torch.logspace(0, 2, n, device=x.device) * x
def get_inputs(): return [torch.randn(4, 9)]
def get_init_inputs(): return []
