import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x, lengths):
        T = x.shape[1]
        mask = torch.arange(T, device=x.device)[None, :] < lengths[:, None]
        return torch.where(mask, x, torch.zeros_like(x)).sum(1) / lengths.float()
def get_inputs(): return [torch.randn(4, 10), torch.tensor([3, 10, 1, 7])]
def get_init_inputs(): return []
