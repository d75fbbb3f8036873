import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        a, b, c = x.chunk(3, dim=1)          # 7 columns: 3, 3, 1
        p, q = torch.split(x, [2, 5], dim=1)
        r = torch.unbind(x, dim=0)
        s = x.tensor_split(3, dim=0)          # 5 rows: 2, 2, 1
        return a * 2 + b, c.squeeze(1) + r[1][:1], p.sum(1) - q.mean(1), s[2] - s[0][:1], torch.cat([c, a], dim=1)
def get_inputs(): return [torch.randn(5, 7)]
def get_init_inputs(): return []
