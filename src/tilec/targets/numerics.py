"""The scalar semantics of TileIR in numpy, shared by the reference interpreter and backend tests.

Every function here works elementwise on numpy scalars and arrays alike, so
the interpreter can evaluate a scalar region once over a whole tile. The rules
(docs/design/tileir.md, "Pure values"):

* ``f16``/``bf16`` arithmetic is computed in ``f32`` and rounded once to the
  type; comparisons of narrow floats are exact;
* transcendental functions (``exp``, ``log``, ``tanh``, ``erf``, ``pow``...)
  are evaluated in ``f64`` and rounded to the compute type (``f32`` for
  ``f16``/``bf16``, whose result is then rounded to the type like any of
  their arithmetic: two roundings), so the reference is as close to correctly
  rounded as numpy's ``f64`` library allows and does not depend on numpy's
  ``f32`` SIMD approximations; ``pow`` is C99 ``pow`` for every element,
  special cases included (never numpy's ``sqrt``/``square`` shortcuts for a
  single exponent); ``sigmoid`` and ``rsqrt`` are their defining formulas with
  every step rounded to the compute type;
* float ``max``/``min`` are IEEE 754-2019 ``maximum``/``minimum`` (NaN if
  either operand is NaN, ``-0.0 < +0.0``);
* integer ``floordiv``/``rem``/``cdiv`` follow Python (toward negative
  infinity); a zero divisor raises ``ZeroDivisionError``; integer overflow
  wraps (two's complement; unsigned types modulo ``2**bits``, where floor
  division is C's truncating one); float ``rem`` is Python's ``%`` too (the result
  takes the divisor's sign; a zero result is a zero of the divisor's sign);
* ``shl``/``shr`` read the count as an unsigned number of the operand's width; a
  count of at least the width shifts every bit out (0, or the sign fill for a
  signed ``shr``, which is arithmetic; an unsigned ``shr`` is logical);
* conversions round to nearest even in *one* step: no double rounding through
  ``f32`` (``ml_dtypes`` rounds ``f64 -> bf16`` through ``f32``, so we go
  through a round-to-odd ``f32`` first, which makes the second rounding exact);
  float to integer (signed or unsigned) truncates toward zero, saturates at
  the type's range and maps NaN to 0 (the PTX ``cvt.rzi.sat`` rule); anything to ``i1`` is
  ``x != 0``; ``i1`` to anything is 0 or 1;
* ``tf32`` keeps 10 explicit mantissa bits, rounding to nearest with ties away
  from zero (NaN and infinities unchanged);
* ``unordered_tree`` reductions combine contributions pairwise, level by level
  (``pairwise_tree``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np

import tilec.ir as ir

__all__ = [
    "BF16", "np_dtype", "is_float_dtype", "compute_dtype", "round_to", "cast", "from_python",
    "tf32_round", "tf32_truncate", "ieee_maximum", "ieee_minimum", "floordiv", "rem", "cdiv",
    "shl", "shr",
    "sigmoid", "rsqrt",
    "erf", "pow_", "fma", "evaluate", "combine", "combiner_identity", "pairwise_tree",
    "pairwise_tree_states", "tree_states", "matmul", "COMPARISONS", "exchange",
]

BF16 = np.dtype(ml_dtypes.bfloat16)
"""The numpy dtype of ``bf16`` (``ml_dtypes.bfloat16``)."""

_DTYPES: dict[str, np.dtype] = {
    "f16": np.dtype(np.float16), "bf16": BF16, "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64), "i1": np.dtype(np.bool_), "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16), "i32": np.dtype(np.int32), "i64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8), "u16": np.dtype(np.uint16), "u32": np.dtype(np.uint32),
    "index": np.dtype(np.int64),
}

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_BOOL = np.dtype(np.bool_)

COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")
"""The ``arith`` functions that produce ``i1``."""

# ---------------------------------------------------------------------- dtypes


def np_dtype(t: Any) -> np.dtype:
    """The numpy dtype of a TileIR scalar type (a ``ScalarType`` or its name)."""
    name = t if isinstance(t, str) else getattr(t, "name", None)
    try:
        return _DTYPES[name]  # type: ignore[index]
    except KeyError:
        raise TypeError(f"no numpy dtype for TileIR type {t!r}") from None


def is_float_dtype(dt: Any) -> bool:
    """True for ``f16``, ``bf16``, ``f32`` and ``f64`` arrays."""
    dt = np.dtype(dt)
    return dt.kind == "f" or dt == BF16


def compute_dtype(dt: Any) -> np.dtype:
    """The dtype arithmetic on ``dt`` is computed in: ``f32`` for ``f16``/``bf16``, else ``dt``."""
    dt = np.dtype(dt)
    return _F32 if dt in (np.dtype(np.float16), BF16) else dt


def _finish(x: Any, dt: np.dtype) -> Any:
    """``x`` as ``dt``: a numpy scalar for rank 0, else an array."""
    r = np.asarray(x)
    if r.dtype != dt:
        r = r.astype(dt)
    return r[()] if r.ndim == 0 else r


# -------------------------------------------------------------------- rounding


def _f64_to_f32_odd(x: np.ndarray) -> np.ndarray:
    """Round ``f64`` to ``f32`` *to odd*: truncate toward zero, set the last bit if inexact.

    Rounding to odd first and to nearest even second equals one direct rounding
    when the intermediate has two more bits than the target, which holds for
    ``f32`` (24 bits) versus ``bf16`` (8) and ``f16`` (11).
    """
    x = np.asarray(x, _F64)
    flat = x.reshape(-1)
    t = flat.astype(_F32)
    back = t.astype(_F64)
    inexact = (back != flat) & np.isfinite(flat)
    if inexact.any():
        toward = inexact & (np.abs(back) > np.abs(flat))
        t = np.where(toward, np.nextafter(t, np.float32(0)), t)
        t = (t.view(np.uint32) | inexact.astype(np.uint32)).view(_F32)
    return t.reshape(x.shape)


def _round_odd_sum(s: np.ndarray, err: np.ndarray) -> np.ndarray:
    """Given ``s = RN(x)`` and the exact ``err = x - s`` in ``f64``, the round-to-odd of ``x``."""
    flat_s = s.reshape(-1).copy()
    flat_e = err.reshape(-1)
    fix = np.isfinite(flat_s) & np.isfinite(flat_e) & (flat_e != 0)
    fix &= (flat_s.view(np.uint64) & np.uint64(1)) == 0
    if fix.any():
        flat_s[fix] = np.nextafter(flat_s[fix], np.copysign(np.inf, flat_e[fix]))
    return flat_s.reshape(s.shape)


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``s = RN(a + b)`` and the exact error ``a + b - s`` (Knuth's TwoSum)."""
    s = a + b
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    return s, err


