"""Calling a compiled C kernel: its launch description, argument binding and the call.

``CLaunch`` is everything a call needs and nothing of the IR: the entry parameters, the
runtime extents the C function reads, the results, the reports of its runtime checks,
the host checks and the shared object's cache key. It is made from the emitted source
(``CLaunch.of``) or read back from JSON (``from_json``: a warm start's launch record), so
a process whose kernel is cached calls it without capture, planning or emission.

``CExecutable`` binds arguments once per *argument signature*: for numpy arrays their
shape, strides and dtype, for numbers their type. The first call with a signature
validates everything (``interop.bind_arguments``: rank, dtype, extents, layout,
writability, aliasing) and runs the host checks; it keeps the facts that follow from the
signature (the runtime extents, the shape-symbol values, whether the host checks depend
on anything else). A later call with the same signature only reads each array's address
and re-checks what depends on it or on the values: alignment, a non-null pointer, the
writability of outputs, aliasing (byte ranges: every array is C-contiguous), the scalar
values and, when the kernel has scalar parameters, the host checks. Anything that fails
there is re-bound the slow way, which raises the full error.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.targets.cpu.interop import NP_DTYPES, Binding, bind_arguments, scalar_value
from tilec.targets.cpu.source import ENTRY_SYMBOL, CSource, ParamInfo
from tilec.targets.interop_checks import kernel_label, shape_bindings
from tilec.targets.kernel_checks import (
    CheckInfo,
    HostChecks,
    decode_bits,
    location_from_json,
)

__all__ = ["CLaunch", "CExecutable", "KernelError", "LAUNCH_SCHEMA"]

LAUNCH_SCHEMA = 1
"""The version of ``CLaunch.to_json``'s format; a record of another version is not read."""


class KernelError(ir.UserError, RuntimeError):
    """A runtime error the kernel reported (with the failing operation's location)."""


def _dim_json(d: ir.Dim) -> int | str:
    return d.value


def _param_json(p: ParamInfo) -> list[Any]:
    return [p.kind, p.dtype.name, [_dim_json(d) for d in p.shape], p.written, p.name]


def _param_of(d: Sequence[Any]) -> ParamInfo:
    kind, dtype, shape, written, name = d
    return ParamInfo(str(kind), ir.ScalarType(dtype), tuple(ir.Dim(e) for e in shape),
                     bool(written), str(name))


def _result_json(t: ir.Type) -> list[Any] | None:
    if isinstance(t, ir.ScalarType):
        return ["scalar", t.name, []]
    if isinstance(t, ir.TileType) and all(d.is_static for d in t.shape):
        return ["tile", t.dtype.name, [int(d) for d in t.shape]]
    return None


_CHAR = ctypes.c_char
_ADDRESSOF = ctypes.addressof


def data_address(x: np.ndarray) -> int:
    """The address of a C-contiguous array's first element: through the buffer protocol for
    a writable array (a third of ``x.ctypes.data``'s cost, which builds a ctypes helper
    object per call), else ``x.ctypes.data``."""
    try:
        return _ADDRESSOF(_CHAR.from_buffer(x))
    except (TypeError, ValueError, BufferError):  # read-only, or not one contiguous buffer
        return x.ctypes.data


