"""Float ``maximum``/``minimum`` on the GPU are IEEE 754-2019's on every pair of special
values (NaN either side, -0.0 below +0.0, infinities, subnormals), elementwise and as row
reductions: f32 takes ``max.NaN``/``min.NaN``, f64 compares and selects, 16-bit floats
compute in f32. Outputs are poisoned first; zeros are compared with their signs."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from paths import on_device, to_host
from tilec.targets.numerics import ieee_maximum, ieee_minimum

pytestmark = pytest.mark.usefixtures("torch_cuda")

SPECIALS = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40]
DTYPES = [np.float32, np.float64, ml_dtypes.bfloat16, np.float16]


@tc.kernel
def pairwise(A, B, MX, MN, N: tc.constexpr = 81):
    for _p in tc.parallel(1):
        a = A.tile((0,), (N,)).load()
        b = B.tile((0,), (N,)).load()
        MX.tile((0,), (N,)).store(tc.maximum(a, b))
        MN.tile((0,), (N,)).store(tc.minimum(a, b))


@tc.kernel
def rows(X, RMX, RMN, R: tc.constexpr = 9, C: tc.constexpr = 9):
    for _p in tc.parallel(1):
        x = X.tile((0, 0), (R, C)).load()
        RMX.tile((0,), (R,)).store(tc.max(x, axis=1))
        RMN.tile((0,), (R,)).store(tc.min(x, axis=1))


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    g, w = got.astype(np.float64), want.astype(np.float64)
    nan = np.isnan(w)
    return bool((np.isnan(g) == nan).all() and (g[~nan] == w[~nan]).all()
                and (np.signbit(g[~nan]) == np.signbit(w[~nan])).all())


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_pairs_of_special_values(torch_cuda: Any, dtype) -> None:
    vals = np.array(SPECIALS, np.float64).astype(dtype)
    a = np.repeat(vals, len(vals))
    b = np.tile(vals, len(vals))
    nan = np.full(a.shape, np.nan, dtype)
    args = on_device(torch_cuda, [a, b, nan, nan.copy()])
    tc.compile(pairwise, *args, target="cuda")(*args)
    mx, mn = to_host(torch_cuda, args[2]), to_host(torch_cuda, args[3])
    assert _same(mx, ieee_maximum(a, b).astype(dtype))
    assert _same(mn, ieee_minimum(a, b).astype(dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_row_reductions_of_special_values(torch_cuda: Any, dtype) -> None:
    rng = np.random.default_rng(7)
    vals = np.array(SPECIALS, np.float64).astype(dtype)
    x = np.stack([rng.permutation(vals) for _ in range(9)])
    x[0] = [0.0, -0.0, -0.0, 0.0, -1.0, -1e-40, -0.0, 0.0, -0.0]  # the sign of the zero
    x[1] = [-0.0] * 9
    nan = np.full(9, np.nan, dtype)
    args = on_device(torch_cuda, [x, nan, nan.copy()])
    tc.compile(rows, *args, target="cuda")(*args)
    mx, mn = to_host(torch_cuda, args[1]), to_host(torch_cuda, args[2])
    want_mx = x[:, 0].astype(np.float64)
    want_mn = x[:, 0].astype(np.float64)
    for j in range(1, 9):  # any order gives the same result: maximum is associative
        want_mx = ieee_maximum(want_mx, x[:, j].astype(np.float64))
        want_mn = ieee_minimum(want_mn, x[:, j].astype(np.float64))
    assert _same(mx, want_mx.astype(dtype))
    assert _same(mn, want_mn.astype(dtype))
