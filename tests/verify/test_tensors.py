"""Input trees: fresh values written into the tensors a candidate already holds."""

from __future__ import annotations

import torch

from akg_rag.verify.tensors import foreign_types, refill


def test_refill_writes_into_the_same_tensors_when_everything_matches():
    dst = [torch.zeros(2, 3), 4, (torch.zeros(5, dtype=torch.int64),)]
    src = [torch.ones(2, 3), 4, (torch.arange(5),)]
    out = refill(dst, src)
    assert out is dst and out[0] is dst[0] and out[2][0] is dst[2][0]
    assert torch.equal(dst[0], src[0]) and torch.equal(dst[2][0], src[2][0])


def test_refill_keeps_the_fresh_tree_when_anything_differs():
    for dst, src in (([torch.zeros(2, 3)], [torch.ones(3, 2)]),                 # shape
                     ([torch.zeros(2, 3)], [torch.ones(2, 3, dtype=torch.float64)]),  # dtype
                     ([torch.zeros(3, 2).t()], [torch.ones(2, 3)]),             # strides
                     ([torch.zeros(2), 1], [torch.ones(2), 2])):                # a non-tensor leaf
        before = [t.clone() if isinstance(t, torch.Tensor) else t for t in dst]
        assert refill(dst, src) is src
        assert torch.equal(dst[0], before[0])                                   # dst untouched


def test_foreign_types_names_tensor_subclasses_by_type_alone():
    touched = []

    class Lazy(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            touched.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    lazy = torch.zeros(2).as_subclass(Lazy)
    touched.clear()
    names = foreign_types([torch.ones(1), (lazy, 3)])
    assert len(names) == 1 and names[0].endswith("<locals>.Lazy")
    assert touched == []                                     # nothing of the subclass ran
    assert foreign_types((torch.ones(1), torch.nn.Parameter(torch.ones(1)), "x")) == []
