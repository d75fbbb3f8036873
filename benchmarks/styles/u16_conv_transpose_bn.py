import torch, torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.c = nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1, groups=1); self.bn = nn.BatchNorm2d(4).eval()
    def forward(self, x):
        return torch.nn.functional.hardswish(self.bn(self.c(x)))
def get_inputs(): return [torch.randn(2, 3, 5, 4)]
def get_init_inputs(): return []
