"""TileIR's scalar semantics (docs/design/tileir.md, "Pure values") as ``tvm.tirx`` expressions.

TVM's own operators do not always mean what TileIR's do, so every function is
spelled out here from primitives whose LLVM meaning is exact:

* float ``ne`` is ``not (a == b)`` (TVM's ``!=`` is an ordered compare: false on NaN);
* float ``max``/``min`` are IEEE 754-2019 ``maximum``/``minimum`` (NaN wins, ``-0.0 <
  +0.0``), from compares and bit operations;
* signed integer ``add``/``sub``/``mul`` are computed on the unsigned type of the same
  width and converted back (TVM's LLVM code marks signed arithmetic ``nsw``, which makes
  overflow undefined; TileIR wraps); ``index`` arithmetic stays signed (it is exact);
* integer ``floordiv``/``rem``/``cdiv`` divide by 1 where the divisor is -1 (the
  ``MIN // -1`` trap) and select the wrapped negation; a zero divisor is tested by the
  exporter before the division;
* shifts read their count as unsigned and shift every bit out at a count of at least the
  width;
* float -> integer conversion truncates, saturates and sends NaN to 0;
* transcendental functions are the C library's ``f64`` functions (``call_pure_extern``,
  as numpy's on glibc) rounded to the compute type, as the reference defines them;
* float ``sub`` reads its second operand through ``_opaque`` (TVM's simplifier rewrites
  ``x - x`` to 0 and ``(x + y) - y`` to ``x``, wrong for NaN, infinities and rounding);
* operations whose operands are all literals are evaluated here by the reference's own
  ``numerics.evaluate`` (TVM folds a narrow cast of a constant without rounding it and
  refuses a result out of the narrow range: ``f16`` ``100.0 / 0.001``), and narrowing
  conversions of values TVM may still find constant are spelled so its folder cannot see
  a literal (float ones through ``_opaque``, integer ones wrapped in ``int64`` first);
* ``f16`` arithmetic is computed in ``f32`` and rounded back; ``bf16`` values live in
  registers as ``f32`` numbers that ``bf16`` represents exactly (``round_bf16`` rounds to
  nearest even on the bits, ``f64`` first to odd ``f32`` so that the two roundings are
  one), and in memory as their 16 bits (``uint16``); ``i1`` memory is ``uint8``.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

import tilec.ir as ir

__all__ = ["reg_dtype", "mem_dtype", "const", "arith", "cast", "from_memory", "to_memory",
           "poison", "encode_word", "round_bf16", "dtype_of", "without_f64", "NotOnTarget"]

_REG = {"f16": "float16", "bf16": "float32", "f32": "float32", "f64": "float64",
        "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
        "u8": "uint8", "u16": "uint16", "u32": "uint32", "index": "int64"}
_MEM = {**_REG, "bf16": "uint16", "i1": "uint8"}
_UNSIGNED = {8: "uint8", 16: "uint16", 32: "uint32", 64: "uint64"}
_BITS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "u8": 8, "u16": 16, "u32": 32,
         "index": 64}
_EXTERN = ("exp", "exp2", "log", "log2", "tanh", "erf", "sin", "cos")


_NO_F64: contextvars.ContextVar[bool] = contextvars.ContextVar("tilec_tirx_no_f64",
                                                               default=False)
"""True while a PrimFunc for a target without ``f64`` (Metal) is exported (``without_f64``)."""

_PRECISE = ("exp", "exp2", "log", "log2", "tanh", "sin", "cos", "pow", "fmod")
"""The C library functions ``metal::precise`` has in ``f32`` (MSL specification 6.5)."""


class NotOnTarget(Exception):  # noqa: N818 - the exporter turns it into a located refusal
    """A scalar operation the target's numerics cannot express (the message says why)."""


@contextlib.contextmanager
def without_f64() -> Iterator[None]:
    """Export for a target without ``f64`` (Metal): transcendental functions are
    ``metal::precise``'s in ``f32`` (within its documented ulps of the reference's, not
    bit-identical), float -> integer conversions are made in ``f32`` (exact), and ``f64``
    values, ``erf`` and integer -> ``bf16`` conversions raise ``NotOnTarget``."""
    token = _NO_F64.set(True)
    try:
        yield
    finally:
        _NO_F64.reset(token)


