"""The readable operator name and the canonical computation text of an analysed task.

The computation text is what the knowledge base embeds for semantic retrieval, so it is built from a
fixed template over the canonical ops only: two tasks that compute the same thing get the same text
however they were written. Exact sizes stay out (shapes are matched numerically in a later retrieval
stage); ranks, dtypes and which dimensions are reduced stay in.
"""

from __future__ import annotations

from akg_rag.analysis.canon import CanonOp
from akg_rag.analysis.record import TensorSpec

PHRASES: dict[str, str] = {
    "softmax": "softmax over {dims}",
    "log_softmax": "log-softmax over {dims}",
    "softmin": "softmin over {dims}",
    "linear": "matrix multiplication with bias addition (fully connected layer)",
    "matmul": "matrix multiplication",
    "bmm": "batched matrix multiplication",
    "bilinear": "bilinear transform",
    "relu": "ReLU activation",
    "relu6": "ReLU6 activation",
    "leaky_relu": "leaky ReLU activation",
    "elu": "ELU activation",
    "selu": "SELU activation",
    "gelu": "GELU activation (erf form)",
    "gelu_tanh": "GELU activation (Gaussian error linear unit, approximate form)",
    "silu": "SiLU (swish) activation x * sigmoid(x)",
    "mish": "Mish activation",
    "sigmoid": "sigmoid activation",
    "tanh": "tanh activation",
    "softsign": "softsign activation x / (1 + |x|)",
    "softplus": "softplus activation",
    "log_sigmoid": "log-sigmoid activation",
    "hardsigmoid": "hard sigmoid activation",
    "hardswish": "hard swish activation",
    "hardtanh": "hardtanh clamp to [-1, 1]",
    "tanhshrink": "tanhshrink activation",
    "softshrink": "soft shrinkage",
    "hardshrink": "hard shrinkage",
    "exp": "exponential",
    "abs": "absolute value",
    "neg": "negation",
    "square": "square",
    "add": "elementwise addition",
    "sub": "elementwise subtraction",
    "mul": "elementwise multiplication",
    "div": "elementwise division",
    "maximum": "elementwise maximum",
    "minimum": "elementwise minimum",
    "clamp": "clamp to a range",
    "where": "elementwise select",
    "sum": "sum reduction over {dims}",
    "mean": "mean reduction over {dims}",
    "max": "max reduction over {dims}",
    "min": "min reduction over {dims}",
    "argmax": "argmax over {dims}",
    "argmin": "argmin over {dims}",
    "prod": "product reduction over {dims}",
    "norm": "vector norm over {dims}",
    "var": "variance over {dims}",
    "std": "standard deviation over {dims}",
    "logsumexp": "log-sum-exp over {dims}",
    "cumsum": "cumulative sum (prefix scan) along {dims}",
    "cumprod": "cumulative product (prefix scan) along {dims}",
    "layer_norm": "layer normalization over {dims}",
    "batch_norm": "batch normalization",
    "group_norm": "group normalization",
    "instance_norm": "instance normalization over {dims}",
    "rms_norm": "RMS normalization over {dims}",
    "l2_normalize": "L2 normalization",
    "scaled_dot_product_attention": "scaled dot-product attention softmax(Q K^T / sqrt(d)) V",
    "multi_head_attention": "multi-head attention",
    "lstm": "LSTM recurrent layer (gated matrix multiplications with sigmoid and tanh)",
    "gru": "GRU recurrent layer",
    "embedding": "embedding table lookup",
    "mse_loss": "mean squared error loss",
    "l1_loss": "mean absolute error (L1) loss",
    "smooth_l1_loss": "smooth L1 loss",
    "huber_loss": "Huber loss",
    "cross_entropy": "cross-entropy loss (log-softmax and negative log-likelihood)",
    "nll_loss": "negative log-likelihood loss",
    "kl_div": "Kullback-Leibler divergence loss",
    "binary_cross_entropy": "binary cross-entropy loss",
    "binary_cross_entropy_with_logits": "binary cross-entropy loss on logits",
    "triplet_margin_loss": "triplet margin loss",
    "margin_ranking_loss": "margin ranking loss",
    "hinge_embedding_loss": "hinge embedding loss",
    "cosine_embedding_loss": "cosine embedding loss",
    "cosine_similarity": "cosine similarity over {dims}",
}

