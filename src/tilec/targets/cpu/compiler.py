"""The system C compiler, probed once, and one cached compile function.

``compile_cached(source)`` returns a loaded shared object for a C source. The
on-disk cache (``c/`` under ``tilec.support.cache_root()``) is
keyed by the sha256 of: the ABI version, the source, the compiler's path and
``--version`` text, the final flags and, with ``-march=native``, the CPU's
identity (a cache directory shared between machines must not hand an AVX-512
object to a CPU without it).

Safety rules:

* every file is written under a temporary name in the cache directory and
  published with ``os.replace`` (atomic on POSIX), the object first and its
  metadata (which records the object's sha256) last; concurrent processes
  that build the same key each publish a complete entry, so no lock is needed;
* an entry is trusted only when its metadata parses and the object's bytes
  hash to the recorded digest; otherwise both files are deleted and rebuilt;
* the verified bytes are loaded from a private copy, so a file replaced after
  verification is never the one ``dlopen`` maps.

Flags: ``-O3 -std=c11 -fPIC -shared -ffp-contract=off -fwrapv -fno-math-errno
-fno-trapping-math -fno-builtin-pow`` always (contraction off: no fused
multiply-add the source did not ask for, so elementwise math and
``strict_fold`` are bit-identical to the reference; ``-fwrapv``: integer
overflow wraps like numpy; ``-fno-trapping-math``: the helpers' selects
vectorize, and the prelude is written so that the rewrites it permits keep
every result; ``-fno-builtin-pow``: ``pow`` is always the C library's C99
``pow``, since GCC's vectorizer turns ``pow(x, 0.5)`` into ``sqrt(x)``, which
gives NaN for ``-inf`` and ``-0.0`` for ``-0.0`` where ``pow`` gives ``+inf``
and ``+0.0``), plus
``-march=native`` and ``-fopenmp`` when the compiler accepts them (without
OpenMP, programs run one after another).

A compiler crash (an internal compiler error) is the compiler's bug, not a
rejection of the kernel: the build is retried first at the same level without
the optimization known to crash (``FIRST_RETRY_FLAGS``: GCC 12's loop
if-conversion under AVX-512), then at the lower optimization levels of
``FALLBACK_OPT_LEVELS`` (every other flag kept, so the numerics are the same),
with a warning naming the crash; only when every attempt crashes is it a
``CCompileError``.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import json
import logging
import os
import platform
import re
import shutil
import tempfile
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import tilec.ir as ir
from tilec.targets.compile_cache import (
    cache_root,
    keyed_source,
    publish,
    unlink_quietly,
    verified_entry,
)
from tilec.targets.cpu.prelude import ABI_VERSION

__all__ = ["Toolchain", "CompilerNotFound", "CCompileError", "toolchain", "find_compiler",
           "cache_dir", "compile_cached", "cache_key", "load_cached", "cached_source",
           "toolchain_identity", "BASE_FLAGS"]

_log = logging.getLogger(__name__)

BASE_FLAGS = ("-O3", "-std=c11", "-fPIC", "-shared", "-ffp-contract=off", "-fwrapv",
              "-fno-math-errno", "-fno-trapping-math", "-fno-builtin-pow")
"""Flags every kernel is compiled with."""

OPTIONAL_FLAGS = (("-march=native",), ("-fopenmp",))
"""Flags used when the compiler accepts them (probed separately)."""

FALLBACK_OPT_LEVELS = ("-O1", "-O0")
"""Optimization levels tried in order when the compiler crashes on a kernel at ``-O3``."""

FIRST_RETRY_FLAGS = ("-fno-tree-loop-if-convert",)
"""Added, at the same optimization level, on the first retry after a crash. GCC 12.2 with
AVX-512 (``-march=native``) crashes vectorizing if-converted max/min select chains: a
``maximum`` of f32 over a broadcast operand (in ``eliminate_stmt``, tree-ssa-sccvn) and an
i16 ``where(mask, c, maximum(x, c))`` (an unrecognizable masked ``smax`` insn); the fuzzer
found four such kernels in 8506 (tests/regression/test_cpu_compiler_crash.py). Without
loop if-conversion every one builds at ``-O3``. Not a default: it costs vectorization in
kernels that never crash (gcc reports 9 vectorized sites in softmax instead of 14). A
compiler that refuses the flag goes on to the next retry."""

_CRASH = re.compile(r"internal compiler error|PLEASE submit a bug report"
                    r"|frontend command failed due to signal")
"""What GCC and Clang print when they crash (as opposed to rejecting the source)."""

_TIMEOUT_S = 300


class CompilerNotFound(ir.UserError, RuntimeError):
    """No working C compiler: the message says where we looked."""


class CCompileError(RuntimeError):
    """The C compiler rejected generated source; the message maps errors back to IR."""


@dataclass(frozen=True)
class Toolchain:
    """A probed C compiler."""

    cc: str
    """Absolute path of the compiler driver."""
    identity: str
    """Its ``--version`` text."""
    flags: tuple[str, ...]
    """Final compile flags."""
    openmp: bool
    """True when ``-fopenmp`` works (programs run across threads)."""
    native: bool
    """True when ``-march=native`` works."""
    notes: tuple[str, ...] = field(default=())
    """Human-readable fallbacks taken while probing."""
    vector_bits: int = 256
    """512 when the final flags target AVX-512 (the compiler defines ``__AVX512F__``), else
    256: the vector width the micro-kernels are planned for (``CBackend.realization_plan``)."""


def find_compiler() -> str | None:
    """``$TILEC_CC``, ``$CC``, then ``cc``, ``gcc``, ``clang`` on ``PATH``: the first found."""
    for cand in (os.environ.get("TILEC_CC"), os.environ.get("CC"), "cc", "gcc", "clang"):
        if not cand:
            continue
        path = shutil.which(cand)
        if path:
            return path
    return None


_PROBE_SRC = r"""
#include <math.h>
#include <stdint.h>
int tc_probe(float *x, int64_t n) {
  #pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) x[i] = sqrtf(x[i]) + 1.0f;
  return 0;
}
"""


_AVX512_SRC = _PROBE_SRC + r"""
#ifndef __AVX512F__
#error "the flags do not target AVX-512"
#endif
"""


def _try_compile(cc: str, flags: list[str], workdir: str, text: str = _PROBE_SRC
                 ) -> tuple[bool, str]:
    import subprocess  # not imported by a process whose kernels are all cached

    src = Path(workdir) / "probe.c"
    src.write_text(text)
    out = Path(workdir) / "probe.so"
    try:
        p = subprocess.run([cc, *flags, "-o", str(out), str(src), "-lm"], capture_output=True,
                           text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, str(e)
    if p.returncode != 0:
        return False, (p.stderr or p.stdout).strip()
    try:
        ctypes.CDLL(str(out))
    except OSError as e:
        return False, f"the probe object does not load: {e}"
    return True, ""


@functools.cache
def _probe(cc: str) -> Toolchain:
    """The toolchain of compiler ``cc``: from the probe memo when one was written for this
    compiler binary (same path, modification time and size), else probed (its
    ``--version`` and the optional flags) and memoized. A process whose kernels are all
    cached so starts no compiler at all."""
    memo = _probe_memo_path(cc)
    tc = _read_probe_memo(memo, cc)
    if tc is not None:
        return tc
    import subprocess

    try:
        ver = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise CompilerNotFound(f"C compiler {cc} does not run: {e}") from None
    identity = (ver.stdout or ver.stderr).strip()
    tc = _probe_flags(cc, identity)
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        publish(memo, json.dumps({"cc": cc, "identity": identity, "flags": tc.flags,
                                  "openmp": tc.openmp, "native": tc.native,
                                  "notes": tc.notes,
                                  "vector_bits": tc.vector_bits}).encode())
    except OSError:
        pass  # a read-only cache directory only costs a probe per process
    return tc


def _probe_memo_path(cc: str) -> Path:
    """The memo of compiler binary ``cc``: named by its path, modification time and size
    (a reinstalled or upgraded compiler is another file), the base flags and the CPU."""
    try:
        st = os.stat(cc)
    except OSError as e:
        raise CompilerNotFound(f"C compiler {cc} does not run: {e}") from None
    h = hashlib.sha256(f"v2\0{cc}\0{st.st_mtime_ns}\0{st.st_size}\0"
                       f"{' '.join(BASE_FLAGS)}\0{_cpu_identity()}".encode()).hexdigest()
    return cache_dir() / "probe" / f"{h}.json"


def _read_probe_memo(path: Path, cc: str) -> Toolchain | None:
    """A previous probe of the same compiler binary; None when absent or unreadable."""
    try:
        d = json.loads(path.read_text())
        if d["cc"] != cc or not isinstance(d["flags"], list) \
                or not isinstance(d["identity"], str):
            return None
        return Toolchain(cc, d["identity"], tuple(str(f) for f in d["flags"]),
                         bool(d["openmp"]), bool(d["native"]), tuple(str(n) for n in d["notes"]),
                         int(d["vector_bits"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _probe_flags(cc: str, identity: str) -> Toolchain:
    flags = list(BASE_FLAGS)
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="tilec-probe-") as tmp:
        ok, err = _try_compile(cc, flags, tmp)
        if not ok:
            raise CompilerNotFound(f"C compiler {cc} cannot build a shared object with "
                                   f"{' '.join(flags)}: {err[:500]}")
        have: dict[str, bool] = {}
        for extra in OPTIONAL_FLAGS:
            ok, err = _try_compile(cc, flags + list(extra), tmp)
            have[extra[0]] = ok
            if ok:
                flags += list(extra)
            else:
                why = err.splitlines()[0][:160] if err else "failed"
                tail = "; programs run sequentially" if extra[0] == "-fopenmp" else ""
                notes.append(f"{' '.join(extra)} unsupported ({why}){tail}")
        wide, _ = _try_compile(cc, flags, tmp, _AVX512_SRC)
    return Toolchain(cc, identity, tuple(flags), have["-fopenmp"], have["-march=native"],
                     tuple(notes), 512 if wide else 256)


def toolchain() -> Toolchain:
    """The probed system compiler (raises ``CompilerNotFound`` with the reason when none works)."""
    cc = find_compiler()
    if cc is None:
        raise CompilerNotFound("no C compiler found (looked at $TILEC_CC, $CC, cc, gcc, clang "
                               "on PATH); install gcc or clang, or use target 'reference'")
    return _probe(os.path.realpath(cc))


def cache_dir() -> Path:
    """The cache root (``tilec.support.cache_root``) with the C backend's ``c/``."""
    return cache_root() / "c"


