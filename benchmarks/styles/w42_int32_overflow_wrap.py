import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, i, s):
        # int32 products past 2**31 wrap in torch; int16 too
        return (i * 100000) // 7, (i * i * i) % 1000, (s * s).to(torch.float32), (s + 30000) > 0
def get_inputs(): return [torch.randint(-50000, 50000, (4, 6), dtype=torch.int32), torch.randint(-300, 300, (4, 6), dtype=torch.int16)]
def get_init_inputs(): return []
