import torch, torch.nn as nn, torch.nn.functional as F
class Model(nn.Module):
    def forward(self, x):
        return (F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False), F.avg_pool2d(x, 2, divisor_override=3),
                F.avg_pool2d(x, 3, stride=2, ceil_mode=True), F.avg_pool1d(x.flatten(2), 4, stride=3, padding=2, count_include_pad=True),
                F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True), F.lp_pool2d(x, 2, 2))
def get_inputs(): return [torch.randn(2, 3, 7, 6)]
def get_init_inputs(): return []
