import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x, y):
        # where picks; the unpicked branch's NaN or inf must not leak (masked division, log of negatives)
        safe = torch.where(y != 0, x / y, torch.zeros_like(x))
        lg = torch.where(x > 0, torch.log(x), x)
        return safe, lg, torch.where(x > 0, x, float("nan")), torch.where(torch.isnan(lg), -1.0, lg).sum(1)
def get_inputs():
    y = torch.randint(-1, 2, (5, 6)).float()
    return [torch.randn(5, 6), y]
def get_init_inputs(): return []
