import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, a, v, u):
        return torch.matmul(v, a), torch.dot(v, u), torch.matmul(a, u[:5]), torch.outer(v, u)
def get_inputs(): return [torch.randn(7, 5), torch.randn(7), torch.randn(7)]
def get_init_inputs(): return []
