import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss = nn.MSELoss()

    def forward(self, predictions, targets):
        return self.loss(predictions, targets)


def get_inputs():
    return [torch.randn(128, 4096), torch.randn(128, 4096)]


def get_init_inputs():
    return []
