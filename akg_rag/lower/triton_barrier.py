"""``barrier`` statements in the Triton backend (used by :mod:`akg_rag.lower.triton_kernel` and
:mod:`akg_rag.lower.triton_host`).

A barrier waits for the other programs of a group, which must all be running at once: the GPU
gives no such promise for the programs of a grid. So a launch with barriers takes its grid point
from a *ticket* (an atomic counter bumped when the program starts) instead of its program id: the
groups are runs of consecutive grid points (the interpreter checks it), so at most one group is
ever only partly started, every program it waits on has started or will get a free slot, and the
launch finishes as long as a group fits on the GPU at once. The host makes sure it does: a
barrier's count is a tunable, and the host lowers it to the GPU's SM count (one resident program
per SM is always possible), to 1 where programs run one after another (the Triton interpreter).
The counters and the ticket are zeroed by the host for every call. A launch that also reads a row
again in a later pass (akg_rag.lower.reuse) loops over tickets, so its host may launch fewer
programs than grid points (``GRID_MODE``): still at least the barrier's count, and tickets are
taken in order by running programs only, so the argument above holds.

The arrival is an atomic add with release semantics after a block-wide barrier (so that every
thread's earlier stores are ordered before it); the wait spins on volatile loads (served by L2
without its atomic units) and ends with one atomic read with acquire semantics, which
synchronises with every arrival; loads after a barrier of tensors the launch writes bypass L1
(``.cg``). The host spaces the counters a 128-byte line apart (``COUNTER_SPACING``): on a GPU
the counters of neighbouring rows in one line put every waiting program of the launch on one
L2 slice, and at 64 programs a row on an H100 (level1/34, 7168 rows of 262144 elements) the
launch ran 3.4 s where the loop form runs ~10 ms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from akg_rag.lower.triton_names import fail
from akg_rag.sketch.nodes import Barrier, Name, Stmt

if TYPE_CHECKING:
    from akg_rag.lower.triton_kernel import KernelWriter
    from akg_rag.lower.typed import Launch, TypedSketch

# the host's cap on a barrier's count: the programs a GPU is sure to run at once (one per SM), and
# one where programs run in turn (the Triton interpreter, a tensor not on a GPU)
RESIDENT_HELPER = '''\
_RESIDENT = {}


def _resident(t):
    """Programs of a launch sure to be running at once on ``t``'s device: one per SM on a GPU,
    1 under the Triton interpreter (programs run one after another); no limit on meta tensors
    (compiled offline, never run)."""
    if t.device.type == "meta":
        return 2**31 - 1
    if t.device.type != "cuda" or os.environ.get("TRITON_INTERPRET", "0") == "1":
        return 1
    key = t.device.index if t.device.index is not None else torch.cuda.current_device()
    if key not in _RESIDENT:
        _RESIDENT[key] = torch.cuda.get_device_properties(key).multi_processor_count
    return _RESIDENT[key]
'''


COUNTER_SPACING = 32   # i32 elements between two counters: one 128-byte line each


def barriers(body: list[Stmt]) -> list[Barrier]:
    """The barriers of a launch's body (they stand directly in it)."""
    return [s for s in body if isinstance(s, Barrier)]


def counts(typed: TypedSketch, launches: list[Launch]) -> list[str]:
    """The tunables that are barrier counts in ``launches`` (each a tunable, else SketchError)."""
    out: list[str] = []
    for launch in launches:
        for b in barriers(launch.body):
            if not isinstance(b.count, Name) or b.count.id not in typed.tunables:
                raise fail("the Triton backend needs a barrier's count to be an UPPER_CASE integer "
                           "parameter (a tunable it can lower to fit the GPU)", b)
            if b.count.id not in out:
                out.append(b.count.id)
    return out


def counters(typed: TypedSketch) -> set[str]:
    """The temps barriers count on (zeroed by the host at every call)."""
    return {b.counter.tensor for launch in typed.launches for b in barriers(launch.body)}


def emit_barrier(kw: KernelWriter, s: Barrier) -> None:
    """A barrier's arrival and wait (see the module docstring)."""
    ptr, _ = kw.access(s.counter, (), store=False)   # in bounds: the interpreter checks the groups
    count = kw.var(s.count.id)  # type: ignore[union-attr]
    arrived = kw.namer.fresh("arrived")
    kw.emit(f"# barrier({s.counter.tensor}[...], {s.count.id}): wait for the group's other programs")  # type: ignore[union-attr]
    start = len(kw.lines)
    kw.emit("tl.debug_barrier()  # every thread's stores before the arrival")
    kw.emit(f'tl.atomic_add({ptr}, 1, sem="release")')
    wait = len(kw.lines)
    kw.emit(f"{arrived} = tl.load({ptr}, volatile=True)")
    kw.emit(f"while {arrived} < {count}:")
    kw.emit(f"    {arrived} = tl.load({ptr}, volatile=True)")
    kw.emit(f'tl.atomic_add({ptr}, 0, sem="acquire")  # synchronises with every arrival')
    kw.emit("tl.debug_barrier()")
    kw.barrier_at = (start, wait, len(kw.lines))   # arrival, wait, end (akg_rag.lower.triton_pipe)
    kw.after_barrier = True
