"""The C++/OpenMP backend: a validated Unified Sketch becomes one C++ host function.

``emit_cpp(sketch, "k0")`` returns a :class:`KernelSource` whose ``code`` defines
``void k0(at::Tensor ...)`` taking the sketch's non-temp tensors in declaration order (outputs
preallocated by the caller). The function checks device, dtype and rank of every argument, binds
each symbol from the first tensor dimension that is exactly that symbol and raises ``ValueError``
(``TORCH_CHECK_VALUE``) when another dimension disagrees, allocates the ``temp`` tensors, then runs
the launches in order, each an OpenMP ``parallel for`` over its flattened grid (see
:mod:`akg_rag.lower.cpp_kernel`). Kernel semantics: docs/lowering.md.

Tunables: an UPPER_CASE integer parameter ``P`` becomes ``constexpr int64_t K0_P = value;`` at
namespace scope, its name upper-cased so that the search's tunable scanner
(:mod:`akg_rag.search.tunables`) finds it in the candidate's C++ string; ``KernelSource.tunables``
maps that name to its value. Every extent that depends on ``P`` is written in terms of ``K0_P``,
so editing that one literal retiles the kernel.

``build_cpp_module(sources, name)`` returns the Python lines that build several kernels in one
``load_inline`` call, without the implicit ``torch/extension.h`` (the whole C++ frontend: 26 s of
parsing on one core of the CI machine): the prelude includes only the tensor type, ``at::empty``
and the Python binding headers, and a build takes ~13 s instead of ~30 s. Flags are portable (no
``-march=native``): the verifier's build cache is keyed by source, torch, Python and machine architecture, not by CPU model, so a cached build may run on
another CPU of the same architecture. Instead each kernel body is compiled three times on x86:
for AVX-512, for AVX2+FMA (``__attribute__((target(...)))``; OpenMP's outlined loop bodies
inherit it) and for the base ISA, and the entry function picks one per process with
``__builtin_cpu_supports``.
"""

from __future__ import annotations

from akg_rag.lower.cpp_kernel import KernelGen
from akg_rag.lower.cpp_prelude import DTYPES, PRELUDE
from akg_rag.lower.cpp_shapes import Names, fail
from akg_rag.lower.source import KernelSource
from akg_rag.lower.typed import analyze
from akg_rag.sketch.nodes import Alloc, Assign, Call, For, Name, Sketch, Stmt
from akg_rag.sketch.printer import print_expr
from akg_rag.sketch.validate import barrier_statements, validate_sketch

# -O3 vectorises the tile loops; -fno-math-errno lets sqrt and friends inline as instructions and
# -fno-trapping-math lets selects vectorise (neither changes a result: Linux masks FP traps).
CFLAGS = ["-O3", "-fopenmp", "-fno-math-errno", "-fno-trapping-math"]
LDFLAGS = ["-fopenmp"]
# (suffix, attribute) of the x86 copies of each kernel, widest first; cpu_isa() numbers them
ISAS = [("avx512", '__attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,'
                   'prefer-vector-width=512")))'),
        ("avx2", '__attribute__((target("avx2,fma")))')]
TORCH_NAMES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64", "i8": "int8",
               "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "bool": "bool"}


def emit_cpp(sketch: Sketch, name: str) -> KernelSource:
    """C++ source of ``sketch`` as ``void name(at::Tensor ...)``; raises ``SketchError`` (with
    line and column) for a sketch that does not validate or that this backend cannot lower."""
    if not name.isidentifier() or not name.isascii():
        raise ValueError(f"kernel name {name!r} is not a C++ identifier")
    validate_sketch(sketch)
    for b in barrier_statements(sketch.body):
        raise fail("the C++ backend has no barrier (its programs are loop iterations on a thread pool, "
                   "never sure to run at once): lower the region for C++ without one", b)
    names = Names(analyze(sketch), name)
    gen = KernelGen(names)
    args = [t for t in sketch.tensors if t.direction != "temp"]
    gen.line(f"using FT = {'double' if _uses_f64(sketch) else 'float'};  // float compute type")
    _checks(gen, name, args)
    _bind(gen, name, sketch, args)
    for t in sketch.tensors:
        if t.direction == "temp":
            dims = ", ".join(gen.int_text(d) for d in t.shape)
            gen.line(f"at::Tensor t_{t.name} = at::empty({{{dims}}}, "
                     f"at::TensorOptions().dtype({DTYPES[t.dtype][1]}));")
    for t in sketch.tensors:
        gen.line(f"{DTYPES[t.dtype][0]}* p_{t.name} = t_{t.name}.data_ptr<{DTYPES[t.dtype][0]}>();")
        for d in range(len(t.shape)):
            gen.line(f"const int64_t sz_{t.name}_{d} = t_{t.name}.size({d}), "
                     f"st_{t.name}_{d} = t_{t.name}.stride({d});")
    for launch in names.typed.launches:
        gen.launch(launch)
    tunables = {names.tunables[p]: int(names.values[p]) for p in names.tunables}
    head = [f"constexpr int64_t {c} = {tunables[c]};  // tunable of {name}" for c in tunables]
    signature = ", ".join(f"at::Tensor t_{t.name}" for t in args)
    call = ", ".join(f"t_{t.name}" for t in args)
    doc = f"// {name}: the sketch {sketch.name!r} ({', '.join(f'{t.name} {t.direction}' for t in args)})"
    code = "\n".join([
        PRELUDE.strip("\n"), "", *head, doc,
        # one body, compiled for AVX-512 (16 floats a vector), AVX2+FMA (8) and the base target;
        # the entry picks one at run time, so the build flags stay portable
        "#if AKG_X86",
        *[line for isa, attr in ISAS for line in
          (f"{attr} static void {name}_{isa}({signature}) {{", *gen.lines, "}")],
        "#endif",
        f"static void {name}_base({signature}) {{", *gen.lines, "}",
        f"void {name}({signature}) {{",
        "#if AKG_X86",
        "  const int isa = akg::cpu_isa();",
        *[f"  if (isa >= {len(ISAS) - k}) return {name}_{isa}({call});" for k, (isa, _) in enumerate(ISAS)],
        "#endif",
        f"  {name}_base({call});",
        "}", ""])
    return KernelSource(code=code, entry=name, tunables=tunables, tensors=[t.name for t in args])


