"""What TVM leaves on the host of a ``tirx:cuda`` kernel, as JSON, and its evaluation.

TVM's ``SplitHostDevice`` cuts the bridge's GPU PrimFunc into a device kernel and a host
function: scalar bindings (the instance count, the block count, values TVM's common
subexpression elimination hoisted out of the kernel), the ``if`` around the launch and one
``call_ffi_kernel`` with the kernel's arguments and launch extents. ``hostsplit`` records
that host function at build time as a *host program* (this module's JSON form); the
launcher evaluates it on the call's arguments to get the kernel's arguments and its grid,
so that no TVM is needed to run the kernel.

The JSON form (lists, so that it is compact and plain):

* expressions: ``["int", dtype, value]``, ``["float", dtype, hex]`` (``float.hex``: exact,
  NaN and infinities included), ``["var", id]``, ``["cast", dtype, e]``,
  ``["bin", op, dtype, a, b]`` (``op`` in ``BINARY``; ``dtype`` the operands'),
  ``["not", e]``, ``["select", c, a, b]``, ``["let", id, value, body]``,
  ``["call", name, dtype, [args]]`` (``name`` in ``CALLS``);
* statements: ``["let", id, dtype, e]``, ``["if", c, [then], [else]]``,
  ``["launch", [arguments], [launch extents]]``.

Variables ``0 .. inputs - 1`` are the PrimFunc's parameters in order (a buffer parameter's
value is the device address of its array); the others are bound by ``let``.

Semantics are TVM's for its LLVM host (the bridge's exporter chose every operation, so only
integer and float scalar code appears): integers wrap to their width after every
operation, ``div``/``mod`` truncate (C), ``floordiv``/``floormod`` round toward negative
infinity, floats are numpy scalars of their type (IEEE, one rounding per operation), casts
to integers truncate. Anything else is refused when the program is recorded, never guessed
at run time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["BINARY", "CALLS", "FLOATS", "INTEGERS", "HostCodeError", "Launch", "evaluate",
           "check_program"]

BINARY = frozenset({"add", "sub", "mul", "div", "mod", "floordiv", "floormod", "min", "max",
                    "eq", "ne", "lt", "le", "gt", "ge", "and", "or", "bitand", "bitor",
                    "bitxor", "shl", "shr"})
"""The binary operations a host program may hold."""

CALLS = frozenset({"reinterpret", "isnan", "isinf", "isfinite", "bitwise_not",
                   "if_then_else"})
"""The intrinsic calls a host program may hold (TVM's ``tirx.<name>``)."""

FLOATS = {"float16": np.float16, "float32": np.float32, "float64": np.float64}
"""The float dtypes a host program holds, with the numpy scalar type of each value."""

INTEGERS = frozenset({"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                      "uint64"})
"""The integer dtypes a host program holds (``bool`` is 0 or 1; a ``handle`` is an address,
not one of them)."""



class HostCodeError(RuntimeError):
    """A host program that cannot be evaluated (a malformed record, a division by zero)."""


@dataclass(frozen=True)
class Launch:
    """One kernel launch the host program made."""

    arguments: tuple[Any, ...]
    """The kernel's arguments, in the device function's parameter order."""
    extents: tuple[int, ...]
    """The launch extents, in the order of the record's launch tags."""


def _bits(dtype: str) -> int:
    """The width of ``dtype`` (``int32``, ``uint8``, ``float64``, ``bool``)."""
    return 1 if dtype == "bool" else int("".join(ch for ch in dtype if ch.isdigit()))


def _wrap(v: int, dtype: str) -> int | bool:
    """Integer ``v`` as a value of ``dtype`` (two's complement wrap)."""
    if dtype == "bool":
        return bool(v)
    if dtype == "handle":
        return int(v)
    bits = _bits(dtype)
    v &= (1 << bits) - 1
    if not dtype.startswith("uint") and v >> (bits - 1):
        v -= 1 << bits
    return v


def _is_float(dtype: str) -> bool:
    return dtype in FLOATS


def _cast(v: Any, src: str, dst: str) -> Any:
    if dst == "bool":
        return bool(v)
    if _is_float(dst):
        if _is_float(src):
            return np.array(v, FLOATS[src]).astype(FLOATS[dst])[()]
        if src == "bool":
            return FLOATS[dst](int(v))
        # one rounding, as LLVM's sitofp/uitofp (numpy converts through the integer type)
        return np.array(int(v), np.uint64 if src.startswith("uint") else np.int64) \
            .astype(FLOATS[dst])[()]
    if _is_float(src):
        f = float(v)
        if math.isnan(f) or math.isinf(f):  # fptosi's poison; the exporter guards these
            return 0
        return _wrap(int(math.trunc(f)), dst)
    got = _wrap(int(v), dst)
    if got != int(v) and src not in ("bool",) and not src.startswith("uint") \
            and not dst.startswith("uint"):
        # a signed narrowing that loses the value: on the host that is an extent or an
        # index past what the launch can express (e.g. more instances than 2**31 - 1 blocks),
        # which wrapping would turn into a smaller launch that computes part of the work
        raise HostCodeError(f"host value {int(v)} does not fit {dst} (a launch of more "
                            f"than 2**31 - 1 blocks or an index past int32): not launched")
    return got


def _binary(op: str, dtype: str, a: Any, b: Any) -> Any:
    if op in ("eq", "ne", "lt", "le", "gt", "ge"):
        return bool({"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b,
                     "ge": a >= b}[op])
    if op in ("and", "or"):
        return bool(a and b) if op == "and" else bool(a or b)
    if _is_float(dtype):
        ft = FLOATS[dtype]
        x, y = ft(a), ft(b)
        with np.errstate(all="ignore"):
            if op in ("min", "max"):  # TVM's Min/Max on floats: LLVM's select of a compare
                return (x if x < y else y) if op == "min" else (x if x > y else y)
            out = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
                   "div": np.divide}.get(op)
            if out is None:
                raise HostCodeError(f"host program: {op!r} on {dtype}")
            return ft(out(x, y))
    x, y = int(a), int(b)
    if op in ("div", "mod", "floordiv", "floormod") and y == 0:
        raise HostCodeError(f"host program: integer {op} by zero")
    if op == "add":
        r = x + y
    elif op == "sub":
        r = x - y
    elif op == "mul":
        r = x * y
    elif op == "div":  # C: toward zero
        r = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
    elif op == "mod":
        r = x - y * (abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1))
    elif op == "floordiv":
        r = x // y
    elif op == "floormod":
        r = x % y
    elif op == "min":
        r = min(x, y)
    elif op == "max":
        r = max(x, y)
    elif op == "bitand":
        r = x & y
    elif op == "bitor":
        r = x | y
    elif op == "bitxor":
        r = x ^ y
    elif op == "shl":
        r = x << y if 0 <= y < 64 else 0
    elif op == "shr":  # arithmetic for signed values (negative here), logical for unsigned
        r = x >> y if 0 <= y < 64 else (-1 if x < 0 else 0)
    else:
        raise HostCodeError(f"host program: unknown operation {op!r}")
    return _wrap(r, dtype)


def _reinterpret(v: Any, src: str, dst: str) -> Any:
    if _is_float(src):
        raw = np.array(v, FLOATS[src])
    else:
        raw = np.array(int(v) & ((1 << _bits(src)) - 1), f"uint{_bits(src)}")
    if raw.itemsize * 8 != _bits(dst):
        raise HostCodeError(f"host program: reinterpret {src} as {dst}")
    if _is_float(dst):
        return raw.view(FLOATS[dst])[()]
    return _wrap(int(raw.view(f"uint{_bits(dst)}")[()]), dst)


class _Eval:
    """One evaluation of a program: the variables' values and dtypes."""

    def __init__(self, inputs: Sequence[Any], dtypes: Sequence[str]) -> None:
        self.env: dict[int, Any] = dict(enumerate(inputs))
        self.types: dict[int, str] = dict(enumerate(dtypes))

    def dtype(self, e: Sequence[Any]) -> str:
        kind = e[0]
        if kind in ("int", "float", "cast"):
            return str(e[1])
        if kind == "var":
            return self.types[int(e[1])]
        if kind == "bin":
            return "bool" if e[1] in ("eq", "ne", "lt", "le", "gt", "ge", "and", "or") \
                else str(e[2])
        if kind == "not":
            return "bool"
        if kind == "select":
            return self.dtype(e[2])
        if kind == "let":
            return self.dtype(e[3])
        if kind == "call":
            return str(e[2])
        raise HostCodeError(f"host program: unknown expression {kind!r}")

    def expr(self, e: Sequence[Any]) -> Any:
        kind = e[0]
        if kind == "int":
            return _wrap(int(e[2]), str(e[1]))
        if kind == "float":
            return FLOATS[str(e[1])](float.fromhex(str(e[2])))
        if kind == "var":
            k = int(e[1])
            if k not in self.env:
                raise HostCodeError(f"host program: variable {k} read before it is bound")
            return self.env[k]
        if kind == "cast":
            return _cast(self.expr(e[2]), self.dtype(e[2]), str(e[1]))
        if kind == "bin":
            return _binary(str(e[1]), str(e[2]), self.expr(e[3]), self.expr(e[4]))
        if kind == "not":
            return not self.expr(e[1])
        if kind == "select":  # both sides are evaluated, as TVM's Select
            c, a, b = self.expr(e[1]), self.expr(e[2]), self.expr(e[3])
            return a if c else b
        if kind == "let":
            k = int(e[1])
            self.types[k] = self.dtype(e[2])
            self.env[k] = self.expr(e[2])
            return self.expr(e[3])
        if kind == "call":
            return self.call(str(e[1]), str(e[2]), e[3])
        raise HostCodeError(f"host program: unknown expression {kind!r}")

    def call(self, name: str, dtype: str, args: Sequence[Any]) -> Any:
        if name == "if_then_else":
            return self.expr(args[1]) if self.expr(args[0]) else self.expr(args[2])
        v = self.expr(args[0])
        src = self.dtype(args[0])
        if name == "reinterpret":
            return _reinterpret(v, src, dtype)
        if name == "bitwise_not":
            return _wrap(~int(v), dtype)
        if name in ("isnan", "isinf", "isfinite"):
            if not _is_float(src):
                return name == "isfinite"
            return bool(getattr(np, name)(v))
        raise HostCodeError(f"host program: unknown call {name!r}")

    def run(self, stmts: Sequence[Any], out: list[Launch]) -> None:
        for s in stmts:
            kind = s[0]
            if kind == "let":
                k = int(s[1])
                self.types[k] = str(s[2])
                self.env[k] = _cast(self.expr(s[3]), self.dtype(s[3]), str(s[2]))
            elif kind == "if":
                self.run(s[2] if self.expr(s[1]) else s[3], out)
            elif kind == "launch":
                out.append(Launch(tuple(self.expr(a) for a in s[1]),
                                  tuple(int(self.expr(x)) for x in s[2])))
            else:
                raise HostCodeError(f"host program: unknown statement {kind!r}")


def evaluate(program: Sequence[Any], inputs: Sequence[Any], dtypes: Sequence[str]
             ) -> list[Launch]:
    """The launches ``program`` makes for parameter values ``inputs`` (of ``dtypes``; a
    buffer's value is its device address, dtype ``handle``): none when the instance count
    is not positive, else one."""
    if len(inputs) != len(dtypes):
        raise HostCodeError(f"host program: {len(inputs)} inputs for {len(dtypes)} dtypes")
    out: list[Launch] = []
    _Eval(inputs, dtypes).run(program, out)
    return out


def check_program(program: Any) -> None:
    """Raise ``HostCodeError`` unless ``program`` is made of this module's statements and
    expressions (a loaded record is checked before it is trusted)."""
    def expr(e: Any) -> None:
        if not isinstance(e, list) or not e:
            raise HostCodeError(f"host program: {e!r} is not an expression")
        kind = e[0]
        if kind in ("int", "float", "var"):
            return
        if kind == "cast":
            expr(e[2])
        elif kind == "bin":
            if e[1] not in BINARY:
                raise HostCodeError(f"host program: unknown operation {e[1]!r}")
            expr(e[3])
            expr(e[4])
        elif kind == "not":
            expr(e[1])
        elif kind == "select":
            for x in e[1:4]:
                expr(x)
        elif kind == "let":
            expr(e[2])
            expr(e[3])
        elif kind == "call":
            if e[1] not in CALLS:
                raise HostCodeError(f"host program: unknown call {e[1]!r}")
            for x in e[3]:
                expr(x)
        else:
            raise HostCodeError(f"host program: unknown expression {kind!r}")

    def stmts(ss: Any) -> None:
        if not isinstance(ss, list):
            raise HostCodeError("host program: statements are a list")
        for s in ss:
            if not isinstance(s, list) or not s:
                raise HostCodeError(f"host program: {s!r} is not a statement")
            if s[0] == "let":
                expr(s[3])
            elif s[0] == "if":
                expr(s[1])
                stmts(s[2])
                stmts(s[3])
            elif s[0] == "launch":
                for x in [*s[1], *s[2]]:
                    expr(x)
            else:
                raise HostCodeError(f"host program: unknown statement {s[0]!r}")

    stmts(program)
