"""CUDA C++ -> cubin with NVRTC, ptxas' resource report, and a disk cache.

``compile_cubin(source, arch, kernel)`` compiles through ``cuda.core.Program``
(falling back to ``cuda.bindings.nvrtc`` when cuda-core is missing or
fails to load) to a cubin for one architecture, in a child process
(``nvrtc_child.py``, one per process, started on the first build that is
not cached):
NVRTC's NVVM optimizer has crashed on generated kernels, and a crash there
must not kill the caller. A crashed build is retried at lower NVVM
optimization levels (``NVVM_RETRIES``) with a warning; only a crash at
every level is an error. NVRTC needs no GPU and no
driver for a cubin, so CI checks every emitted kernel for ``sm_80`` and
``sm_90``. The options are fixed (``OPTIONS``): ``--fmad=false`` keeps a
separate multiply and add separate (fused multiply-add only where the
emitter writes ``__fmaf_rn``), and ``--ptxas-options=-v`` makes ptxas
report registers, shared memory and spills, parsed into ``Resources``.

Architectures: ``arch_for(cc)`` names the real architecture of a device
(``sm_90`` for compute capability 9.0); a kernel that uses sm_90a-only
instructions (``wgmma``, later) asks for ``sm_90a`` through its
``CUDASource.min_sm``/``arch_suffix`` and gets the arch-specific target.

The cache (``cuda/`` under ``tilec.support.cache_root()``) is
keyed by the sha256 of the ABI version, the source, the options, the arch,
the NVRTC version and, when a driver is present, its version. Each entry is
a cubin plus a JSON record (its sha256, ptxas log, resources); files are
published atomically (temporary name + ``os.replace``, the cubin before the
record), an entry is trusted only when the record parses and the cubin's
bytes hash to it, and a corrupt entry is deleted and rebuilt.

Compile errors raise ``CUDACompileError`` with NVRTC's messages, an excerpt
of the generated source around each error line, and the TileIR operation
that produced that line.
"""

from __future__ import annotations

import atexit
import base64
import functools
import hashlib
import json
import logging
import os
import re
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tilec.ir as ir
from tilec.targets.compile_cache import cache_root, keyed_source, publish, verified_entry
from tilec.targets.cuda.prelude import ABI_VERSION

if TYPE_CHECKING:  # started on the first build that is not cached
    import subprocess

__all__ = ["Resources", "Cubin", "CUDACompileError", "NVRTCUnavailable", "OPTIONS",
           "compile_cubin", "parse_resources", "nvrtc_version", "driver_version", "arch_for",
           "cache_dir", "cache_key", "nvrtc_available", "explain_errors", "load_cubin",
           "cached_source", "build_identity"]

_log = logging.getLogger(__name__)

OPTIONS = ("--std=c++17", "--fmad=false", "--ptxas-options=-v")
"""NVRTC options of every kernel (plus ``-arch=<arch>``)."""


class NVRTCUnavailable(ir.UserError, RuntimeError):
    """Neither cuda-core nor cuda-bindings' NVRTC can be loaded; the message says why."""


class CUDACompileError(RuntimeError):
    """NVRTC rejected generated source; the message shows the source and the TileIR op."""


