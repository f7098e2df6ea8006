"""The model's arithmetic: values with per-element error bounds, rounded like TileIR says.

This is an evaluation of the DSL's semantics written independently of the
compiler (``docs/guide/dsl.md``, ``docs/design/tileir.md``): ``f16``/``bf16``
arithmetic is computed in ``f32`` and rounded once; conversions round to
nearest even in one step, float to integer truncates and saturates (NaN gives
0); integer arithmetic wraps; IEEE ``maximum``/``minimum``.

An ``MV`` is a value plus, per element, a bound ``e`` on how far a correct
target may be from it: 0 where the docs promise bit-exact results, finite
where they allow regrouping or approximate functions, ``inf`` where the
element is *unknown* (a bounded value decided something discrete). The
propagation rules are the formulas of ``docs/design/fuzzing.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import ml_dtypes
import numpy as np

__all__ = ["DT", "DTYPES", "MV", "exact", "round_to", "cast", "binary", "unary", "compare",
           "where", "fma", "TRANSCENDENTAL", "tf32", "ieee_max", "ieee_min", "FLOATS", "INTS",
           "UINTS"]

_BF16 = np.dtype(ml_dtypes.bfloat16)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


@dataclass(frozen=True)
class DT:
    """One DSL element type as the model sees it."""

    name: str
    """The TileIR name (``f32``, ``bf16``, ``i32``, ``i1`` ...)."""
    tc: str
    """How kernel source names it (``tc.float32``)."""
    np: np.dtype
    """The numpy dtype of host arrays."""
    u: float = 0.0
    """Unit roundoff of one rounding to this type (0 for integers)."""
    tiny: float = 0.0
    """Smallest positive subnormal (0 for integers)."""
    big: float = 0.0
    """Largest finite value (floats)."""
    bits: int = 0
    """Width of an integer type."""

    @property
    def is_float(self) -> bool:
        """True for f16, bf16, f32, f64."""
        return self.u > 0

    @property
    def is_int(self) -> bool:
        """True for the integer types (not bool)."""
        return self.bits > 1

    @property
    def is_unsigned(self) -> bool:
        """True for ``u8``, ``u16``, ``u32``."""
        return self.np.kind == "u"

    @property
    def is_bool(self) -> bool:
        """True for ``i1``."""
        return self.name == "i1"

    @property
    def compute(self) -> np.dtype:
        """What arithmetic on this type is computed in (f32 for 16-bit floats)."""
        return _F32 if self.name in ("f16", "bf16") else self.np

    @property
    def u_op(self) -> float:
        """Roundoff of one arithmetic operation (16-bit: the f32 step and the final rounding)."""
        return self.u + (2.0 ** -24 if self.name in ("f16", "bf16") else 0.0)


DTYPES: dict[str, DT] = {
    "f16": DT("f16", "tc.float16", np.dtype(np.float16), 2.0 ** -11, 2.0 ** -24, 65504.0),
    "bf16": DT("bf16", "tc.bfloat16", _BF16, 2.0 ** -8, 2.0 ** -133,
               float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)),
    "f32": DT("f32", "tc.float32", _F32, 2.0 ** -24, 2.0 ** -149,
              float(np.finfo(np.float32).max)),
    "f64": DT("f64", "tc.float64", _F64, 2.0 ** -53, 5e-324, float(np.finfo(np.float64).max)),
    "i8": DT("i8", "tc.int8", np.dtype(np.int8), bits=8),
    "i16": DT("i16", "tc.int16", np.dtype(np.int16), bits=16),
    "i32": DT("i32", "tc.int32", np.dtype(np.int32), bits=32),
    "i64": DT("i64", "tc.int64", np.dtype(np.int64), bits=64),
    "i1": DT("i1", "tc.bool_", np.dtype(np.bool_), bits=1),
    "u8": DT("u8", "tc.uint8", np.dtype(np.uint8), bits=8),
    "u16": DT("u16", "tc.uint16", np.dtype(np.uint16), bits=16),
    "u32": DT("u32", "tc.uint32", np.dtype(np.uint32), bits=32),
}
"""Every element type the generator uses, by TileIR name."""

FLOATS = ("f32", "f16", "bf16", "f64")
"""Float type names, the most common first."""
INTS = ("i32", "i8", "i16", "i64")
"""Integer type names, the most common first."""
UINTS = ("u32", "u8", "u16")
"""Unsigned type names (drawn only with the ``unsigned`` feature)."""

TRANSCENDENTAL = ("exp", "exp2", "log", "log2", "tanh", "erf", "sigmoid", "rsqrt", "sin", "cos",
                  "pow")
"""Functions the docs define as the f64 result rounded and compare with a tolerance."""


@dataclass
class MV:
    """A model value: ``a`` (in the DSL type ``dt``) and its per-element bound ``e``."""

    a: np.ndarray
    """The value, a numpy array of ``dt.np`` (rank 0 allowed)."""
    e: np.ndarray
    """float64 bound of the same shape: 0 exact, inf unknown."""
    dt: DT
    """The element type."""

    @property
    def shape(self) -> tuple[int, ...]:
        """The tile shape."""
        return tuple(self.a.shape)

    @property
    def is_exact(self) -> bool:
        """True when every element is bit-exact."""
        return not bool(np.any(self.e))

    def f64(self) -> np.ndarray:
        """The value as float64 (bool and int included)."""
        return self.a.astype(_F64)


def exact(a: np.ndarray, dt: DT) -> MV:
    """An exactly known value."""
    a = np.asarray(a).astype(dt.np)
    return MV(a, np.zeros(a.shape), dt)


# --------------------------------------------------------------------- rounding


def _f64_to_f32_odd(x: np.ndarray) -> np.ndarray:
    """f64 -> f32 rounded to odd (truncate, then set the last bit when inexact)."""
    x = np.asarray(x, _F64)
    t = x.astype(_F32)
    back = t.astype(_F64)
    inexact = (back != x) & np.isfinite(x) & np.isfinite(back)
    t = np.where(inexact & (np.abs(back) > np.abs(x)), np.nextafter(t, np.float32(0)), t)
    bits = t.view(np.uint32) | inexact.astype(np.uint32)
    return bits.view(_F32).reshape(x.shape)


def round_to(x: np.ndarray, dt: DT) -> np.ndarray:
    """A float array (f32 or f64) rounded once, to nearest even, to the float type ``dt``."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        if dt.name == "bf16" and x.dtype == _F64:
            return _f64_to_f32_odd(x).astype(_BF16)
        return x.astype(dt.np)


