"""Scalar semantics: rounding against exact rational oracles, IEEE max/min, integer division."""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from tilec.targets import numerics as nx

BF = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
F32 = np.dtype(np.float32)

# (precision bits incl. the implicit one, minimum normal exponent, maximum exponent)
FORMATS = {BF: (8, -126, 127), F16: (11, -14, 15), F32: (24, -126, 127)}


def round_exact(q: Fraction, fmt: np.dtype, ties_away: bool = False) -> float:
    """Round a rational to the float format ``fmt`` (nearest; ties even or away), as a float."""
    p, emin, emax = FORMATS[fmt]
    if q == 0:
        return 0.0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)
    ulp = Fraction(2) ** (e - p + 1)
    n = a / ulp
    k = math.floor(n)
    r = n - k
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and (ties_away or k % 2 == 1)):
        k += 1
    v = k * ulp
    out = math.inf if v >= Fraction(2) ** (emax + 1) else float(v)
    return -out if q < 0 else out


def near_midpoints(fmt: np.dtype, rng: np.random.Generator, n: int = 300) -> np.ndarray:
    """f64 values at, just above and just below midpoints between neighbours of ``fmt``."""
    span = 10 if fmt == F16 else 30
    base = (rng.standard_normal(n) * 2.0 ** rng.integers(-span, span, n)).astype(fmt)
    nxt = np.nextafter(base.astype(np.float32), np.float32(np.inf)).astype(fmt) \
        if fmt == F32 else _next_up(base)
    mid = (base.astype(np.float64) + nxt.astype(np.float64)) / 2
    tiny = np.abs(mid) * 2.0**-40
    return np.concatenate([mid, mid + tiny, mid - tiny, base.astype(np.float64)])


def _next_up(x: np.ndarray) -> np.ndarray:
    bits = x.view(np.uint16).astype(np.int32)
    step = np.where(x.astype(np.float32) >= 0, 1, -1)
    return (bits + step).astype(np.uint16).view(x.dtype)


@pytest.mark.parametrize("fmt", [BF, F16, F32])
def test_f64_to_narrow_rounds_once(fmt):
    rng = np.random.default_rng(0)
    xs = np.concatenate([near_midpoints(fmt, rng), rng.standard_normal(200) * 1e3,
                         [1e-42, -1e-42, 3e38, 3.4e38, 1e39, 6e-8, 65520.0, 65519.0]])
    got = nx.cast(xs, fmt).astype(np.float64)
    want = [round_exact(Fraction(float(x)), fmt) for x in xs]
    assert np.array_equal(got, np.array(want)), [
        (x, g, w) for x, g, w in zip(xs, got, want) if g != w][:5]


def test_ml_dtypes_double_rounding_is_avoided():
    x = 1 + 2.0**-8 + 2.0**-40  # just above a bf16 midpoint; via f32 it lands on the midpoint
    assert float(nx.cast(np.float64(x), BF)) == 1 + 2.0**-7


@pytest.mark.parametrize("fmt", [BF, F16, F32])
def test_int64_to_float_rounds_once(fmt):
    rng = np.random.default_rng(1)
    xs = np.concatenate([rng.integers(-2**62, 2**62, 300), rng.integers(-70000, 70000, 300),
                         [2**24 + 2**16 + 1, 2**53 + 1, -(2**63), 2**63 - 1, 0, 1, -1]])
    xs = xs.astype(np.int64)
    got = nx.cast(xs, fmt).astype(np.float64)
    want = [round_exact(Fraction(int(x)), fmt) for x in xs]
    assert np.array_equal(got, np.array(want))


def test_narrow_to_narrow_and_widening():
    rng = np.random.default_rng(2)
    x = rng.standard_normal(500).astype(BF)
    assert np.array_equal(nx.cast(x, F32), x.astype(np.float32))
    h = nx.cast(x, F16).astype(np.float64)
    assert np.array_equal(h, [round_exact(Fraction(float(v)), F16) for v in x])
    assert np.isnan(nx.cast(np.array([np.nan], F32), BF)).all()
    assert np.signbit(nx.cast(np.float32(-0.0), BF))


