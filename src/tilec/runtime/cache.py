"""The on-disk cache: where it is, what it holds, and clearing it.

Everything tilec keeps between processes lives under one root, ``$TILEC_CACHE_DIR`` or
the platform's cache folder (``tilec.support.cache_root``: ``~/.cache/tilec`` on Linux,
``~/Library/Caches/tilec`` on macOS, ``%LOCALAPPDATA%\\tilec\\Cache`` on Windows): each
backend's compiled binaries in its own subdirectory (``c/``, ``cuda/``, ``tirx/``) and the tuning
records in ``tune/``. Binaries are rebuilt on a miss, so clearing them costs only compile
time; tuning records are measurements, so ``clear`` keeps them unless asked (``tilec cache
clear --records``).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from tilec.support import cache_root

__all__ = ["RECORDS", "CacheEntry", "cache_root", "cache_usage", "clear_cache"]

RECORDS = "tune"
"""The subdirectory of tuning records (``runtime/records.py``)."""


@dataclass(frozen=True)
class CacheEntry:
    """One subdirectory of the cache."""

    name: str
    """Its name under the root (``c``, ``cuda``, ``tune``, ...)."""
    files: int
    """Regular files in it, at any depth."""
    bytes: int
    """Their total size."""


def _walk(path: Path) -> tuple[int, int]:
    files = size = 0
    for dirpath, _, names in os.walk(path):
        for n in names:
            try:
                size += os.stat(os.path.join(dirpath, n)).st_size
                files += 1
            except OSError:  # removed meanwhile
                pass
    return files, size


def cache_usage() -> list[CacheEntry]:
    """Every subdirectory of the root with its file count and size (empty if no root);
    files directly under the root are listed as ``.``."""
    root = cache_root()
    if not root.is_dir():
        return []
    entries = sorted(root.iterdir())
    loose = [p.stat().st_size for p in entries if p.is_file()]
    out = [CacheEntry(".", len(loose), sum(loose))] if loose else []
    return out + [CacheEntry(p.name, *_walk(p)) for p in entries if p.is_dir()]


def clear_cache(records: bool = False) -> tuple[int, int]:
    """Remove everything under the root but the tuning records (and those too with
    ``records``); returns the files and bytes removed."""
    root = cache_root()
    files = size = 0
    if not root.is_dir():
        return 0, 0
    for p in root.iterdir():
        if p.name == RECORDS and not records:
            continue
        if p.is_dir() and not p.is_symlink():
            f, s = _walk(p)
            shutil.rmtree(p, ignore_errors=True)
        else:
            f, s = 1, p.lstat().st_size
            p.unlink(missing_ok=True)
        files, size = files + f, size + s
    return files, size
