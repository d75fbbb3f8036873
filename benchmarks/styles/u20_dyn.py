import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.log_softmax(x * 3.0, dim=-1)[..., :x.shape[-1] // 2]
def get_inputs(): return [torch.randn(4, 10)]
def get_inputs_dyn_list(): return [[torch.randn(4, 10)], [torch.randn(3, 17)], [torch.randn(1, 1)]]
def get_init_inputs(): return []