def test_float_to_int_truncates_saturates_and_maps_nan_to_zero():
    x = np.array([2.7, -2.7, -0.5, np.nan, np.inf, -np.inf, 3e9, -3e9, 127.9, -128.9],
                 np.float32)
    assert nx.cast(x, np.int32).tolist() == [2, -2, 0, 0, 2**31 - 1, -(2**31), 2**31 - 1,
                                             -(2**31), 127, -128]
    assert nx.cast(x, np.int8).tolist()[-2:] == [127, -128]
    assert nx.cast(np.array([1e300, -1e300]), np.int64).tolist() == [2**63 - 1, -(2**63)]
    assert nx.cast(np.array([0.0, -0.0, 0.5, np.nan]), np.bool_).tolist() == [
        False, False, True, True]
    assert nx.cast(np.array([True, False]), np.float32).tolist() == [1.0, 0.0]
    assert nx.cast(np.int32(300), np.int8) == 44  # integer narrowing wraps


def test_tf32_round_ties_away_and_keeps_specials():
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.standard_normal(500).astype(np.float32),
                        np.array([1 + 2.0**-11, -(1 + 2.0**-11), 1 + 3 * 2.0**-11], np.float32)])
    got = nx.tf32_round(x).astype(np.float64)
    fmt = (11, -126, 127)
    FORMATS["tf32"] = fmt  # type: ignore[index]
    try:
        want = [round_exact(Fraction(float(v)), "tf32", ties_away=True) for v in x]  # type: ignore
    finally:
        del FORMATS["tf32"]  # type: ignore[arg-type]
    assert np.array_equal(got, want)
    assert got[-3] == 1 + 2.0**-10 and got[-2] == -(1 + 2.0**-10)  # ties away from zero
    special = np.array([np.nan, np.inf, -np.inf, -0.0], np.float32)
    out = nx.tf32_round(special)
    assert np.isnan(out[0]) and out[1] == np.inf and out[2] == -np.inf and np.signbit(out[3])


def test_ieee_maximum_minimum():
    z, nz = np.float32(0.0), np.float32(-0.0)
    assert not np.signbit(nx.evaluate("max", (nz, z), F32, F32))
    assert not np.signbit(nx.evaluate("max", (z, nz), F32, F32))
    assert np.signbit(nx.evaluate("min", (z, nz), F32, F32))
    assert np.signbit(nx.evaluate("min", (nz, z), F32, F32))
    assert np.signbit(nx.evaluate("max", (nz, nz), F32, F32))
    nan = np.float32(np.nan)
    for fn in ("max", "min"):
        assert np.isnan(nx.evaluate(fn, (nan, np.float32(1)), F32, F32))
        assert np.isnan(nx.evaluate(fn, (np.float32(-np.inf), nan), F32, F32))
    assert nx.evaluate("max", (np.float32(-np.inf), np.float32(2)), F32, F32) == 2
    assert nx.evaluate("max", (np.int32(-3), np.int32(2)), np.int32, np.int32) == 2


def test_zero_times_inf_and_signed_zeros():
    f = lambda fn, *xs: nx.evaluate(fn, [np.float32(x) for x in xs], F32, F32)  # noqa: E731
    assert np.isnan(f("mul", 0.0, np.inf))
    assert np.signbit(f("neg", 0.0))
    assert np.signbit(f("add", -0.0, -0.0)) and not np.signbit(f("add", -0.0, 0.0))
    assert np.signbit(f("mul", -0.0, 3.0))
    assert f("div", 1.0, -0.0) == -np.inf
    assert np.isnan(f("sub", np.inf, np.inf))
    assert np.signbit(f("floor", -0.0)) and np.signbit(f("ceil", -0.5))


