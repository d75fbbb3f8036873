import torch, torch.nn as nn, torch.nn.functional as F
class Model(nn.Module):
    def forward(self, a, b, y):
        return F.margin_ranking_loss(a, b, y), F.soft_margin_loss(a, y), F.cosine_embedding_loss(a.view(2, 4), b.view(2, 4), y[:2]), F.poisson_nll_loss(a, b.abs())
def get_inputs(): return [torch.randn(8), torch.randn(8), torch.sign(torch.randn(8))]
def get_init_inputs(): return []
