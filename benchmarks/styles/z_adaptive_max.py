import torch, torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.p = nn.AdaptiveMaxPool2d((2, 3)); self.g = nn.AdaptiveMaxPool2d(1); self.p3 = nn.AdaptiveMaxPool3d((1, 2, 2))
    def forward(self, x, y):
        return self.p(x) * 2, self.g(x).flatten(1), self.p3(y)
def get_inputs(): return [torch.randn(2, 3, 6, 9), torch.randn(2, 2, 3, 4, 6)]
def get_init_inputs(): return []
