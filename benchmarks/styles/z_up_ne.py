import torch, torch.nn as nn, torch.nn.functional as F
class Model(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=1.5, mode="nearest-exact") + 1.0
def get_inputs(): return [torch.randn(2,3,5,6)]
def get_init_inputs(): return []
