import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x, idx, src):
        a = torch.zeros(4, 6, device=x.device).index_add(0, idx, src)
        b = torch.zeros(4, 6, device=x.device).scatter_add(0, idx[:, None].expand(-1, 6), src)
        c = x.index_put((idx,), src, accumulate=True)
        return a, b, c
def get_inputs(): return [torch.randn(4, 6), torch.tensor([0, 2, 2, 3, 0]), torch.randn(5, 6)]
def get_init_inputs(): return []
