import torch, torch.nn as nn, torch.nn.functional as F
class Model(nn.Module):
    def forward(self, logits, target):
        return -(F.one_hot(target, logits.shape[-1]).float() * F.log_softmax(logits, -1)).sum(-1).mean()
def get_inputs(): return [torch.randn(8, 11), torch.randint(0, 11, (8,))]
def get_init_inputs(): return []
