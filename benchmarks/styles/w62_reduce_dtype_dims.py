import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x, c):
        # sum of int8 is int64; sum with dtype float64; mean over negative dims; amax of ints
        return c.sum(1), x.sum(dtype=torch.float64), x.mean((-1, -3), keepdim=True), c.amax((0, 2)), x.sum(0).sum(-1), torch.sum(c, dim=(0, 1), dtype=torch.int32)
def get_inputs():
    return [torch.randn(3, 4, 5), torch.randint(-100, 100, (3, 4, 5), dtype=torch.int8)]
def get_init_inputs(): return []
