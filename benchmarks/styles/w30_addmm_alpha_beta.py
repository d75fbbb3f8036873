import torch, torch.nn as nn, torch.nn.functional as F
class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.w = nn.Parameter(torch.randn(6, 8))
    def forward(self, x, bias, v, bb):
        return (torch.addmm(bias, x, self.w.t(), beta=0.3, alpha=-1.5), F.linear(x, self.w), torch.addmv(v, x, self.w[0], beta=2.0, alpha=0.5),
                torch.addbmm(v, bb, bb.transpose(1, 2), alpha=0.25, beta=0.0))
def get_inputs(): return [torch.randn(4, 8), torch.randn(6), torch.randn(4), torch.randn(3, 4, 6)]
def get_init_inputs(): return []