def dtype_of(x: Any) -> str:
    """The TVM dtype name of expression ``x``."""
    return str(x.ty.dtype)


def _tvm() -> Any:
    from tvm import tirx

    return tirx


def reg_dtype(t: ir.ScalarType) -> str:
    """The TVM dtype a scalar of ``t`` has in registers (tile buffers use it too)."""
    if t.name == "f64" and _NO_F64.get():
        raise NotOnTarget("an f64 value: Metal has no double type")
    return _REG[t.name]


def mem_dtype(t: ir.ScalarType) -> str:
    """The TVM dtype of ``t``'s elements in a memory (what the caller's array holds)."""
    return _MEM[t.name]


def _is_float(t: ir.ScalarType) -> bool:
    return t.name in ("f16", "bf16", "f32", "f64")


def _signed(t: ir.ScalarType) -> bool:
    return t.name.startswith("i") and t.name != "i1" or t.name == "index"


def const(value: Any, t: ir.ScalarType) -> Any:
    """The constant ``value`` (a Python number) of type ``t`` (one rounding, the reference's)."""
    from tilec.targets import numerics as nx

    tx = _tvm()
    v = nx.from_python(value, nx.np_dtype(t))
    if t.name == "i1":
        return tx.const(bool(v), "bool")
    if _is_float(t):
        rt = reg_dtype(t)
        if float(v) == 0.0:
            # a zero is spelled through its bits: TVM's simplifier folds x * 0.0 to 0.0
            # (losing -0.0, NaN and inf * 0) and refuses to fold x / 0.0; a reinterpreted
            # integer is opaque to it, and LLVM still sees the constant
            # (a reinterpreted 0 is TVM's null-pointer shortcut: +0.0 is -(-0.0))
            width = {"float16": 16, "float32": 32, "float64": 64}[rt]
            neg = tx.reinterpret(rt, tx.const(1 << (width - 1), f"uint{width}"))
            return neg if np.signbit(v) else -neg
        return tx.const(float(np.float64(v)), rt)
    return tx.const(int(v), reg_dtype(t))


def poison(t: ir.ScalarType) -> Any:
    """What unspecified contents read as (the reference's: NaN for floats, 0 otherwise)."""
    return const(float("nan"), t) if _is_float(t) else const(0, t)


# ---------------------------------------------------------------- constants


def _literal(x: Any, t: ir.ScalarType) -> Any:
    """The value of ``x`` as a numpy scalar of ``t`` when it is a literal (TVM's ``IntImm``
    or ``FloatImm``, or a zero spelled by ``const``), else None."""
    from tilec.targets import numerics as nx

    tx = _tvm()
    dt = nx.np_dtype(t)
    if isinstance(x, tx.IntImm):
        return np.array(bool(x.value) if t.name == "i1" else int(x.value)).astype(dt)[()]
    if isinstance(x, tx.FloatImm):
        return np.array(float(x.value), np.float64).astype(dt)[()]
    if isinstance(x, tx.Mul) and isinstance(x.b, tx.FloatImm) and x.b.value == -1.0:
        inner = _literal(x.a, t)  # +0.0 is -(-0.0)
        return None if inner is None else np.negative(inner)
    if (isinstance(x, _ir_call()) and x.op.name == "tirx.reinterpret"
            and isinstance(x.args[0], tx.IntImm) and _is_float(t)):
        width = {"float16": 16, "float32": 32, "float64": 64}[dtype_of(x)]
        bits = np.array(int(x.args[0].value), f"uint{width}")
        return bits.view(f"float{width}").astype(dt)[()]
    return None


def _ir_call() -> Any:
    import tvm.ir

    return tvm.ir.Call