def _i64_to_f64_odd(x: np.ndarray) -> np.ndarray:
    """Round 64-bit integers to ``f64`` to odd (the exact split is ``hi * 2**32 + lo``)."""
    x = np.asarray(x, np.int64)
    hi = (x >> np.int64(32)).astype(_F64) * 4294967296.0
    lo = (x & np.int64(0xFFFFFFFF)).astype(_F64)
    s, err = _two_sum(hi, lo)
    return _round_odd_sum(s, err)


def round_to(x: Any, dt: Any) -> np.ndarray:
    """Round a float array (``f16``..``f64``) to float dtype ``dt`` to nearest even, in one step."""
    dt = np.dtype(dt)
    x = np.asarray(x)
    if x.dtype == dt:
        return x
    if dt == BF16 and x.dtype == _F64:
        x = _f64_to_f32_odd(x)
    elif x.dtype == BF16 and dt == np.dtype(np.float16):
        x = x.astype(_F32)  # exact; then one rounding to f16
    return x.astype(dt)


def tf32_round(x: Any) -> np.ndarray:
    """Round ``f32`` values to TF32: 10 explicit mantissa bits, nearest, ties away from zero."""
    x = np.asarray(x, _F32)
    bits = x.reshape(-1).view(np.uint32)
    finite = np.isfinite(x.reshape(-1))
    rounded = (bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)
    out = np.where(finite, rounded, bits).astype(np.uint32)
    return out.view(_F32).reshape(x.shape)