@functools.lru_cache(maxsize=1)
def _cpu_identity() -> str:
    """The CPU's architecture, model and feature flags (``/proc/cpuinfo``'s first processor;
    ``platform.processor()`` where there is none: on Linux it starts ``uname -p``)."""
    text = platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("model name", "flags", "Features", "CPU part")):
                    text += "\n" + line.strip()
                if line.strip() == "":
                    break
    except OSError:
        text += " " + platform.processor()
    return text


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else ``platform.processor()``."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cache_key(source: str, tc: Toolchain) -> str:
    """The sha256 naming a compiled object (origin comments left out: ``keyed_source``)."""
    h = hashlib.sha256()
    for part in (f"abi={ABI_VERSION}", tc.cc, tc.identity, " ".join(tc.flags),
                 _cpu_identity() if tc.native else "", keyed_source(source)):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def toolchain_identity(tc: Toolchain) -> str:
    """Everything ``cache_key`` hashes besides the source, as one digest: what an object
    built from a given source depends on (a warm-start key includes it)."""
    h = hashlib.sha256()
    for part in (f"abi={ABI_VERSION}", tc.cc, tc.identity, " ".join(tc.flags),
                 _cpu_identity() if tc.native else "", f"vector_bits={tc.vector_bits}"):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


_loaded: dict[str, ctypes.CDLL] = {}
_sources: dict[str, str] = {}
"""The source of every object this process built or loaded with its source, by key: the
disk copy may be under another cache root (``TILEC_CACHE_DIR`` changed) or removed."""
_lock = threading.Lock()