def _uses_f64(sketch: Sketch) -> bool:
    """Whether anything is f64 (then the compute type is double)."""
    if any(t.dtype == "f64" for t in sketch.tensors):
        return True

    def expr(e: object) -> bool:
        if isinstance(e, Call):
            if e.func == "cast" and isinstance(e.args[1], Name) and e.args[1].id == "f64":
                return True
            return any(expr(a) for a in e.args)
        return any(expr(getattr(e, f)) for f in ("left", "right", "operand") if hasattr(e, f))

    def walk(body: list[Stmt]) -> bool:
        for s in body:
            if isinstance(s, Alloc) and s.dtype == "f64":
                return True
            if isinstance(s, Assign) and expr(s.value):
                return True
            if isinstance(s, For) and walk(s.body):
                return True
        return False
    return walk(sketch.body)


def _checks(gen: KernelGen, kernel: str, args: list) -> None:
    for t in args:
        ctype, scalar, _ = DTYPES[t.dtype]
        v = f"t_{t.name}"
        gen.line(f'TORCH_CHECK({v}.device().is_cpu(), "{kernel}: tensor \'{t.name}\' must be a CPU tensor, '
                 f'got ", {v}.device());')
        gen.line(f'TORCH_CHECK_TYPE({v}.scalar_type() == {scalar}, "{kernel}: tensor \'{t.name}\' must be '
                 f'{TORCH_NAMES[t.dtype]}, got ", {v}.scalar_type());')
        shape = "[" + ", ".join(print_expr(d) for d in t.shape) + "]"
        if len(t.shape) == 1:   # a 0-d tensor (a scalar result, as torch returns one) for a [1]
            gen.line(f"if ({v}.dim() == 0) {v} = {v}.view({{1}});")
        gen.line(f'TORCH_CHECK_VALUE({v}.dim() == {len(t.shape)}, "{kernel}: tensor \'{t.name}\' must have '
                 f'{len(t.shape)} dims {shape}, got ", {v}.sizes());')


def _bind(gen: KernelGen, kernel: str, sketch: Sketch, args: list) -> None:
    """Symbols from sizes (first whole-dimension occurrence), then parameters, then every check."""
    bound = {sym: f"{t} dim {d}" for sym, (t, d) in gen.names.typed.bindings.items()}
    for sym, (t, d) in gen.names.typed.bindings.items():
        gen.line(f"const int64_t s_{sym} = t_{t}.size({d});")
    for p in sketch.params:
        cname = gen.names.param_cname(p.name)
        value = gen.names.values.get(p.name)
        if p.name in gen.names.tunables:
            continue
        if isinstance(value, float):
            gen.line(f"constexpr FT {cname} = FT({value!r});")
        elif value is not None:
            gen.line(f"constexpr int64_t {cname} = {int(value)};")
        else:
            text, cls = gen.elem(p.value, [])
            gen.line(f"const {'FT' if cls == 'f' else 'int64_t'} {cname} = {text};")
    for t in args:
        for d, e in enumerate(t.shape):
            size = f"t_{t.name}.size({d})"
            if isinstance(e, Name) and bound.get(e.id) == f"{t.name} dim {d}":
                continue
            want = gen.int_text(e)
            origin = f" (bound from {bound[e.id]})" if isinstance(e, Name) and e.id in bound else ""
            gen.line(f'TORCH_CHECK_VALUE({size} == {want}, "{kernel}: tensor \'{t.name}\' dim {d} has size ", '
                     f'{size}, " but {print_expr(e)} = ", {want}, "{origin}");')


def build_cpp_module(sources: list[KernelSource], module_name: str) -> str:
    """Python source that builds every kernel of ``sources`` in one ``load_inline`` call and binds
    the module to ``module_name`` (call ``module_name.k0(...)``)."""
    if not module_name.isidentifier():
        raise ValueError(f"module name {module_name!r} is not a Python identifier")
    entries = [s.entry for s in sources]
    if len(set(entries)) != len(entries):
        raise ValueError(f"kernel names repeat in one module: {entries}")
    code = "\n".join(s.code for s in sources)
    if '"""' in code:
        raise ValueError("generated C++ contains a triple quote")
    const = f"{module_name.upper()}_CPP"
    return "\n".join([
        "from torch.utils.cpp_extension import load_inline",
        "",
        f'{const} = r"""',
        code.rstrip("\n"),
        '"""',
        "",
        f"{module_name} = load_inline(",
        f'    name="{module_name}",',
        f"    cpp_sources={const},",
        f"    functions={entries!r},",
        f"    extra_cflags={CFLAGS!r},",
        f"    extra_ldflags={LDFLAGS!r},",
        "    no_implicit_headers=True,",
        ")",
        "",
    ])