@dataclass(frozen=True)
class Resources:
    """What ptxas reports for one kernel (plus the dynamic shared memory the plan asks for)."""

    registers: int
    """Registers per thread."""
    spill_stores: int
    """Bytes of register spill stores (local memory)."""
    spill_loads: int
    """Bytes of register spill loads."""
    stack_frame: int
    """Bytes of stack frame per thread (local arrays that did not become registers)."""
    static_shared: int
    """Bytes of statically declared shared memory."""
    dynamic_shared: int
    """Bytes of dynamic shared memory the launch requests."""
    barriers: int
    """Named barriers used."""
    arch: str
    """The architecture compiled for."""
    origin: str = "ptxas"
    """Where the counts come from: ``ptxas`` (its ``-v`` report: registers, spills, stack),
    ``driver`` (the loaded kernel's attributes: registers and local memory only), or
    ``none`` when the compiler's log had no register report for this kernel: the counts
    above are then unknown, not zero (NVRTC 13.0 was seen to give ptxas' report for the
    first compilation of a process only)."""

    @property
    def reported(self) -> bool:
        """Whether the counts are known (from ptxas or the driver)."""
        return self.origin != "none"

    @property
    def shared(self) -> int:
        """Total shared memory per block."""
        return self.static_shared + self.dynamic_shared

    def __str__(self) -> str:
        if not self.reported:
            return (f"{self.arch}: registers and spills not reported by the compiler, "
                    f"{self.dynamic_shared} B dynamic shared")
        if self.origin == "driver":
            return (f"{self.arch}: {self.registers} registers, {self.shared} B shared "
                    f"({self.dynamic_shared} dynamic), {self.stack_frame} B local memory "
                    "(from the driver; spills not reported)")
        return (f"{self.arch}: {self.registers} registers, {self.shared} B shared "
                f"({self.dynamic_shared} dynamic), {self.stack_frame} B stack, "
                f"spills {self.spill_stores} B stored / {self.spill_loads} B loaded")


@dataclass(frozen=True)
class Cubin:
    """A compiled kernel image."""

    data: bytes
    """The cubin."""
    arch: str
    """Its architecture (``sm_90`` ...)."""
    kernel: str
    """The kernel symbol."""
    log: str
    """NVRTC's log (ptxas' report)."""
    resources: Resources
    """The parsed report."""
    key: str
    """The cache key."""
    cached: bool
    """True when it came from the disk cache."""


def arch_for(cc: tuple[int, int], suffix: str = "") -> str:
    """``sm_XY`` (or ``sm_XYa``) for compute capability ``(X, Y)``."""
    return f"sm_{cc[0]}{cc[1]}{suffix}"


@functools.lru_cache(maxsize=1)
def nvrtc_version() -> str:
    """``major.minor`` of the NVRTC library that compiles (raises ``NVRTCUnavailable``)."""
    try:
        from cuda.bindings import nvrtc
    except ImportError as e:
        raise NVRTCUnavailable(f"cuda-bindings is not installed ({e}); install the [cuda] extra: "
                               "pip install 'tilec[cuda]'") from None
    try:
        err, major, minor = nvrtc.nvrtcVersion()
    except Exception as e:  # the library itself is missing: nvidia-cuda-nvrtc not installed
        raise NVRTCUnavailable(f"libnvrtc cannot be loaded ({e}); pip install nvidia-cuda-nvrtc"
                               ) from None
    if int(err) != 0:
        raise NVRTCUnavailable(f"nvrtcVersion failed with {err}")
    return f"{major}.{minor}"


def nvrtc_available() -> str | None:
    """None when NVRTC works here, else the reason."""
    try:
        nvrtc_version()
    except NVRTCUnavailable as e:
        return str(e)
    return None


@functools.lru_cache(maxsize=1)
def driver_version() -> int | None:
    """The CUDA driver's version (e.g. 13000), or None when there is no driver (CI)."""
    from tilec.targets.cuda.cudriver import driver

    try:
        err, v = driver().cuDriverGetVersion()
    except Exception:
        return None
    return int(v) if int(err) == 0 else None


def cache_dir() -> Path:
    """The cache root (``tilec.support.cache_root``) with the CUDA backend's ``cuda/``."""
    return cache_root() / "cuda"




def cache_key(source: str, arch: str) -> str:
    """The sha256 naming a cubin.

    The emitter's origin comments (``/* tilec: <op>#<id> at file:line */``) are left out:
    operation ids differ between two compilations of one kernel in a process, and
    comments do not change the cubin.
    """
    h = hashlib.sha256()
    for part in (*_build_parts(arch), keyed_source(source)):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _build_parts(arch: str) -> tuple[str, ...]:
    return (f"abi={ABI_VERSION}", " ".join(OPTIONS), arch, f"nvrtc={nvrtc_version()}",
            f"driver={driver_version()}")


