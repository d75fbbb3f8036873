import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        out = torch.zeros(x.shape[0], x.shape[1] + 2, device=x.device)
        out[:, 1:-1] = torch.sigmoid(x)
        out[..., -1] += x.sum(-1)
        return out
def get_inputs(): return [torch.randn(4, 6)]
def get_init_inputs(): return []
