import torch, torch.nn as nn
import torch.nn.functional as F
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 5))
        self.g = nn.Parameter(torch.randn(6))
    def forward(self, x):
        return (F.layer_norm(x, (4, 5), self.w), F.group_norm(x, 1), F.group_norm(x, 3, self.g),
                F.instance_norm(x), F.batch_norm(x, None, None, training=True, eps=1e-3), F.local_response_norm(x, 3))
def get_inputs(): return [torch.randn(2, 6, 4, 5)]
def get_init_inputs(): return []
