"""``tirx:llvm`` against TVM's simplifier: rewrites that are not IEEE-exact for floats.

TVM's arithmetic simplifier cancels float ``x - x``, ``(x + y) - y``, ``x - (x + y)`` and
``select(c, y, z) - z`` (wrong on NaN, infinities and rounding), folds a cast of a
constant into a literal of the narrow type without rounding it and refuses one out of
that type's range (``f16`` ``100.0 / 0.001``, ``uint8`` 300). The bridge spells these so
TVM cannot fold them, or evaluates literal operands with the reference's numerics
(``scalars._folded``). Every kernel here runs on the reference and on ``tirx:llvm`` with
its outputs poisoned first; each test failed before its fix (a mismatch or TVM's error).
"""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilec as tc

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from paths import poisoned  # noqa: E402

TARGET = "tirx:llvm"


def _both(kernel, args, outs, **cx):
    """Run ``kernel`` on the reference and on tirx:llvm, each on its own copies of ``args``
    with the outputs (indices ``outs``) poisoned; returns (reference args, tirx args)."""
    def copies():
        a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        for i in outs:
            a[i] = poisoned(*a[i].shape, dtype=a[i].dtype)
        return a

    ref, got = copies(), copies()
    tc.interpret(kernel, *ref, **cx)
    tc.compile(kernel, *got, target=TARGET, **cx)(*got)
    return ref, got


def _same_bits(r, t, what=""):
    """NaN in the same places, every other element with the same value and sign."""
    r, t = np.asarray(r, np.float64), np.asarray(t, np.float64)
    assert np.array_equal(np.isnan(r), np.isnan(t)), (what, r, t)
    np.testing.assert_array_equal(r, t, err_msg=what)
    assert np.array_equal(np.signbit(r[~np.isnan(r)]), np.signbit(t[~np.isnan(t)])), (what, r, t)


# ------------------------------------------------------------- float cancellations

ROWS = ("x - x", "(x - x) + y", "(x + y) - y", "(x + y) - x", "x - (x + y)", "x - (y + x)",
        "where(x < y, x, y) - y", "where(x < y, y, x) - y", "x - 0.0", "0.0 - x", "x + 0.0",
        "x + -0.0", "x * 0.0", "x / x", "x * 1.0", "-x", "maximum(x, x)", "minimum(x, y)",
        "maximum(x, nan)", "x == x", "x != x", "x < x", "x <= x", "x >= y")


@tc.kernel
def cancellations(X, Y, O, N: tc.constexpr = 8):  # noqa: E741
    for _p in tc.parallel(1):
        x = X.tile((0,), (N,)).load()
        y = Y.tile((0,), (N,)).load()
        one = tc.full_like(x, 1.0)
        zero = tc.full_like(x, 0.0)
        # one row each, in the order of ROWS
        O.tile((0, 0), (1, N)).store((x - x)[None, :])
        O.tile((1, 0), (1, N)).store(((x - x) + y)[None, :])
        O.tile((2, 0), (1, N)).store(((x + y) - y)[None, :])
        O.tile((3, 0), (1, N)).store(((x + y) - x)[None, :])
        O.tile((4, 0), (1, N)).store((x - (x + y))[None, :])
        O.tile((5, 0), (1, N)).store((x - (y + x))[None, :])
        O.tile((6, 0), (1, N)).store((tc.where(x < y, x, y) - y)[None, :])
        O.tile((7, 0), (1, N)).store((tc.where(x < y, y, x) - y)[None, :])
        O.tile((8, 0), (1, N)).store((x - 0.0)[None, :])
        O.tile((9, 0), (1, N)).store((0.0 - x)[None, :])
        O.tile((10, 0), (1, N)).store((x + 0.0)[None, :])
        O.tile((11, 0), (1, N)).store((x + -0.0)[None, :])
        O.tile((12, 0), (1, N)).store((x * 0.0)[None, :])
        O.tile((13, 0), (1, N)).store((x / x)[None, :])
        O.tile((14, 0), (1, N)).store((x * 1.0)[None, :])
        O.tile((15, 0), (1, N)).store((-x)[None, :])
        O.tile((16, 0), (1, N)).store((tc.maximum(x, x))[None, :])
        O.tile((17, 0), (1, N)).store((tc.minimum(x, y))[None, :])
        O.tile((18, 0), (1, N)).store((tc.maximum(x, float("nan")))[None, :])
        O.tile((19, 0), (1, N)).store((tc.where(x == x, one, zero))[None, :])
        O.tile((20, 0), (1, N)).store((tc.where(x != x, one, zero))[None, :])
        O.tile((21, 0), (1, N)).store((tc.where(x < x, one, zero))[None, :])
        O.tile((22, 0), (1, N)).store((tc.where(x <= x, one, zero))[None, :])
        O.tile((23, 0), (1, N)).store((tc.where(x >= y, one, zero))[None, :])


@pytest.mark.parametrize("dt", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64],
                         ids=["f16", "bf16", "f32", "f64"])
def test_float_cancellations_keep_nan_inf_and_rounding(dt):
    """Seed 1302 program 13 ((a - a) + inf gave inf, the reference NaN) and every other
    rewrite of the same family; x + y rounds (3 + 2**-12 in f16 is 3), so (x + y) - y is
    not x."""
    big = float(np.finfo(dt).max) / 2
    x = np.array([np.inf, np.nan, -0.0, 0.0, -np.inf, 1.0, 3.0, big], dt)
    y = np.array([1.0, 2.0, 0.0, -0.0, np.inf, big, 2.0 ** -12, big], dt)
    out = np.zeros((len(ROWS), 8), dt)
    ref, got = _both(cancellations, [x, y, out], [2])
    for i, what in enumerate(ROWS):
        _same_bits(ref[2][i], got[2][i], what)


