import torch, torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.l = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
    def forward(self, x):
        return self.l(x)
def get_inputs(): return [torch.randn(2, 5, 16)]
def get_init_inputs(): return []