def tf32_truncate(x: Any) -> np.ndarray:
    """Truncate ``f32`` values to TF32 (toward zero: the 13 low mantissa bits dropped), as a
    TF32 tensor-core instruction reads an operand from shared memory; non-finite values
    pass through."""
    x = np.asarray(x, _F32)
    bits = np.ascontiguousarray(x).view(np.uint32)
    return np.where(np.isfinite(x), bits & np.uint32(0xFFFFE000), bits).astype(
        np.uint32).view(_F32)


# ----------------------------------------------------------------- conversions


def cast(x: Any, dst: Any) -> Any:
    """Convert ``x`` (numpy scalar or array) to dtype ``dst`` under TileIR's conversion rules."""
    dst = np.dtype(dst)
    a = np.asarray(x)
    src = a.dtype
    if src == dst:
        return _finish(a, dst)
    if dst == _BOOL:
        return _finish(a != 0, dst)
    if src == _BOOL:
        a = a.astype(np.int8)
        src = a.dtype
    src_float, dst_float = is_float_dtype(src), is_float_dtype(dst)
    with np.errstate(all="ignore"):
        if src_float and dst_float:
            if src in (np.dtype(np.float16), BF16):
                a = a.astype(_F32)  # exact widening
            return _finish(round_to(a, dst), dst)
        if src_float:
            return _finish(_float_to_int(a, dst), dst)
        if dst_float:
            if dst == _F64:
                return _finish(a.astype(_F64), dst)
            wide = _i64_to_f64_odd(a) if src.itemsize > 4 else a.astype(_F64)
            return _finish(round_to(wide, dst), dst)
        return _finish(a.astype(dst), dst)  # integer to integer wraps


def _float_to_int(a: np.ndarray, dst: np.dtype) -> np.ndarray:
    """Truncate toward zero, saturate to ``dst``'s range, NaN to 0."""
    info = np.iinfo(dst)
    t = np.trunc(a.astype(_F64) if a.dtype != _F64 else a)
    nan = np.isnan(t)
    high = t >= 2.0 ** (info.bits - (0 if info.min == 0 else 1))
    low = t < float(info.min)
    safe = np.where(nan | high | low, 0.0, t).astype(dst)
    return np.where(high, info.max, np.where(low, info.min, safe)).astype(dst)


def from_python(value: Any, dt: Any) -> Any:
    """A Python number as a numpy scalar of ``dt`` (one correct rounding; ints range-checked)."""
    dt = np.dtype(dt)
    if isinstance(value, (np.generic, np.ndarray)):
        return cast(value, dt)
    if dt == _BOOL:
        return np.bool_(value != 0)
    if is_float_dtype(dt):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**63:
            return cast(np.int64(value), dt)
        return cast(np.float64(value), dt)
    if isinstance(value, float):
        if not value.is_integer():
            raise TypeError(f"{value!r} is not an integer of type {dt}")
        value = int(value)
    info = np.iinfo(dt)
    if not info.min <= int(value) <= info.max:
        raise ValueError(f"{value} does not fit in {dt} [{info.min}, {info.max}]")
    return np.array(int(value), dt)[()]


# --------------------------------------------------------- scalar functions


def ieee_maximum(a: Any, b: Any) -> Any:
    """IEEE 754-2019 ``maximum``: NaN if either is NaN; ``maximum(-0.0, +0.0) = +0.0``."""
    a, b = np.asarray(a), np.asarray(b)
    r = np.where(a > b, a, b)
    r = np.where((a == b) & np.signbit(b), a, r)  # equal zeros: prefer the positive one
    return np.where(np.isnan(a) | np.isnan(b), a + b, r)