@tc.kernel
def carried_copy(X, Y, K: tc.constexpr = 3):
    for _p in tc.parallel(1):
        acc = X.tile((0,), (4,)).load()
        for _k in tc.serial(K):
            x = acc
            acc = acc - x + acc
        Y.tile((0,), (4,)).store(acc)


def test_cancellation_through_a_carried_copy():
    """Seed 1301 program 94's shape: ``acc - x`` with ``x = acc`` carried by a loop."""
    x = np.array([np.inf, -np.inf, np.nan, 2.0], np.float32)
    ref, got = _both(carried_copy, [x, np.zeros(4, np.float32)], [1])
    _same_bits(ref[1], got[1])


# ------------------------------------------------------------- narrow constants


@tc.kernel
def narrow_floats(H, F, B, Q):
    for _p in tc.parallel(1):
        # f16 100.0 / 0.001 overflows to inf (TVM made a literal of 99959.6 and refused it)
        H.tile((0,), (4,)).store(tc.full((4,), 100.0, tc.float16) / 0.001)
        # each f16 step rounds: 1 / 3 * 3 is 1 in f16 only after two roundings
        H.tile((4,), (4,)).store(tc.full((4,), 1.0, tc.float16) / 3.0 * 3.0 - 1.0)
        H.tile((8,), (4,)).store(tc.full((4,), 70000, tc.int32).to(tc.float16))
        H.tile((12,), (4,)).store(tc.full((4,), 2049, tc.int32).to(tc.float16) - 2048.0)
        H.tile((16,), (4,)).store(tc.full((4,), 1e300, tc.float64).to(tc.float16))
        F.tile((0,), (4,)).store(tc.full((4,), 1e300, tc.float64).to(tc.float32))
        F.tile((4,), (4,)).store(tc.full((4,), 0.1, tc.float16).to(tc.float32) - 0.1)
        F.tile((8,), (4,)).store(tc.full((4,), 2**60 + 2**36 + 1, tc.int64).to(tc.float32))
        B.tile((0,), (4,)).store(tc.full((4,), -1e300, tc.float64).to(tc.bfloat16))
        Q.tile((0,), (4,)).store(tc.full((4,), 3e38, tc.float32) * 2.0 - 3e38)


def test_narrow_float_constants_round_and_overflow_to_inf():
    """Seed 1301 program 0 (an internal error at build) and the rounding TVM's cast folds
    skip (a literal keeps its unrounded value through a later widening)."""
    args = [np.zeros(20, np.float16), np.zeros(12, np.float32),
            np.zeros(4, ml_dtypes.bfloat16), np.zeros(4, np.float32)]
    ref, got = _both(narrow_floats, args, [0, 1, 2, 3])
    assert np.isposinf(got[0][:4]).all() and np.isposinf(got[1][:4]).all()
    assert (got[0][12:16] == 0).all() and np.isneginf(np.asarray(got[2], np.float32)).all()
    for i in range(4):
        _same_bits(ref[i], got[i], f"output {i}")


@tc.kernel
def narrow_ints(U, S, W):
    for _p in tc.parallel(1):
        # conversions of constants out of the narrow range wrap (TVM refused the literal)
        U.tile((0,), (2,)).store(tc.full((2,), 300, tc.int32).to(tc.uint8))
        S.tile((0,), (2,)).store(tc.full((2,), 200, tc.int32).to(tc.int8))
        S.tile((2,), (2,)).store(tc.full((2,), 255, tc.uint8).to(tc.int8))
        W.tile((0,), (2,)).store(tc.full((2,), 4000000000, tc.uint32).to(tc.int32))
        W.tile((2,), (2,)).store(tc.full((2,), -1, tc.int8).to(tc.uint32).to(tc.int32))


def test_narrow_integer_conversions_of_constants_wrap():
    args = [np.zeros(2, np.uint8), np.zeros(4, np.int8), np.zeros(4, np.int32)]
    ref, got = _both(narrow_ints, args, [0, 1, 2])
    np.testing.assert_array_equal(got[0], [44, 44])
    np.testing.assert_array_equal(got[1], [-56, -56, -1, -1])
    for i in range(3):
        np.testing.assert_array_equal(ref[i], got[i])


@tc.kernel
def lane_constants(X, H, U, F, N: tc.constexpr = 4):
    for p in tc.parallel(1):
        # p is 0 in a loop of one instance: TVM substitutes it, so these values become
        # constants only inside TVM, after the bridge has spelled them
        r = tc.arange(p * 70000 + 70000, p * 70000 + 70000 + N)
        H.tile((0,), (N,)).store(r.to(tc.float16))
        U.tile((0,), (N,)).store(r.to(tc.uint8))
        x = X.tile((0,), (N,)).load()
        F.tile((0,), (N,)).store(x - x + (tc.full((N,), 100.0, tc.float16) / 0.001).to(
            tc.float32))


def test_constants_tvm_finds_after_substitution():
    args = [np.array([np.inf, np.nan, 1.0, -0.0], np.float32), np.zeros(4, np.float16),
            np.zeros(4, np.uint8), np.zeros(4, np.float32)]
    ref, got = _both(lane_constants, args, [1, 2, 3])
    _same_bits(ref[1], got[1])
    np.testing.assert_array_equal(ref[2], got[2])
    _same_bits(ref[3], got[3])
