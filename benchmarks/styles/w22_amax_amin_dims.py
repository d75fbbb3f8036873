import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        mn, mx = torch.aminmax(x, dim=1, keepdim=True)
        return x.amax(dim=(0, 2), keepdim=True), x.amin(dim=(-1, -3), keepdim=True), mn + mx, x.amax(), torch.max(x), x.min(-1, keepdim=True)[1]
def get_inputs(): return [torch.randn(3, 4, 5, 6)]
def get_init_inputs(): return []
