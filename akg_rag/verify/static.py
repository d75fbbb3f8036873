"""Source-level guards: an AST scan of a candidate before anything of it runs.

The scan resolves import aliases (``import torch.nn.functional as F`` makes ``F.relu`` read as
``torch.nn.functional.relu``) and reports each rule of :mod:`akg_rag.verify.guards` it sees broken,
with the line. It is cheap and runs in the caller, so an obviously bad candidate never costs a
build. It is one layer of two: the run-time hooks catch what a scan cannot resolve.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from akg_rag import pysource
from akg_rag.verify.guards import dedupe, violation

SPAWN_MODULES = {"threading", "_thread", "multiprocessing", "subprocess", "concurrent", "asyncio",
                 "pty", "posix", "_posixsubprocess", "signal", "sched", "torch.multiprocessing"}
OS_SPAWN = {"fork", "forkpty", "system", "popen", "posix_spawn", "posix_spawnp", "kill", "killpg",
            "register_at_fork", "spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve",
            "spawnvp", "spawnvpe", "execl", "execle", "execlp", "execlpe", "execv", "execve",
            "execvp", "execvpe"}
INTROSPECTION_MODULES = {"inspect", "gc", "ctypes", "_ctypes", "cffi", "builtins", "tracemalloc",
                         "faulthandler", "dis", "sysconfig"}
SYS_INTROSPECTION = {"_getframe", "_current_frames", "settrace", "setprofile", "modules", "meta_path",
                     "path_hooks", "addaudithook", "exc_info", "exception", "last_traceback"}
FRAME_ATTRS = {"f_back", "f_locals", "f_globals", "f_builtins", "f_code", "tb_frame", "tb_next",
               "gi_frame", "cr_frame", "ag_frame", "__globals__", "__closure__", "__code__",
               "__builtins__", "__subclasses__", "__traceback__", "__kwdefaults__", "__defaults__"}
DYNAMIC_BUILTINS = {"eval", "exec", "compile", "__import__", "breakpoint", "globals", "locals", "vars"}
DYNAMIC_MODULES = {"importlib", "runpy", "marshal", "pickle", "dill", "cloudpickle", "code", "codeop",
                   "zipimport", "pkgutil"}
FILE_MODULES = {"shutil", "tempfile", "glob", "fcntl", "mmap", "io", "_io", "posix", "nt", "pathlib",
                "socket", "urllib", "http", "requests"}
OS_FILE = {"open", "write", "remove", "unlink", "rename", "replace", "mkdir", "makedirs", "rmdir",
           "removedirs", "listdir", "scandir", "walk", "chdir", "truncate", "ftruncate", "dup2",
           "symlink", "link", "chmod", "fdopen", "sendfile"}
PATH_METHODS = {"write_text", "write_bytes", "read_text", "read_bytes", "unlink", "rmdir", "touch",
                "rename", "replace", "symlink_to", "hardlink_to"}
EXIT_CALLS = {"os._exit", "sys.exit", "exit", "quit", "os.abort_and_exit"}
STREAM_NAMES = {"torch.cuda.Stream", "torch.cuda.stream", "torch.cuda.set_stream", "torch.Stream",
                "torch.cuda.ExternalStream", "torch.cuda.StreamContext", "torch.cuda.streams.Stream",
                "torch.cuda.streams.ExternalStream", "torch.stream"}
STREAM_STRINGS = ("cudaStreamCreate", "getStreamFromPool", "setCurrentCUDAStream", "cuStreamCreate",
                  "CUDAStreamGuard", "cudaStreamBeginCapture")
TIMER_PREFIXES = ("time.", "timeit.", "torch.cuda.", "torch.cpu.", "torch.utils.benchmark.")
# Tensor methods that compute; seen inside an except handler they mean "fall back to torch".
TORCH_METHODS = {"matmul", "mm", "bmm", "addmm", "conv1d", "conv2d", "conv3d", "softmax", "log_softmax",
                 "relu", "gelu", "sigmoid", "tanh", "sum", "mean", "amax", "max", "min", "exp", "log",
                 "norm", "layer_norm", "group_norm", "batch_norm", "cumsum", "cumprod", "einsum",
                 "linear", "pow", "sqrt", "rsqrt", "var", "std", "argmax", "argmin", "clamp", "where"}
# torch calls that are no fallback even inside a handler (allocation and queries).
TORCH_HARMLESS = {"empty", "empty_like", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like",
                  "tensor", "device", "dtype", "manual_seed", "is_tensor", "get_default_dtype",
                  "cuda.is_available", "cuda.synchronize", "cuda.current_device", "cuda.device_count"}


@dataclass
class StaticReport:
    """What the scan found: violations, and which kernels the source defines and launches."""

    violations: list[dict[str, str]] = field(default_factory=list)
    jit_functions: list[str] = field(default_factory=list)
    launched: list[str] = field(default_factory=list)
    extension_calls: int = 0
    has_model_new: bool = False
    syntax_error: str | None = None


class _Scanner(ast.NodeVisitor):
    """Collects aliases and violations in one pass over a parsed module."""

    def __init__(self, dsl: str) -> None:
        self.dsl = dsl
        self.aliases: dict[str, str] = {}   # local name -> dotted module path it stands for
        self.report = StaticReport()
        self.strings: list[str] = []
        self._in_handler = 0
        self._handler_line = 0
        self._cuda_sources = False

    # -- helpers ------------------------------------------------------------------------------
    def dotted(self, node: ast.AST) -> str | None:
        """``a.b.c`` with ``a`` replaced by what it was imported as; None for non-name chains."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        parts.append(self.aliases.get(node.id, node.id))
        return ".".join(reversed(parts))

    def root_is_module(self, node: ast.AST) -> bool:
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id in self.aliases

    def add(self, name: str, node: ast.AST, what: str) -> None:
        self.report.violations.append(violation(name, f"line {getattr(node, 'lineno', 0)}: {what}"))

    def check_module(self, mod: str, node: ast.AST) -> None:
        base = mod.split(".")[0]
        for group, name, why in ((SPAWN_MODULES, "spawn", "threads/processes/signals"),
                                 (INTROSPECTION_MODULES, "introspection", "introspection"),
                                 (DYNAMIC_MODULES, "dynamic_code", "dynamic code loading"),
                                 (FILE_MODULES, "file_access", "file access")):
            if mod in group or base in group:
                self.add(name, node, f"imports {mod} ({why} are not allowed in a candidate)")
        if base in ("akg_rag", "task") or mod.endswith(".task"):
            self.add("reference_call" if "task" in mod else "monkeypatch", node,
                     f"imports {mod}: a candidate may not import the task or the verifier")

    # -- imports ------------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self.check_module(a.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        mod = node.module or ""
        self.check_module(mod, node)
        for a in node.names:
            if a.name in ("Model", "get_inputs", "get_init_inputs"):
                self.add("reference_call", node, f"imports {a.name} from {mod or '.'}")
            self.check_name(f"{mod}.{a.name}" if mod else a.name, node)

    # -- names and attributes -----------------------------------------------------------------
    def check_name(self, full: str, node: ast.AST) -> None:
        """Rules that depend only on the resolved dotted name being used at all."""
        head, _, last = full.rpartition(".")
        if head == "os" and last in OS_SPAWN:
            self.add("spawn", node, f"uses os.{last}")
        if head == "os" and last in OS_FILE:
            self.add("file_access", node, f"uses os.{last}")
        if head == "sys" and last in SYS_INTROSPECTION:
            self.add("introspection", node, f"uses sys.{last}")
        if full in STREAM_NAMES:
            self.add("side_stream", node, f"uses {full}: run on the current stream only")
        if full in EXIT_CALLS and "." in full:
            self.add("early_exit", node, f"uses {full}")
        if head in ("types",) and last in ("FunctionType", "CodeType", "LambdaType"):
            self.add("dynamic_code", node, f"builds code objects with {full}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in FRAME_ATTRS:
            self.add("introspection", node, f"reads .{node.attr}")
        if node.attr == "Model":
            self.add("reference_call", node, "uses .Model (the reference)")
        full = self.dotted(node)
        if full and self.root_is_module(node):
            self.check_name(full, node)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id == "Model" and isinstance(node.ctx, ast.Load):
            self.add("reference_call", node, "uses Model (the reference) instead of a kernel")
        if node.id == "__builtins__":
            self.add("introspection", node, "uses __builtins__")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            self.strings.append(node.value)
            if "/proc/" in node.value:
                self.add("introspection", node, "refers to /proc (process memory or state)")

    # -- assignments (monkeypatching) ---------------------------------------------------------
    def check_target(self, target: ast.AST, node: ast.AST) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self.check_target(t, node)
            return
        if isinstance(target, ast.Attribute) and self.root_is_module(target):
            full = self.dotted(target) or ""
            if full.startswith("torch.backends."):
                return  # precision/algorithm switches are settings, not patches
            if full.startswith(TIMER_PREFIXES):
                self.add("patched_timer", node, f"assigns {full}")
            else:
                self.add("monkeypatch", node, f"assigns {full}")

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self.check_target(t, node)
        # `t = torch` makes t another alias of torch
        value = self.dotted(node.value) if self.root_is_module(node.value) else None
        if value:
            for t in node.targets:
                if isinstance(t, ast.Name):
                    self.aliases[t.id] = value
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.check_target(node.target, node)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.check_target(node.target, node)
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for t in node.targets:
            self.check_target(t, node)
        self.generic_visit(node)

    # -- calls --------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        full = self.dotted(func) or ""
        if isinstance(func, ast.Name) and func.id not in self.aliases:
            if func.id in DYNAMIC_BUILTINS:
                self.add("introspection" if func.id in ("globals", "locals", "vars") else "dynamic_code",
                         node, f"calls {func.id}()")
            if func.id == "open":
                self.add("file_access", node, "calls open()")
            if func.id in ("exit", "quit"):
                self.add("early_exit", node, f"calls {func.id}()")
            if func.id in ("getattr", "setattr", "delattr", "hasattr") and len(node.args) >= 2:
                self._check_attr_name(func.id, node.args[1], node)
            if func.id in ("setattr", "delattr") and node.args and self.root_is_module(node.args[0]):
                target = self.dotted(node.args[0]) or ""
                kind = "patched_timer" if (target + ".").startswith(TIMER_PREFIXES) else "monkeypatch"
                self.add(kind, node, f"calls {func.id}() on {target}")
        if isinstance(func, ast.Attribute) and func.attr in PATH_METHODS:
            self.add("file_access", node, f"calls .{func.attr}()")
        if full.endswith("cpp_extension.load_inline") or full.endswith("cpp_extension.load"):
            self.report.extension_calls += 1
            kws = {k.arg for k in node.keywords}
            if "cuda_sources" in kws or (len(node.args) > 2):
                self._cuda_sources = True
            if full.endswith(".load") and any(".cu" in s for s in self._const_strings(node)):
                self._cuda_sources = True
        if isinstance(func, ast.Subscript):
            name = func.value.attr if isinstance(func.value, ast.Attribute) else getattr(func.value, "id", None)
            if name:
                self.report.launched.append(name)
        if self._in_handler and self._is_fallback_call(node, full):
            self.add("try_fallback", node, f"an except handler (line {self._handler_line}) calls "
                     f"{full or ast.unparse(func)}: fix the kernel instead of falling back to torch")
        self.generic_visit(node)

    def _check_attr_name(self, fn: str, name: ast.AST, node: ast.AST) -> None:
        """``getattr(obj, "__trace" + "back__")``: a built or frame-reaching attribute name."""
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            if name.value in FRAME_ATTRS:
                self.add("introspection", node, f"{fn}(..., {name.value!r}) reaches frames or code")
        elif not isinstance(name, ast.Name):
            self.add("introspection", node, f"{fn}() with an attribute name built at run time "
                     f"({ast.unparse(name)[:60]}): the scan cannot see what it reaches")

    @staticmethod
    def _const_strings(node: ast.AST) -> list[str]:
        return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]

    def _is_fallback_call(self, node: ast.Call, full: str) -> bool:
        if full.startswith("torch.") and full[len("torch."):] not in TORCH_HARMLESS:
            return not full.startswith(("torch.utils.cpp_extension", "torch.backends"))
        if isinstance(node.func, ast.Attribute) and node.func.attr in TORCH_METHODS:
            return True
        if isinstance(node.func, ast.Attribute) and node.func.attr == "forward":
            return True  # super().forward(...) or the reference module's forward
        return False

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if self._in_handler and isinstance(node.op, ast.MatMult):
            self.add("try_fallback", node, f"an except handler (line {self._handler_line}) computes a @ b")
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self._in_handler += 1
        self._handler_line = node.lineno
        self.generic_visit(node)
        self._in_handler -= 1

    # -- definitions --------------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for d in node.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            name = self.dotted(target) or ""
            if name == "triton.jit" or name.endswith(".triton.jit") or name == "triton.runtime.jit.jit":
                self.report.jit_functions.append(node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if node.name == "ModelNew":
            self.report.has_model_new = True
        self.generic_visit(node)


def scan_source(source: str, dsl: str, filename: str = "candidate.py") -> StaticReport:
    """Scan candidate ``source`` for guard violations against the rules for ``dsl``.

    A syntax error is reported in ``syntax_error`` (the caller turns it into ``compile_error``).
    """
    try:
        tree = pysource.parse(source, filename=filename)
    except SyntaxError as e:
        return StaticReport(syntax_error=f"{filename}, line {e.lineno}: {e.msg}")
    scanner = _Scanner(dsl)
    # Pass 1 collects every import, wherever it is, so later uses resolve; pass 2 checks.
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                top = a.name.split(".")[0]
                scanner.aliases[a.asname or top] = a.name if a.asname else top
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                mod = node.module or ""
                scanner.aliases[a.asname or a.name] = f"{mod}.{a.name}" if mod else a.name
    scanner.visit(tree)
    report = scanner.report
    _check_kernel(report, scanner, dsl)
    text = "\n".join(scanner.strings)
    for marker in STREAM_STRINGS:
        if marker in text:
            report.violations.append(violation("side_stream", f"kernel source uses {marker}"))
    report.violations = dedupe(report.violations)
    return report


def _check_kernel(report: StaticReport, scanner: _Scanner, dsl: str) -> None:
    """Static half of the ``no_kernel`` guard: the DSL's kernel is defined and launched."""
    if dsl == "triton":
        if not report.jit_functions:
            report.violations.append(violation("no_kernel", "defines no @triton.jit function"))
        elif not set(report.jit_functions) & set(report.launched):
            report.violations.append(violation(
                "no_kernel", f"defines {', '.join(report.jit_functions)} but never launches one "
                "(expected kernel[grid](...))"))
    elif dsl in ("cpp", "cuda_c"):
        if not report.extension_calls:
            report.violations.append(violation(
                "no_kernel", "builds no extension: expected torch.utils.cpp_extension.load_inline(...)"))
        elif dsl == "cuda_c" and not scanner._cuda_sources:
            report.violations.append(violation("no_kernel", "load_inline has no cuda_sources (CUDA-C)"))
    elif dsl == "tilelang":
        if "tilelang" not in {m.split(".")[0] for m in scanner.aliases.values()}:
            report.violations.append(violation("no_kernel", "does not import tilelang"))
