import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.tril(x, -1), torch.triu(x, 2), x.tril(diagonal=3).sum(-1), torch.triu(x[0], -2), torch.eye(5, 7) * x[0]
def get_inputs(): return [torch.randn(3, 5, 7)]
def get_init_inputs(): return []
