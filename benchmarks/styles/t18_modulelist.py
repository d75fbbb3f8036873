import torch, torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.layers = nn.ModuleList([nn.Linear(12, 12) for _ in range(3)])
    def forward(self, x):
        for i, l in enumerate(self.layers):
            x = torch.tanh(l(x)) + (x if i % 2 == 0 else 0)
        return x
def get_inputs(): return [torch.randn(5, 12)]
def get_init_inputs(): return []
