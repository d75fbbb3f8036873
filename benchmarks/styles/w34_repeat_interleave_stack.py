import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, a, b):
        return (a.repeat_interleave(2, dim=1), torch.repeat_interleave(b, 3), torch.stack([a, b * 2], dim=-2), torch.cat((a, b, a), dim=-1),
                torch.hstack([a, b]), torch.vstack([a, b]), torch.dstack([a, b]), a.tile((2, 1)), torch.stack([a, b], -1).sum(-1))
def get_inputs(): return [torch.randn(3, 4), torch.randn(3, 4)]
def get_init_inputs(): return []
