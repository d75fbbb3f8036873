"""Capture folds a traced training-mode dropout back into one ``native_dropout`` (left to torch)."""

from __future__ import annotations

import torch

from akg_rag.lower.capture import capture

aten = torch.ops.aten

DROPOUT = '''
import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p
    def forward(self, x):
        return F.dropout(torch.tanh(x), self.p, training=True) + x

def get_inputs():
    return [torch.randn(8, 16)]

def get_init_inputs():
    return [0.25]
'''

HAND_WRITTEN = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        keep = torch.bernoulli(torch.full_like(x, 0.75))
        return x * keep / 0.75

def get_inputs():
    return [torch.randn(8, 16)]

def get_init_inputs():
    return []
'''


def _targets(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    cap = capture(path, text)
    return [n.target for n in cap.gm.graph.nodes if n.op == "call_function"]


def test_dropout_is_one_native_dropout_with_its_probability(tmp_path):
    targets = _targets(tmp_path, "drop", DROPOUT)
    assert aten.native_dropout.default in targets
    assert not any("bernoulli" in str(t) for t in targets)
    cap = capture(tmp_path / "drop.py", DROPOUT)
    (node,) = [n for n in cap.gm.graph.nodes if n.target == aten.native_dropout.default]
    assert node.args[1:] == (0.25, True)


def test_a_hand_written_bernoulli_stays_as_written(tmp_path):
    targets = _targets(tmp_path, "hand", HAND_WRITTEN)
    assert aten.native_dropout.default not in targets
    assert any("bernoulli" in str(t) or "rand" in str(t) for t in targets)   # its own draw, as decomposed
