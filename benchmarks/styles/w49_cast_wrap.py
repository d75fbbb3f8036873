import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, c, i, x):
        # int8 -> uint8 wraps (-1 -> 255), int32 -> int8 keeps the low byte, float -> int truncates toward zero
        return c.to(torch.uint8), i.to(torch.int8), x.to(torch.int32), (x * 10).to(torch.int16), c.to(torch.uint8).float() / 255.0, (i.to(torch.int8) > 0)
def get_inputs():
    return [torch.randint(-128, 128, (4, 9), dtype=torch.int8), torch.randint(-100000, 100000, (4, 9), dtype=torch.int32),
            torch.randn(4, 9) * 50]
def get_init_inputs(): return []
