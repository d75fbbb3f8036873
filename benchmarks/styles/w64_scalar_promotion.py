import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, u, n, i):
        # a Python int of the same kind does not promote: uint8 + 300 wraps; int / int is float division
        return u + 300, u * 2.5, n / i, n // 2.5, i * True, u - 1, (n % 3.0)
def get_inputs():
    return [torch.randint(0, 256, (4, 6), dtype=torch.uint8), torch.randint(-20, 20, (4, 6)), torch.randint(1, 9, (4, 6), dtype=torch.int32)]
def get_init_inputs(): return []
