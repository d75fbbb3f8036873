import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return (torch.diagonal(x, offset=1, dim1=-2, dim2=-1) * 2, torch.diag(x[0], -1), x.unfold(2, 3, 2).sum(-1),
                torch.trace(x[1]), x.movedim(0, -1).contiguous(), torch.diag_embed(x[0, 0]))
def get_inputs(): return [torch.randn(2, 5, 7)]
def get_init_inputs(): return []
