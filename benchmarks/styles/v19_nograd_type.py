import torch, torch.nn as nn
class Model(nn.Module):
    @torch.no_grad()
    def forward(self, x):
        return x.type(torch.float32).mul(3).type_as(x)
def get_inputs(): return [torch.randn(3, 7).half()]
def get_init_inputs(): return []
