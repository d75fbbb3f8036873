import torch


class Model(torch.nn.Module):
    def forward(self, a, b):
        return a @ b


def get_inputs():
    return [torch.randn(4, 5), torch.randn(6, 7)]


def get_init_inputs():
    return []
