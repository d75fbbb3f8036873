import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        # inf - inf and 0 * inf are NaN; log(0) is -inf; sqrt(-0.0) is -0.0; rsqrt(0) is inf
        big = x * 1e38
        return big * 10 - big * 10, torch.zeros_like(x) * (x / 0.0), torch.log(x.abs() * 0), torch.sqrt(-x * 0), torch.rsqrt(x * 0), torch.exp(x * 100), torch.log(-x.abs() - 1)
def get_inputs():
    x = torch.randn(4, 6); x[0, 0] = 0.0
    return [x]
def get_init_inputs(): return []
