"""Layer normalization and RMS normalization over rows.

One tile spans a whole row (``BN >= N``, asserted before the launch). Columns
beyond ``N`` load as 0; the centred values are multiplied by a valid-prefix
mask (``masks.prefix_mask``) so they do not enter the variance.
"""

from __future__ import annotations

import numpy as np

import tilec as tc
from tilec.demo import DemoCase

from .masks import prefix_mask

__all__ = ["layernorm", "rmsnorm", "DEMOS"]


@tc.kernel
def layernorm(X, W, B, Y, eps, BM: tc.constexpr = tc.tunable(1, 2, 4, 8, 16, default=4),
              BN: tc.constexpr = 128):
    """``Y = (X - mean) / sqrt(var + eps) * W + B`` per row (biased variance)."""
    M, N = X.shape
    assert N <= BN, "layernorm holds a row in one tile: pass BN >= N"
    assert W.shape[0] == N and B.shape[0] == N, "W and B must have one element per column"
    assert Y.shape[0] == M and Y.shape[1] == N, "Y must have X's shape"
    n = tc.float32(N)
    for pm in tc.parallel(tc.cdiv(M, BM)):
        x = X.tile((pm * BM, 0), (BM, BN), fill=0.0)
        mean = tc.sum(x, axis=1) / n
        xc = (x - mean[:, None]) * prefix_mask(N, BN)[None, :]
        var = tc.sum(xc * xc, axis=1) / n
        w = W.tile((0,), (BN,), fill=0.0)
        b = B.tile((0,), (BN,), fill=0.0)
        y = xc * tc.rsqrt(var + eps)[:, None] * w[None, :] + b[None, :]
        Y.tile((pm * BM, 0), (BM, BN)).store(y)


@tc.kernel
def rmsnorm(X, W, Y, eps, BM: tc.constexpr = tc.tunable(1, 2, 4, 8, 16, default=4),
            BN: tc.constexpr = 128):
    """``Y = X / sqrt(mean(X**2) + eps) * W`` per row."""
    M, N = X.shape
    assert N <= BN, "rmsnorm holds a row in one tile: pass BN >= N"
    assert W.shape[0] == N, "W must have one element per column"
    assert Y.shape[0] == M and Y.shape[1] == N, "Y must have X's shape"
    n = tc.float32(N)
    for pm in tc.parallel(tc.cdiv(M, BM)):
        x = X.tile((pm * BM, 0), (BM, BN), fill=0.0)
        r = tc.rsqrt(tc.sum(x * x, axis=1) / n + eps)
        w = W.tile((0,), (BN,), fill=0.0)
        Y.tile((pm * BM, 0), (BM, BN)).store(x * r[:, None] * w[None, :])


def reference_layernorm(x, w, b, eps):
    """Numpy layer norm in float64."""
    x = x.astype(np.float64)
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def reference_rmsnorm(x, w, eps):
    """Numpy RMS norm in float64."""
    x = x.astype(np.float64)
    return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps) * w


def _ln_inputs(rng: np.random.Generator) -> tuple:
    x = (rng.standard_normal((10, 100)) * 2 + 1).astype(np.float32)
    w = rng.standard_normal(100).astype(np.float32)
    b = rng.standard_normal(100).astype(np.float32)
    return x, w, b, np.zeros_like(x), 1e-5


def _rms_inputs(rng: np.random.Generator) -> tuple:
    x, w, _, y, eps = _ln_inputs(rng)
    return x, w, y, eps


DEMOS = [
    DemoCase("lib.layernorm", layernorm, _ln_inputs,
             lambda x, w, b, y, eps: {3: reference_layernorm(x, w, b, eps)}),
    DemoCase("lib.rmsnorm", rmsnorm, _rms_inputs,
             lambda x, w, y, eps: {2: reference_rmsnorm(x, w, eps)}),
]
