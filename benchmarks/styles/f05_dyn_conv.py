import torch, torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.c = nn.Conv2d(3, 4, 3, padding=1); self.p = nn.MaxPool2d(2)
    def forward(self, x):
        return self.p(torch.relu(self.c(x)))
def get_inputs(): return [torch.randn(1, 3, 8, 8)]
def get_inputs_dyn_list(): return [[torch.randn(1, 3, 8, 8)], [torch.randn(2, 3, 7, 11)]]
def get_init_inputs(): return []