def _folded(fn: str, xs: Sequence[Any], operand: ir.ScalarType,
            result: ir.ScalarType) -> Any:
    """``arith {fn}`` of literal operands evaluated by the reference's numerics, as a
    ``const``; None when an operand is not a literal or the reference raises (an integer
    division by zero: left to the runtime test)."""
    from tilec.targets import numerics as nx

    types = [ir.i1, operand, operand] if fn == "select" else [operand] * len(xs)
    values = [_literal(x, u) for x, u in zip(xs, types, strict=True)]
    if any(v is None for v in values):
        return None
    try:
        v = nx.evaluate(fn, values, nx.np_dtype(operand), nx.np_dtype(result))
    except (ZeroDivisionError, TypeError, ValueError, OverflowError):
        return None
    return const(v, result)


def _opaque(x: Any) -> Any:
    """Float ``x`` itself, reinterpreted to its bits and back: TVM's simplifier does not look
    through it (so it cannot cancel ``x - x`` or fold a narrowing cast of a constant), and
    LLVM removes the pair."""
    tx = _tvm()
    dt = dtype_of(x)
    u = "u" + dt.replace("float", "int")
    if isinstance(x, tx.FloatImm):
        # a literal through its bits: TVM's CUDA code generation prints a reinterpret of a
        # literal as *(uint *)(&(1.0f)), which is not C++ (a zero is never a FloatImm
        # here: ``const`` spells it through -0.0's bits)
        bits = int(np.array(float(x.value), dt).view(u)[()])
        if bits:
            return tx.reinterpret(dt, tx.const(bits, u))
    return tx.reinterpret(dt, tx.reinterpret(u, x))


# ------------------------------------------------------------------ float helpers


def _bits(x: Any) -> Any:
    tx = _tvm()
    return tx.reinterpret("uint64" if dtype_of(x) == "float64" else "uint32", x)


def _from_bits(b: Any) -> Any:
    tx = _tvm()
    return tx.reinterpret("float64" if dtype_of(b) == "uint64" else "float32", b)


def _negate(x: Any) -> Any:
    """``-x`` as a flip of the sign bit (IEEE negation: a NaN's sign flips too; ``x * -1.0``
    keeps a NaN operand's sign on x86 and on GPUs)."""
    tx = _tvm()
    dt = dtype_of(x)
    width = {"float16": 16, "float32": 32, "float64": 64}[dt]
    u = f"uint{width}"
    return tx.reinterpret(dt, tx.bitwise_xor(tx.reinterpret(u, x),
                                             tx.const(1 << (width - 1), u)))


def _same(a: Any, b: Any) -> Any:
    """``a == b`` for ``bool`` expressions (TVM's LLVM code compares ``bool`` as floats)."""
    tx = _tvm()
    return tx.Or(tx.And(a, b), tx.And(tx.Not(a), tx.Not(b)))


def _u(v: int, like: Any) -> Any:
    return _tvm().const(v, dtype_of(like))


def round_bf16(x: Any) -> Any:
    """An ``f32`` value rounded to ``bf16`` to nearest even (kept as an ``f32`` number)."""
    tx = _tvm()
    b = _bits(x)
    rounded = tx.bitwise_and(b + _u(0x7FFF, b) + tx.bitwise_and(tx.shift_right(b, _u(16, b)),
                                                                  _u(1, b)),
                             _u(0xFFFF0000, b))
    quiet = tx.bitwise_and(tx.bitwise_or(b, _u(0x00400000, b)), _u(0xFFFF0000, b))
    return _from_bits(tx.Select(tx.isnan(x), quiet, rounded))


def _f64_to_f32_odd(x: Any) -> Any:
    """Round ``f64`` to ``f32`` to odd (so that a second rounding to ``bf16`` is the one
    rounding of the ``f64`` value)."""
    tx = _tvm()
    t = tx.Cast("float32", _opaque(x))
    back = tx.Cast("float64", t)
    inexact = tx.And(tx.Not(tx.EQ(back, x)), tx.isfinite(x))
    b = _bits(t)
    down = tx.Select(tx.And(inexact, _fabs(back) > _fabs(x)), b - _u(1, b), b)
    return _from_bits(tx.Select(inexact, tx.bitwise_or(down, _u(1, b)), down))


