"""Warm start: a compiled kernel found by the content it was compiled from.

A new process that calls a kernel it compiled before should not capture, plan, lower or
emit it again. Two kinds of entries under ``warm/`` in the cache root make that so
(``docs/design/warm_start.md``):

* a **launch entry** maps a *launch key* to the target's launch record (the binary's cache
  key and what calling it needs: parameters, runtime extents, grid, shared memory, the
  reports of its checks; ``tilec.driver.launch_record``);
* a **resolution entry** maps a *resolution key* to how a call's ``tc.tunable`` parameters
  resolved (``Resolution``), with the tuning-record file that was consulted and its state
  then, so that a record written later is seen.

The keys hash everything the product depends on:

* the **kernel digest** (``kernel_digest``): the source text of the kernel and of every
  ``@tc.func`` helper it reaches, with their files and lines, their defaults, and the
  value of every global or closure name they mention (numbers, strings, dtypes, tuples;
  modules by name, with the attributes the code reads; helpers recursively; any other
  object by its type, since capture rejects those);
* the specialization key (``Kernel.specialize``: argument kinds, element types, static
  extents, constexpr values), the variant, the target;
* the target's identity (``tilec.driver.target_identity``: compiler or NVRTC, flags,
  architecture, planner overrides, device);
* tilec itself: its version and the path, size and modification time of each of its
  modules (``code_fingerprint``), so an edited or reinstalled tilec misses.

``TILEC_WARM_START=0`` switches warm start off (every compile takes the full pipeline).
Entries are JSON written atomically; an entry that does not parse, has another schema or
names another key is ignored, and a launch record whose binary is gone is a miss.
"""

from __future__ import annotations

import ast
import builtins
import functools
import hashlib
import inspect
import json
import linecache
import math
import os
import textwrap
import types
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tilec.support import cache_root
from tilec.support.files import publish

__all__ = ["SCHEMA", "enabled", "code_fingerprint", "kernel_digest", "entry_key", "read",
           "write", "resolution_to_json", "resolution_from_json", "record_state"]

SCHEMA = 1
"""The entries' format; an entry of another version is ignored."""

DIR = "warm"
"""The subdirectory of the cache root that holds the entries."""


def enabled() -> bool:
    """Whether warm start is on (``TILEC_WARM_START`` is not ``0``)."""
    return os.environ.get("TILEC_WARM_START", "1").strip() != "0"


# ------------------------------------------------------------------ tilec's own code


@functools.cache
def code_fingerprint() -> str:
    """tilec's version and, per module of the package, its path, size and modification
    time, as one digest (the package's test tools excluded). O(modules) ``stat`` calls,
    once per process."""
    from tilec.runtime.records import VERSION

    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256(f"tilec {VERSION}".encode())
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", "testing"))
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                st = os.stat(path)
                h.update(f"{os.path.relpath(path, root)}\0{st.st_size}\0{st.st_mtime_ns}\0"
                         .encode())
    return h.hexdigest()


# ------------------------------------------------------------------ the kernel digest


class Uncacheable(Exception):
    """What capture reads cannot be hashed (no source file, text that does not parse)."""


def kernel_digest(fn: Any) -> str | None:
    """The digest of everything capture reads for Python function ``fn`` (see the module
    docstring), or None when some of it cannot be read (the kernel then always compiles)."""
    parts: list[Any] = []
    try:
        _function(fn, parts, {})
        text = repr(parts)
    except (Uncacheable, OSError, TypeError, ValueError, SyntaxError, RecursionError):
        return None
    return hashlib.sha256(text.encode()).hexdigest()


def _source(fn: Any) -> str:
    """The text capture parses: ``inspect.getsourcelines`` of ``fn``, read the same way
    (``linecache`` after a modification check, the block from the first line)."""
    code = fn.__code__
    filename = code.co_filename
    linecache.checkcache(filename)
    lines = linecache.getlines(filename, fn.__globals__)
    if not lines or code.co_firstlineno > len(lines):
        raise Uncacheable(f"no source for {fn!r}")
    return "".join(inspect.getblock(lines[code.co_firstlineno - 1:]))


def _function(fn: Any, parts: list[Any], seen: dict[Any, str]) -> str:
    """Append ``fn``'s parts (once per function) and return its name in the digest."""
    name = f"{fn.__module__}.{fn.__qualname__}"
    if id(fn) in seen:
        return seen[id(fn)]
    seen[id(fn)] = name
    text = _source(fn)
    tree = ast.parse(textwrap.dedent(text))
    names: set[str] = set()
    attrs: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            attrs.add(node.attr)
    closure = {}
    for var, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            closure[var] = cell.cell_contents
        except ValueError:  # an empty cell: capture sees the name undefined
            pass
    refs = []
    for n in sorted(names):
        if n in closure:
            refs.append((n, "closure", _value(closure[n], attrs, parts, seen)))
        elif n in fn.__globals__:
            refs.append((n, "global", _value(fn.__globals__[n], attrs, parts, seen)))
        elif hasattr(builtins, n):
            refs.append((n, "builtin"))
    parts.append(("function", name, fn.__code__.co_filename, fn.__code__.co_firstlineno,
                  text, _defaults(fn), refs))
    return name


def _defaults(fn: Any) -> str:
    """The parameters' default values (``tc.tunable`` spaces included)."""
    return repr((fn.__defaults__, fn.__kwdefaults__))