def ieee_minimum(a: Any, b: Any) -> Any:
    """IEEE 754-2019 ``minimum``: NaN if either is NaN; ``minimum(-0.0, +0.0) = -0.0``."""
    a, b = np.asarray(a), np.asarray(b)
    r = np.where(a < b, a, b)
    r = np.where((a == b) & np.signbit(a), a, r)  # equal zeros: prefer the negative one
    return np.where(np.isnan(a) | np.isnan(b), a + b, r)


def _check_divisor(b: Any, fn: str) -> None:
    if np.any(np.asarray(b) == 0):
        raise ZeroDivisionError(f"integer {fn} by zero")


def floordiv(a: Any, b: Any) -> Any:
    """Integer division rounding toward negative infinity (Python ``//``)."""
    _check_divisor(b, "floordiv")
    return np.floor_divide(a, b)


def rem(a: Any, b: Any) -> Any:
    """Python ``%``: the remainder takes the divisor's sign (integers and floats)."""
    if not is_float_dtype(np.asarray(a).dtype):
        _check_divisor(b, "rem")
    return np.remainder(a, b)


def cdiv(a: Any, b: Any) -> Any:
    """Integer division rounding toward positive infinity: ``-floordiv(-a, b)`` (unsigned:
    the quotient plus one where a remainder is left, which cannot overflow)."""
    _check_divisor(b, "cdiv")
    if np.asarray(a).dtype.kind == "u":
        return np.floor_divide(a, b) + (np.remainder(a, b) != 0).astype(np.asarray(a).dtype)
    return np.negative(np.floor_divide(np.negative(a), b))


