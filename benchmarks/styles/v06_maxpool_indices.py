import torch, torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.p = nn.MaxPool2d(2, return_indices=True)
    def forward(self, x):
        v, i = self.p(x)
        return v, i
def get_inputs(): return [torch.randn(2, 3, 6, 8)]
def get_init_inputs(): return []
