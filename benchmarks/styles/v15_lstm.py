import torch, torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.l = nn.LSTM(6, 8, batch_first=True)
    def forward(self, x):
        y, (h, c) = self.l(x)
        return y[:, -1] + h[0]
def get_inputs(): return [torch.randn(2, 5, 6)]
def get_init_inputs(): return []
