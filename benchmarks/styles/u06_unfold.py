import torch, torch.nn as nn, torch.nn.functional as F
class Model(nn.Module):
    def forward(self, x):
        return F.unfold(x, kernel_size=3, padding=1).mean(1)
def get_inputs(): return [torch.randn(2, 3, 6, 5)]
def get_init_inputs(): return []
