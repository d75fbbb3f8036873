import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        s = x.abs().amax(dim=-1, keepdim=True) / 127.0
        q = torch.clamp(torch.round(x / s), -128, 127).to(torch.int8)
        return q, s
def get_inputs(): return [torch.randn(6, 16)]
def get_init_inputs(): return []