def test_integer_division_is_pythonic():
    rng = np.random.default_rng(4)
    a = rng.integers(-100, 100, 400).astype(np.int32)
    b = rng.integers(-9, 10, 400).astype(np.int32)
    b[b == 0] = 7
    i32 = np.dtype(np.int32)
    assert nx.evaluate("floordiv", (a, b), i32, i32).tolist() == [
        x // y for x, y in zip(a.tolist(), b.tolist())]
    assert nx.evaluate("rem", (a, b), i32, i32).tolist() == [
        x % y for x, y in zip(a.tolist(), b.tolist())]
    assert nx.evaluate("cdiv", (a, b), i32, i32).tolist() == [
        -((-x) // y) for x, y in zip(a.tolist(), b.tolist())]
    for fn in ("floordiv", "rem", "cdiv"):
        with pytest.raises(ZeroDivisionError, match=fn):
            nx.evaluate(fn, (np.int32(1), np.int32(0)), i32, i32)


def test_float_rem_takes_the_divisor_sign():
    r = lambda a, b: float(nx.evaluate("rem", (np.float32(a), np.float32(b)), F32, F32))  # noqa
    assert r(5.5, 2.0) == 1.5 and r(-5.5, 2.0) == 0.5 and r(5.5, -2.0) == -0.5
    assert math.copysign(1, r(4.0, -2.0)) == -1 and math.copysign(1, r(-4.0, 2.0)) == 1


def test_transcendentals():
    x = np.array([-np.inf, -100.0, -1.0, -0.0, 0.0, 0.5, 100.0, np.inf, np.nan], np.float32)
    s = nx.evaluate("sigmoid", (x,), F32, F32)
    assert s[0] == 0 and s[3] == 0.5 and s[7] == 1 and np.isnan(s[8])
    e = nx.evaluate("erf", (x,), F32, F32)
    assert np.array_equal(e[:8], np.array([math.erf(float(v)) for v in x[:8]], np.float32))
    assert np.signbit(e[3]) and np.isnan(e[8])
    r = nx.evaluate("rsqrt", (np.array([4.0, 0.0, -0.0, -1.0], np.float32),), F32, F32)
    assert r[0] == 0.5 and r[1] == np.inf and r[2] == -np.inf and np.isnan(r[3])
    ex = nx.evaluate("exp", (np.float32(1.0),), F32, F32)
    assert ex == np.float32(math.e) and isinstance(ex, np.float32)


def test_narrow_arithmetic_is_f32_then_rounded():
    rng = np.random.default_rng(5)
    a = rng.standard_normal(300).astype(BF)
    b = rng.standard_normal(300).astype(BF)
    for fn, op in (("add", np.add), ("mul", np.multiply), ("div", np.divide)):
        got = nx.evaluate(fn, (a, b), BF, BF)
        assert got.dtype == BF
        want = op(a.astype(np.float32), b.astype(np.float32)).astype(BF)
        assert np.array_equal(got.view(np.uint16), want.view(np.uint16))
    lt = nx.evaluate("lt", (a, b), BF, np.bool_)
    assert lt.dtype == np.bool_ and np.array_equal(lt, a.astype(np.float32) < b)


def test_fma_rounds_once():
    rng = np.random.default_rng(6)
    a = rng.standard_normal(400).astype(np.float32)
    b = rng.standard_normal(400).astype(np.float32)
    c = (-(a.astype(np.float64) * b) * (1 + rng.standard_normal(400) * 1e-7)).astype(np.float32)
    got = nx.evaluate("fma", (a, b, c), F32, F32).astype(np.float64)
    want = [round_exact(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)), F32)
            for x, y, z in zip(a, b, c)]
    assert np.array_equal(got, want)
    a64 = rng.standard_normal(50)
    b64 = rng.standard_normal(50)
    c64 = -a64 * b64
    got64 = nx.evaluate("fma", (a64, b64, c64), np.float64, np.float64)
    want64 = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a64, b64, c64)]
    assert np.array_equal(got64, want64)


def test_pairwise_tree_shape():
    label = np.frompyfunc(lambda p, q: f"({p} {q})", 2, 1)
    vals = np.array([str(i) for i in range(7)], object)
    assert nx.pairwise_tree(vals, label) == "(((0 1) (2 3)) ((4 5) 6))"
    assert nx.pairwise_tree(vals[:5], label) == "(((0 1) (2 3)) 4)"
    assert nx.pairwise_tree(vals[:1], label) == "0"
    assert nx.pairwise_tree(vals[:0], label) is None


@pytest.mark.parametrize("dt", [F32, BF, np.dtype(np.int32), np.dtype(np.bool_)])
@pytest.mark.parametrize("name", ["add", "mul", "max", "min"])
def test_combiner_identity_is_exact(dt, name):
    if dt == np.bool_:
        vals = np.array([True, False])
    elif nx.is_float_dtype(dt):
        vals = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan]).astype(dt)
    else:
        vals = np.array([0, -5, 7, 2**31 - 1, -(2**31)]).astype(dt)
    got = nx.combine(name, nx.combiner_identity(name, dt), vals, dt)
    assert np.array_equal(np.asarray(got).view(np.uint8), vals.view(np.uint8))


def test_from_python_checks_ranges():
    assert nx.from_python(300, np.int16) == 300
    with pytest.raises(ValueError, match="does not fit"):
        nx.from_python(300, np.int8)
    with pytest.raises(TypeError, match="not an integer"):
        nx.from_python(2.5, np.int32)
    assert float(nx.from_python(1 + 2.0**-8 + 2.0**-40, BF)) == 1 + 2.0**-7
