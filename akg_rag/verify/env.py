"""The child's environment: credentials stripped, build cache chosen, limits sized.

A candidate is untrusted code: it sees no variable that looks like a credential. Everything a
compiler, CUDA or Triton needs (PATH, HOME, CUDA_*, TRITON_*, LD_LIBRARY_PATH, ...) is kept.

On CPU the judge (which times eager) and the candidate process (which times the kernel) get the
same OpenMP settings (:func:`akg_rag.verify.cpus.cpu_timing_env`): one explicit thread count, and
idle threads that sleep instead of spinning.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import platform
import re
import sys
import time
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

from akg_rag.verify.cpus import cpu_timing_env

# A name matching any of these is dropped, whatever its prefix.
SECRET_PATTERN = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|PRIVATE|SESSION|SIGNATURE")
# Whole families of service credentials and of akg-rag's own store settings.
SECRET_PREFIXES = ("AWS_", "AZURE_", "GOOGLE_", "GCP_", "GCLOUD_", "OPENAI_", "ANTHROPIC_", "HF_",
                   "HUGGING", "GITHUB_", "GH_", "GITLAB_", "SSH_", "GPG_", "DOCKER_", "NPM_", "PYPI_",
                   "TWINE_", "WANDB_", "COHERE_", "MISTRAL_", "GROQ_", "TOGETHER_", "LANGCHAIN_",
                   "LANGSMITH_", "VAULT_", "KUBE", "AKG_RAG_", "DATABASE_", "REDIS_", "PG")
# Never dropped, even when a pattern above would match.
ALWAYS_KEEP = {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TMPDIR", "TERM", "SHELL",
               "TORCH_EXTENSIONS_DIR", "TRITON_INTERPRET", "AKG_TASK_SCALE", "PYTHONPATH",
               "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "XDG_CACHE_HOME"}


def is_secret(name: str) -> bool:
    """True when an environment variable named ``name`` may carry a credential."""
    if name in ALWAYS_KEEP:
        return False
    upper = name.upper()
    return bool(SECRET_PATTERN.search(upper)) or upper.startswith(SECRET_PREFIXES)


def package_root() -> str:
    """Directory that contains the ``akg_rag`` package (put on the child's PYTHONPATH)."""
    import akg_rag

    return str(Path(akg_rag.__file__).resolve().parent.parent)


def child_env(*, dsl: str, backend: str, extensions_dir: str, scale: str | None,
              base: dict[str, str] | None = None, cpu_threads: int | None = None) -> dict[str, str]:
    """Environment of a verification child: ``base`` (default os.environ) minus secrets, plus settings."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if not is_secret(k)}
    env["TORCH_EXTENSIONS_DIR"] = extensions_dir
    env["PYTHONPATH"] = os.pathsep.join([package_root()] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    if dsl == "triton" and backend == "cpu":
        env["TRITON_INTERPRET"] = "1"   # must be set before triton is imported
    else:
        env.pop("TRITON_INTERPRET", None)
    if scale is not None:
        env["AKG_TASK_SCALE"] = scale
    if backend == "cpu":
        # OpenMP reads these once at start-up; parallel children each get their share of the cores
        env.update(cpu_timing_env(cpu_threads))
    elif cpu_threads:
        env["OMP_NUM_THREADS"] = str(cpu_threads)
    return env


def cache_root(cache_dir: str | None = None) -> Path:
    """Per-user cache root: ``cache_dir``, else $AKG_RAG_CACHE_DIR, else $XDG_CACHE_HOME/akg-rag."""
    if cache_dir:
        return Path(cache_dir).expanduser()
    if os.environ.get("AKG_RAG_CACHE_DIR"):
        return Path(os.environ["AKG_RAG_CACHE_DIR"]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "akg-rag"


def extensions_dir(candidate_source: str, cache_dir: str | None = None) -> Path:
    """Build directory of one candidate: keyed by the source, torch version, Python ABI and the
    environment's prefix (its include paths are part of the build command).

    Re-verifying the same candidate finds its built extension here and never recompiles; two
    candidates that reuse an extension name never overwrite each other's builds, and two virtual
    environments on one machine do not make each other rebuild.
    """
    try:
        torch_version = metadata.version("torch")
    except metadata.PackageNotFoundError:
        torch_version = "unknown"
    key = "\0".join([candidate_source, torch_version, sys.implementation.cache_tag, platform.machine(),
                     sys.prefix])
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
    path = cache_root(cache_dir) / "extensions" / digest
    path.mkdir(parents=True, exist_ok=True)
    return path


class BuildDirBusy(RuntimeError):
    """Another verification of the same source held its build directory for too long."""


@contextlib.contextmanager
def claim_build_dir(path: Path, wait_s: float) -> Iterator[list[Path]]:
    """Hold a build directory for one verification; yield the stale build locks it removed.

    torch's extension builder guards a build with a ``lock`` file it removes when the build ends. A
    build killed mid-way (a timeout, a killed run) leaves that file behind, and every later build of
    the same source then waits on it forever. The claim is an ``flock`` on a file beside the
    directory (outside what the candidate may write), held by this process for the whole
    verification and released by the kernel however the process ends; whoever holds it is the only
    verification using the directory, so any ``lock`` found inside is stale and is removed.
    Verifications of one source run one after another; waiting longer than ``wait_s`` raises
    :class:`BuildDirBusy`.
    """
    claim = path.with_name(path.name + ".claim")
    with open(claim, "a+b") as fh:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise BuildDirBusy(f"{path} stayed in use by another verification of the same "
                                       f"source for {wait_s:g} s") from None
                time.sleep(0.2)
        removed = []
        for lock in sorted(path.glob("*/lock")):
            with contextlib.suppress(FileNotFoundError):
                lock.unlink()
                removed.append(lock)
        try:
            yield removed
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def default_memory_mb(backend: str) -> int:
    """Memory cap when none is given: half the RAM (4-32 GiB) on CPU, 64 GiB RSS on a GPU box."""
    if backend == "cuda":
        return 65536
    try:
        total_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1024 * 1024)
    except (ValueError, OSError):
        total_mb = 16384
    return int(min(32768, max(4096, total_mb // 2)))
