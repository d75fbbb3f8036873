"""Adapting retrieved kernels to a task's constructor, checked by executing the adapted code."""

from __future__ import annotations

import inspect
import textwrap

from akg_rag.graph.adapt import Adapted, adapt_kernel, init_params, matches_task, pick_and_adapt

TASK = textwrap.dedent('''
    import torch.nn as nn
    class Model(nn.Module):
        def __init__(self, features: int, eps: float = 1e-5):
            super().__init__()
        def forward(self, x):
            return x
''')

KERNEL_SAME = textwrap.dedent('''
    import torch.nn as nn
    class ModelNew(nn.Module):
        def __init__(self, features: int, eps: float = 1e-5):
            super().__init__()
            self.eps = eps
        def forward(self, x):
            return x * 2
''')

KERNEL_FEWER = textwrap.dedent('''
    import torch.nn as nn
    class ModelNew(nn.Module):
        def __init__(self, eps=1e-6, block=256):
            super(ModelNew, self).__init__()
            self.eps = eps
            self.block = block
        def forward(self, x):
            return x + self.eps
''')

KERNEL_NEEDS_MORE = textwrap.dedent('''
    import torch.nn as nn
    class ModelNew(nn.Module):
        def __init__(self, features, groups):
            super().__init__()
''')


def run(code: str) -> dict:
    ns: dict = {}
    exec(compile(code, "<adapted>", "exec"), ns)
    return ns


def test_init_params():
    params = init_params(TASK, "Model")
    assert [(p.name, p.default) for p in params] == [("features", None), ("eps", "1e-5")]
    assert init_params(TASK, "Missing") is None


def test_matching_signature_is_used_unchanged():
    adapted = adapt_kernel(TASK, KERNEL_SAME, "k1")
    assert isinstance(adapted, Adapted) and adapted.code == KERNEL_SAME


def test_different_signature_gets_a_forwarding_subclass():
    adapted = adapt_kernel(TASK, KERNEL_FEWER, "k2")
    assert isinstance(adapted, Adapted), adapted
    ns = run(adapted.code)
    model_new = ns["ModelNew"]
    assert list(inspect.signature(model_new.__init__).parameters) == ["self", "features", "eps"]
    m = model_new(8, eps=0.25)  # the task's arguments, as the verifier passes them
    assert m.eps == 0.25 and m.block == 256  # eps forwarded, the kernel's own default kept
    assert float(m.forward(__import__("torch").zeros(1))[0]) == 0.25


def test_kernel_needing_an_unknown_argument_is_skipped():
    reason = adapt_kernel(TASK, KERNEL_NEEDS_MORE, "k3")
    assert isinstance(reason, str) and "groups" in reason


def test_pick_and_adapt_skips_other_ops_and_tried_hits():
    analysis = {"op_name": "scale", "computation": "y = x * 2"}
    hits = [
        {"id": "a", "op_name": "relu", "computation": "y = max(x, 0)", "code": KERNEL_SAME},
        {"id": "b", "op_name": "scale", "computation": "y = x * 2", "code": KERNEL_NEEDS_MORE},
        {"id": "c", "op_name": "other_name", "computation": "y  =  x * 2", "code": KERNEL_SAME},
        {"id": "d", "op_name": "scale", "computation": "", "code": KERNEL_FEWER},
    ]
    adapted, skipped = pick_and_adapt(TASK, analysis, hits, tried=[])
    assert adapted.hit_id == "c"  # same computation text (whitespace aside) counts as a match
    assert any(s.startswith("a:") for s in skipped) and any(s.startswith("b:") for s in skipped)
    adapted, _ = pick_and_adapt(TASK, analysis, hits, tried=["c"])
    assert adapted.hit_id == "d"
    adapted, _ = pick_and_adapt(TASK, analysis, hits, tried=["c", "d"])
    assert adapted is None


def test_matches_task():
    assert matches_task({"op_name": "softmax"}, {"op_name": "softmax"})
    assert not matches_task({"op_name": "softmax", "computation": "a"}, {"op_name": "relu", "computation": "b"})
