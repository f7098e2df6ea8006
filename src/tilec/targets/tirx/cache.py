"""``tvm.compile`` for LLVM, built at most once per PrimFunc: in this process and on disk.

The key is the sha256 of the cache layout's version, TVM's version, the LLVM target
string, the machine's architecture (the target names no CPU model, so the object runs on
any CPU of that architecture) and the PrimFunc's TVMScript, which the exporter builds in
milliseconds; ``tvm.compile`` takes a large fraction of a second. An entry under
``tirx/`` in the cache root (``tilec.support.cache_root``) is the shared object TVM exports
(``export_library``, through the system C compiler's linker) and a JSON record holding its
sha256, published and verified as the C compiler's entries are (``compile_cache``):
written under temporary names and renamed, the record last; trusted only when the record
names the key and the bytes hash to it, else removed and rebuilt. The verified bytes are
loaded from a private copy under a fresh name (a path ``dlopen`` saw before returns the old
library). An unwritable cache directory, or a machine where TVM cannot export a library,
costs a build per process, never a failure.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from tilec.targets.compile_cache import cache_root, publish, unlink_quietly, verified_entry

__all__ = ["LLVM_TARGET", "build_cached", "cache_dir", "cache_key", "stats"]

_log = logging.getLogger("tilec.tirx")

LAYOUT_VERSION = 1
"""Bumped when what an entry holds, or how the exporter's text maps to code, changes."""

LLVM_TARGET = "llvm"
"""TVM's target for the CPU: LLVM's generic CPU for the host triple. No ``-mcpu``: TVM
lets LLVM fuse a multiply and an add where the CPU has FMA, which ``strict_fold`` forbids."""

stats = {"builds": 0, "disk_hits": 0, "memory_hits": 0}
"""How each ``build_cached`` call was answered in this process (the tests read it)."""

_loaded: dict[str, Any] = {}
_lock = threading.Lock()


def cache_dir() -> Path:
    """The cache root with the bridge's ``tirx/``."""
    return cache_root() / "tirx"


def cache_key(text: str) -> str:
    """The sha256 naming the object built from the PrimFunc whose TVMScript is ``text``."""
    import tvm

    h = hashlib.sha256()
    for part in (f"layout={LAYOUT_VERSION}", f"tvm={tvm.__version__}", LLVM_TARGET,
                 platform.machine(), text):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def build_cached(prim_func: Any, name: str, text: str) -> Any:
    """TVM's compiled function ``name`` of ``prim_func`` (whose TVMScript is ``text``):
    from this process's memo, else a verified disk entry, else ``tvm.compile`` (then
    stored). TVM's failures propagate (the caller reports them)."""
    key = cache_key(text)
    with _lock:
        got = _loaded.get(key)
        if got is not None:
            stats["memory_hits"] += 1
            return got[name]
        d = cache_dir() / key[:2]
        so, meta = d / f"{key}.so", d / f"{key}.json"
        lib = None
        entry = verified_entry(so, meta, key)
        if entry is not None:
            try:
                lib = _load_private_copy(entry[0], d)
                stats["disk_hits"] += 1
                _log.debug("tirx cache hit %s", key[:16])
            except Exception as e:  # noqa: BLE001 - an unloadable entry is rebuilt
                _log.debug("tirx cache entry %s does not load (%s): rebuilding", key[:16], e)
                for p in (so, meta):
                    unlink_quietly(p)
        if lib is None:
            lib = _build(prim_func, name, key, so, meta)
        _loaded[key] = lib
        return lib[name]


def _build(prim_func: Any, name: str, key: str, so: Path, meta: Path) -> Any:
    import tvm

    t0 = time.perf_counter()
    lib = tvm.compile(tvm.IRModule({name: prim_func}), target=LLVM_TARGET)
    stats["builds"] += 1
    compile_s = time.perf_counter() - t0
    try:
        so.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=so.parent, prefix=".build-") as tmp:
            path = Path(tmp) / "kernel.so"
            lib.export_library(str(path))
            data = path.read_bytes()
        publish(so, data)
        publish(meta, json.dumps({
            "key": key, "sha256": hashlib.sha256(data).hexdigest(), "tvm": tvm.__version__,
            "target": LLVM_TARGET, "compile_s": round(compile_s, 3),
            "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }, indent=1).encode())
    except Exception as e:  # noqa: BLE001 - no linker or no write access: this process only
        _log.debug("tirx cache: not stored (%s: %s)", type(e).__name__, e)
    return lib


def _load_private_copy(data: bytes, d: Path) -> Any:
    import tvm

    try:
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".load-", suffix=".so")
    except OSError:
        fd, tmp = tempfile.mkstemp(prefix="tilec-tirx-", suffix=".so")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return tvm.runtime.load_module(tmp)
    finally:
        unlink_quietly(tmp)
