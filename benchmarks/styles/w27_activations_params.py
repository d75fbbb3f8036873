import torch, torch.nn as nn, torch.nn.functional as F
class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.sp = nn.Softplus(beta=2.0, threshold=3.0); self.ht = nn.Hardtanh(-2.0, 0.5)
    def forward(self, x):
        return (self.sp(x), self.ht(x), F.relu6(x * 4), F.hardsigmoid(x), F.celu(x, alpha=0.5), F.selu(x),
                F.logsigmoid(x * 10), F.silu(x), F.elu(x, alpha=2.0), F.leaky_relu(x, 0.2), F.threshold(x, 0.3, -1.0),
                F.softsign(x), F.tanhshrink(x), F.hardshrink(x, 0.5), F.softshrink(x, 0.5), F.rrelu(x, training=False))
def get_inputs(): return [torch.randn(4, 8) * 3]
def get_init_inputs(): return []
