"""Statistics that share a pass in the reduction emitter's loop and split forms.

``online_sums``: a ``sum(exp(E - max(E)))`` (softmax, log-softmax, logsumexp) keeps a running max
and a rescaled running sum per lane in its max's pass. ``variance_pairs``: a ``sum((E - a)**2)``
about a mean ``a`` of ``sum(E)`` keeps a count, mean and sum of squared deviations per lane
(Welford's update) in its mean's pass; lanes and split chunks merge by Chan et al.'s formula.
A mixin of ``akg_rag.lower.emit.reduction._Emitter``: it reads the emitter's sketch writer
(``w``), results, accumulator dtypes and leaf functions.
"""

from __future__ import annotations

from akg_rag.lower.emit.common import ExprWriter
from akg_rag.lower.region import Expr, Reduction


class OnePassMixin:
    """Pattern detection and sketch text of the one-pass statistics."""

    def online_sums(self, levels: list[list[Reduction]]) -> dict[str, str]:
        """``{sum: max}`` when every reduction of the second level is ``sum(exp(E - max(E)))`` over
        a first-level max of the same ``E`` (softmax, log-softmax, logsumexp): the loop form then
        keeps a running max and a rescaled running sum per lane in one pass, instead of one pass
        for the max and another for the sum. Empty when the pattern does not hold."""
        if len(levels) < 2:
            return {}
        maxes = {red.name: red for red in levels[0] if red.kind == "max"}
        out = {}
        for red in levels[1]:
            e = red.expr
            if red.kind != "sum" or e.op != "exp" or len(e.args) != 1 or e.args[0].op != "sub":
                return {}
            value, ref = e.args[0].args
            m = maxes.get(ref.ref) if ref.op == "reduced" else None
            if m is None or m.expr != value:
                return {}
            out[red.name] = m.name
        return out

    def variance_pairs(self, levels: list[list[Reduction]]) -> dict[str, tuple[str, Expr]]:
        """``{q: (s, a)}`` when the reductions are two levels and every second-level one is
        ``q = sum((E - a)**2)`` over a first-level ``s = sum(E)`` of the same ``E``, ``a`` reading
        no reduction but ``s`` and nothing of the element (a mean: ``s / numel``). Then one pass
        keeps a count, mean and sum of squared deviations per lane (Welford) and merges them
        (Chan et al.), and ``q = M2 + N * (S / N - a)**2`` holds for any such ``a`` (0 added when
        ``a`` is the mean): a variance's input is read once, not twice, and without the
        cancellation of a sum of squares. Empty when the pattern does not hold."""
        if len(levels) != 2 or any(self.acc_dtype(red) == "i64" for g in levels for red in g):
            return {}
        sums = {red.name: red for red in levels[0] if red.kind == "sum"}
        out: dict[str, tuple[str, Expr]] = {}
        for red in levels[1]:
            e = red.expr
            if red.kind != "sum":
                return {}
            if e.op == "mul" and len(e.args) == 2 and e.args[0] == e.args[1]:
                d = e.args[0]
            elif e.op == "pow" and len(e.args) == 2 and e.args[1].op == "const" and e.args[1].value == 2:
                d = e.args[0]
            else:
                return {}
            if d.op != "sub" or len(d.args) != 2:
                return {}
            value, a = d.args
            leaves = _leaves(a)
            refs = {x.ref for x in leaves if x.op == "reduced"}
            s = sums.get(next(iter(refs))) if len(refs) == 1 else None
            if s is None or s.expr != value or any(x.op not in ("reduced", "const", "numel") for x in leaves):
                return {}
            out[red.name] = (s.name, a)
        return out

    def merged_levels(self) -> tuple[list[list[Reduction]], dict[str, str], dict[str, tuple[str, Expr]], set[str]]:
        """The levels of reductions with the online sums joined to their maxes' level (else the
        variances to their means'), the online sums, the variance pairs and the pairs' sources."""
        levels = self.levels()
        online = self.online_sums(levels)
        pairs = {} if online else self.variance_pairs(levels)
        if online or pairs:
            levels = [levels[0] + levels[1], *levels[2:]]
        return levels, online, pairs, {s for s, _ in pairs.values()}

    def online_max_update(self, depth: int, acc: str, m: str, sums: list[str]) -> None:
        """The lanes' running max ``acc`` updated with a block's terms ``m``, and each running sum
        of exp(E - max) in ``sums`` rescaled to the new max (a lane that has seen only -inf keeps
        0: no exp(-inf - -inf))."""
        w = self.w
        new = w.fresh("mnew")
        w.emit(depth, f"{new} = max({acc}, {m})")
        for sa in sums:
            w.emit(depth, f"{sa} = add(mul({sa}, where(eq({acc}, {new}), 1.0, exp(sub({acc}, {new})))), "
                          f"where(eq({new}, -inf), 0.0, exp(sub({m}, {new}))))")
        w.emit(depth, f"{acc} = {new}")

    def welford_lanes(self, depth: int, shape: str, s: str) -> tuple[str, str, str]:
        """Per-lane count, mean and sum of squared deviations of reduction ``s``'s terms."""
        w = self.w
        accs = tuple(w.fresh(f"w{k}_{s}" if s.isidentifier() else f"w{k}") for k in ("n", "m", "q"))
        for a in accs:
            w.emit(depth, f'{a} = alloc({shape}, {self.f_acc}, hint="accumulator", init=0)')
        return accs  # type: ignore[return-value]

    def welford_update(self, depth: int, accs: tuple[str, str, str], valid: str, x: str) -> None:
        """One term per lane where ``valid`` (Welford's update)."""
        w = self.w
        n, m, q = accs
        d = w.fresh("dw")
        w.emit(depth, f"{n} = add({n}, where({valid}, 1.0, 0.0))")
        w.emit(depth, f"{d} = where({valid}, sub({x}, {m}), 0.0)")
        w.emit(depth, f"{m} = add({m}, div({d}, max({n}, 1.0)))")
        w.emit(depth, f"{q} = add({q}, mul({d}, where({valid}, sub({x}, {m}), 0.0)))")

    def welford_merge(self, depth: int, n: str, total: str, q: str, ok: str | None,
                      means: str | None = None, axis: str = "axis=1, keepdim=1") -> tuple[str, str, str]:
        """Merge along ``axis`` (default: axis 1, kept) the parts ``ok`` selects (all when None),
        each a count ``n``, a sum ``total`` and a sum of squared deviations ``q`` about its own
        mean (``means``, else ``total / n``) (Chan et al.): (N, S, M2)."""
        w = self.w
        N, S, mean, M2, dev = (w.fresh(x) for x in ("wN", "wS", "wmean", "wM2", "wdev"))

        def sel(x: str) -> str:
            return f"where({ok}, {x}, 0.0)" if ok else x

        w.emit(depth, f"{N} = reduce_sum({sel(n)}, {axis})")
        w.emit(depth, f"{S} = reduce_sum({sel(total)}, {axis})")
        w.emit(depth, f"{mean} = div({S}, max({N}, 1.0))")
        w.emit(depth, f"{dev} = sub({means or f'div({total}, max({n}, 1.0))'}, {mean})")
        w.emit(depth, f"{M2} = reduce_sum({sel(f'add({q}, mul({n}, mul({dev}, {dev})))')}, {axis})")
        return N, S, M2

    def variance_results(self, depth: int, pairs: dict[str, tuple[str, Expr]], merged: dict[str, tuple[str, str, str]],
                         idx: list[str | None]) -> None:
        """``results`` of the pairs' sums (S) and second-level sums (M2 + N * (S / N - a)**2)."""
        w = self.w
        for s, (N, S, _) in merged.items():
            self.results[s] = (S, frozenset({"k"}))
        ew = ExprWriter(w, depth, self.leaf_fn(depth, idx))
        for q, (s, a) in pairs.items():
            N, S, M2 = merged[s]
            text, _ = ew.write(a)
            off, res = w.fresh("woff"), w.fresh(q if q.isidentifier() else "red")
            w.emit(depth, f"{off} = sub(div({S}, max({N}, 1.0)), {text})")
            w.emit(depth, f"{res} = add({M2}, mul({N}, mul({off}, {off})))")
            self.results[q] = (res, frozenset({"k"}))


def _leaves(e: Expr) -> list[Expr]:
    """The leaves of an expression tree (a gather is one, its index expressions aside)."""
    return [e] if not e.args or e.op == "gather" else [x for a in e.args for x in _leaves(a)]
