import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, a, b, c):
        return a + b, a * 3, a - b, (a >> 2) & 7, -c, c * c, a.to(torch.float32) / 255.0, b | 1, a ^ b, (c - 100).to(torch.int8)
def get_inputs(): return [torch.randint(0, 256, (4, 6), dtype=torch.uint8), torch.randint(0, 256, (4, 6), dtype=torch.uint8), torch.randint(-128, 128, (4, 6), dtype=torch.int8)]
def get_init_inputs(): return []
