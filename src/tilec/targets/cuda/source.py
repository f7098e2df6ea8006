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
from tilec.targets.kernel_checks import CheckInfo

__all__ = ["CUDASource", "ParamInfo", "HostStep", "host_arith", "kernel_name"]

_IDENT = re.compile(r"[^A-Za-z0-9_]")


def kernel_name(fn_name: str) -> str:
    """The C symbol of the kernel emitted for ``@fn_name``."""
    return "tilec_" + _IDENT.sub("_", fn_name)


@dataclass(frozen=True)
class ParamInfo:
    """One kernel parameter as the launcher sees it."""

    kind: str
    """``mem``, ``scalar``, ``symbol`` (a shape symbol) or ``dim`` (another runtime extent)."""
    dtype: ir.ScalarType
    """Element type (``index`` for symbols and dims)."""
    shape: tuple[ir.Dim, ...] = ()
    """Extents of a ``mem`` parameter."""
    written: bool = False
    """True when the kernel writes this memory."""
    name: str = ""
    """The parameter's name hint (or symbol name)."""
    source: tuple[int, int] = (-1, -1)
    """For ``dim``: ``(user parameter, axis)`` whose runtime extent it is."""


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
    """The CUDA C++ source."""
    buffer: IndentedBuffer
    """The same text, line by line, with the IR operation behind each line."""
    kernel: str
    """The kernel's C symbol."""
    params: list[ParamInfo]
    """Kernel parameters in order (user parameters, shape symbols, other dims)."""
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
        "not": lambda: ~a[0],
    }
    if fn not in table:
        raise ValueError(f"grid extents use arith {fn!r}, which the host does not evaluate")
    if fn in ("floordiv", "rem", "cdiv") and a[1] == 0:
        raise ZeroDivisionError(f"grid extent: integer division by zero in {fn}")
    out = table[fn]()
    t = ir.ScalarType(dtype)
    if t.is_float:
        return out
    if t is ir.i1:
        return int(out != 0) if fn == "cast" else out & 1
    half = 1 << (t.bits - 1)
    return (out + half) % (2 * half) - half
