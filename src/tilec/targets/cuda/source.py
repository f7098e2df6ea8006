"""What the CUDA target hands the launcher: the kernel's text and its calling contract.

``CUDASource`` is the emitted kernel with its parameters (``ParamInfo``), the
host steps that size the grid (``HostStep``, evaluated by ``host_arith``), the
shared-memory size, the architecture it needs and its device checks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import tilec.ir as ir
from tilec.targets.clike import IndentedBuffer, prod
from tilec.targets.kernel_checks import CheckInfo, location_from_json

__all__ = ["CUDASource", "ParamInfo", "HostStep", "host_arith", "kernel_name",
           "LAUNCH_SCHEMA", "param_json", "param_from_json"]

LAUNCH_SCHEMA = 1
"""The version of ``CUDASource.launch_json``'s format; another version is not read."""

_IDENT = re.compile(r"[^A-Za-z0-9_]")


def kernel_name(fn_name: str) -> str:
    """The C symbol of the kernel emitted for ``@fn_name``."""
    return "tilec_" + _IDENT.sub("_", fn_name)


@dataclass(frozen=True)
class ParamInfo:
    """One kernel parameter as the launcher sees it."""

    kind: str
    """``mem``, ``scalar``, ``symbol`` (a shape symbol), ``dim`` (another runtime extent) or
    ``tmap`` (a TMA tensor map of a ``mem`` parameter: 128 bytes, 64-byte aligned, encoded
    at launch by ``tensor_maps.TensorMaps``) or ``workspace`` (a split-K buffer the
    launcher allocates per stream: ``name`` is ``partials`` or ``counters``; see
    ``Launcher.workspace``)."""
    dtype: ir.ScalarType
    """Element type (``index`` for symbols and dims; a ``tmap``'s array's element type)."""
    shape: tuple[ir.Dim, ...] = ()
    """Extents of a ``mem`` parameter."""
    written: bool = False
    """True when the kernel writes this memory."""
    name: str = ""
    """The parameter's name hint (or symbol name)."""
    source: tuple[int, int] = (-1, -1)
    """For ``dim``: ``(user parameter, axis)`` whose runtime extent it is; for ``tmap``:
    ``(user parameter, 0)``, the array it maps."""
    box: tuple[int, ...] = ()
    """For ``tmap``: the box one copy moves, one extent per array axis (row-major order,
    outermost first). For ``workspace``: ``(programs,)``, the programs that share
    ``shape[0]`` elements (1 for partials, the split count for counters)."""
    swizzle: int = 0
    """For ``tmap``: the shared-memory swizzle in bytes (128; 0: none)."""
    oob_nan: bool = False
    """For ``tmap``: elements outside the array read as NaN (the copies of an unfilled float
    window, ``tma.load`` with ``oob = "nan"``); False: zero."""


def param_json(p: ParamInfo) -> list[Any]:
    """``p`` as JSON: ``[kind, dtype, shape, written, name, source]``, then ``box`` and
    ``swizzle`` when either is set (``tmap`` parameters; other records read as before),
    then ``oob_nan`` when it is set."""
    out: list[Any] = [p.kind, p.dtype.name, [d.value for d in p.shape], p.written, p.name,
                      list(p.source)]
    if p.box or p.swizzle or p.oob_nan:
        out += [list(p.box), p.swizzle]
    if p.oob_nan:
        out.append(True)
    return out


def param_from_json(d: Sequence[Any]) -> ParamInfo:
    """The parameter ``param_json`` wrote."""
    k, t, shape, w, n, src = d[:6]
    box, swizzle = (d[6], d[7]) if len(d) > 6 else ((), 0)
    return ParamInfo(str(k), ir.ScalarType(t), tuple(ir.Dim(e) for e in shape), bool(w),
                     str(n), (int(src[0]), int(src[1])), tuple(int(b) for b in box),
                     int(swizzle), bool(d[8]) if len(d) > 8 else False)


