import torch, torch.nn as nn, torch.nn.functional as F
class Model(nn.Module):
    def forward(self, x):
        return F.interpolate(x, size=(7, 3), mode="bilinear", align_corners=False) * 2
def get_inputs(): return [torch.randn(2, 3, 4, 5)]
def get_init_inputs(): return []
