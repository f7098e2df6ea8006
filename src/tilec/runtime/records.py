"""Tuning records: JSON files that remember what measured selection chose, and why.

One file per key, in ``tune/`` under the cache root (``tilec.support.cache_root``),
named by the key's digest. A record holds the key (so a file is checked against
the key it is read for), the selected configuration and plan variant, every
candidate with its model score, validation, search and replay times, and every
rejection with its reason (``docs/guide/tuning.md`` shows one). The format is
plain JSON, versioned by ``SCHEMA``: no pickle, and a file that does not parse,
has another schema or another key is ignored with a ``RecordWarning``.

``export_records`` bundles records into one file and ``import_records`` writes a
bundle's records back (``tilec tune --export`` / ``--import``).
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tilec.support.files import publish

from .cache import RECORDS, cache_root

__all__ = ["SCHEMA", "VERSION", "RecordKey", "RecordWarning", "records_dir", "record_path",
           "load_record", "store_record", "list_records", "export_records", "import_records"]

SCHEMA = 1
"""The record format's version; a record of another version is ignored."""

VERSION = "0.1.0"
"""tilec's version (``tilec.__version__``): part of every record key."""


class RecordWarning(UserWarning):
    """A tuning record that was ignored (unreadable, another schema, another key)."""

    __module__ = "tilec"


@dataclass(frozen=True)
class RecordKey:
    """What a tuning result is valid for."""

    kernel: str
    """The kernel function's name."""
    ir_sha256: str
    """sha256 of the kernel's printed Candidate TileIR at its declared defaults (changes
    whenever the kernel's code, its helpers or its specialization change)."""
    spec: str
    """The specialization: each runtime argument's kind, element type and static extents,
    and the constexprs that are not tunable."""
    shapes: str
    """The shape bucket (symbolic extents rounded up to powers of two, at least 16)."""
    target: str
    """The target name."""
    device: str
    """The device's name, architecture and driver (``Backend.device_identity``)."""
    version: str
    """tilec's version."""
    cost_basis: str
    """The cost basis name and version the model scores are in (``none`` without one)."""

    def to_json(self) -> dict[str, str]:
        """The key's fields."""
        return asdict(self)

    @property
    def digest(self) -> str:
        """A stable name for the key: sha256 of its canonical JSON (24 hex digits)."""
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:24]


def records_dir() -> Path:
    """``tune/`` under the cache root (``$TILEC_CACHE_DIR`` or the platform's cache folder)."""
    return cache_root() / RECORDS


def record_path(key: RecordKey) -> Path:
    """The file that holds ``key``'s record."""
    return records_dir() / f"{key.kernel}-{key.digest}.json"


def _valid(body: Any, key: RecordKey | None) -> str | None:
    """None when ``body`` is a record (of ``key``, if given); else what is wrong."""
    if not isinstance(body, dict):
        return "not a JSON object"
    if body.get("schema") != SCHEMA:
        return f"schema {body.get('schema')!r}, this tilec reads schema {SCHEMA}"
    if not isinstance(body.get("key"), dict) or not isinstance(body.get("selected"), dict):
        return "no key or no selection"
    if not isinstance(body["selected"].get("config"), dict):
        return "the selection has no configuration"
    if key is not None and body["key"] != key.to_json():
        diff = sorted(k for k, v in key.to_json().items() if body["key"].get(k) != v)
        return f"recorded for another key (differs in {', '.join(diff)})"
    return None


def load_record(key: RecordKey) -> dict[str, Any] | None:
    """The record stored for ``key``, or None (no file, or one that is ignored with a
    ``RecordWarning`` naming the file and the problem)."""
    path = record_path(key)
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except OSError as e:
        warnings.warn(f"tuning record {path} ignored: {e}", RecordWarning, stacklevel=2)
        return None
    try:
        body = json.loads(text)
    except ValueError as e:
        warnings.warn(f"tuning record {path} ignored: it is not valid JSON ({e})",
                      RecordWarning, stacklevel=2)
        return None
    why = _valid(body, key)
    if why is not None:
        warnings.warn(f"tuning record {path} ignored: {why}", RecordWarning, stacklevel=2)
        return None
    return body


def _write(path: Path, body: Mapping[str, Any]) -> None:
    # atomic: a reader sees the old record or the new one
    publish(path, json.dumps(body, indent=1, sort_keys=False, allow_nan=False) + "\n")


def store_record(key: RecordKey, body: Mapping[str, Any]) -> Path:
    """Write ``body`` (with the schema and key filled in) as ``key``'s record."""
    full = {"schema": SCHEMA, "key": key.to_json(), **{k: v for k, v in body.items()
                                                         if k not in ("schema", "key")}}
    why = _valid(full, key)
    if why is not None:
        raise ValueError(f"not a tuning record: {why}")
    path = record_path(key)
    _write(path, full)
    return path


def list_records() -> list[Path]:
    """Every record file in ``records_dir()``, by name."""
    d = records_dir()
    return sorted(d.glob("*.json")) if d.is_dir() else []


def export_records(dest: str | os.PathLike[str], paths: Iterable[Path] | None = None) -> int:
    """Write the records (default: all of them) into one bundle file; returns how many.
    Files that are not records are skipped with a ``RecordWarning``."""
    bodies = []
    for p in (list_records() if paths is None else paths):
        try:
            body = json.loads(Path(p).read_text())
        except (OSError, ValueError) as e:
            warnings.warn(f"tuning record {p} not exported: {e}", RecordWarning, stacklevel=2)
            continue
        why = _valid(body, None)
        if why is not None:
            warnings.warn(f"tuning record {p} not exported: {why}", RecordWarning,
                          stacklevel=2)
            continue
        bodies.append(body)
    _write(Path(dest), {"schema": SCHEMA, "bundle": True, "records": bodies})
    return len(bodies)


def import_records(src: str | os.PathLike[str]) -> int:
    """Write every record of a bundle (or a single record file) into ``records_dir()``;
    returns how many. A malformed entry is skipped with a ``RecordWarning``."""
    body = json.loads(Path(src).read_text())
    entries = body.get("records", []) if isinstance(body, dict) and body.get("bundle") \
        else [body]
    n = 0
    for entry in entries:
        why = _valid(entry, None)
        if why is not None:
            warnings.warn(f"a record of {src} not imported: {why}", RecordWarning, stacklevel=2)
            continue
        try:
            key = RecordKey(**entry["key"])
        except TypeError as e:
            warnings.warn(f"a record of {src} not imported: its key is malformed ({e})",
                          RecordWarning, stacklevel=2)
            continue
        store_record(key, entry)
        n += 1
    return n
