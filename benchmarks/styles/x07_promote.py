import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x, i, b):
        return x + i, i * 2.5, b + i, (i / 3), b.float().mean()
def get_inputs(): return [torch.randn(4, 5), torch.randint(-9, 9, (4, 5), dtype=torch.int32), torch.rand(4, 5) > 0.5]
def get_init_inputs(): return []
