import torch, torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.c = nn.ConvTranspose3d(2, 3, (2, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1))
    def forward(self, x):
        return self.c(x).sum(dim=(2, 3, 4))
def get_inputs(): return [torch.randn(2, 2, 3, 4, 5)]
def get_init_inputs(): return []
