import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return x / x.norm(), x.std(), (x - x.mean()).abs().amax()
def get_inputs(): return [torch.randn(2, 150001)]
def get_init_inputs(): return []