@dataclass
class CLaunch:
    """What calling one compiled C kernel needs, without its IR."""

    name: str
    """The kernel's function name."""
    label: str
    """How argument errors name it (``interop_checks.kernel_label``)."""
    params: list[ParamInfo]
    """Entry arguments in order (user parameters, then shape symbols)."""
    bindings: list[tuple[int, int]]
    """``(user parameter, axis)`` giving each shape symbol's value."""
    dim_slots: list[tuple[int, int]]
    """``tc_dims[k]`` is the extent of axis ``dim_slots[k][1]`` of parameter
    ``dim_slots[k][0]``."""
    results: list[tuple[str, str, tuple[int, ...]]]
    """Per function result: ``tile`` or ``scalar``, its element type, its extents."""
    ops: dict[int, tuple[str, ir.Location]]
    """Operation number -> (opcode, location), for runtime error messages."""
    checks: dict[int, CheckInfo]
    """Operation number -> what its failure reports (``CSource.checks``)."""
    reads: dict[tuple[int, int], CheckInfo]
    """``(reindex number, source axis)`` -> what a read leaving that axis reports."""
    host_checks: HostChecks
    """The checks the host evaluates around the call."""
    key: str
    """The shared object's cache key (``compiler.cache_key``)."""
    n_values: int = field(init=False)
    """Words of the reported-values buffer the C function may fill."""

    def __post_init__(self) -> None:
        self.n_values = max([len(c.labels) for c in self.checks.values()]
                            + [2] * bool(self.reads), default=0)

    @staticmethod
    def of(fn: ir.Function, src: CSource, key: str) -> CLaunch:
        """The launch description of ``fn`` emitted as ``src`` and built under ``key``."""
        results = []
        for t in src.results:
            r = _result_json(t)
            results.append((r[0], r[1], tuple(r[2])) if r is not None
                           else ("other", str(t), ()))
        return CLaunch(fn.name, kernel_label(fn), list(src.params), shape_bindings(fn),
                       list(src.dim_slots), results, dict(src.ops), dict(src.checks),
                       dict(src.reads), HostChecks(fn), key)

    def to_json(self) -> dict[str, Any] | None:
        """The description as JSON, or None when something in it has no JSON form."""
        if any(kind == "other" for kind, _, _ in self.results):
            return None
        return {
            "schema": LAUNCH_SCHEMA, "name": self.name, "label": self.label,
            "params": [_param_json(p) for p in self.params],
            "bindings": [list(b) for b in self.bindings],
            "dim_slots": [list(s) for s in self.dim_slots],
            "results": [[k, t, list(s)] for k, t, s in self.results],
            "ops": [[k, name, [loc.filename, loc.line, loc.col, loc.end_col]]
                    for k, (name, loc) in self.ops.items()],
            "checks": [[k, c.to_json()] for k, c in self.checks.items()],
            "reads": [[k, axis, c.to_json()] for (k, axis), c in self.reads.items()],
            "host_checks": self.host_checks.to_json(), "key": self.key,
        }

    @staticmethod
    def from_json(d: dict[str, Any]) -> CLaunch | None:
        """The description ``to_json`` wrote; None for another schema."""
        if d.get("schema") != LAUNCH_SCHEMA:
            return None
        return CLaunch(
            str(d["name"]), str(d["label"]), [_param_of(p) for p in d["params"]],
            [(int(p), int(a)) for p, a in d["bindings"]],
            [(int(p), int(a)) for p, a in d["dim_slots"]],
            [(str(k), str(t), tuple(int(e) for e in s)) for k, t, s in d["results"]],
            {int(k): (str(name), location_from_json(loc)) for k, name, loc in d["ops"]},
            {int(k): CheckInfo.from_json(c) for k, c in d["checks"]},
            {(int(k), int(axis)): CheckInfo.from_json(c) for k, axis, c in d["reads"]},
            HostChecks.from_json(d["host_checks"]), str(d["key"]))


@dataclass
class _Bound:
    """What the arguments of one signature bind to (``CExecutable``'s binding cache)."""

    kinds: tuple[str, ...]
    """Per user parameter: ``mem``, ``tile`` or ``scalar``."""
    dtypes: tuple[ir.ScalarType, ...]
    """Per user parameter: its (element) type."""
    written: tuple[int, ...]
    """User parameters the kernel writes."""
    arrays: tuple[int, ...]
    """User parameters the kernel accesses in place (``mem``)."""
    itemsize: tuple[int, ...]
    """Per user parameter: its element size in bytes (0 for scalars)."""
    nbytes: tuple[int, ...]
    """Per user parameter: the bytes it spans (0 for scalars)."""
    keep: list[Any]
    """The shape symbols' ctypes values (outlive every call of this signature)."""
    tail: list[int]
    """The shape symbols' argument pointers (after the user parameters)."""
    dims: Any
    """The ``int64_t[]`` of runtime extents."""
    symbols: list[int]
    """The shape symbols' values."""
    checked: bool
    """True when the host checks depend on this signature alone (no scalar parameter) and
    passed: later calls skip them."""