def tf32(x: np.ndarray) -> np.ndarray:
    """f32 rounded to TF32: 10 explicit mantissa bits, to nearest, ties away from zero."""
    x = np.asarray(x, _F32)
    bits = x.view(np.uint32)
    finite = np.isfinite(x)
    rounded = ((bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(_F32)
    return np.where(finite, rounded, x).astype(_F32)


def ieee_max(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IEEE 754-2019 maximum: NaN if either is NaN, ``-0 < +0``."""
    r = np.where(a > b, a, b)
    r = np.where(a == b, np.where(np.signbit(a), b, a), r)
    return np.where(np.isnan(a) | np.isnan(b), np.array(np.nan, a.dtype), r).astype(a.dtype)


def ieee_min(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IEEE 754-2019 minimum: NaN if either is NaN, ``-0 < +0``."""
    r = np.where(a < b, a, b)
    r = np.where(a == b, np.where(np.signbit(a), a, b), r)
    return np.where(np.isnan(a) | np.isnan(b), np.array(np.nan, a.dtype), r).astype(a.dtype)


def cast(x: MV, dt: DT) -> MV:
    """``x.to(dt)``: the conversion rules of tileir.md, with the bound carried or decided."""
    src = x.dt
    if src is dt:
        return x
    a = x.a
    with np.errstate(all="ignore"):
        if dt.is_bool:
            out = a != 0
            e = _decided(x, np.abs(x.f64()))
        elif src.is_bool:
            out = a.astype(dt.np)
            e = np.where(np.isinf(x.e), np.inf, 0.0)
        elif dt.is_float and src.is_float:
            out = round_to(a.astype(_F64), dt)
            v = out.astype(_F64)
            e = np.where(x.e > 0, x.e + 2 * dt.u * (np.abs(v) + x.e) + dt.tiny, 0.0)
            e = _overflow(v, e, dt)
        elif dt.is_float:  # integer -> float
            out = round_to(a.astype(_F64), dt)
            e = np.where(np.isinf(x.e), np.inf, 0.0)
        elif src.is_float:  # float -> integer: truncate toward zero, saturate, NaN -> 0
            f = a.astype(_F64)
            lo, _ = _int_range(dt)
            t = np.trunc(np.where(np.isnan(f), 0.0, f))
            info = np.iinfo(dt.np)
            big = t >= float(info.max) + 1.0  # saturate (float(max) may round up)
            small = t < lo
            safe = np.where(big | small, 0.0, t)
            out = np.where(big, info.max, np.where(small, info.min,
                                                   safe.astype(dt.np))).astype(dt.np)
            crosses = np.trunc(f - x.e) != np.trunc(f + x.e)
            e = np.where((x.e > 0) & crosses, np.inf, np.where(np.isinf(x.e), np.inf, 0.0))
        else:  # integer -> integer: wraps
            out = a.astype(dt.np)
            e = x.e.copy()
    return MV(np.asarray(out), np.asarray(e, _F64), dt)


def _int_range(dt: DT) -> tuple[float, float]:
    info = np.iinfo(dt.np)
    return float(info.min), float(info.max)


def _decided(x: MV, margin: np.ndarray) -> np.ndarray:
    """The bound of a discrete decision on ``x``: unknown where ``x`` is within its bound."""
    return np.where(np.isinf(x.e) | ((x.e > 0) & (margin <= x.e)), np.inf, 0.0)


def _overflow(v: np.ndarray, e: np.ndarray, dt: DT) -> np.ndarray:
    """Unknown where a bounded finite value may reach the type's overflow threshold."""
    near = np.isfinite(v) & (e > 0) & (np.abs(v) + e >= dt.big * (1 - dt.u))
    return np.where(near, np.inf, e)


def _nonfinite(v: np.ndarray, e: np.ndarray, *ops: MV) -> np.ndarray:
    """A non-finite result from bounded operands is certain only when every non-finite operand
    is exact and every bounded one is certainly nonzero; otherwise unknown."""
    certain = np.ones(v.shape, bool)
    for x in ops:
        xa = np.broadcast_to(x.f64(), v.shape)
        xe = np.broadcast_to(x.e, v.shape)
        certain &= ~((~np.isfinite(xa)) & (xe > 0))
        certain &= ~(np.isfinite(xa) & (xe > 0) & (np.abs(xa) <= xe))
    bounded = np.zeros(v.shape, bool)
    for x in ops:
        bounded |= np.broadcast_to(x.e > 0, v.shape)
    bad = ~np.isfinite(v) & bounded
    return np.where(bad, np.where(certain, 0.0, np.inf), e)


# ------------------------------------------------------------------- operations


def _unknown(e: np.ndarray, *ops: MV) -> np.ndarray:
    """``e`` with every element that reads an unknown operand element made unknown."""
    e = np.asarray(e, _F64)
    for x in ops:
        e = np.where(np.broadcast_to(np.isinf(x.e), e.shape), np.inf, e)
    return e


def _compute(dt: DT, *arrays: np.ndarray) -> list[np.ndarray]:
    return [np.asarray(a).astype(dt.compute) for a in arrays]


def _finish(v: np.ndarray, e: np.ndarray, dt: DT, ops: tuple[MV, ...]) -> MV:
    v = np.asarray(v)
    out = round_to(v, dt) if dt.is_float else v.astype(dt.np)
    vf = out.astype(_F64)
    e = np.asarray(e, _F64)
    if dt.is_float:
        e = np.where(e > 0, e + 2 * dt.u_op * (np.abs(np.where(np.isfinite(vf), vf, 0)) + e)
                     + 2 * dt.tiny, 0.0)
        e = _overflow(vf, e, dt)
        e = _nonfinite(vf, e, *ops)
    e = np.where(np.isnan(e), np.inf, e)
    return MV(np.asarray(out), _unknown(e, *ops), dt)


def _mulz(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a * b`` with ``0 * inf = 0`` (bounds multiply magnitudes that may be infinite)."""
    with np.errstate(all="ignore"):
        return np.where((a == 0) | (b == 0), 0.0, a * b)


def _mag(x: MV) -> np.ndarray:
    return np.abs(np.where(np.isfinite(x.f64()), x.f64(), 0.0))


def _sign_unknown(x: MV, shape: tuple[int, ...]) -> np.ndarray:
    """Where a bounded finite ``x`` may be zero, so its sign is not known."""
    a, e = np.broadcast_to(x.f64(), shape), np.broadcast_to(x.e, shape)
    return (e > 0) & np.isfinite(a) & (np.abs(a) <= e)


def _zero_sign(v: np.ndarray, e: np.ndarray, unknown: np.ndarray, dt: DT) -> np.ndarray:
    """``e`` where a bit-exact zero result has a sign that ``unknown`` says is not known
    (``x * 0`` with ``x`` within its bound of zero): bounded by the smallest subnormal,
    so the comparison takes either zero but nothing else (the GPU campaign of seed
    20261218 found the model claiming ``(a - b) * 0.0`` bit-exact where ``a - b``
    cancels to a zero of either sign)."""
    return np.where((np.asarray(v) == 0) & (e == 0) & unknown, dt.tiny, e)


def binary(fn: str, x: MV, y: MV) -> MV:
    """An arithmetic function of two values of one type (``add`` ... ``max``, ``and`` ...)."""
    dt = x.dt
    assert x.dt is y.dt, (x.dt, y.dt)
    with np.errstate(all="ignore"):
        if dt.is_float:
            a, b = _compute(dt, x.a, y.a)
            if fn == "add":
                v = a + b
            elif fn == "sub":
                v = a - b
            elif fn == "mul":
                v = a * b
            elif fn == "div":
                v = a / b
            elif fn == "max":
                v = ieee_max(a, b)
            elif fn == "min":
                v = ieee_min(a, b)
            elif fn == "floordiv":
                v = np.floor_divide(a, b)
            elif fn == "rem":
                v = np.remainder(a, b)
            elif fn == "pow":
                v = c_pow(a.astype(_F64), b.astype(_F64))
            else:
                raise ValueError(f"no float {fn}")
            ex, ey = np.broadcast_arrays(x.e, y.e)
            mx, my = np.broadcast_arrays(_mag(x), _mag(y))
            if fn in ("add", "sub"):
                e = ex + ey
            elif fn == "mul":
                e = _mulz(mx, ey) + _mulz(my, ex) + _mulz(ex, ey)
                e = _zero_sign(v, e, _sign_unknown(x, e.shape) | _sign_unknown(y, e.shape),
                               dt)
            elif fn == "div":
                d = my - ey
                vm = np.abs(np.where(np.isfinite(v), v, 0.0)).astype(_F64)
                e = np.where((ex + ey) > 0, np.where(d > 0, (ex + _mulz(vm, ey)) / d, np.inf),
                             0.0)
            elif fn in ("max", "min"):
                e = np.maximum(ex, ey)
            elif fn == "pow":
                return _transcendental_pow(x, y, v)
            else:  # floordiv / rem of bounded values: discrete
                e = np.where((ex + ey) > 0, np.inf, 0.0)
            return _finish(v, e, dt, (x, y))
        # integers and bools: exact, wrapping
        a, b = x.a, y.a
        if dt.is_bool:
            ops: dict[str, Callable[..., np.ndarray]] = {
                "and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor,
                "max": np.logical_or, "min": np.logical_and, "add": np.logical_xor,
                "sub": np.logical_xor, "mul": np.logical_and}
        else:
            ops = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
                   "floordiv": np.floor_divide, "rem": np.remainder, "max": np.maximum,
                   "min": np.minimum, "and": np.bitwise_and, "or": np.bitwise_or,
                   "xor": np.bitwise_xor, "shl": _shift_left, "shr": _shift_right}
        v = np.asarray(ops[fn](a, b)).astype(dt.np)
        e = np.where(np.isinf(np.maximum(*np.broadcast_arrays(x.e, y.e))), np.inf, 0.0)
        return MV(v, np.asarray(e, _F64), dt)


def _shift(a: np.ndarray, c: np.ndarray, left: bool) -> np.ndarray:
    """``a << c`` or ``a >> c`` on Python integers, wrapped to ``a``'s type: the count is read
    unsigned, and one of at least the width shifts every bit out (``>>`` fills with the sign
    of a signed value)."""
    a, c = np.broadcast_arrays(np.asarray(a), np.asarray(c))
    dt = a.dtype
    bits = dt.itemsize * 8
    out = []
    for x, k in zip((int(v) for v in a.reshape(-1)), (int(v) for v in c.reshape(-1))):
        k %= 1 << bits
        v = (0 if k >= bits else x << k) if left else x >> min(k, bits)
        v %= 1 << bits
        if dt.kind == "i" and v >= 1 << (bits - 1):
            v -= 1 << bits
        out.append(v)
    return np.array(out, dt).reshape(a.shape)


def _shift_left(a: np.ndarray, c: np.ndarray) -> np.ndarray:
    return _shift(a, c, True)


def _shift_right(a: np.ndarray, c: np.ndarray) -> np.ndarray:
    return _shift(a, c, False)


def _pow1(x: float, y: float) -> float:
    import math

    odd = float(y).is_integer() and int(y) % 2 == 1
    if x == 0 and y < 0:  # C99: a pole, +-inf (Python raises instead)
        return math.copysign(math.inf, x) if odd else math.inf
    try:
        return math.pow(x, y)
    except ValueError:  # a negative base and a non-integer exponent
        return math.nan
    except OverflowError:
        return -math.inf if x < 0 and odd else math.inf


def c_pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``pow`` in f64 with C99/IEEE 754 special cases (``pow(-inf, 0.5) = +inf``,
    ``pow(-0.0, 0.5) = +0.0``), which numpy's ``power`` does not follow."""
    x, y = np.broadcast_arrays(np.asarray(x, _F64), np.asarray(y, _F64))
    flat = [_pow1(float(a), float(b)) for a, b in zip(x.reshape(-1), y.reshape(-1))]
    return np.array(flat, _F64).reshape(x.shape)


def _transcendental_pow(x: MV, y: MV, v: np.ndarray) -> MV:
    dt = x.dt
    out = round_to(v, dt)
    vf = out.astype(_F64)
    xa, ya = np.broadcast_arrays(x.f64(), y.f64())
    ex, ey = np.broadcast_arrays(x.e, y.e)
    with np.errstate(all="ignore"):
        lo = c_pow(xa - ex, ya)
        hi = c_pow(xa + ex, ya)
        prop = np.where(ex > 0, np.maximum(np.abs(lo - vf), np.abs(hi - vf)), 0.0)
        prop = np.where((ex > 0) & (xa - ex <= 0), np.inf, prop)
        prop = np.where(ey > 0, np.inf, prop)
    e = prop + _fn_tol(dt) * np.abs(np.where(np.isfinite(vf), vf, 0)) + dt.tiny * 4
    e = np.where(np.isnan(e), np.inf, e)
    e = _overflow(vf, e, dt)
    e = _nonfinite(vf, e, x, y)
    e = _edge_tolerance(vf, e, dt)
    return MV(out, _unknown(e, x, y), dt)


def _fn_tol(dt: DT) -> float:
    return 2.0 ** -19 if dt.name in ("f32", "f64") else 2 * dt.u


def _edge_tolerance(vf: np.ndarray, e: np.ndarray, dt: DT) -> np.ndarray:
    """An approximate function's exact-looking results (0, inf) near a threshold are unknown."""
    near_big = np.isinf(vf) | (np.abs(vf) >= dt.big * (1 - 4 * _fn_tol(dt)))
    return np.where(near_big & (e < np.inf), np.inf, e)


_UNARY_F64: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "tanh": np.tanh,
    "sin": np.sin, "cos": np.cos,
    "sigmoid": lambda a: 1.0 / (1.0 + np.exp(-a)), "rsqrt": lambda a: 1.0 / np.sqrt(a),
}


def _erf(a: np.ndarray) -> np.ndarray:
    import math

    flat = [math.erf(float(v)) if np.isfinite(v) else (np.sign(v) if not np.isnan(v) else v)
            for v in np.asarray(a, _F64).reshape(-1)]
    return np.array(flat, _F64).reshape(np.shape(a))


def unary(fn: str, x: MV) -> MV:
    """A one-operand function (``neg``, ``abs``, ``not``, ``sqrt``, ``floor``, ``exp`` ...)."""
    dt = x.dt
    with np.errstate(all="ignore"):
        if fn == "neg":
            if dt.is_float:
                return MV(np.asarray(-x.a).astype(dt.np), x.e.copy(), dt)
            return MV(np.asarray(np.negative(x.a)).astype(dt.np), x.e.copy(), dt)
        if fn == "abs":
            return MV(np.asarray(np.abs(x.a)).astype(dt.np), x.e.copy(), dt)
        if fn == "not":
            out = np.logical_not(x.a) if dt.is_bool else np.invert(x.a)
            return MV(np.asarray(out).astype(dt.np), x.e.copy(), dt)
        if fn in ("floor", "ceil"):
            f = np.floor if fn == "floor" else np.ceil
            (a,) = _compute(dt, x.a)
            out = round_to(f(a), dt)
            xa = x.f64()
            crosses = f(xa - x.e) != f(xa + x.e)
            e = np.where(np.isinf(x.e) | ((x.e > 0) & crosses), np.inf, 0.0)
            return MV(np.asarray(out), _unknown(e, x), dt)
        if fn == "sqrt":
            (a,) = _compute(dt, x.a)
            v = np.sqrt(a)
            xa = x.f64()
            e = np.where(x.e > 0, np.sqrt(x.e), 0.0)
            e = np.where((x.e > 0) & (xa - x.e < 0), np.inf, e)
            return _finish(v, e, dt, (x,))
        # transcendental: the f64 result rounded to the type
        xa = x.f64()
        f = _erf if fn == "erf" else _UNARY_F64[fn]
        out = round_to(f(xa), dt)
        vf = out.astype(_F64)
        if fn in ("sigmoid", "rsqrt"):
            # tileir.md: their defining formulas, each step rounded; 16-bit types compute in
            # f32 and round once at the end, like all their arithmetic
            (a,) = _compute(dt, x.a)
            one = np.ones_like(a)
            if fn == "sigmoid":
                ex = np.exp((-a).astype(_F64)).astype(a.dtype)
                out = round_to((one / (one + ex)).astype(a.dtype), dt)
            else:
                out = round_to((one / np.sqrt(a)).astype(a.dtype), dt)
            vf = out.astype(_F64)
        lo, hi = f(xa - x.e), f(xa + x.e)
        prop = np.where(x.e > 0, np.maximum(np.abs(lo - vf), np.abs(hi - vf)), 0.0)
        if fn in ("sin", "cos"):
            prop = x.e.copy()
        if fn in ("log", "log2", "rsqrt"):
            prop = np.where((x.e > 0) & (xa - x.e <= 0), np.inf, prop)
        e = prop + _fn_tol(dt) * np.abs(np.where(np.isfinite(vf), vf, 0)) + 4 * dt.tiny
        if fn in ("sin", "cos"):
            e = e + 2.0 ** -20 * np.maximum(1.0, np.abs(np.where(np.isfinite(xa), xa, 0)))
        e = np.where(np.isnan(e), np.inf, e)
        e = _overflow(vf, e, dt)
        e = _nonfinite(vf, e, x)
        e = _edge_tolerance(vf, e, dt)
        return MV(np.asarray(out), _unknown(e, x), dt)


_CMP: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
    "eq": np.equal, "ne": np.not_equal}


def compare(fn: str, x: MV, y: MV) -> MV:
    """A comparison (bool result); unknown where bounded operands are within their bounds."""
    with np.errstate(all="ignore"):
        if x.dt.is_float:
            a, b = _compute(x.dt, x.a, y.a)
        else:
            a, b = x.a, y.a
        out = np.asarray(_CMP[fn](a, b))
        ex, ey = np.broadcast_arrays(x.e, y.e)
        margin = np.abs(x.f64() - y.f64())
        margin = np.where(np.isnan(margin), np.inf, margin)
        e = np.where(np.isinf(ex) | np.isinf(ey) | (((ex + ey) > 0) & (margin <= ex + ey)),
                     np.inf, 0.0)
    return MV(out.astype(np.bool_), np.asarray(e, _F64), DTYPES["i1"])


def where(c: MV, x: MV, y: MV) -> MV:
    """``tc.where(c, x, y)``."""
    shape = np.broadcast_shapes(c.shape, x.shape, y.shape)
    cb = np.broadcast_to(c.a, shape)
    a = np.where(cb, np.broadcast_to(x.a, shape), np.broadcast_to(y.a, shape)).astype(x.dt.np)
    e = np.where(cb, np.broadcast_to(x.e, shape), np.broadcast_to(y.e, shape))
    e = np.where(np.broadcast_to(np.isinf(c.e), shape), np.inf, e)
    return MV(np.asarray(a), np.asarray(e, _F64), x.dt)


def fma(x: MV, y: MV, z: MV) -> MV:
    """``tc.fma(x, y, z)``: ``x * y + z`` rounded once in f32 (then to a 16-bit type).

    The product of two f32 (or narrower) values is exact in f64; the sum is rounded to odd
    in f64 (TwoSum), which makes the following rounding to f32 a correct single rounding.
    f64 operands have no wider type here: those are computed with two roundings and bounded.
    """
    dt = x.dt
    shape = np.broadcast_shapes(x.shape, y.shape, z.shape)
    with np.errstate(all="ignore"):
        p = x.a.astype(_F64) * y.a.astype(_F64)
        zz = z.a.astype(_F64)
        s = np.asarray(p + zz)
        if dt.name == "f64":
            v = s
            # the unfused product's rounding is relative to the product, not to the result
            # (they differ by orders of magnitude when x * y and z cancel)
            slack = 2 * dt.u * (np.abs(np.where(np.isfinite(p), p, 0))
                                + np.abs(np.where(np.isfinite(zz), zz, 0)))
        else:
            bb = s - p
            err = (p - (s - bb)) + (zz - bb)
            odd = np.isfinite(s) & np.isfinite(err) & (err != 0) & \
                ((s.view(np.uint64) & np.uint64(1)) == 0)
            s = np.where(odd, np.nextafter(s, np.copysign(np.inf, err)), s)
            v = s.astype(_F32)
            slack = np.zeros(shape)
        ex, ey, ez = (np.broadcast_to(t.e, shape) for t in (x, y, z))
        mx, my = (np.broadcast_to(_mag(t), shape) for t in (x, y))
        e = _mulz(mx, ey) + _mulz(my, ex) + _mulz(ex, ey) + ez
        # a zero product of unknown sign decides the sign of the sum only with z = -0
        za = np.broadcast_to(zz, shape)
        neg_zero = (za == 0) & np.signbit(za) & (ez == 0)
        e = _zero_sign(v, e, (_sign_unknown(x, shape) | _sign_unknown(y, shape)) & neg_zero,
                       dt)
        out = _finish(np.broadcast_to(v, shape), e, dt, (x, y, z))
    if dt.name == "f64":
        out.e = np.where(out.e == 0, slack + dt.tiny, out.e)
    return out
