import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, i, u):
        # sums of int32 and uint8 give int64; max/min keep the dtype; a float mean needs a cast
        return i.sum(), i.sum(0), u.sum(-1), u.max(1).values, i.min(), i.float().mean(1), u.to(torch.int32).cumsum(1)
def get_inputs():
    return [torch.randint(-2**30, 2**30, (5, 7), dtype=torch.int32), torch.randint(0, 256, (5, 7), dtype=torch.uint8)]
def get_init_inputs(): return []