# Short names used when a canonical op is one link of a fused chain (op_name "gemm_bias_relu").
CHAIN_NAMES: dict[str, str] = {"linear": "gemm_bias", "scaled_dot_product_attention": "sdpa"}
_MAX_CHAIN = 8


def _ordinal_dims(dims: tuple[int, ...] | None, rank: int) -> str:
    if dims is None or rank == 0 or list(dims) == list(range(rank)):
        return "all dimensions"
    if list(dims) == [rank - 1]:
        return "the last dimension"
    if list(dims) == list(range(rank - len(dims), rank)):
        return f"the last {len(dims)} dimensions"
    words = ", ".join(str(d) for d in dims)
    return f"dimension {words}" if len(dims) == 1 else f"dimensions {words}"


def _phrase(op: CanonOp) -> str:
    if op.name in PHRASES:
        text = PHRASES[op.name].format(dims=_ordinal_dims(op.dims, op.rank))
    elif op.name.startswith(("conv", "depthwise_conv")):
        text = _conv_phrase(op.name)
    elif "pool" in op.name:
        text = _pool_phrase(op.name)
    else:
        text = op.name.replace("_", " ")
        if op.dims is not None:
            text += f" over {_ordinal_dims(op.dims, op.rank)}"
    if op.detail == "constant":
        text += " by a constant"
    elif op.detail in _MODES:
        text += _MODES[op.detail]
    return text


# Modes that change what an op computes (a kernel for one mode computes something else in the other).
_MODES = {"training": " with batch statistics (training mode)",
          "inference": " with running statistics (inference mode)"}


def _pool_phrase(name: str) -> str:
    """``adaptive_avg_pool2d`` -> ``2-D adaptive average pooling``."""
    words = name.replace("avg", "average").split("_")
    dims = ""
    if words and words[-1].startswith("pool") and words[-1][4:-1].isdigit():
        dims = f"{words[-1][4:-1]}-D "
        words[-1] = "pool"
    return dims + " ".join(words).replace("pool", "pooling")


def _conv_phrase(name: str) -> str:
    dims = name[-2]
    kind = "transposed convolution" if "transpose" in name else "convolution"
    prefix = "depthwise " if name.startswith("depthwise") else ""
    return f"{dims}-D {prefix}{kind}"


def op_name_of(ops: list[CanonOp]) -> str:
    """``softmax`` for one op, ``gemm_bias_relu``-style chains for fused tasks, ``identity`` for none."""
    names = [op.name for op in ops]
    if not names:
        return "identity"
    if len(names) == 1:
        return names[0]
    chain: list[str] = []
    for n in names:
        short = CHAIN_NAMES.get(n, n)
        if not chain or chain[-1] != short:
            chain.append(short)
    return "_".join(chain[:_MAX_CHAIN])


def _tensors(specs: list[TensorSpec]) -> str:
    if not specs:
        return "no tensors"
    dtypes = sorted({s.dtype for s in specs})
    if len(specs) == 1:
        s = specs[0]
        return f"a scalar {s.dtype} tensor" if s.rank == 0 else f"a {s.rank}-D {s.dtype} tensor"
    ranks = ", ".join(str(s.rank) for s in specs)
    return f"{len(specs)} {'/'.join(dtypes)} tensors of ranks {ranks}"


def computation_text(ops: list[CanonOp], types: list[str], inputs: list[TensorSpec],
                     outputs: list[TensorSpec]) -> str:
    """The canonical computation-logic text (see the module docstring)."""
    phrases = [_phrase(op) for op in ops] or ["identity (returns its input)"]
    body = phrases[0] + "".join(f", followed by {p}" for p in phrases[1:])
    body = body[0].upper() + body[1:]
    seq = " -> ".join(op.name for op in ops) or "identity"
    return (
        f"{body}, applied to {_tensors(inputs)}, producing {_tensors(outputs)}. "
        f"Operation sequence: {seq}. Operator types: {', '.join(types) or 'elementwise'}."
    )
