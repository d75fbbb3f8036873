"""What a backend returns for one sketch: generated source, its entry point and its tunables."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class KernelSource:
    """Generated code for one sketch (see docs/lowering.md, "The backend interface").

    Triton: ``code`` is Python source (module-level tunables, ``@triton.jit`` kernels and a host
    function named ``entry``). C++: ``code`` is C++ source defining ``void entry(at::Tensor ...)``;
    the caller builds every kernel of a candidate in one ``load_inline`` module.
    """

    code: str
    entry: str
    tunables: dict[str, int] = field(default_factory=dict)   # module-level name -> value
    tensors: list[str] = field(default_factory=list)         # entry's tensor arguments, in order
