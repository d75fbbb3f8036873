import torch, torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.mha = nn.MultiheadAttention(16, 2, batch_first=True)
    def forward(self, x):
        return self.mha(x, x, x, need_weights=False)[0]
def get_inputs(): return [torch.randn(2, 7, 16)]
def get_init_inputs(): return []
