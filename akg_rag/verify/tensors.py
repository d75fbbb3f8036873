"""Tensor helpers shared by the judge and the candidate process: nesting, inputs, fingerprints.

Inputs are drawn on the device when the task's ``get_inputs`` allows it (``torch.device`` as the
default factory device), else on the host and moved; both processes run the same code with the same
seed, so they draw the same numbers without a copy crossing between them. Before every forward
whose outputs are compared, both reseed the random generators (:func:`reseed`), so a forward that
draws random numbers (training-mode dropout) draws the same ones on both sides. Fingerprints stand in for
bitwise copies of huge tensors: two 64-bit sums over 32-bit words, one of them position-weighted,
computed in chunks on the tensor's own device.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

CHUNK_ELEMS = 1 << 25       # 32 Mi elements per chunk: 256 MiB as float64 temporaries
WEIGHT_MOD = 65521          # largest prime below 2**16: position weights 1..65521
# Added to an input seed to seed the forward after it: keeps the forward's random numbers apart from
# the stream that drew the inputs (trial seeds are consecutive, fresh ones 48-bit random).
FORWARD_SEED_OFFSET = 0x5EED << 48


def tree_map(x: Any, fn: Callable[[torch.Tensor], Any]) -> Any:
    """Apply ``fn`` to every tensor of a nested list/tuple."""
    if isinstance(x, torch.Tensor):
        return fn(x)
    if isinstance(x, (list, tuple)):
        return type(x)(tree_map(v, fn) for v in x)
    return x


def tensors_of(x: Any) -> list[torch.Tensor]:
    """Every tensor of a nested list/tuple, in order."""
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in tensors_of(v)]
    return []


def foreign_types(x: Any) -> list[str]:
    """Names of the types, other than ``torch.Tensor`` (and ``nn.Parameter``), of ``x``'s tensors:
    a subclass can compute its values when first read, outside the forward and its timing."""
    plain = (torch.Tensor, torch.nn.Parameter)
    return sorted({type(t).__qualname__ for t in tensors_of(x) if type(t) not in plain})


def refill(dst: Any, src: Any) -> Any:
    """``src``'s values written into ``dst``'s own tensors (same storages, same objects) when both
    have the same structure, non-tensor leaves and tensor shapes, dtypes, strides and devices;
    otherwise ``src`` itself. A result kept by its inputs' addresses then answers for old values."""
    probe = lambda t: (tuple(t.shape), t.dtype, t.stride(), t.device)  # noqa: E731
    if tree_map(dst, probe) != tree_map(src, probe):
        return src
    with torch.no_grad():
        for d, s in zip(tensors_of(dst), tensors_of(src)):
            d.copy_(s)
    return dst


def draw_inputs(input_sets: Callable[[], list[list[Any]]], seed: int, device: torch.device) -> list[list[Any]]:
    """Every input list of a task for ``seed``, on ``device`` (drawn there when the task allows)."""
    torch.manual_seed(seed)
    if device.type != "cpu":
        try:
            with torch.device(device):
                sets = input_sets()
            return [tree_map(s, lambda t: t.to(device)) for s in sets]
        except Exception:  # noqa: BLE001 - numpy or an explicit host device: draw on the host
            torch.manual_seed(seed)
    return [tree_map(s, lambda t: t.to(device)) for s in input_sets()]


def forward_seed(draw_seed: int) -> int:
    """The generator seed for a forward on the inputs drawn from ``draw_seed`` (a 63-bit value)."""
    return (draw_seed + FORWARD_SEED_OFFSET) % (1 << 63)


def reseed(draw_seed: int) -> None:
    """Seed the CPU and every CUDA generator for a forward on the inputs drawn from ``draw_seed``.

    Called immediately before each compared forward, by the judge for the reference and by the
    candidate process for the candidate, so both start from the same generator state whatever the
    earlier calls consumed; a torch ``dropout`` kept in a candidate then draws the reference's mask.
    """
    seed = forward_seed(draw_seed)
    torch.manual_seed(seed)            # the CPU generator (and, through it, CUDA's)
    torch.cuda.manual_seed_all(seed)   # every CUDA device's generator, said outright; lazy until CUDA starts


