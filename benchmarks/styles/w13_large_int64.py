import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return x * 3 + (1 << 40), x // 7
def get_inputs(): return [torch.randint(-(1 << 50), 1 << 50, (5, 6))]
def get_init_inputs(): return []
