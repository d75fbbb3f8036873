import torch, torch.nn as nn, torch.nn.functional as F
class Model(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=3, mode="linear", align_corners=False) + 1.0
def get_inputs(): return [torch.randn(2,3,7)]
def get_init_inputs(): return []