def _fne(a: Any, b: Any) -> Any:
    """Float ``a != b``, true when either is NaN (TVM rewrites ``not (a == b)`` into its
    ordered ``!=``)."""
    tx = _tvm()
    return tx.Or(tx.Or(tx.isnan(a), tx.isnan(b)), tx.Not(tx.EQ(a, b)))


def _fcmp(fn: str, a: Any, b: Any) -> Any:
    """An ordered float comparison, false when either side is NaN. Spelled with the NaN
    tests because TVM's simplifier rewrites ``a == a``, ``a <= a`` and ``a >= a`` to true
    (an argmin over a row with NaN picked the last index)."""
    tx = _tvm()
    cmp = {"eq": tx.EQ, "lt": tx.LT, "le": tx.LE, "gt": tx.GT, "ge": tx.GE}[fn](a, b)
    return tx.And(tx.And(tx.Not(tx.isnan(a)), tx.Not(tx.isnan(b))), cmp)


def _fabs(x: Any) -> Any:
    tx = _tvm()
    b = _bits(x)
    mask = 0x7FFFFFFFFFFFFFFF if dtype_of(b) == "uint64" else 0x7FFFFFFF
    return _from_bits(tx.bitwise_and(b, _u(mask, b)))


def _compute(x: Any, t: ir.ScalarType) -> Any:
    """``x`` in its compute type (``f16`` widened to ``f32``; ``bf16`` already is)."""
    return _tvm().Cast("float32", x) if t.name == "f16" else x


def _finish(x: Any, t: ir.ScalarType) -> Any:
    """A compute-type result rounded to float type ``t``."""
    tx = _tvm()
    # narrowing casts read x through _opaque: TVM folds a cast of a constant into a literal
    # of the narrow type without rounding it (a later widening keeps the unrounded value)
    # and refuses one out of the narrow range (f16 100.0 / 0.001)
    if t.name == "f16":
        return tx.Cast("float16", _opaque(x))
    if t.name == "bf16":
        return round_bf16(x if dtype_of(x) == "float32" else _f64_to_f32_odd(x))
    if dtype_of(x) == reg_dtype(t):
        return x
    # (not on Metal, which has no f64 registers: its f64 values are host scalars)
    narrow = t.name == "f32" and not _NO_F64.get()
    return tx.Cast(reg_dtype(t), _opaque(x) if narrow else x)


def _ieee(fn: str, a: Any, b: Any) -> Any:
    tx = _tvm()
    pick = tx.Select(a > b, a, b) if fn == "max" else tx.Select(a < b, a, b)
    combine = tx.bitwise_and if fn == "max" else tx.bitwise_or  # +0 vs -0 on equal values
    equal = _from_bits(combine(_bits(a), _bits(b)))
    out = tx.Select(tx.EQ(a, b), equal, pick)
    return tx.Select(tx.isnan(a), a, tx.Select(tx.isnan(b), b, out))


def _libm(name: str, *xs: Any) -> Any:
    tx = _tvm()
    if _NO_F64.get():
        if name not in _PRECISE:
            raise NotOnTarget(f"'{name}' has no f32 form in metal::precise (and Metal has no "
                              f"double for the C library's)")
        return tx.call_pure_extern("float32", f"precise::{name}",
                                   *[tx.Cast("float32", x) for x in xs])
    return tx.call_pure_extern("float64", name, *[tx.Cast("float64", x) for x in xs])


