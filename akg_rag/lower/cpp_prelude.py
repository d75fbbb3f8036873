"""The C++ runtime every generated CPU kernel includes: dtype tables, tile storage, scalar helpers.

The prelude sits behind an include guard, so the sources of several kernels concatenated into one
``load_inline`` translation unit define it once. Helpers are small inline templates: gcc inlines
them into the tile loops, where ``#pragma omp simd`` can vectorise the simple ones (select-based
max/min, and akg::exp, a polynomial exp that vectorises where std::exp stays a scalar call).

Value classes of the generated code: ``f`` (the float compute type ``FT``: float for
f16/bf16/f32 data, double when the sketch touches f64), ``i`` (int64_t) and ``b`` (bool).
"""

from __future__ import annotations

# sketch dtype -> (C++ element type, at::ScalarType, value class)
DTYPES: dict[str, tuple[str, str, str]] = {
    "f16": ("at::Half", "at::kHalf", "f"),
    "bf16": ("at::BFloat16", "at::kBFloat16", "f"),
    "f32": ("float", "at::kFloat", "f"),
    "f64": ("double", "at::kDouble", "f"),
    "i8": ("int8_t", "at::kChar", "i"),
    "i16": ("int16_t", "at::kShort", "i"),
    "i32": ("int32_t", "at::kInt", "i"),
    "i64": ("int64_t", "at::kLong", "i"),
    "u8": ("uint8_t", "at::kByte", "i"),
    "bool": ("bool", "at::kBool", "b"),
}

# value class -> C++ type of a local value
CLASS_TYPES: dict[str, str] = {"f": "FT", "i": "int64_t", "b": "bool",
                               "d": "double"}   # d: a scan's running sums, never a sketch value

# Tiles whose size is a compile-time constant live on the thread's stack up to this many bytes;
# larger ones (a search may raise a tile parameter) go to the heap, chosen at compile time.
STACK_TILE_BYTES = 32768

