import torch, torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.l = nn.Linear(16, 8); self.ln = nn.LayerNorm(8)
    def forward(self, x):
        return torch.relu(self.ln(self.l(x))).mean(1)
def get_inputs(): return [torch.randn(2, 5, 16)]
def get_inputs_dyn_list(): return [[torch.randn(2, 5, 16)], [torch.randn(3, 1, 16)], [torch.randn(1, 37, 16)]]
def get_init_inputs(): return []