def _float_arith(fn: str, xs: list[Any], t: ir.ScalarType) -> Any:
    tx = _tvm()
    c = [_compute(x, t) for x in xs]
    ct = dtype_of(c[0])
    a = c[0]
    b = c[1] if len(c) > 1 else None
    if fn in ("eq", "lt", "le", "gt", "ge"):
        return _fcmp(fn, a, b)
    if fn == "ne":
        return _fne(a, b)
    if fn == "add":
        r = tx.Add(a, b)
    elif fn == "sub":  # TVM cancels x - x, (x + y) - y, ... (wrong on NaN, inf, rounding)
        r = tx.Sub(a, _opaque(b))
    elif fn == "mul":
        r = tx.Mul(a, b)
    elif fn == "div":
        r = tx.Div(a, b)
    elif fn in ("max", "min"):
        r = _ieee(fn, a, b)
    elif fn == "neg":
        r = _negate(a)
    elif fn == "abs":
        r = _fabs(a)
    elif fn == "rem":  # Python %: the result takes the divisor's sign
        m = tx.Cast(ct, _libm("fmod", a, b))  # exact: the f32 remainder, widened
        zero = tx.const(0.0, ct)
        fix = tx.And(tx.Not(tx.EQ(m, zero)), tx.Not(_same(m < zero, b < zero)))
        r = tx.Select(fix, tx.Add(m, b), tx.Select(tx.EQ(m, zero), tx.copysign(zero, b), m))
    elif fn in _EXTERN or fn == "pow":
        r = tx.Cast(ct, _libm(fn, *c))
    elif fn == "sqrt":
        r = tx.sqrt(a)
    elif fn == "rsqrt":
        r = tx.Div(tx.const(1.0, ct), tx.sqrt(a))
    elif fn == "sigmoid":
        e = tx.Cast(ct, _libm("exp", _negate(a)))
        r = tx.Div(tx.const(1.0, ct), tx.Add(tx.const(1.0, ct), e))
    elif fn == "floor":
        r = tx.floor(a)
    elif fn == "ceil":
        r = tx.ceil(a)
    elif fn == "fma":
        # one rounding, as C's fma/fmaf: TVM 0.27 finds no declaration for the llvm.fma
        # intrinsic (any signature count), so the C library's function is called
        r = tx.call_pure_extern(ct, "fma" if ct == "float64" or _NO_F64.get() else "fmaf", *c)
    elif fn == "round_tf32":
        bits = _bits(a)
        r = _from_bits(tx.Select(tx.isfinite(a), tx.bitwise_and(bits + _u(0x1000, bits),
                                                              _u(0xFFFFE000, bits)), bits))
    else:
        raise KeyError(fn)
    return _finish(r, t)


# ---------------------------------------------------------------- integer helpers


def _wrap(fn: str, a: Any, b: Any, t: ir.ScalarType) -> Any:
    """``a fn b`` (add, sub, mul) wrapping: narrow types are computed in 64 bits and
    truncated (TVM's simplifier folds ``0u - x`` to 0, and its LLVM code marks signed
    arithmetic ``nsw``); ``i64`` and ``index`` are computed as they are."""
    tx = _tvm()
    ops = {"add": tx.Add, "sub": tx.Sub, "mul": tx.Mul}
    if _BITS[t.name] == 64:
        return ops[fn](a, b)
    wide = "uint64" if fn == "mul" and not _signed(t) else "int64"
    bits = _BITS[t.name]
    # wrapped in the wide type before the cast: TVM folds a narrow cast of a constant out of
    # the narrow range (uint8 255 + 1) into a literal it then refuses
    r = tx.bitwise_and(ops[fn](tx.Cast(wide, a), tx.Cast(wide, b)),
                       tx.const((1 << bits) - 1, wide))
    if _signed(t):
        sign = tx.const(1 << (bits - 1), wide)
        r = tx.Sub(tx.bitwise_xor(r, sign), sign)
    return tx.Cast(dtype_of(a), r)


