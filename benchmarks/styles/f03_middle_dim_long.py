import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1), x.sum(1)
def get_inputs(): return [torch.randn(2, 9000, 3)]
def get_init_inputs(): return []
