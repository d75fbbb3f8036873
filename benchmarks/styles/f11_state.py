import torch, torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.register_buffer("count", torch.zeros(1)); self.register_buffer("ema", torch.zeros(6))
    def forward(self, x):
        self.count += 1
        self.ema.mul_(0.9).add_(0.1 * x.mean(0))
        return x - self.ema * self.count
def get_inputs(): return [torch.randn(4, 6)]
def get_init_inputs(): return []
