import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, a, b, c):
        # intermediates wrap in the narrow dtype before the next op reads them
        return (a + b) > 200, (a + b) // 2, (a * 3) >> 1, (c * 2).to(torch.float32), (c + c).abs(), (a - b).float().mean(-1)
def get_inputs(): return [torch.randint(0, 256, (4, 6), dtype=torch.uint8), torch.randint(0, 256, (4, 6), dtype=torch.uint8), torch.randint(-128, 128, (4, 6), dtype=torch.int8)]
def get_init_inputs(): return []
