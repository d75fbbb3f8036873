import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x, m):
        return x.masked_fill(m, -1.0), torch.triu(x, diagonal=-1), torch.tril(x, 2), x.masked_fill(x > 1, float('nan')).nan_to_num(7.0), x.triu(10)
def get_inputs(): return [torch.randn(2, 5, 6), torch.rand(1, 6) > 0.5]
def get_init_inputs(): return []