def compile_cached(source: str, origin_of_line: Callable[[int], object] | None = None,
                   tc: Toolchain | None = None) -> ctypes.CDLL:
    """The loaded shared object of ``source``, built at most once per cache key.

    ``origin_of_line(n)`` names the IR operation behind line ``n`` of
    ``source``; compiler errors are annotated with it.
    """
    tc = tc or toolchain()
    key = cache_key(source, tc)
    with _lock:
        _sources[key] = source
        lib = _loaded.get(key)
        if lib is not None:
            return lib
        d = cache_dir() / key[:2]
        try:
            d.mkdir(parents=True, exist_ok=True)
            probe_file = tempfile.NamedTemporaryFile(dir=d, prefix=".w-", delete=True)
            probe_file.close()
        except OSError as e:
            # An unwritable cache directory costs a build per process, never a failure.
            d = _private_dir()
            warnings.warn(f"tilec: cache directory {cache_dir()} is not writable ({e}); "
                          f"building in {d} for this process only", stacklevel=2)
        so, meta = d / f"{key}.so", d / f"{key}.json"
        data = _verified(so, meta, key)
        if data is None:
            _log.debug("C cache miss %s: building", key[:16])
            data = _build(source, tc, key, so, meta, origin_of_line)
        else:
            _log.debug("C cache hit %s", key[:16])
        lib = _load_private_copy(data, d)
        _loaded[key] = lib
        return lib


def load_cached(key: str) -> ctypes.CDLL | None:
    """The loaded shared object cached under ``key`` (``cache_key``), without its source;
    None when no intact entry exists (a corrupt one is removed)."""
    with _lock:
        lib = _loaded.get(key)
        if lib is not None:
            return lib
        d = cache_dir() / key[:2]
        data = _verified(d / f"{key}.so", d / f"{key}.json", key)
        if data is None:
            return None
        try:
            lib = _load_private_copy(data, d)
        except OSError:  # an unwritable cache directory: load from this process's own
            lib = _load_private_copy(data, _private_dir())
        _loaded[key] = lib
        return lib


