import torch, torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.c = nn.Conv2d(6, 9, (3, 2), stride=(2, 1), padding=(2, 0), dilation=(1, 2), groups=3)
    def forward(self, x):
        return self.c(x)
def get_inputs(): return [torch.randn(2, 6, 9, 8)]
def get_init_inputs(): return []
