import torch, torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.l = nn.Linear(32, 16).to(torch.bfloat16)
    def forward(self, x):
        return torch.nn.functional.silu(self.l(x))
def get_inputs(): return [torch.randn(8, 32).to(torch.bfloat16)]
def get_init_inputs(): return []