def _int_arith(fn: str, xs: list[Any], t: ir.ScalarType) -> Any:
    tx = _tvm()
    a = xs[0]
    b = xs[1] if len(xs) > 1 else None
    dt = dtype_of(a)
    zero = tx.const(0, dt)
    cmp = {"eq": tx.EQ, "ne": tx.NE, "lt": tx.LT, "le": tx.LE, "gt": tx.GT, "ge": tx.GE}
    if fn in cmp:
        return cmp[fn](a, b)
    if fn in ("add", "sub", "mul"):
        return _wrap(fn, a, b, t)
    if fn == "fma":
        return _wrap("add", _wrap("mul", a, b, t), xs[2], t)
    if fn == "neg":
        return _wrap("sub", zero, a, t)
    if fn == "abs":
        return tx.Select(a < zero, _wrap("sub", zero, a, t), a) if _signed(t) else a
    if fn == "max":
        return tx.Max(a, b)
    if fn == "min":
        return tx.Min(a, b)
    if fn in ("and", "or", "xor"):
        return {"and": tx.bitwise_and, "or": tx.bitwise_or, "xor": tx.bitwise_xor}[fn](a, b)
    if fn == "not":
        return tx.bitwise_not(a)
    if fn in ("floordiv", "rem", "cdiv"):
        if not _signed(t):
            q, r = tx.truncdiv(a, b), tx.truncmod(a, b)
            return {"floordiv": q, "rem": r,
                    "cdiv": q + tx.Cast(dt, tx.NE(r, zero))}[fn]
        if isinstance(b, tx.IntImm) and b.value > 0:  # a positive constant: no -1 case
            q, r = tx.floordiv(a, b), tx.floormod(a, b)
            return {"floordiv": q, "rem": r, "cdiv": q + tx.Cast(dt, tx.NE(r, zero))}[fn]
        # the exporter branches on a divisor of -1 (ops._signed_division): divide directly
        q, r = tx.truncdiv(a, b), tx.truncmod(a, b)
        if fn == "rem":
            return tx.floormod(a, b)
        if fn == "floordiv":
            return tx.floordiv(a, b)
        up = tx.And(tx.NE(r, zero), _same(r > zero, b > zero))
        return q + tx.Cast(dt, up)
    if fn in ("shl", "shr"):
        bits = _BITS[t.name]
        u = _UNSIGNED[bits]
        count = tx.Cast(u, b)
        wide = count >= tx.const(bits, u)
        n = tx.Cast(dt, tx.Select(wide, tx.const(0, u), count))
        if fn == "shl":
            return tx.Select(wide, zero, tx.shift_left(a, n))
        fill = tx.Select(a < zero, tx.const(-1, dt), zero) if _signed(t) else zero
        return tx.Select(wide, fill, tx.shift_right(a, n))
    raise KeyError(fn)


def _bool_arith(fn: str, xs: list[Any]) -> Any:
    tx = _tvm()
    a = xs[0]
    b = xs[1] if len(xs) > 1 else None
    if fn in ("add", "sub", "xor", "ne"):
        return tx.Not(_same(a, b))
    if fn == "eq":
        return _same(a, b)
    if fn in ("mul", "and", "min"):
        return tx.And(a, b)
    if fn in ("or", "max"):
        return tx.Or(a, b)
    if fn == "not":
        return tx.Not(a)
    if fn == "lt":
        return tx.And(tx.Not(a), b)
    if fn == "le":
        return tx.Or(tx.Not(a), b)
    if fn == "gt":
        return tx.And(a, tx.Not(b))
    if fn == "ge":
        return tx.Or(a, tx.Not(b))
    raise KeyError(fn)


def arith(fn: str, xs: Sequence[Any], operand: ir.ScalarType, result: ir.ScalarType) -> Any:
    """``arith {fn}`` on register values ``xs`` whose (non-condition) operands have type
    ``operand``; ``result`` is the result's type. Raises ``KeyError`` for a function this
    module does not translate (the exporter reports it)."""
    tx = _tvm()
    xs = list(xs)
    if fn == "cast":
        return cast(xs[0], operand, result)
    folded = _folded(fn, xs, operand, result)
    if folded is not None:
        return folded
    if fn == "select":
        return tx.Select(xs[0], xs[1], xs[2])
    if operand.name == "i1":
        return _bool_arith(fn, xs)
    if _is_float(operand):
        return _float_arith(fn, xs, operand)
    return _int_arith(fn, xs, operand)


