import torch, torch.nn as nn, torch.nn.functional as F
class Model(nn.Module):
    def forward(self, x):
        y = x / (x.round())
        return torch.nan_to_num(y), torch.nan_to_num(y, posinf=1e4), y.nan_to_num(nan=-1.0, neginf=0.0), F.cosine_similarity(x[None], x[:, None], dim=-1, eps=1e-3), F.pairwise_distance(x, x.flip(0), p=1.0, keepdim=True)
def get_inputs(): return [torch.randn(5, 6) * 0.8]
def get_init_inputs(): return []
