import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.special.erfinv(x.clamp(-0.9, 0.9)), torch.special.expit(x), torch.special.xlogy(x.abs(), x.abs() + 1), torch.special.log_ndtr(x)
def get_inputs(): return [torch.randn(4, 6)]
def get_init_inputs(): return []
