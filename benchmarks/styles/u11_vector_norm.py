import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.linalg.vector_norm(x, ord=3, dim=(1, 2)) + torch.norm(x, p='fro') + x.amax(dim=(0, 2)).sum()
def get_inputs(): return [torch.randn(4, 5, 6)]
def get_init_inputs(): return []
