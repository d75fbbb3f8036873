import torch, torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.ps = nn.ParameterList([nn.Parameter(torch.randn(6)) for _ in range(3)])
        self.pd = nn.ParameterDict({"g": nn.Parameter(torch.ones(6) * 1.5)})
        self.register_buffer("scale", torch.linspace(0.5, 2.0, 6))
        self.register_buffer("tmp", torch.arange(6.0), persistent=False)
    def forward(self, x):
        for p in self.ps:
            x = x * self.scale + p
        return x * self.pd["g"] - self.tmp
def get_inputs(): return [torch.randn(4, 6)]
def get_init_inputs(): return []