@dataclass(frozen=True)
class HostStep:
    """One scalar op evaluated on the host to size the grid."""

    key: int
    """The value's key (its position in the step list, or ``-1 - k`` for parameter ``k``)."""
    fn: str
    """``constant`` or an ``arith`` function."""
    args: tuple[int, ...]
    """Keys of the operands."""
    value: Any = None
    """The constant's value."""
    dtype: str = "index"
    """The result type's name."""
    failure: CheckInfo | None = None
    """For an integer division whose divisor may be zero: what a zero divisor raises."""


@dataclass
class CUDASource:
    """An emitted kernel and what the launcher needs to call it."""

    text: str
    """The CUDA C++ source (empty when read back from a launch record: the executable reads
    it from the cache on demand)."""
    buffer: IndentedBuffer | None
    """The same text, line by line, with the IR operation behind each line (None when read
    back from a launch record)."""
    kernel: str
    """The kernel's C symbol."""
    params: list[ParamInfo]
    """Kernel parameters in order (user parameters, shape symbols, other dims; tensor maps
    after the user parameters)."""
    threads: int
    """Threads per block."""
    grid_rank: int
    """Rank of the grid ``parallel``."""
    host_steps: list[HostStep]
    """Scalar ops that size the grid, in order."""
    grid_keys: list[int]
    """Keys of the grid extents."""
    shared_bytes: int
    """Dynamic shared memory per block."""
    min_sm: int = 80
    """Lowest compute capability (x10) the kernel needs."""
    arch_suffix: str = ""
    """``a`` when the kernel uses arch-specific instructions (sm_90a's wgmma): compile for
    ``sm_90a`` rather than ``sm_90`` (such a cubin runs on that architecture only)."""
    ops: dict[int, tuple[str, ir.Location]] = field(default_factory=dict)
    """Operation id -> (opcode, location)."""
    stats: dict[str, int] = field(default_factory=dict)
    """Emission statistics (vector chunks, scalar elements)."""
    aligned16: frozenset[int] = frozenset()
    """User parameters whose base address must be 16-byte aligned: sources of 16-byte
    asynchronous copies (the launcher refuses other arrays, naming the argument)."""
    checks: list[CheckInfo] = field(default_factory=list)
    """The kernel's device checks; number ``k + 1`` in the failure record is ``checks[k]``.
    When there are any, the kernel takes the record's address as its last parameter."""
    name: str = "?"
    """The kernel's TileIR function name (``@name`` in error messages)."""

    def launch_json(self) -> dict[str, Any]:
        """What the launcher reads of this kernel, as JSON (``from_launch_json``): everything
        but the text and its line origins."""
        def loc(x: ir.Location) -> list[Any]:
            return [x.filename, x.line, x.col, x.end_col]

        return {
            "schema": LAUNCH_SCHEMA, "kernel": self.kernel, "name": self.name,
            "params": [param_json(p) for p in self.params],
            "threads": self.threads, "grid_rank": self.grid_rank,
            "host_steps": [[st.key, st.fn, list(st.args), st.value, st.dtype,
                            None if st.failure is None else st.failure.to_json()]
                           for st in self.host_steps],
            "grid_keys": list(self.grid_keys), "shared_bytes": self.shared_bytes,
            "min_sm": self.min_sm, "arch_suffix": self.arch_suffix,
            "ops": [[k, name, loc(x)] for k, (name, x) in self.ops.items()],
            "stats": dict(self.stats), "aligned16": sorted(self.aligned16),
            "checks": [c.to_json() for c in self.checks],
        }

    @staticmethod
    def from_launch_json(d: dict[str, Any]) -> CUDASource | None:
        """The kernel ``launch_json`` described (no text, no buffer); None for another
        schema."""
        if d.get("schema") != LAUNCH_SCHEMA:
            return None
        params = [param_from_json(p) for p in d["params"]]
        steps = [HostStep(int(key), str(fn), tuple(int(a) for a in args), value, str(dtype),
                          None if fail is None else CheckInfo.from_json(fail))
                 for key, fn, args, value, dtype, fail in d["host_steps"]]
        return CUDASource(
            "", None, str(d["kernel"]), params, int(d["threads"]), int(d["grid_rank"]), steps,
            [int(k) for k in d["grid_keys"]], int(d["shared_bytes"]), int(d["min_sm"]),
            str(d["arch_suffix"]),
            {int(k): (str(n), location_from_json(x)) for k, n, x in d["ops"]},
            {str(k): int(v) for k, v in d["stats"].items()},
            frozenset(int(i) for i in d["aligned16"]),
            [CheckInfo.from_json(c) for c in d["checks"]], str(d["name"]))

    def grid(self, values: Sequence[int]) -> tuple[int, ...]:
        """The grid extents for parameter values ``values`` (in ``params`` order); a zero
        divisor raises ``KernelArithmeticError`` (the host checks raise it first when the
        division is before every top-level effect, as it is unless hand-written)."""
        env: dict[int, Any] = {-1 - k: int(v) for k, v in enumerate(values)}
        for st in self.host_steps:
            if st.fn == "constant":
                env[st.key] = st.value
                continue
            args = [env[a] for a in st.args]
            if st.failure is not None and args[1] == 0:
                raise st.failure.failure(self.name)
            env[st.key] = host_arith(st.fn, args, st.dtype)
        return tuple(int(env[k]) for k in self.grid_keys)

    def launch_grid(self, extents: Sequence[int]) -> tuple[int, int, int]:
        """``gridDim`` for grid extents: the last coordinate on x; above rank 3 all on x."""
        if len(extents) > 3:
            return (prod(extents), 1, 1)
        g = list(reversed([int(e) for e in extents])) + [1] * (3 - len(extents))
        return (g[0], g[1], g[2])


