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

# Takes every task argument, in another order, plus one of its own with a default.
KERNEL_REORDERED = textwrap.dedent('''
    import torch.nn as nn
    class ModelNew(nn.Module):
        def __init__(self, eps=1e-6, features=4, block=256):
            super(ModelNew, self).__init__()
            self.eps, self.features, self.block = eps, features, block
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


def test_a_kernel_that_would_drop_a_task_argument_is_refused():
    reason = adapt_kernel(TASK, KERNEL_FEWER, "k2")
    assert isinstance(reason, str) and "features" in reason and "dropped" in reason


def test_different_order_and_defaults_get_a_forwarding_subclass():
    adapted = adapt_kernel(TASK, KERNEL_REORDERED, "k2")
    assert isinstance(adapted, Adapted), adapted
    ns = run(adapted.code)
    model_new = ns["ModelNew"]
    assert list(inspect.signature(model_new.__init__).parameters) == ["self", "features", "eps"]
    m = model_new(8)  # the task's arguments, as the verifier passes them (positionally)
    assert (m.features, m.eps, m.block) == (8, 1e-5, 256)  # the task's default, not the kernel's 1e-6
    m = model_new(8, 0.25)
    assert (m.features, m.eps) == (8, 0.25)
    assert float(m.forward(__import__("torch").zeros(1))[0]) == 0.25


def test_a_kernel_taking_only_args_kwargs_is_refused_unless_lowered():
    opaque = "class ModelNew:\n    def __init__(self, *args, **kwargs):\n        pass\n"
    assert "meaning is unknown" in adapt_kernel(TASK, opaque, "k")
    lowered = ("class _Weights:\n    def __init__(self, features, eps=1e-5):\n        self.features = features\n"
               "class ModelNew:\n    def __init__(self, *args, **kwargs):\n        self._w = _Weights(*args, **kwargs)\n")
    adapted = adapt_kernel(TASK, lowered, "k")
    assert isinstance(adapted, Adapted)
    assert run(adapted.code)["ModelNew"](7)._w.features == 7
    other = lowered.replace("features, eps", "channels, eps").replace("= features", "= channels")
    assert "features" in adapt_kernel(TASK, other, "k")


def test_kernel_needing_an_unknown_argument_is_skipped():
    reason = adapt_kernel(TASK, KERNEL_NEEDS_MORE, "k3")
    assert isinstance(reason, str) and "groups" in reason


def _hit(hid: str, op_name: str, computation: str, code: str, shapes=((4, 8),), out=((4, 8),)) -> dict:
    return {"id": hid, "op_name": op_name, "computation": computation, "code": code,
            "shapes": [list(s) for s in shapes], "output_shapes": [list(s) for s in out]}


def test_pick_and_adapt_needs_the_same_computation_and_name_and_skips_tried_hits():
    analysis = {"op_name": "scale", "computation": "y = x * 2",
                "inputs": [{"shape": [6, 3], "dtype": "float32"}],
                "outputs": [{"shape": [6, 3], "dtype": "float32"}]}
    hits = [
        _hit("a", "relu", "y = max(x, 0)", KERNEL_SAME),
        _hit("b", "scale", "y = x * 2", KERNEL_NEEDS_MORE),
        _hit("c", "other_name", "y = x * 2", KERNEL_SAME),       # same text, another name: refused
        _hit("d", "scale", "", KERNEL_SAME),                     # no text to compare: refused
        _hit("e", "scale", "y  =  x * 2", KERNEL_SAME),          # whitespace aside: the same
        _hit("f", "scale", "y = x * 2", KERNEL_FEWER),
    ]
    adapted, skipped = pick_and_adapt(TASK, analysis, hits, tried=[])
    assert adapted.hit_id == "e"
    assert [s.split(":")[0] for s in skipped] == ["a", "b", "c", "d"]
    adapted, _ = pick_and_adapt(TASK, analysis, hits, tried=["e"])
    assert adapted is None  # f would drop the task's `features`


def test_matches_task_compares_shape_structure():
    analysis = {"op_name": "softmax", "computation": "s",
                "inputs": [{"shape": [6, 300]}], "outputs": [{"shape": [6, 300]}]}
    assert matches_task(_hit("k", "softmax", "s", "", [(4, 257)], [(4, 257)]), analysis)
    assert matches_task(_hit("k", "softmax", "s", "", [(-1, 257)], [(-1, 257)]), analysis)
    assert not matches_task(_hit("k", "softmax", "s", "", [(4, 1)], [(4, 1)]), analysis)
    assert not matches_task(_hit("k", "softmax", "s", "", [(4, 257, 1)], [(4, 257, 1)]), analysis)
    assert not matches_task({"id": "k", "op_name": "softmax", "computation": "s"}, analysis)
