import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        y = x.detach().clone().contiguous()
        y = y.unsqueeze(0).squeeze(0).expand(2, -1, -1).sum(0)
        return y.flip(-1).roll(1, 0)
def get_inputs(): return [torch.randn(4, 6)]
def get_init_inputs(): return []
