import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        v, i = torch.topk(x, 3, dim=1)
        return v.sum(1) + i.float().mean(1)
def get_inputs(): return [torch.randn(6, 12)]
def get_init_inputs(): return []
