import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x, idx):
        return torch.gather(x, 1, idx) + x.index_select(1, idx[0, :3]).sum(1, keepdim=True)
def get_inputs(): return [torch.randn(4, 10), torch.randint(0, 10, (4, 6))]
def get_init_inputs(): return []
