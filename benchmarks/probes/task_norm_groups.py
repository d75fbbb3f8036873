"""A task for the probes: a group norm's statistics without its per-channel affine -- 896 rows of
2M elements (level1/35's groups: 112 samples x 8 groups of 8 x 512 x 512) normalised by their
mean and variance. The streaming cooperative form (``python -m akg_rag.lower TASK --dsl triton
--backend cuda --stream``) against the split form (without ``--stream``): does the streaming
launch's DRAM rate stay at 59% of peak with no per-element gather?"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.nn.functional.layer_norm(x, (x.shape[1],))


def get_inputs():
    return [torch.randn(896, 2097152)]


def get_init_inputs():
    return []
