"""Property test: random pointwise chains with broadcasting, lowered to Triton and run against torch.

Each case draws an expression tree over a [BM, N] tile of ``a``, a broadcast row ``b[N]``, a
broadcast column ``c[M, 1]``, a scalar parameter and literals, writes it as a sketch and as a torch
function, and compares the two (the tree keeps values bounded: no overflow, no division by ~0).
"""

from __future__ import annotations

import random

import pytest
import torch

LEAVES = [("ta", lambda e: e["a"]), ("tb", lambda e: e["b"]), ("tc", lambda e: e["c"]),
          ("alpha", lambda e: e["alpha"])]
UNARY = {
    "tanh": torch.tanh, "sigmoid": torch.sigmoid, "abs": torch.abs, "neg": torch.neg,
    "exp": lambda x: torch.exp(torch.tanh(x)),          # written as exp(tanh(x)) below
    "sqrt": lambda x: torch.sqrt(torch.abs(x) + 1),     # written as sqrt(abs(x) + 1)
    "erf": torch.erf, "sin": torch.sin, "floor": torch.floor,
}
BINARY = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "max": torch.maximum,
          "min": torch.minimum, "div": lambda x, y: x / (1 + torch.abs(y))}


def _tree(rng: random.Random, depth: int):
    """(sketch text, torch function of the environment)."""
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.15:
            v = round(rng.uniform(-2, 2), 3)
            return repr(v), (lambda e, v=v: v)
        return rng.choice(LEAVES)
    kind = rng.random()
    if kind < 0.4:
        op = rng.choice(sorted(UNARY))
        text, f = _tree(rng, depth - 1)
        sk = {"exp": f"exp(tanh({text}))", "sqrt": f"sqrt(abs({text}) + 1)"}.get(op, f"{op}({text})")
        return sk, (lambda e, f=f, g=UNARY[op]: g(torch.as_tensor(f(e))))
    if kind < 0.85:
        op = rng.choice(sorted(BINARY))
        (t1, f1), (t2, f2) = _tree(rng, depth - 1), _tree(rng, depth - 1)
        sk = f"div({t1}, 1 + abs({t2}))" if op == "div" else f"{op}({t1}, {t2})"
        return sk, (lambda e, f1=f1, f2=f2, g=BINARY[op]: g(torch.as_tensor(f1(e)), torch.as_tensor(f2(e))))
    (tc, fc), (t1, f1), (t2, f2) = (_tree(rng, depth - 1) for _ in range(3))
    return (f"where(gt({tc}, 0), {t1}, {t2})",
            lambda e, fc=fc, f1=f1, f2=f2: torch.where(torch.as_tensor(fc(e)) > 0, torch.as_tensor(f1(e)),
                                                        torch.as_tensor(f2(e))))


SKETCH = """
sketch chain {{
  symbols: M, N
  tensors: a[M, N]: f32 in; b[N]: f32 in; c[M, 1]: f32 in; y[M, N]: f32 out
  params: alpha = {alpha}, BM = 4

  @llm_hint("parallel", "grid")
  for i in range(0, M, BM):
    ta = alloc([BM, N], f32)
    load(a[i:i + BM, 0:N] -> ta)
    tb = alloc([N], f32)
    load(b[0:N] -> tb)
    tc = alloc([BM, 1], f32)
    load(c[i:i + BM, 0:1] -> tc)
    zero = alloc([BM, N], f32, init=0)
    out = add(zero, {expr})
    store(out -> y[i:i + BM, 0:N])
}}
"""


@pytest.mark.parametrize("seed", range(8))
def test_random_pointwise_chain_matches_torch(build, device, seed):
    rng = random.Random(seed)
    text, fn = _tree(rng, 4)
    alpha = round(rng.uniform(-1, 1), 3)
    env = {"a": torch.randn(6, 7, device=device), "b": torch.randn(7, device=device),
           "c": torch.randn(6, 1, device=device), "alpha": alpha}
    kernel, _, _ = build(SKETCH.format(alpha=alpha, expr=text), f"chain{seed}")
    y = torch.empty(6, 7, device=device)
    kernel(env["a"], env["b"], env["c"], y)
    ref = torch.broadcast_to(torch.as_tensor(fn(env), dtype=torch.float32, device=device), (6, 7))
    torch.testing.assert_close(y, ref, atol=1e-4, rtol=1e-4, msg=lambda m: f"{text}\n{m}")