def cast(x: Any, src: ir.ScalarType, dst: ir.ScalarType) -> Any:
    """TileIR's ``cast`` from ``src`` to ``dst`` (tileir.md: round once to nearest even,
    truncate and saturate to integers with NaN to 0, wrap between integers)."""
    tx = _tvm()
    if src.name == dst.name:
        return x
    rd = reg_dtype(dst)
    folded = _folded("cast", [x], src, dst)
    if folded is not None:
        return folded
    if dst.name == "i1":
        if _is_float(src):
            return _fne(x, tx.const(0.0, dtype_of(x)))
        return tx.NE(x, tx.const(0, dtype_of(x)))
    if src.name == "i1":
        return tx.Select(x, tx.const(1, rd), tx.const(0, rd))
    if _is_float(src) and _is_float(dst):
        c = _compute(x, src)
        if dst.name == "f64":
            return tx.Cast("float64", c)
        return _finish(c, dst)
    if _is_float(src):  # truncate toward zero, saturate, NaN to 0
        # in f64, or in f32 without it (exact too: truncation and powers of two are)
        wt = "float32" if _NO_F64.get() else "float64"
        w = tx.trunc(tx.Cast(wt, x))
        bits = _BITS[dst.name]
        if _signed(dst):
            lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        else:
            lo, hi = 0, (1 << bits) - 1
        high = w >= tx.const(float(2 ** (bits - (1 if _signed(dst) else 0))), wt)
        low = w < tx.const(float(lo), wt)
        bad = tx.Or(tx.Or(tx.isnan(w), high), low)
        safe = tx.Cast(rd, tx.Select(bad, tx.const(0.0, wt), w))
        return tx.Select(high, tx.const(hi, rd), tx.Select(low, tx.const(lo, rd), safe))
    if _is_float(dst):
        if dst.name == "f16":  # through f32: exact below 2**24, and above it both are inf
            return tx.Cast(rd, _opaque(tx.Cast("float32", x)))
        if dst.name in ("f32", "f64"):
            return tx.Cast(rd, x)  # one rounding
        if _NO_F64.get():
            raise NotOnTarget("an integer -> bf16 conversion (it rounds through f64, which "
                              "Metal does not have)")
        return _finish(tx.Cast("float64", x), dst)  # bf16: exact for <= 32-bit integers
    return _int_convert(x, src, dst)


def _int_convert(x: Any, src: ir.ScalarType, dst: ir.ScalarType) -> Any:
    """Integer to integer: wraps, sign- or zero-extends by the source. Where the source's
    values may not all fit the destination, the value is wrapped in ``int64`` first: TVM
    folds a cast of a constant into a literal it refuses out of range (``uint8`` 300)."""
    tx = _tvm()
    rd = reg_dtype(dst)
    sb, db = _BITS[src.name], _BITS[dst.name]
    fits = (_signed(src) == _signed(dst) and db >= sb) or (_signed(dst) and db > sb)
    if fits or db == 64:
        return tx.Cast(rd, x)
    r = tx.bitwise_and(tx.Cast("int64", x), tx.const((1 << db) - 1, "int64"))
    if _signed(dst):
        sign = tx.const(1 << (db - 1), "int64")
        r = tx.Sub(tx.bitwise_xor(r, sign), sign)
    return tx.Cast(rd, r)


# ---------------------------------------------------------------- memory forms


def from_memory(x: Any, t: ir.ScalarType) -> Any:
    """A value loaded from memory (its ``mem_dtype``) as a register value."""
    tx = _tvm()
    if t.name == "bf16":
        return tx.reinterpret("float32", tx.shift_left(tx.Cast("uint32", x),
                                                       tx.const(16, "uint32")))
    if t.name == "i1":
        return tx.NE(x, tx.const(0, "uint8"))
    return x


def to_memory(x: Any, t: ir.ScalarType) -> Any:
    """A register value as memory stores it."""
    tx = _tvm()
    if t.name == "bf16":
        return tx.Cast("uint16", tx.shift_right(tx.reinterpret("uint32", x),
                                                tx.const(16, "uint32")))
    if t.name == "i1":
        return tx.Select(x, tx.const(1, "uint8"), tx.const(0, "uint8"))
    return x


def encode_word(x: Any, t: ir.ScalarType) -> Any:
    """A reported value as the ``int64`` word ``kernel_checks.decode_bits`` reads (``f64``
    bits for floats)."""
    tx = _tvm()
    if _is_float(t):
        return tx.reinterpret("int64", tx.Cast("float64", _compute(x, t)))
    if t.name == "i1":
        return tx.Select(x, tx.const(1, "int64"), tx.const(0, "int64"))
    return tx.Cast("int64", x)
