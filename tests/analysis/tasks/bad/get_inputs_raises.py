import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return x


def get_inputs():
    raise ValueError("no inputs today")


def get_init_inputs():
    return []