class BufferState:
    """A module's buffers as they were when it was built, put back before every checked forward.

    The judge calls the reference and the candidate different numbers of times (timing runs, the
    attribution's forwards), so a task whose outputs read state its forward updates (a running
    mean, a call counter) would compare two models at different points of their histories. Each
    checked forward on either side therefore starts from the state both were built with."""

    def __init__(self, model: torch.nn.Module) -> None:
        self.model = model
        self.saved = {name: b.detach().clone() for name, b in model.named_buffers()}

    def restore(self) -> None:
        """Buffers found by name: forward may have rebound one (``self.count = self.count + 1``
        replaces the tensor), so the saved values go into whatever tensor holds the name now."""
        if not self.saved:
            return
        current = dict(self.model.named_buffers())
        with torch.no_grad():
            for name, saved in self.saved.items():
                b = current.get(name)
                if b is not None and b.shape == saved.shape and b.dtype == saved.dtype:
                    b.copy_(saved)
                else:
                    path, _, key = name.rpartition(".")
                    owner = self.model.get_submodule(path) if path else self.model
                    owner._buffers[key] = saved.clone()


def words(t: torch.Tensor) -> torch.Tensor:
    """The tensor's bytes as a flat integer tensor (int32 words where the size allows)."""
    flat = t.detach().contiguous().reshape(-1)
    if flat.is_complex():
        flat = torch.view_as_real(flat).reshape(-1)
    b = flat.view(torch.uint8)
    if b.numel() % 4 == 0:
        return b.view(torch.int32)
    if b.numel() % 2 == 0:
        return b.view(torch.int16)
    return b


def fingerprint(t: torch.Tensor) -> tuple[Any, ...]:
    """(dtype, shape, sum, weighted sum) of the tensor's bytes; equal contents give equal prints."""
    w = words(t)
    s1 = torch.zeros((), dtype=torch.int64, device=w.device)
    s2 = torch.zeros((), dtype=torch.int64, device=w.device)
    for start in range(0, w.numel(), CHUNK_ELEMS):
        c = w[start:start + CHUNK_ELEMS].to(torch.int64)
        pos = torch.arange(start, start + c.numel(), device=w.device, dtype=torch.int64) % WEIGHT_MOD + 1
        s1 += c.sum()
        s2 += (c * pos).sum()
    return (str(t.dtype), tuple(t.shape), int(s1.item()), int(s2.item()))


def content_print(t: torch.Tensor) -> tuple[Any, ...]:
    """Like :func:`fingerprint` without the shape: a reshaped copy has the same content print."""
    p = fingerprint(t)
    return (p[0], t.numel(), p[2], p[3])


_SAME_SIZE_INT = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def is_constant(t: torch.Tensor) -> bool:
    """True when every element has the same bits as the first (one element or none counts too)."""
    if t.numel() <= 1 or t.is_complex() or t.element_size() not in _SAME_SIZE_INT:
        return t.numel() <= 1
    flat = t.detach().contiguous().reshape(-1)
    flat = flat.view(torch.uint8) if flat.dtype == torch.bool else flat.view(_SAME_SIZE_INT[t.element_size()])
    first = flat[0]
    return all(bool((flat[s:s + CHUNK_ELEMS] == first).all()) for s in range(0, flat.numel(), CHUNK_ELEMS))


def storage_ptrs(x: Any) -> set[int]:
    """Data pointers of the storages behind every tensor of ``x``."""
    return {t.untyped_storage().data_ptr() for t in tensors_of(x) if t.numel() > 0}


def oom_where(e: BaseException) -> str | None:
    """"GPU" or "host" when ``e`` is an out-of-memory error, else None."""
    if isinstance(e, getattr(torch.cuda, "OutOfMemoryError", ())) or "CUDA out of memory" in str(e):
        return "GPU"
    if isinstance(e, MemoryError) or "can't allocate memory" in str(e) or \
            "DefaultCPUAllocator: not enough memory" in str(e):
        return "host"
    return None