def build_identity(arch: str) -> str:
    """Everything ``cache_key`` hashes besides the source (the ABI, the options, the
    architecture, NVRTC's identity and the driver's version), as one digest: what a cubin
    built from a given source depends on (a warm-start key includes it). NVRTC is named by
    ``nvrtc_identity``, which does not load the library, so that a warm start does not pay
    for it."""
    parts = (f"abi={ABI_VERSION}", " ".join(OPTIONS), arch, f"nvrtc={nvrtc_identity()}",
             f"driver={driver_version()}")
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def nvrtc_identity() -> str:
    """The NVRTC that would compile here, named without loading it: the distributions of
    the ``nvidia-cuda-nvrtc`` wheels on ``sys.path`` (their ``.dist-info`` folder names
    carry the exact version; the CUDA libraries' loader prefers those wheels to a system
    NVRTC), else the loaded library's ``major.minor`` (``nvrtc_version``). A directory
    listing per path entry, about a millisecond, against tens for loading NVRTC."""
    found: list[str] = []
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        found += sorted(n for n in names
                        if n.startswith("nvidia_cuda_nvrtc") and n.endswith(".dist-info"))
    return "wheel:" + ",".join(found) if found else f"library:{nvrtc_version()}"


_RE_USED = re.compile(r"Used (\d+) registers(?:, used (\d+) barriers)?(?:, (\d+) bytes smem)?")
_RE_SPILL = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                       r"(\d+) bytes spill loads")
_RE_SMEM = re.compile(r"(\d+) bytes smem")
_RE_ENTRY = re.compile(r"(?:Compiling entry function|Function properties for) '?([A-Za-z0-9_]+)'?")


def parse_resources(log: str, kernel: str, arch: str, dynamic_shared: int = 0) -> Resources:
    """The ptxas ``-v`` report of ``kernel`` (zeros for what the log does not say)."""
    regs = barriers = smem = stack = st = ld = 0
    found = False
    current = None
    for line in log.splitlines():
        m = _RE_ENTRY.search(line)
        if m:
            current = m.group(1)
            continue
        if current is not None and current != kernel:
            continue
        m = _RE_SPILL.search(line)
        if m:
            stack, st, ld = (int(x) for x in m.groups())
        m = _RE_USED.search(line)
        if m:
            found = True
            regs = int(m.group(1))
            barriers = int(m.group(2) or 0)
            s = _RE_SMEM.search(line)
            smem = int(s.group(1)) if s else 0
    return Resources(regs, st, ld, stack, smem, dynamic_shared, barriers, arch,
                     "ptxas" if found else "none")


# ------------------------------------------------------------------------- compile


class _NVRTCFailed(Exception):
    """NVRTC's own failure text (turned into ``CUDACompileError`` with context)."""


class _NVRTCCrashed(Exception):
    """NVRTC itself died (the child's exit status and the end of its stderr)."""


NVVM_RETRIES: tuple[tuple[str, ...], ...] = (("-Xnvvm", "-opt=1"), ("-Xnvvm", "-opt=0"))
"""NVVM optimization levels tried, in order, when NVRTC crashes on a kernel (its default
is 3; ptxas still optimizes the PTX at its own default). NVRTC 13's NVVM optimizer has
segfaulted on generated kernels, e.g. the fuzz program of
tests/regression/test_nvrtc_crash.py, which builds at ``-opt=1``."""


