"""Where tilec keeps files between processes: the cache root, by the platform's rules.

``$TILEC_CACHE_DIR`` overrides; otherwise the platform's per-user cache folder with
``tilec`` in it:

* Linux, the BSDs and other POSIX systems: ``$XDG_CACHE_HOME/tilec`` (the XDG Base
  Directory rule: only an absolute ``XDG_CACHE_HOME`` counts), else ``~/.cache/tilec``;
* macOS: ``~/Library/Caches/tilec``;
* Windows: ``%LOCALAPPDATA%\\tilec\\Cache`` (else ``~\\AppData\\Local\\tilec\\Cache``).

These are the rules ``platformdirs.user_cache_dir("tilec", appauthor=False)`` follows,
written out so that tilec needs no dependency for them. The compilers (``targets``) and
the cache commands (``runtime``) both read this one function.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

__all__ = ["APP", "cache_root", "user_cache_dir"]

APP = "tilec"
"""The folder name under the platform's cache folder."""


def user_cache_dir(platform: str | None = None, env: Mapping[str, str] | None = None,
                   home: str | None = None) -> Path:
    """The platform's per-user cache folder for tilec (``TILEC_CACHE_DIR`` aside).

    ``platform`` (a ``sys.platform`` value), ``env`` and ``home`` default to this process's;
    a test passes its own."""
    platform = sys.platform if platform is None else platform
    env = os.environ if env is None else env
    home = os.path.expanduser("~") if home is None else home
    if platform == "win32":
        local = env.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        return Path(local) / APP / "Cache"
    if platform == "darwin":
        return Path(home) / "Library" / "Caches" / APP
    xdg = env.get("XDG_CACHE_HOME", "")
    base = xdg if os.path.isabs(xdg) else os.path.join(home, ".cache")
    return Path(base) / APP


def cache_root() -> Path:
    """``$TILEC_CACHE_DIR`` (``~`` expanded), else ``user_cache_dir()``. Each backend adds its
    own subdirectory (``c/``, ``cuda/``) and the tuning records live in ``tune/``."""
    override = os.environ.get("TILEC_CACHE_DIR")
    if override:
        return Path(os.path.expanduser(override))
    return user_cache_dir()
