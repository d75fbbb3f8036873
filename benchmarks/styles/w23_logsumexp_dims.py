import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        y = x.masked_fill(x < -1.0, float('-inf'))
        return torch.logsumexp(x, dim=(1, 2), keepdim=True), torch.logsumexp(y, dim=0), torch.logsumexp(x * 100, dim=-1), x.logsumexp((0, -1))
def get_inputs(): return [torch.randn(3, 4, 5)]
def get_init_inputs(): return []
