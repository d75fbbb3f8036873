"""Speedup distributions as an SVG (standard library only; the GPU box has no plotting package).

One panel per group (a KernelBench level, say): the correct, timed candidates' speedups sorted from
slowest to fastest on a log axis, one mark per problem, with the 1.0x line and the geometric mean
over the whole group (failures and untimed candidates counted as 1.0x, as in the tables). A second
series, when given (over ``torch.compile``), is drawn in another colour.
"""

from __future__ import annotations

import math
from pathlib import Path

W, H, PAD = 640, 260, 48          # one panel, pixels
LO, HI = 0.05, 20.0               # axis range (x speedup); values outside are clipped to the edge
COLOURS = {"eager": "#1f77b4", "compile": "#d62728"}


def _y(v: float) -> float:
    v = min(max(v, LO), HI)
    frac = (math.log(v) - math.log(LO)) / (math.log(HI) - math.log(LO))
    return H - PAD - frac * (H - 2 * PAD)


def panel(title: str, series: dict[str, list[float]], means: dict[str, float | None], n: int, top: int) -> list[str]:
    """SVG elements of one panel at vertical offset ``top``; ``n`` problems in the group."""
    out = [f'<g transform="translate(0,{top})">',
           f'<text x="{PAD}" y="20" font-size="14" font-family="sans-serif">{title}</text>']
    for tick in (0.1, 0.25, 0.5, 1, 2, 4, 10):
        y = _y(tick)
        style = 'stroke="#000" stroke-width="1.2"' if tick == 1 else 'stroke="#ddd"'
        out.append(f'<line x1="{PAD}" x2="{W - PAD}" y1="{y:.1f}" y2="{y:.1f}" {style}/>')
        out.append(f'<text x="{PAD - 6}" y="{y + 4:.1f}" font-size="10" text-anchor="end" '
                   f'font-family="sans-serif">{tick:g}x</text>')
    span = W - 2 * PAD
    for name, values in series.items():
        colour = COLOURS.get(name, "#555")
        for i, v in enumerate(sorted(values)):
            x = PAD + (i + 0.5) * span / max(n, 1)
            out.append(f'<circle cx="{x:.1f}" cy="{_y(v):.1f}" r="2.6" fill="{colour}"/>')
        mean = means.get(name)
        if mean:
            y = _y(mean)
            out.append(f'<line x1="{PAD}" x2="{W - PAD}" y1="{y:.1f}" y2="{y:.1f}" stroke="{colour}" '
                       'stroke-dasharray="5,4"/>')
            out.append(f'<text x="{W - PAD + 4}" y="{y + 4:.1f}" font-size="10" fill="{colour}" '
                       f'font-family="sans-serif">{mean:.2f}x</text>')
    legend = ", ".join(f"{name}: {len(v)} timed" for name, v in series.items())
    out.append(f'<text x="{PAD}" y="{H - 12}" font-size="10" font-family="sans-serif">{n} problems; '
               f'{legend}; dashed: geometric mean (a failure counts 1.0x)</text>')
    out.append("</g>")
    return out


def write_svg(path: str | Path, groups: dict[str, dict]) -> None:
    """``groups``: name -> {"eager": [...], "compile": [...], "means": {...}, "problems": n}."""
    body: list[str] = []
    for k, (name, g) in enumerate(groups.items()):
        series = {s: g[s] for s in ("eager", "compile") if g.get(s)}
        body += panel(f"{name}: speedup of each correct, timed candidate (sorted)", series, g.get("means", {}),
                      g.get("problems", 0), k * H)
    height = max(1, len(groups)) * H
    Path(path).write_text(f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{height}" '
                          f'viewBox="0 0 {W} {height}">\n<rect width="100%" height="100%" fill="#fff"/>\n'
                          + "\n".join(body) + "\n</svg>\n")