def _value(v: Any, attrs: set[str], parts: list[Any], seen: dict[Any, str]) -> Any:
    """What a global or closure value contributes: itself where capture can use it, a
    module by name and the attributes the code may read of it, a helper by its digest,
    anything else by its type (capture rejects those, so only a change of kind matters)."""
    from .builtins import Builtin, constexpr
    from .dtypes import DType, dtype_from_numpy
    from .jit import DeviceFunction, Kernel

    if v is None or isinstance(v, (bool, int, float, str)):
        return (type(v).__name__, repr(v))
    if isinstance(v, tuple):
        return ("tuple", tuple(_value(e, attrs, parts, seen) for e in v))
    if isinstance(v, DType):
        return ("dtype", v.name)
    if isinstance(v, Builtin):
        return ("builtin", v.name)
    if v is constexpr:
        return ("constexpr",)
    if isinstance(v, DeviceFunction):
        return ("func", _function(v.fn, parts, seen))
    if isinstance(v, Kernel):
        return ("kernel", f"{v.fn.__module__}.{v.fn.__qualname__}")
    if isinstance(v, types.ModuleType):
        key = ("module", v.__name__)
        mark = ("module", id(v), id(attrs))  # once per module and names read: cycles end
        if mark in seen:
            return key
        seen[mark] = v.__name__
        got = []
        with warnings.catch_warnings():  # a module's deprecated names may warn when read
            warnings.simplefilter("ignore")
            for a in sorted(attrs):
                try:
                    x = getattr(v, a)
                except Exception:  # absent (or failing): capture would say so
                    continue
                got.append((a, _value(x, attrs, parts, seen)))
        return (*key, tuple(got))
    if isinstance(v, np.generic) and v.shape == ():
        return (type(v).__name__, repr(v.item()))
    if isinstance(v, (type, np.dtype)):
        t = dtype_from_numpy(v)
        if t is not None:
            return ("dtype", t.name)
    if callable(v) and getattr(v, "__module__", None) == "math" and hasattr(math, v.__name__):
        return ("math", v.__name__)
    if isinstance(v, (types.BuiltinFunctionType, type)) and getattr(builtins, getattr(
            v, "__name__", ""), None) is v:
        return ("builtin", v.__name__)
    return ("object", type(v).__module__, type(v).__qualname__)


def entry_key(kind: str, *parts: Any) -> str:
    """The key of an entry of ``kind`` over ``parts`` (with tilec's ``code_fingerprint``)."""
    h = hashlib.sha256(f"tilec warm {SCHEMA} {kind}\0{code_fingerprint()}".encode())
    for p in parts:
        h.update(b"\0")
        h.update(repr(p).encode())
    return h.hexdigest()


# ------------------------------------------------------------------ the entries


def _path(kind: str, key: str) -> Path:
    return cache_root() / DIR / kind / key[:2] / f"{key}.json"


def read(kind: str, key: str) -> dict[str, Any] | None:
    """The body of entry ``key`` of ``kind``, or None (absent, unreadable, another schema or
    key)."""
    try:
        body = json.loads(_path(kind, key).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(body, dict) or body.get("schema") != SCHEMA or body.get("key") != key:
        return None
    return body


def write(kind: str, key: str, body: Mapping[str, Any]) -> None:
    """Publish entry ``key`` of ``kind`` atomically (a reader sees no entry or all of it);
    an unwritable cache only costs the next process a compile."""
    path = _path(kind, key)
    try:
        publish(path, json.dumps({"schema": SCHEMA, "key": key, **body}, allow_nan=True))
    except (OSError, TypeError, ValueError):
        pass


# ------------------------------------------------------------------ resolutions


def record_state(path: str | None) -> list[int] | None:
    """A tuning-record file's size and modification time (None: absent, or no file)."""
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _encode(v: Any) -> Any:
    from .dtypes import DType

    if isinstance(v, DType):
        return ["dtype", v.ir.name]
    if isinstance(v, tuple):
        return ["tuple", [_encode(e) for e in v]]
    if v is None or isinstance(v, (bool, int, float, str)):
        return ["py", v]
    raise TypeError(f"a tunable value {v!r} has no JSON form")


def _decode(d: Sequence[Any]) -> Any:
    import tilec.ir as ir

    from .dtypes import dtype_of_ir

    tag, v = d
    if tag == "dtype":
        return dtype_of_ir(ir.ScalarType(v))
    if tag == "tuple":
        return tuple(_decode(e) for e in v)
    return v


def resolution_to_json(res: Any) -> dict[str, Any]:
    """A ``Resolution`` as JSON that ``resolution_from_json`` reads back exactly."""
    def config(c: Mapping[str, Any]) -> list[Any]:
        return [[k, _encode(v)] for k, v in c.items()]

    return {"values": config(res.values), "source": res.source, "detail": res.detail,
            "fixed": list(res.fixed), "variant": config(res.variant),
            "scores": [[config(s.config), s.score, s.reason, s.threads, s.programs, s.k_steps,
                        s.split_k]
                       for s in res.scores]}


def resolution_from_json(d: Mapping[str, Any]) -> Any:
    """The ``Resolution`` ``resolution_to_json`` wrote."""
    from .tunables import ConfigScore, Resolution

    def config(c: Sequence[Any]) -> dict[str, Any]:
        return {str(k): _decode(v) for k, v in c}

    return Resolution(config(d["values"]), str(d["source"]), str(d["detail"]),
                      tuple(str(f) for f in d["fixed"]),
                      tuple(ConfigScore(config(c), None if s is None else float(s), str(r),
                                        *(None if x is None else int(x) for x in rest))
                            for c, s, r, *rest in d["scores"]),
                      config(d["variant"]))
