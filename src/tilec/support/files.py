"""Publishing a file atomically: a reader sees the old contents or the new, never a part."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["publish"]


def publish(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and
    ``os.replace`` (creating the folder); the temporary file is removed on any failure,
    which propagates."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
