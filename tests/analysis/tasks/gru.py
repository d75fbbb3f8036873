import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(128, 256, 3, batch_first=False)
    def forward(self, x, h0):
        out, h = self.gru(x, h0)
        return out

def get_inputs():
    return [torch.randn(512, 10, 128), torch.randn(3, 10, 256)]

def get_init_inputs():
    return []
