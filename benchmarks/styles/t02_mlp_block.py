import torch, torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(24)
        self.net = nn.Sequential(nn.Linear(24, 96), nn.GELU(), nn.Linear(96, 24), nn.Dropout(0.0))
    def forward(self, x):
        return x + self.net(self.ln(x))
def get_inputs(): return [torch.randn(3, 11, 24)]
def get_init_inputs(): return []