def _shift_count(a: np.ndarray, c: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """The count read as unsigned, clamped below the width, and where it was not below it."""
    bits = a.dtype.itemsize * 8
    u = np.asarray(c, a.dtype).astype(np.dtype(f"u{a.dtype.itemsize}"))
    out = u >= bits
    return np.minimum(u, bits - 1).astype(a.dtype), out, bits


def shl(a: Any, c: Any) -> Any:
    """``a << c`` wrapping at the width; a count of at least the width (read unsigned) gives 0."""
    a = np.asarray(a)
    k, out, _ = _shift_count(a, c)
    return np.where(out, np.zeros((), a.dtype), np.left_shift(a, k)).astype(a.dtype)


def shr(a: Any, c: Any) -> Any:
    """``a >> c``: arithmetic for signed types, logical for unsigned; a count of at least the
    width (read unsigned) gives the sign fill (0 for unsigned and non-negative values)."""
    a = np.asarray(a)
    k, out, _ = _shift_count(a, c)
    r = np.right_shift(a, k)  # by width - 1 a signed shift is already the sign fill
    if a.dtype.kind == "u":
        r = np.where(out, np.zeros((), a.dtype), r)
    return r.astype(a.dtype)


def _in_f64(f: Callable[..., Any]) -> Callable[..., Any]:
    """Evaluate ``f`` in ``f64`` and round back to the argument's dtype."""

    def g(*xs: Any) -> Any:
        dt = np.asarray(xs[0]).dtype
        r = f(*(np.asarray(x, _F64) for x in xs))
        return np.asarray(r, _F64).astype(dt)

    return g


def pow_(a: Any, b: Any) -> Any:
    """C99 (IEEE 754) ``pow`` in ``f64`` for every element, rounded to ``a``'s dtype.

    numpy's ``power`` takes shortcuts when it sees one exponent for all elements (a
    scalar, a 0-d array, a broadcast): ``sqrt`` for ``0.5``, which gives
    ``pow(-0.0, 0.5) = -0.0`` and ``pow(-inf, 0.5) = nan`` where C99 gives ``+0.0`` and
    ``+inf``. Both operands are therefore copied out at the full shape (at least 1-d),
    where numpy calls the C library's ``pow`` on each pair.
    """
    dt = np.asarray(a).dtype
    x, y = np.broadcast_arrays(np.asarray(a, _F64), np.asarray(b, _F64))
    shape = x.shape
    r = np.power(np.array(x, _F64).reshape(-1), np.array(y, _F64).reshape(-1))
    return r.reshape(shape).astype(dt)


_erf64 = np.frompyfunc(math.erf, 1, 1)


def erf(x: Any) -> Any:
    """The error function, via ``math.erf`` in ``f64`` rounded to ``x``'s dtype."""
    x = np.asarray(x)
    return np.asarray(_erf64(x.astype(_F64)), _F64).astype(x.dtype)


def sigmoid(x: Any) -> Any:
    """``1 / (1 + exp(-x))`` with every step rounded to ``x``'s dtype."""
    x = np.asarray(x)
    one = np.ones((), x.dtype)
    return one / (one + _in_f64(np.exp)(np.negative(x)))


def rsqrt(x: Any) -> Any:
    """``1 / sqrt(x)`` with both steps rounded to ``x``'s dtype."""
    x = np.asarray(x)
    return np.ones((), x.dtype) / np.sqrt(x)


def _fma64_one(a: float, b: float, c: float) -> float:
    if not (math.isfinite(a) and math.isfinite(b)):
        return a * b + c  # the product is exactly inf or NaN: nothing to round
    if not math.isfinite(c):
        return c
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        product_negative = math.copysign(1.0, a) * math.copysign(1.0, b) < 0
        both_negative = product_negative and math.copysign(1.0, c) < 0
        return -0.0 if (a * b == 0 and c == 0 and both_negative) else 0.0
    try:
        return float(exact)
    except OverflowError:
        return math.copysign(math.inf, exact)


_fma64 = np.frompyfunc(_fma64_one, 3, 1)


def fma(a: Any, b: Any, c: Any) -> Any:
    """Fused ``a * b + c`` with one rounding (``f32``: exact ``f64`` product, TwoSum, to-odd)."""
    a, b, c = np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(c))
    dt = a.dtype
    if dt == _F64:
        return np.asarray(_fma64(a, b, c), _F64)
    if dt != _F32:
        raise TypeError(f"fma on {dt}: compute narrow floats in f32 first")
    p = a.astype(_F64) * b.astype(_F64)  # exact: 24 + 24 bits fit in 53
    s, err = _two_sum(p, c.astype(_F64))
    return _round_odd_sum(s, err).astype(_F32)


def _ieee_max_or_int(a: Any, b: Any) -> Any:
    return ieee_maximum(a, b) if is_float_dtype(np.asarray(a).dtype) else np.maximum(a, b)


def _ieee_min_or_int(a: Any, b: Any) -> Any:
    return ieee_minimum(a, b) if is_float_dtype(np.asarray(a).dtype) else np.minimum(a, b)


_COMMON: dict[str, Callable[..., Any]] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply,
    "max": _ieee_max_or_int, "min": _ieee_min_or_int, "neg": np.negative, "abs": np.abs,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
}

_FLOAT: dict[str, Callable[..., Any]] = {
    **_COMMON,
    "div": np.divide, "rem": rem, "pow": pow_,
    "exp": _in_f64(np.exp), "exp2": _in_f64(np.exp2), "log": _in_f64(np.log),
    "log2": _in_f64(np.log2), "sqrt": np.sqrt, "rsqrt": rsqrt, "tanh": _in_f64(np.tanh),
    "erf": erf, "sigmoid": sigmoid, "sin": _in_f64(np.sin), "cos": _in_f64(np.cos),
    "floor": np.floor, "ceil": np.ceil, "fma": fma, "round_tf32": tf32_round,
}

_INT: dict[str, Callable[..., Any]] = {
    **_COMMON,
    "floordiv": floordiv, "rem": rem, "cdiv": cdiv, "and": np.bitwise_and,
    "or": np.bitwise_or, "xor": np.bitwise_xor, "not": np.invert, "shl": shl, "shr": shr,
    "fma": lambda a, b, c: np.add(np.multiply(a, b), c),
}

