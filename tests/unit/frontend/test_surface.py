"""The rest of the DSL surface, run on the reference interpreter against numpy."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir

try:
    import tilec.targets.reference.backend  # noqa: F401

    HAVE_REFERENCE = True
except ImportError:  # pragma: no cover - depends on the checkout
    HAVE_REFERENCE = False

pytestmark = pytest.mark.skipif(not HAVE_REFERENCE,
                                reason="the reference backend is not importable")

RNG = np.random.default_rng(7)


@tc.func
def clamp(x, lo=-1.0, hi=1.0):
    return tc.minimum(tc.maximum(x, lo), hi)


@tc.kernel
def math_kernel(X, Y, s, D: tc.constexpr = 16):
    for p in tc.parallel(tc.cdiv(X.shape[0], 8)):
        x = X.tile((p * 8,), (8,), fill=0.0)
        y = tc.exp2(x) + tc.log(tc.abs(x) + 1.0) + tc.sqrt(x * x) + tc.tanh(x) + tc.erf(x)
        y = y + clamp(x * s) / math.sqrt(D) + tc.floor(x) + tc.ceil(x) + tc.sin(x) * tc.cos(x)
        y = y + tc.fma(x, x, 1.0) + x ** 2 + x % 0.5
        Y.tile((p * 8,), (8,)).store(y)


def test_elementwise_math_and_helpers():
    x = RNG.standard_normal(21).astype(np.float32)
    y = np.zeros_like(x)
    tc.interpret(math_kernel, x, y, np.float32(3.0))
    z = x.astype(np.float64)
    erf = np.vectorize(math.erf)
    want = (np.exp2(z) + np.log(np.abs(z) + 1) + np.abs(z) + np.tanh(z) + erf(z)
            + np.clip(z * 3, -1, 1) / 4 + np.floor(z) + np.ceil(z) + np.sin(z) * np.cos(z)
            + z * z + 1 + z * z + np.mod(z, 0.5))
    np.testing.assert_allclose(y, want, rtol=2e-5, atol=2e-5)


@tc.kernel
def int_kernel(X, Y, n):
    for p in tc.parallel(1):
        x = X.tile((0,), (8,), fill=0)
        sel = tc.where((x > 2) & (x < 7), x // 2, x % 3)
        half = n // 2 if n > 0 else 0
        Y.tile((0,), (8,)).store(sel + half + min(n, 5) - abs(p))


def test_integer_tiles_and_scalar_selects():
    x = np.arange(-3, 5, dtype=np.int32)
    y = np.zeros_like(x)
    tc.interpret(int_kernel, x, y, 9)
    want = np.where((x > 2) & (x < 7), x // 2, x % 3) + 4 + 5
    np.testing.assert_array_equal(y, want)


@tc.kernel
def views_kernel(X, Y):
    for _p in tc.parallel(1):
        x = X.tile((0, 0), (4, 6), fill=0.0)
        a = x.T[1:5, :]                               # 4x4
        b = tc.broadcast(tc.sum(x, axis=1, keepdims=True), (4, 4))
        c = x.reshape(6, 4)[0:4, :] + tc.expand_dims(x[:, 2], 1)
        d = tc.permute(x[0:4, 0:4], (1, 0))
        Y.tile((0, 0), (4, 4)).store(a + b + c + d)


def test_views_compose():
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    y = np.zeros((4, 4), np.float32)
    tc.interpret(views_kernel, x, y)
    want = x.T[1:5] + x.sum(1, keepdims=True) + x.reshape(6, 4)[:4] + x[:, 2:3] + x[:4, :4].T
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


@tc.kernel
def half_kernel(A, B, C):
    for _p in tc.parallel(1):
        a = A.tile((0, 0), (16, 16), fill=0.0)
        b = B.tile((0, 0), (16, 16), fill=0.0)
        acc = a @ b
        C.tile((0, 0), (16, 16)).store(acc + tc.sum(a, axis=1, dtype=tc.float32)[:, None])


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_half_precision_operands_accumulate_in_f32(dtype):
    a = RNG.standard_normal((16, 16)).astype(dtype)
    b = RNG.standard_normal((16, 16)).astype(dtype)
    c = np.zeros((16, 16), dtype)
    compiled = tc.compile(half_kernel, a, b, c, target="reference")
    mma = next(op for op in compiled.module.walk() if op.name == "mma")
    assert mma.operand(2).type.dtype is ir.f32
    compiled(a, b, c)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    want = a64 @ b64 + a64.sum(1, keepdims=True)
    np.testing.assert_allclose(c.astype(np.float64), want, rtol=2e-2, atol=5e-2)


@tc.kernel
def memory_kernel(X, Y, S):
    for p in tc.parallel(tc.cdiv(X.shape[0], 4)):
        buf = tc.memory((4,), tc.float32, space="local")
        buf.store(X.tile((p * 4,), (4,), fill=0.0) * 2.0)
        v = buf.load()
        Y.tile((p * 4,), (4,)).atomic_add(v)
        S.tile((0,), (1,)).atomic_add(tc.sum(v, axis=0, keepdims=True))


def test_memory_and_atomics():
    x = RNG.standard_normal(10).astype(np.float32)
    y = np.ones(10, np.float32)
    s = np.zeros(1, np.float32)
    tc.interpret(memory_kernel, x, y, s)
    np.testing.assert_allclose(y, 1 + 2 * x, rtol=1e-6)
    np.testing.assert_allclose(s, [2 * x.sum()], rtol=1e-5)


@tc.kernel
def einsum_kernel(A, B, Y):
    for _p in tc.parallel(1):
        a = A.tile((0, 0, 0), (2, 3, 4), fill=0.0)
        b = B.tile((0, 0), (4, 5), fill=0.0)
        Y.tile((0, 0, 0), (2, 5, 3)).store(tc.einsum("bik,kj->bji", a, b))


def test_einsum_composition():
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    b = RNG.standard_normal((4, 5)).astype(np.float32)
    y = np.zeros((2, 5, 3), np.float32)
    tc.interpret(einsum_kernel, a, b, y)
    np.testing.assert_allclose(y, np.einsum("bik,kj->bji", a, b), rtol=1e-5, atol=1e-5)


@tc.kernel
def bool_kernel(X, Y, lo, hi):
    for _p in tc.parallel(1):
        x = X.tile((0,), (4,), fill=0.0)
        inside = lo < 3 and hi > 3
        if inside or lo == 0:
            x = x + 1.0
        if not inside:
            x = -x
        Y.tile((0,), (4,)).store(x)


@pytest.mark.parametrize("lo,hi,sign,add", [(1, 5, 1, 1), (4, 5, -1, 0), (0, 1, -1, 1)])
def test_boolean_scalars(lo, hi, sign, add):
    x = np.arange(4, dtype=np.float32)
    y = np.zeros_like(x)
    tc.interpret(bool_kernel, x, y, lo, hi)
    np.testing.assert_array_equal(y, sign * (x + add))
