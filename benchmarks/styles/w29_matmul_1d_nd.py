import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, v, a, u):
        return torch.matmul(v, a), torch.matmul(a, u), v @ a[0], torch.mv(a[1], u), torch.inner(v, a.transpose(1, 2))
def get_inputs(): return [torch.randn(5), torch.randn(2, 5, 3), torch.randn(3)]
def get_init_inputs(): return []