# i1 is an unsigned one-bit integer: arithmetic wraps modulo 2, max/min are or/and.
_BOOL_FNS: dict[str, Callable[..., Any]] = {
    "add": np.logical_xor, "sub": np.logical_xor, "mul": np.logical_and,
    "and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor,
    "not": np.logical_not, "max": np.logical_or, "min": np.logical_and,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
}


def evaluate(fn: str, args: Sequence[Any], operand_dtype: Any, result_dtype: Any) -> Any:
    """``arith {fn}`` on numpy scalars or arrays; returns a scalar for scalar inputs.

    ``operand_dtype`` is the operands' element type (for ``select``, that of
    the two choices); ``result_dtype`` the result's. Raises
    ``ZeroDivisionError`` for an integer division by zero and ``TypeError``
    for a function the type does not define.
    """
    odt, rdt = np.dtype(operand_dtype), np.dtype(result_dtype)
    if fn == "cast":
        return cast(args[0], rdt)
    if fn == "select":
        c, a, b = args
        return _finish(np.where(c, a, b), rdt)
    with np.errstate(all="ignore"):
        if odt == _BOOL:
            table, xs = _BOOL_FNS, [np.asarray(a, _BOOL) for a in args]
        elif is_float_dtype(odt):
            cdt = compute_dtype(odt)
            table, xs = _FLOAT, [np.asarray(a).astype(cdt, copy=False) for a in args]
        else:
            table, xs = _INT, [np.asarray(a, odt) for a in args]
        impl = table.get(fn)
        if impl is None:
            raise TypeError(f"arith {fn} is not defined on {odt}")
        r = np.asarray(impl(*xs))
        if fn in COMPARISONS:
            return _finish(r, _BOOL)
        if is_float_dtype(rdt):
            return _finish(round_to(r, rdt), rdt)
        return _finish(r, rdt)


# ------------------------------------------------------------------ reductions


def combine(name: str, a: Any, b: Any, dt: Any) -> Any:
    """Merge two partial states of dtype ``dt`` with combiner ``name`` (add, mul, max, min)."""
    return evaluate(name, (a, b), dt, dt)


def exchange(kind: str, old: np.ndarray, value: np.ndarray, compare: np.ndarray | None
             ) -> np.ndarray:
    """What an ``atomic`` ``xchg`` or ``cas`` leaves in memory holding ``old``: ``value``, or
    for ``cas`` ``value`` where ``old`` has ``compare``'s bits (so ``-0.0`` is not ``0.0``
    and a NaN matches the same NaN), else ``old``. All three arrays have one dtype."""
    if kind == "xchg":
        return value
    assert compare is not None
    word = np.dtype(f"u{old.dtype.itemsize}")
    same = np.asarray(old).view(word) == np.asarray(compare).view(word)
    return np.where(same, value, old)


def combiner_identity(name: str, dt: Any) -> Any:
    """The exact identity of a combiner on ``dt``: ``-0.0`` for float add (so ``-0.0`` survives).

    ``combine(name, combiner_identity(name, dt), x, dt) == x`` bit for bit,
    NaN and signed zeros included.
    """
    dt = np.dtype(dt)
    if name in ir.ARG_LAWS:  # an arg-reduction's index: the largest, which every index precedes
        name = "min"
    if dt == _BOOL:
        return np.bool_({"add": False, "mul": True, "max": False, "min": True}[name])
    if is_float_dtype(dt):
        value = {"add": -0.0, "mul": 1.0, "max": -math.inf, "min": math.inf}[name]
        return np.array(value, _F64).astype(dt)[()]
    info = np.iinfo(dt)
    return np.array({"add": 0, "mul": 1, "max": info.min, "min": info.max}[name], dt)[()]