def cached_source(key: str) -> str | None:
    """The C source kept beside the object cached under ``key`` (None when it is gone)."""
    if key in _sources:
        return _sources[key]
    try:
        return (cache_dir() / key[:2] / f"{key}.c").read_text()
    except OSError:
        return None


@functools.cache
def _private_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="tilec-c-"))


def _verified(so: Path, meta: Path, key: str) -> bytes | None:
    """The object's bytes when the entry is complete and intact; else None (entry removed)."""
    entry = verified_entry(so, meta, key)
    return None if entry is None else entry[0]


def _build(source: str, tc: Toolchain, key: str, so: Path, meta: Path,
           origin_of_line: Callable[[int], object] | None) -> bytes:
    import subprocess

    with tempfile.TemporaryDirectory(dir=so.parent, prefix=".build-") as tmp:
        (Path(tmp) / "kernel.c").write_text(source)
        t0 = time.perf_counter()
        crashes: list[str] = []
        for flags in _flag_sets(tc.flags):
            cmd = [tc.cc, *flags, f"-frandom-seed={key[:16]}", "-o", "kernel.so", "kernel.c",
                   "-lm"]
            try:
                p = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True,
                                   timeout=_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                raise CCompileError(f"C compiler timed out after {_TIMEOUT_S} s: "
                                    f"{' '.join(cmd)}") from None
            if p.returncode == 0:
                break
            log = p.stderr or p.stdout
            if not crashes and not _CRASH.search(log):  # the first build: a rejection
                raise CCompileError(_explain(log, cmd, origin_of_line))
            # after a crash, a retry the compiler refuses (a retry flag it lacks) goes on too
            crashes.append(_explain(log, cmd, origin_of_line))
        else:
            raise CCompileError("the C compiler crashed at every optimization level it was "
                                "given (a compiler bug; please report it with the source):\n"
                                + "\n".join(crashes))
        if crashes:
            warnings.warn(f"tilec: the C compiler crashed building a kernel with "
                          f"{_opt_level(tc.flags)} ({_crash_line(crashes[0])}); built it with "
                          f"{_opt_level(flags)} instead"
                          + ("" if _same_level(flags, tc.flags) else ", which runs slower"),
                          stacklevel=3)
        data = (Path(tmp) / "kernel.so").read_bytes()
    publish(so, data)
    publish(meta, json.dumps({
        "key": key, "sha256": hashlib.sha256(data).hexdigest(), "cc": tc.cc,
        "flags": list(flags), "compile_s": round(time.perf_counter() - t0, 3),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }, indent=1).encode())
    publish(so.with_suffix(".c"), source.encode())
    return data


def _flag_sets(flags: tuple[str, ...]) -> list[tuple[str, ...]]:
    """``flags``; ``flags`` with ``FIRST_RETRY_FLAGS``; then the same flags at each fallback
    optimization level."""
    rest = tuple(f for f in flags if not f.startswith("-O"))
    return [flags, (*flags, *FIRST_RETRY_FLAGS),
            *((level, *rest) for level in FALLBACK_OPT_LEVELS)]


def _opt_level(flags: tuple[str, ...]) -> str:
    level = next((f for f in flags if f.startswith("-O")), "the default optimization level")
    return " ".join((level, *(f for f in FIRST_RETRY_FLAGS if f in flags)))


def _same_level(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return [f for f in a if f.startswith("-O")] == [f for f in b if f.startswith("-O")]


def _crash_line(explained: str) -> str:
    """The line of a compiler log that reports the crash."""
    for line in explained.splitlines():
        if _CRASH.search(line):
            return line.strip()
    return "an internal compiler error"


def _explain(stderr: str, cmd: list[str], origin_of_line: Callable[[int], object] | None
             ) -> str:
    lines = [f"the C compiler rejected generated code ({' '.join(cmd)}):"]
    for line in stderr.strip().splitlines()[:40]:
        lines.append("  " + line)
        m = re.match(r"kernel\.c:(\d+):", line)
        if m and origin_of_line is not None and " error" in line:
            org = origin_of_line(int(m.group(1)))
            if org is not None:
                lines.append(f"    (generated for {org})")
    return "\n".join(lines)


def _load_private_copy(data: bytes, d: Path) -> ctypes.CDLL:
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".load-", suffix=".so")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return ctypes.CDLL(tmp)
    finally:
        unlink_quietly(tmp)
