import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


def get_inputs():
    shape = (32, 32, 512, 64)
    return [torch.randn(*shape, dtype=torch.float16) for _ in range(3)]


def get_init_inputs():
    return []
