import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        # reinterpreting the bits: the float's int32 pattern
        bits = x.view(torch.int32)
        return (bits >> 23) & 255, x.view(torch.int32).float() * 0 + x
def get_inputs(): return [torch.randn(4, 6)]
def get_init_inputs(): return []