# The headers a kernel and its Python binding need, not torch/extension.h (all of ATen's operator
# headers and the C++ frontend: 26 s of parsing on one core, where these take 11 s); the module is built with
# load_inline(..., no_implicit_headers=True) (akg_rag.lower.cpp.build_cpp_module).
PRELUDE = r"""
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/utils/pybind.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#ifndef AKG_CPP_PRELUDE
#define AKG_CPP_PRELUDE
// (1), not 1: a bare "#define NAME 1" would read as a tunable to the search's scanner
#if defined(__x86_64__) || defined(__i386__)
#define AKG_X86 (1)
#else
#define AKG_X86 (0)
#endif

namespace akg {

#if AKG_X86
// Which copy of each kernel this CPU runs (asked once per process): 2 for AVX-512 (F, VL, BW,
// DQ), 1 for AVX2 with FMA, 0 for the base instruction set.
inline int cpu_isa() {
  static const int isa = (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                          __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")) ? 2
                         : (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? 1 : 0;
  return isa;
}
#endif

// A tile of N elements of T: on the stack when small, else one heap block (N is a constant
// expression over the kernel's tunables, so a search that enlarges a tile never overflows the
// stack of an OpenMP thread).
template <typename T>
struct Buf {  // a heap tile of run-time size (std::vector<bool> has no data())
  std::unique_ptr<T[]> v;
  explicit Buf(int64_t n) : v(new T[n > 0 ? n : 1]) {}
  T* data() { return v.get(); }
};
template <typename T, int64_t N, bool Small = (N * int64_t(sizeof(T)) <= STACK_TILE_BYTES)>
struct Tile {
  alignas(64) T v[N > 0 ? N : 1];
  T* data() { return v; }
};
template <typename T, int64_t N>
struct Tile<T, N, false> : Buf<T> {
  Tile() : Buf<T>(N) {}
};

// Element range [lo, hi) of a slice [start, start + ext) that lies inside [0, size).
inline int64_t clamp_lo(int64_t start, int64_t ext) { return std::min(std::max<int64_t>(-start, 0), ext); }
inline int64_t clamp_hi(int64_t start, int64_t ext, int64_t size, int64_t lo) {
  return std::max(std::min(size - start, ext), lo);
}

// max/min that propagate NaN (as torch.maximum/minimum do) and stay branch-free selects.
// Mixed operand types (an int64_t index and an int literal) meet in their common type.
template <typename A, typename B> inline std::common_type_t<A, B> vmax(A a_, B b_) {
  const std::common_type_t<A, B> a = a_, b = b_;
  return (a > b || a != a) ? a : b;
}
template <typename A, typename B> inline std::common_type_t<A, B> vmin(A a_, B b_) {
  const std::common_type_t<A, B> a = a_, b = b_;
  return (a < b || a != a) ? a : b;
}

// Floor division and Python-style remainder (sign of the divisor), as torch defines them.
inline int64_t floordiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
template <typename T> inline T floordiv(T a, T b) { return std::floor(a / b); }
inline int64_t remainder(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
template <typename T> inline T remainder(T a, T b) {
  const T r = std::fmod(a, b);
  return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? r + b : r;
}

// exp without a library call, so that loops over it vectorise (std::exp stays a scalar call).
// x = k*ln2 + r with |r| <= ln2/2; exp(r) is its Taylor polynomial to r^7 (truncation < 6e-9
// relative) and 2^k is built in two halves from exponent bits, so that overflow to inf and
// gradual underflow to 0 happen in the final multiplications as they do for std::exp. Measured
// against std::exp on every 97th float: at most 1.4e-7 relative error, identical inf/0/NaN.
inline float exp(float x) {
  float xc = x < -104.0f ? -104.0f : x;   // selects, not fmin/fmax: those block vectorisation
  xc = xc > 89.0f ? 89.0f : xc;
  // k = round(x / ln2): the biased value is positive here, so truncation rounds
  const int32_t ki = static_cast<int32_t>(xc * 1.44269504088896341f + 256.5f) - 256;
  const float k = static_cast<float>(ki);
  const float r = (xc - k * 0.693145751953125f) - k * 1.42860682030941723e-6f;  // ln2 = hi + lo
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t kh = ki >> 1, kl = ki - kh;
  const uint32_t bh = static_cast<uint32_t>(kh + 127) << 23, bl = static_cast<uint32_t>(kl + 127) << 23;
  float sh, sl;
  std::memcpy(&sh, &bh, sizeof sh);
  std::memcpy(&sl, &bl, sizeof sl);
  const float y = p * sh * sl;
  return x != x ? x : y;
}
inline double exp(double x) { return std::exp(x); }

template <typename T> inline T sigmoid(T x) { return T(1) / (T(1) + akg::exp(-x)); }
template <typename T> inline T rsqrt(T x) { return T(1) / std::sqrt(x); }
template <typename T> inline T sign(T x) { return T((x > T(0)) - (x < T(0))); }

// Named elementwise functions of apply("name", x, ...), with torch's default arguments.
template <typename T> inline T relu(T x) { return x > T(0) ? x : T(0); }
template <typename T> inline T relu6(T x) { return std::min(std::max(x, T(0)), T(6)); }
template <typename T> inline T leaky_relu(T x, T slope = T(0.01)) { return x > T(0) ? x : x * slope; }
template <typename T> inline T elu(T x, T alpha = T(1)) { return x > T(0) ? x : alpha * (akg::exp(x) - T(1)); }
template <typename T> inline T selu(T x) {
  return T(1.0507009873554804934193349852946) *
         (x > T(0) ? x : T(1.6732632423543772848170429916717) * (akg::exp(x) - T(1)));
}
template <typename T> inline T gelu(T x) { return T(0.5) * x * (T(1) + std::erf(x * T(0.70710678118654752440))); }
template <typename T> inline T gelu_tanh(T x) {
  return T(0.5) * x * (T(1) + std::tanh(T(0.79788456080286535588) * (x + T(0.044715) * x * x * x)));
}
template <typename T> inline T silu(T x) { return x / (T(1) + akg::exp(-x)); }
template <typename T> inline T softplus(T x, T beta = T(1), T threshold = T(20)) {
  return x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta;
}
template <typename T> inline T mish(T x) { return x * std::tanh(softplus(x)); }
template <typename T> inline T softsign(T x) { return x / (T(1) + std::abs(x)); }
template <typename T> inline T hardtanh(T x, T lo = T(-1), T hi = T(1)) { return std::min(std::max(x, lo), hi); }
template <typename T> inline T clamp(T x, T lo, T hi) { return std::min(std::max(x, lo), hi); }
template <typename T> inline T hardsigmoid(T x) { return std::min(std::max(x / T(6) + T(0.5), T(0)), T(1)); }
template <typename T> inline T hardswish(T x) { return x * hardsigmoid(x); }
template <typename T> inline T logsigmoid(T x) { return std::min(x, T(0)) - std::log1p(std::exp(-std::abs(x))); }

}  // namespace akg

// NaN-keeping max/min reductions for ``omp simd``: its built-in max/min combine the lanes'
// partial results as if no NaN could occur (a row holding one came out -inf)
#pragma omp declare reduction(akg_max : float, double : omp_out = akg::vmax(omp_out, omp_in)) initializer(omp_priv = omp_orig)
#pragma omp declare reduction(akg_min : float, double : omp_out = akg::vmin(omp_out, omp_in)) initializer(omp_priv = omp_orig)
#endif  // AKG_CPP_PRELUDE
""".replace("STACK_TILE_BYTES", str(STACK_TILE_BYTES))

# apply("name", x, extra...) -> (helper in namespace akg, min args, max args incl. x)
APPLY_FUNCTIONS: dict[str, tuple[str, int, int]] = {
    "relu": ("relu", 1, 1), "relu6": ("relu6", 1, 1), "leaky_relu": ("leaky_relu", 1, 2),
    "elu": ("elu", 1, 2), "selu": ("selu", 1, 1), "gelu": ("gelu", 1, 1), "gelu_tanh": ("gelu_tanh", 1, 1),
    "silu": ("silu", 1, 1), "swish": ("silu", 1, 1), "softplus": ("softplus", 1, 3), "mish": ("mish", 1, 1),
    "softsign": ("softsign", 1, 1), "hardtanh": ("hardtanh", 1, 3), "clamp": ("clamp", 3, 3),
    "hardsigmoid": ("hardsigmoid", 1, 1), "hardswish": ("hardswish", 1, 1),
    "logsigmoid": ("logsigmoid", 1, 1), "sigmoid": ("sigmoid", 1, 1),
}

# unary compute op -> C++ function applied to a float value
FLOAT_UNARY: dict[str, str] = {
    "exp": "akg::exp", "log": "std::log", "sqrt": "std::sqrt", "rsqrt": "akg::rsqrt", "tanh": "std::tanh",
    "sigmoid": "akg::sigmoid", "erf": "std::erf", "log1p": "std::log1p", "expm1": "std::expm1",
    "sin": "std::sin", "cos": "std::cos", "exp2": "std::exp2", "log2": "std::log2", "atan": "std::atan",
    "tan": "std::tan", "asin": "std::asin", "acos": "std::acos", "sinh": "std::sinh", "cosh": "std::cosh",
    "asinh": "std::asinh", "acosh": "std::acosh", "atanh": "std::atanh", "erfc": "std::erfc",
    "lgamma": "std::lgamma",
}
