"""Cross-entropy loss of (batch, num_classes) float32 logits against int64 class targets.

loss = mean_i(logsumexp(logits[i, :]) - logits[i, target[i]]): a row-wise log-sum-exp, a gather
of one logit per row, then a mean over the batch to a 0-dim scalar.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """Softmax cross-entropy with mean reduction (F.cross_entropy defaults)."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Return the 0-dim mean cross-entropy of logits ``predictions`` for labels ``targets``."""
        return F.cross_entropy(predictions, targets)


if SCALE == "small":
    batch_size, num_classes = 5, 37
else:
    batch_size, num_classes = 4096, 1000


def get_inputs():
    predictions = torch.randn(batch_size, num_classes)
    targets = torch.randint(0, num_classes, (batch_size,))
    return [predictions, targets]


def get_init_inputs():
    return []