def pairwise_tree(values: np.ndarray, merge: Callable[[Any, Any], Any]) -> np.ndarray | None:
    """Combine along the last axis as a fixed tree; None for an empty axis.

    Level by level, neighbours are merged ``(c0, c1), (c2, c3), ...`` and an
    odd last element is carried to the next level unchanged, until one
    partial remains. This is the one tree the reference uses for
    ``unordered_tree``, so its results are reproducible run to run.
    """
    out = pairwise_tree_states([values], lambda a, b: [merge(a[0], b[0])])
    return None if out is None else out[0]


def pairwise_tree_states(states: Sequence[np.ndarray],
                         merge: Callable[[list[Any], list[Any]], Sequence[Any]]
                         ) -> list[np.ndarray] | None:
    """``pairwise_tree`` of several states merged together (one array per state, the
    contributions along the last axis): ``merge(left states, right states)``."""
    xs = [np.asarray(v) for v in states]
    n = xs[0].shape[-1]
    if n == 0:
        return None
    while n > 1:
        even = 2 * (n // 2)
        merged = merge([x[..., 0:even:2] for x in xs], [x[..., 1:even:2] for x in xs])
        merged = [np.asarray(m, x.dtype) for m, x in zip(merged, xs)]
        if n % 2:
            merged = [np.concatenate([m, x[..., n - 1:n]], axis=-1) for m, x in zip(merged, xs)]
        xs = merged
        n = xs[0].shape[-1]
    return [x[..., 0] for x in xs]


def tree_states(partials: Sequence[np.ndarray], seeds: Sequence[Any],
                merge: Callable[[list[Any], list[Any]], Sequence[Any]]) -> list[Any]:
    """The reference's ``unordered_tree``: the partial states (contributions along the last
    axis) merged by ``pairwise_tree_states``, then ``merge(seeds, total)``; the seeds when
    there is no contribution."""
    totals = pairwise_tree_states(partials, merge)
    return list(seeds) if totals is None else list(merge(list(seeds), totals))


# ---------------------------------------------------------------------- mma


def matmul(a: np.ndarray, b: np.ndarray, c: np.ndarray, precision: str = "exact") -> np.ndarray:
    """``c + a @ b`` in strict order: ``acc = round(acc + round(a[i,k] * b[k,j]))`` for k = 0..K-1.

    No fused multiply-add. ``f16``/``bf16`` operands are widened to ``f32``
    (their products are exact there); ``precision = "tf32"`` first rounds
    ``f32`` operands to TF32; ``bf16x3`` is evaluated as exact (it is a
    permission to approximate, and the exact product is one allowed result).
    The accumulator keeps ``c``'s dtype; a narrow accumulator is computed in
    ``f32`` and rounded after every step. Integer operands accumulate in
    ``c``'s integer type with wrap-around.
    """
    cdt = c.dtype
    if not is_float_dtype(a.dtype):
        if is_float_dtype(cdt):
            raise TypeError(f"mma of {a.dtype} operands into a {cdt} accumulator")
        acc = c.copy()
        aa, bb = a.astype(cdt), b.astype(cdt)
        with np.errstate(all="ignore"):
            for k in range(a.shape[1]):
                acc = acc + np.multiply.outer(aa[:, k], bb[k, :])
        return acc.astype(cdt)
    pdt = _F64 if a.dtype == _F64 else _F32
    aa, bb = a.astype(pdt), b.astype(pdt)
    if precision == "tf32" and pdt == _F32 and a.dtype == _F32:
        aa, bb = tf32_round(aa), tf32_round(bb)
    wdt = _F64 if _F64 in (pdt, cdt) else _F32
    narrow = cdt != wdt
    acc = c.astype(wdt)
    with np.errstate(all="ignore"):
        for k in range(a.shape[1]):
            p = np.multiply.outer(aa[:, k], bb[k, :]).astype(wdt, copy=False)
            acc = acc + p
            if narrow:
                acc = round_to(acc, cdt).astype(wdt)
    return round_to(acc, cdt) if narrow else acc