def host_arith(fn: str, a: list[Any], dtype: str) -> Any:
    """``arith`` on host integers (the functions grid sizes use): Python semantics, then
    wrapped to the result type ``dtype`` as the device wraps it (``i8`` of 258 is 2)."""
    table = {
        "add": lambda: a[0] + a[1], "sub": lambda: a[0] - a[1], "mul": lambda: a[0] * a[1],
        "floordiv": lambda: a[0] // a[1], "rem": lambda: a[0] % a[1],
        "cdiv": lambda: -((-a[0]) // a[1]), "max": lambda: max(a[0], a[1]),
        "min": lambda: min(a[0], a[1]), "neg": lambda: -a[0], "abs": lambda: abs(a[0]),
        "eq": lambda: int(a[0] == a[1]), "ne": lambda: int(a[0] != a[1]),
        "lt": lambda: int(a[0] < a[1]), "le": lambda: int(a[0] <= a[1]),
        "gt": lambda: int(a[0] > a[1]), "ge": lambda: int(a[0] >= a[1]),
        "select": lambda: a[1] if a[0] else a[2], "cast": lambda: int(a[0]),
        "and": lambda: a[0] & a[1], "or": lambda: a[0] | a[1], "xor": lambda: a[0] ^ a[1],
        "not": lambda: ~a[0], "shl": lambda: 0, "shr": lambda: 0,
    }
    if fn not in table:
        raise ValueError(f"grid extents use arith {fn!r}, which the host does not evaluate")
    if fn in ("floordiv", "rem", "cdiv") and a[1] == 0:
        raise ZeroDivisionError(f"grid extent: integer division by zero in {fn}")
    t = ir.ScalarType(dtype)
    if fn in ("shl", "shr"):  # the count read unsigned; one of at least the width: all out
        k = a[1] % (1 << t.bits)
        table[fn] = (lambda: 0 if k >= t.bits else a[0] << k) if fn == "shl" else \
            (lambda: a[0] >> min(k, t.bits))
    out = table[fn]()
    if t.is_float:
        return out
    if t is ir.i1:
        return int(out != 0) if fn == "cast" else out & 1
    if t.is_unsigned:
        return out % (1 << t.bits)
    half = 1 << (t.bits - 1)
    return (out + half) % (2 * half) - half
