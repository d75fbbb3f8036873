import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        y = x.reshape(2, 3, 4, 5).permute(0, 2, 1, 3)
        a, b, c = y.unbind(2)
        p, q = y.chunk(2, dim=-1)
        r = y.narrow(1, 1, 2).flip(-1, 0)
        s1, s2 = torch.split(x.view(-1), [50, 70])
        e = x[:1].expand(3, -1).reshape(3, 2, 30).transpose(0, 2)
        return a - b * c, p.sum(-1), q.mean(-1), r, s2[::3], e, s1.view(5, 10).t()
def get_inputs(): return [torch.randn(2, 60)]
def get_init_inputs(): return []
