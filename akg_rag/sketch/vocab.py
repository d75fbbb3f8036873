"""The closed vocabularies of the Unified Sketch: hints, memory roles and tiers, dtypes, compute ops."""

from __future__ import annotations

# @llm_hint(kind, context): what to do with a loop, and which level of the machine runs it.
HINT_KINDS: tuple[str, ...] = ("parallel", "pipeline", "vectorize", "unroll")
HINT_CONTEXTS: tuple[str, ...] = ("grid", "block", "core", "warp", "thread", "simd", "lane")

# alloc(..., hint=ROLE, tier=TIER)
ALLOC_ROLES: tuple[str, ...] = ("accumulator", "input_cache", "output_buffer", "weight_cache", "scratch")
MEMORY_TIERS: tuple[str, ...] = ("register", "local", "shared", "global")
ALLOC_KEYWORDS: tuple[str, ...] = ("hint", "tier", "init")

DTYPES: tuple[str, ...] = ("f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "bool")
DIRECTIONS: tuple[str, ...] = ("in", "out", "inout", "temp")

# torch dtype name -> sketch dtype
TORCH_DTYPES: dict[str, str] = {
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64", "int8": "i8",
    "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8", "bool": "bool",
}

UNARY_OPS: tuple[str, ...] = (
    "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "abs", "neg", "erf", "log1p", "expm1",
    "reciprocal", "floor", "ceil", "sin", "cos", "transpose", "sign", "trunc", "round", "exp2",
    "log2", "isnan", "isinf", "signbit", "logical_not", "atan", "tan", "asin", "acos", "sinh", "cosh",
    "asinh", "acosh", "atanh", "erfc", "lgamma", "bitwise_not",
)
BINARY_OPS: tuple[str, ...] = (
    "add", "sub", "mul", "div", "max", "min", "pow", "gt", "ge", "lt", "le", "eq", "ne", "matmul",
    "fmod", "remainder", "atan2", "logical_and", "logical_or", "floordiv",
    "bitwise_and", "bitwise_or", "bitwise_xor",
)
REDUCE_OPS: tuple[str, ...] = (
    "reduce_sum", "reduce_max", "reduce_min", "reduce_mean", "reduce_prod", "reduce_argmax",
    "reduce_argmin",
)
SCAN_OPS: tuple[str, ...] = ("scan_sum", "scan_prod", "scan_max")

# op -> (min positional args, max positional args, allowed keywords, required keywords)
OP_SIGNATURES: dict[str, tuple[int, int, tuple[str, ...], tuple[str, ...]]] = {
    **{op: (1, 1, (), ()) for op in UNARY_OPS},
    **{op: (2, 2, (), ()) for op in BINARY_OPS},
    **{op: (1, 1, ("axis", "keepdim"), ("axis",)) for op in REDUCE_OPS},
    # scan_sum(v, axis=1, reverse=1): each position combines itself and every later one
    **{op: (1, 1, ("axis", "reverse"), ("axis",)) for op in SCAN_OPS},
    "where": (3, 3, (), ()),
    "iota": (1, 1, (), ()),          # iota(n): the int tile [0, 1, ..., n-1] of shape [n]
    "unsqueeze": (1, 1, ("axis",), ("axis",)),  # a size-1 axis inserted at axis
    "cast": (2, 2, (), ()),          # cast(value, f16)
    "apply": (2, 4, (), ()),         # apply("leaky_relu", value, extra...): a named elementwise function
}
COMPUTE_OPS: tuple[str, ...] = tuple(OP_SIGNATURES)
ELEMENTWISE_OPS: frozenset[str] = frozenset(
    set(UNARY_OPS) - {"transpose"} | set(BINARY_OPS) - {"matmul"} | {"where", "cast", "apply"}
)
# Names that read as float constants anywhere an expression is allowed.
CONSTANTS: tuple[str, ...] = ("inf", "nan")
