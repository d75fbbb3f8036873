"""An LSTM-style gate written with tensor methods: x.tanh() * g.sigmoid() + logsigmoid(x).

Exercises: method-call style (x.tanh(), g.sigmoid()), logsigmoid's stable form.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (7, 3, 43)
else:
    shape = (64, 96, 4096)


class Model(nn.Module):
    """tanh(x) * sigmoid(g) + log(sigmoid(x))."""

    def forward(self, x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        return x.tanh() * g.sigmoid() + F.logsigmoid(x)


def get_inputs():
    return [torch.randn(*shape), torch.randn(*shape)]


def get_init_inputs():
    return []
