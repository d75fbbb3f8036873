"""KL divergence between two softmax distributions: kl_div(log_softmax(p), softmax(q), "batchmean").

Exercises: two row softmaxes feeding a pointwise xlogy-style term and a full sum / batch.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, classes = 9, 53
else:
    batch, classes = 4096, 8192


class Model(nn.Module):
    """Distillation-style KL(q || p) averaged over the batch."""

    def forward(self, student: torch.Tensor, teacher: torch.Tensor) -> torch.Tensor:
        log_p = F.log_softmax(student, dim=-1)
        q = F.softmax(teacher, dim=-1)
        return F.kl_div(log_p, q, reduction="batchmean")


def get_inputs():
    return [torch.randn(batch, classes), torch.randn(batch, classes)]


def get_init_inputs():
    return []
