"""Does the candidate's kernel do the work? Two observers of its launches, run in the candidate process.

* :class:`Classify` watches every launch of one forward (Triton ``run`` or a function of a built
  extension): it fingerprints the tensor arguments before and after, plus the tensors a function
  returns. A launch is *trivial* when it writes nothing, or everything it writes is a bitwise copy
  of one of its arguments, or a constant. A forward whose every launch is trivial is an identity
  or copy kernel decorating torch's work (guard ``no_work``). A written single element never counts
  as a constant: it is what a full reduction writes.
* :class:`Ablate` runs one forward with every launch skipped (Triton) or its results discarded
  (extension functions): the tensors the launch could have written are filled with NaN (integers
  with their most negative value; booleans are negated), except the
  forward's own inputs and the model's parameters. If that forward still matches the reference --
  the judge compares it -- the output does not depend on the kernels at all (guard
  ``torch_fallback``), whichever aten ops torch used to compute it.

Both are heuristics against decoration, not proofs of work: a kernel that does a sliver of real
work while torch does the rest is a *partial* candidate, reported as such by the op recorder.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from akg_rag.verify.tensors import content_print, is_constant, tensors_of

Launch = Callable[[], Any]


def _arg_tensors(args: tuple, kwargs: dict) -> list[torch.Tensor]:
    return tensors_of(list(args)) + tensors_of(list(kwargs.values()))


class Classify:
    """Counts launches and the trivial ones among them (see the module docstring)."""

    def __init__(self) -> None:
        self.launches = 0
        self.trivial = 0
        self.examples: list[str] = []

    def __call__(self, kind: str, name: str, launch: Launch, args: tuple, kwargs: dict) -> Any:
        ts = _arg_tensors(args, kwargs)
        before = [content_print(t) for t in ts]
        result = launch()
        if kind == "triton" and torch.cuda.is_available() and any(t.is_cuda for t in ts):
            torch.cuda.synchronize()
        written = [t for t, b in zip(ts, before) if content_print(t) != b] + tensors_of(result)
        sources = set(before)
        self.launches += 1
        why = None
        if not written:
            why = "writes nothing"
        elif all(content_print(t) in sources or (t.numel() > 1 and is_constant(t)) for t in written):
            # one element is no evidence of a fill: a full reduction (a mean loss) writes a scalar;
            # a kernel that only writes a constant scalar beside torch's work is Ablate's to catch
            why = "only copies its arguments or fills constants"
        if why is not None:
            self.trivial += 1
            if len(self.examples) < 3:
                self.examples.append(f"{name}: {why}")
        return result


class Ablate:
    """Skips every launch and poisons what it could have written (see the module docstring)."""

    def __init__(self, protected: set[int]) -> None:
        self.protected = protected   # storage pointers of the forward's inputs and the parameters
        self.launches = 0

    def _poison(self, ts: list[torch.Tensor]) -> None:
        for t in ts:
            if not t.numel() or t.untyped_storage().data_ptr() in self.protected:
                continue
            if t.is_floating_point() or t.is_complex():
                t.fill_(float("nan"))
            elif t.dtype == torch.bool:
                # no value is out of a mask's range: flip every element, so a freshly allocated
                # output that holds the right answer (the reference's freed output, reused by the
                # allocator) no longer does
                t.logical_not_()
            else:
                # integers (argmax indices): the most negative value, which no index or count takes;
                # left alone, a freshly allocated output can hold the previous call's right answer
                t.fill_(torch.iinfo(t.dtype).min)

    def __call__(self, kind: str, name: str, launch: Launch, args: tuple, kwargs: dict) -> Any:
        self.launches += 1
        ts = _arg_tensors(args, kwargs)
        if kind == "triton":
            result = None           # the kernel never runs
        else:
            result = launch()       # an extension function must return something: discard its values
            ts = ts + tensors_of(result)
        with torch.no_grad():
            self._poison(ts)
        return result
