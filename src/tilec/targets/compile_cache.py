"""Disk-cache helpers shared by the C and CUDA compilers.

Both compilers keep, per content hash, a binary plus a JSON record that holds
the binary's sha256. The rules they share live here: the cache root (re-exported
from ``tilec.support``, which ``tilec cache`` reads too), atomic publication (temporary
name in the same directory, then ``os.replace``), the check that trusts an
entry only when its record parses and the bytes hash to it, and the source text a key
hashes (without the emitters' origin comments, which name operation ids and source
files: two checkouts, or two processes that numbered operations differently, share one
entry).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tilec.support import cache_root

__all__ = ["cache_root", "publish", "verified_entry", "unlink_quietly", "keyed_source"]

_RE_ORIGIN = re.compile(r"^[ \t]*/\* tilec: [^\n]*\*/[ \t]*\n", re.MULTILINE)
"""A line holding only an origin comment (``/* tilec: <op>#<id> at file:line:col */``)."""


def keyed_source(source: str) -> str:
    """``source`` as a cache key hashes it: without its origin-comment lines (they do not
    change the object code)."""
    return _RE_ORIGIN.sub("", source)


def unlink_quietly(path: Path | str) -> None:
    """Remove a file, ignoring a file that is already gone or cannot be removed."""
    try:
        os.unlink(path)
    except OSError:
        pass


def publish(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file in the same directory, renamed."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        unlink_quietly(tmp)
        raise


def verified_entry(binary: Path, meta: Path, key: str,
                   check: Callable[[dict[str, Any]], bool] | None = None,
                   errors: tuple[type[BaseException], ...] = (OSError, ValueError, AttributeError)
                   ) -> tuple[bytes, dict[str, Any]] | None:
    """The binary's bytes and its record when the entry is complete and intact; else None.

    An entry is intact when the record parses, names ``key``, records the sha256 of the
    binary's bytes and passes ``check`` (which may also raise one of ``errors``). A corrupt or
    half-written entry is removed so that the caller rebuilds it.
    """
    if not meta.exists() and not binary.exists():
        return None
    try:
        info = json.loads(meta.read_text())
        data = binary.read_bytes()
        if info.get("key") == key and info.get("sha256") == hashlib.sha256(data).hexdigest() \
                and (check is None or check(info)):
            return data, info
    except errors:
        pass
    for p in (meta, binary):
        unlink_quietly(p)
    return None