class _Server:
    """This process's NVRTC child (``nvrtc_child.py``), started on first use and again
    after it dies; requests are serialized by ``compile_cubin``'s lock."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        """The running child (None: none yet, or it died)."""
        self.stderr: Any = None
        """A temporary file with the child's stderr (what it said before dying)."""
        self.pid = 0
        """The process that started the child (a forked process starts its own)."""
        self.requests = 0
        """Requests sent; each carries its number and the child echoes it."""

    def _start(self) -> subprocess.Popen[str]:
        import subprocess

        child = Path(__file__).with_name("nvrtc_child.py")
        if self.stderr is not None:
            self.stderr.close()  # the previous child's
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([sys.executable, str(child)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        self.pid = os.getpid()
        return self.proc

    def compile(self, source: str, arch: str, name: str, options: list[str]
                ) -> tuple[bytes, str]:
        """The cubin and log; raises ``_NVRTCFailed`` (rejected) or ``_NVRTCCrashed``."""
        alive = self.proc is not None and self.pid == os.getpid() and self.proc.poll() is None
        proc = self.proc if alive else self._start()  # type: ignore[assignment]
        self.requests += 1
        req = {"id": self.requests, "source": source, "arch": arch, "name": name,
               "options": options}
        try:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(json.dumps(req) + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        except BaseException:
            # interrupted (a time limit, ^C) with the request in flight: its answer must
            # never be read as the next request's, so this child goes
            self._kill()
            raise
        if not line:  # the child died on this request
            code = proc.wait()
            self.proc = None
            self.stderr.seek(0)
            tail = "\n".join(self.stderr.read().strip().splitlines()[-5:])
            how = f"signal {-code}" if code < 0 else f"exit code {code}"
            raise _NVRTCCrashed(how + (f": {tail}" if tail else ""))
        reply = json.loads(line)
        if reply.get("id") != self.requests:
            self._kill()
            raise RuntimeError(f"the NVRTC child answered request {reply.get('id')} to request "
                               f"{self.requests}; it was stopped")
        if "error" in reply:
            raise _NVRTCFailed(reply["error"])
        return base64.b64decode(reply["cubin"]), reply["log"]

    def _kill(self) -> None:
        if self.proc is not None and self.pid == os.getpid():
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def close(self) -> None:
        """End the child (it exits at the end of its input)."""
        if self.proc is not None and self.pid == os.getpid() and self.proc.stdin is not None:
            import subprocess

            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
        self.proc = None


_server = _Server()
atexit.register(_server.close)


def _nvrtc(source: str, arch: str, name: str, extra: tuple[str, ...] = ()) -> tuple[bytes, str]:
    """NVRTC in this process's child (``nvrtc_child.py``), so that a crash of NVRTC is
    reported, not fatal to this process."""
    return _server.compile(source, arch, name, [*OPTIONS, *extra])


def _build(source: str, arch: str, kernel: str, name: str,
           origin_of_line: Callable[[int], object] | None) -> tuple[bytes, str, tuple[str, ...]]:
    """The cubin, log and extra options of the first NVVM level that does not crash."""
    crashes: list[str] = []
    for extra in ((), *NVVM_RETRIES):
        try:
            data, log = _nvrtc(source, arch, name, extra)
        except _NVRTCFailed as e:
            raise CUDACompileError(
                f"NVRTC rejected the generated CUDA source for {kernel} ({arch}):\n"
                + explain_errors(str(e), source, origin_of_line, name)) from None
        except _NVRTCCrashed as e:
            crashes.append(f"{' '.join(extra) or 'default options'}: {e}")
            continue
        if crashes:
            warnings.warn(f"tilec: NVRTC crashed building {kernel} for {arch} ({crashes[0]}); "
                          f"built it with {' '.join(extra)} (NVRTC's bug; the results are the "
                          "same, the code may be slower)", RuntimeWarning, stacklevel=3)
        return data, log, extra
    raise CUDACompileError(f"NVRTC crashed building {kernel} for {arch} at every NVVM "
                           "optimization level tried (a bug of NVRTC, not of the kernel):\n"
                           + "\n".join(crashes))


def explain_errors(text: str, source: str, origin_of_line: Callable[[int], object] | None,
                   name: str, context: int = 2) -> str:
    """NVRTC's messages with the generated lines around each error and the op behind them."""
    lines = source.splitlines()
    out = [line for line in text.strip().splitlines()[:60]]
    pat = re.compile(re.escape(name) + r"\((\d+)\): (?:catastrophic )?error")
    shown: set[int] = set()
    for line in text.splitlines():
        m = pat.search(line)
        if not m:
            continue
        n = int(m.group(1))
        if n in shown or len(shown) >= 5:
            continue
        shown.add(n)
        org = origin_of_line(n) if origin_of_line is not None else None
        out.append("")
        out.append(f"generated source around line {n}"
                   + (f" (emitted for TileIR {org})" if org is not None else "") + ":")
        for k in range(max(1, n - context), min(len(lines), n + context) + 1):
            out.append(f"{'>' if k == n else ' '}{k:5d} | {lines[k - 1]}")
    return "\n".join(out)


_mem: dict[str, Cubin] = {}
_lock = threading.Lock()


def compile_cubin(source: str, arch: str, kernel: str, dynamic_shared: int = 0,
                  origin_of_line: Callable[[int], object] | None = None,
                  use_cache: bool = True) -> Cubin:
    """The cubin of ``source`` for ``arch`` (from the cache when an intact entry exists)."""
    key = cache_key(source, arch)
    name = f"{kernel}.cu"
    with _lock:
        hit = _mem.get(key)
        if hit is not None and use_cache:
            return hit
        d = cache_dir() / key[:2]
        cub, meta = d / f"{key}.cubin", d / f"{key}.json"
        entry = _verified(cub, meta, key) if use_cache else None
        if entry is not None:
            data, info = entry
            res = Resources(**{**info["resources"], "dynamic_shared": dynamic_shared})
            out = Cubin(data, arch, kernel, info.get("log", ""), res, key, True)
            _log.debug("CUDA cache hit %s (%s, %s)", key[:16], kernel, arch)
        else:
            _log.debug("CUDA cache miss %s (%s, %s): building", key[:16], kernel, arch)
            t0 = time.perf_counter()
            data, log, extra = _build(source, arch, kernel, name, origin_of_line)
            res = parse_resources(log, kernel, arch, dynamic_shared)
            out = Cubin(data, arch, kernel, log, res, key, False)
            if use_cache:
                _store(d, cub, meta, out, source, time.perf_counter() - t0, extra)
        _mem[key] = out
        return out


def load_cubin(key: str, arch: str, kernel: str, dynamic_shared: int = 0) -> Cubin | None:
    """The cubin cached under ``key`` (``cache_key``), without its source; None when no intact
    entry exists (a corrupt one is removed)."""
    with _lock:
        hit = _mem.get(key)
        if hit is not None:
            return hit
        d = cache_dir() / key[:2]
        entry = _verified(d / f"{key}.cubin", d / f"{key}.json", key)
        if entry is None:
            return None
        data, info = entry
        res = Resources(**{**info["resources"], "dynamic_shared": dynamic_shared})
        out = Cubin(data, arch, kernel, info.get("log", ""), res, key, True)
        _mem[key] = out
        return out


def cached_source(key: str) -> str | None:
    """The CUDA source kept beside the cubin cached under ``key`` (None when it is gone)."""
    try:
        return (cache_dir() / key[:2] / f"{key}.cu").read_text()
    except OSError:
        return None


def _verified(cub: Path, meta: Path, key: str) -> tuple[bytes, dict[str, Any]] | None:
    return verified_entry(cub, meta, key, _resources_ok, (OSError, ValueError, TypeError,
                                                          AttributeError))


def _resources_ok(info: dict[str, Any]) -> bool:
    """Whether a record's resources rebuild a ``Resources`` (a bad field raises TypeError)."""
    if not isinstance(info.get("resources"), dict):
        return False
    Resources(**info["resources"])
    return True


def _store(d: Path, cub: Path, meta: Path, c: Cubin, source: str, seconds: float,
           extra: tuple[str, ...] = ()) -> None:
    try:
        d.mkdir(parents=True, exist_ok=True)
        publish(cub, c.data)
        publish(cub.with_suffix(".cu"), source.encode())
        publish(meta, json.dumps({
            "key": c.key, "sha256": hashlib.sha256(c.data).hexdigest(), "arch": c.arch,
            "kernel": c.kernel, "options": [*OPTIONS, *extra], "nvrtc": nvrtc_version(),
            "driver": driver_version(), "log": c.log,
            "resources": {**asdict(c.resources), "dynamic_shared": 0},
            "compile_s": round(seconds, 3), "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }, indent=1).encode())
    except OSError:
        pass  # an unwritable cache only costs recompilation