_ARGS: dict[int, Any] = {}
"""``void *[n]`` array types by length."""


class CExecutable:
    """A compiled kernel; call it with the user-level arguments."""

    def __init__(self, launch: CLaunch, lib: ctypes.CDLL, source: str | None = None) -> None:
        self.name = launch.name
        """The kernel's name."""
        self.launch = launch
        """What a call needs (parameters, checks, the object's key)."""
        self.params = launch.params
        """Entry parameters as the launcher sees them."""
        self._source = source
        self._lib = lib
        self._entry = getattr(lib, ENTRY_SYMBOL)
        self._entry.restype = ctypes.c_int32
        self._entry.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                ctypes.c_void_p, ctypes.c_void_p]
        self._user = [p for p in launch.params if p.kind != "symbol"]
        self._n_args = len(launch.params)
        self._args_type = _ARGS.get(max(self._n_args, 1))
        if self._args_type is None:
            self._args_type = _ARGS.setdefault(max(self._n_args, 1),
                                               ctypes.c_void_p * max(self._n_args, 1))
        self._bound: dict[tuple[Any, ...], _Bound] = {}
        self.bindings_made = 0
        """How many argument signatures were bound the slow way (validated in full)."""

    @property
    def source(self) -> str:
        """The generated C source (read from the cache beside the object when this
        executable came from a launch record)."""
        if self._source is None:
            from tilec.targets.cpu.compiler import cached_source

            text = cached_source(self.launch.key)
            if text is None:
                raise FileNotFoundError(f"the C source of @{self.name} is no longer in the "
                                        f"cache (key {self.launch.key[:16]}); compile it again")
            self._source = text
        return self._source

    def __call__(self, *args: Any) -> Any:
        return self.run(args)

    def run(self, args: Sequence[Any], prevalidate: Callable[[Sequence[Any]], None] | None
            = None) -> Any:
        """Call with ``args``; ``prevalidate(args)`` runs first whenever the arguments'
        signature was not bound before (a caller's own checks, e.g. ``Compiled.check_args``)."""
        key = self._signature(args)
        b = self._bound.get(key) if key is not None else None
        fast = self._fast(b, args) if b is not None else None
        if fast is None:
            if prevalidate is not None:
                prevalidate(args)
            return self._slow(args, key)
        assert b is not None
        ptrs, scalars, hold = fast
        argv = self._args_type(*ptrs, *b.tail)
        if not b.checked and self.launch.host_checks:
            self.launch.host_checks.run([*scalars, *b.symbols])
        return self._call(argv, b.dims, hold)

    @staticmethod
    def _signature(args: Sequence[Any]) -> tuple[Any, ...] | None:
        """What binding reads of ``args`` besides addresses and values: numpy arrays'
        shape, strides and dtype, numbers' type. None for anything else (always bound the
        slow way)."""
        sig: list[Any] = []
        for x in args:
            t = type(x)
            if t is np.ndarray:
                sig.append((x.shape, x.strides, x.dtype))
            elif t is float or t is int or t is bool:
                sig.append(t)
            else:
                return None
        return tuple(sig)

    def _fast(self, b: _Bound, args: Sequence[Any]
              ) -> tuple[list[Any], list[Any], list[Any]] | None:
        """The argument pointers, the scalar values (None for arrays) and what must live
        over the call, for a call whose signature ``b`` bound; None when a fact that depends
        on an address or a value fails (the slow path then raises its error)."""
        ptrs: list[Any] = []
        scalars: list[Any] = []
        hold: list[Any] = []
        for i, kind in enumerate(b.kinds):
            x = args[i]
            if kind == "scalar":
                try:
                    v = scalar_value(x, b.dtypes[i], "")
                except ir.UserError:
                    return None
                scalars.append(v)
                hold.append(v)
                ptrs.append(ctypes.addressof(v))
                continue
            scalars.append(None)
            if kind == "tile":  # a value: the kernel reads a private contiguous copy
                x = np.ascontiguousarray(x).copy()
                hold.append(x)
            if not b.nbytes[i]:
                ptrs.append(None)
                continue
            p = data_address(x)
            if p == 0 or p % b.itemsize[i]:
                return None
            ptrs.append(p)
        for i in b.written:  # outputs: writable, and overlapping no other array (bytes)
            lo = ptrs[i]
            if not args[i].flags.writeable:
                return None
            if lo is None:
                continue
            hi = lo + b.nbytes[i]
            for j in b.arrays:
                q = ptrs[j]
                if j != i and q is not None and lo < q + b.nbytes[j] and q < hi:
                    return None
        return ptrs, scalars, hold

    def _slow(self, args: Sequence[Any], key: tuple[Any, ...] | None) -> Any:
        """Validate everything, run the host checks, call; remember the signature."""
        launch = self.launch
        bound = bind_arguments(self.name, self.params, args, launch.bindings, launch.dim_slots,
                               launch.label)
        symbols = [int(bound.arrays[p].shape[ax]) for p, ax in launch.bindings]
        if launch.host_checks:
            launch.host_checks.run([k if a is None else None
                                    for a, k in zip(bound.arrays, bound.keep)] + symbols)
        if key is not None:
            self._remember(key, bound, symbols)
        return self._call(bound.args, bound.dims, bound.keep)

    def _remember(self, key: tuple[Any, ...], bound: Binding, symbols: list[int]) -> None:
        user = self._user
        n = len(user)
        keep = [ctypes.c_int64(v) for v in symbols]
        arrays = bound.arrays
        self._bound[key] = _Bound(
            tuple(p.kind for p in user), tuple(p.dtype for p in user),
            tuple(i for i, p in enumerate(user) if p.kind == "mem" and p.written),
            tuple(i for i, p in enumerate(user) if p.kind == "mem"),
            tuple(0 if a is None else a.itemsize for a in arrays[:n]),
            tuple(0 if a is None else a.nbytes for a in arrays[:n]),
            keep, [ctypes.addressof(v) for v in keep], bound.dims, symbols,
            not any(p.kind == "scalar" for p in user))
        self.bindings_made += 1
        if len(self._bound) > 256:  # a long tail of shapes: keep the cache bounded
            self._bound.pop(next(iter(self._bound)))

    def _call(self, argv: Any, dims: Any, hold: Any) -> Any:
        """Call the entry (``hold``: what ``argv`` points into, alive until it returns)."""
        launch = self.launch
        results = [np.zeros(shape, NP_DTYPES[dtype]) for _, dtype, shape in launch.results]
        if results:
            rets = (ctypes.c_void_p * len(results))(*(r.ctypes.data for r in results))
        else:
            rets = None
        status = (ctypes.c_int32 * 2)()
        values = (ctypes.c_int64 * max(launch.n_values, 1))()
        self._entry(argv, dims, rets, status, values)
        del hold  # the scalars and copies the pointers refer to lived until here
        if status[0]:
            self._raise(int(status[0]), int(status[1]), values)
        if not results:
            return None
        outs = [r[()] if kind == "scalar" else r for r, (kind, _, _) in
                zip(results, launch.results)]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _raise(self, code: int, op_id: int, values: Any) -> None:
        launch = self.launch
        check = launch.checks.get(op_id)
        if code in (2, 3, 4) and check is not None:  # a zero divisor, a total view, a check
            raise check.failure(self.name, [decode_bits(values[k], t)
                                            for k, t in enumerate(check.types)])
        read = launch.reads.get((op_id, int(values[1]))) if code == 1 else None
        if read is not None:  # a reindex leaving its source: the start, then the axis
            raise read.failure(self.name, [int(values[0])])
        name, loc = launch.ops.get(op_id, ("?", ir.UNKNOWN))
        if code == 2:  # only a division the emitter did not test: a wrong value range
            raise RuntimeError(ir.format_located(
                f"internal: '{name}' divided by zero although its divisor was proven nonzero",
                loc))
        raise KernelError(f"kernel @{self.name} failed with status {code} in '{name}' at {loc}")

    def __repr__(self) -> str:
        return f"<CExecutable @{self.name}>"
