"""Layer normalization over rows, with a scalar ``eps`` argument.

Columns past the row length load as 0; a valid-prefix mask (a tile built
from a bounded view, ``tilec.lib.prefix_mask``) keeps them out of the
variance. ``tc.float32(N)`` converts the symbolic row length to a float.
Run ``python examples/layernorm.py``.
"""

from __future__ import annotations

import numpy as np

import tilec as tc
from tilec.demo import DemoCase
from tilec.lib import prefix_mask


@tc.kernel
def layernorm(X, W, B, Y, eps, BM: tc.constexpr = 4, BN: tc.constexpr = 128):
    """``Y = (X - mean) / sqrt(var + eps) * W + B`` per row."""
    M, N = X.shape
    assert N <= BN, "one tile holds a whole row: pass BN >= N"  # checked before the launch
    assert W.shape[0] == N and B.shape[0] == N, "W and B must have one element per column"
    assert Y.shape[0] == M and Y.shape[1] == N, "Y must have X's shape"
    n = tc.float32(N)
    for pm in tc.parallel(tc.cdiv(M, BM)):
        x = X.tile((pm * BM, 0), (BM, BN), fill=0.0)
        mean = tc.sum(x, axis=1) / n
        xc = (x - mean[:, None]) * prefix_mask(N, BN)[None, :]
        rstd = tc.rsqrt(tc.sum(xc * xc, axis=1) / n + eps)
        w = W.tile((0,), (BN,), fill=0.0)
        b = B.tile((0,), (BN,), fill=0.0)
        Y.tile((pm * BM, 0), (BM, BN)).store(xc * rstd[:, None] * w[None, :] + b[None, :])


def make_inputs(rng: np.random.Generator) -> tuple:
    """``X`` (20 x 100), weight, bias, the output ``Y`` and ``eps``."""
    x = (rng.standard_normal((20, 100)) * 3 + 2).astype(np.float32)
    w = rng.standard_normal(100).astype(np.float32)
    b = rng.standard_normal(100).astype(np.float32)
    return x, w, b, np.zeros_like(x), 1e-5


def reference(x, w, b, y, eps) -> dict[int, np.ndarray]:
    """The expected value of each output argument, by position."""
    z = x.astype(np.float64)
    mu = z.mean(axis=1, keepdims=True)
    var = ((z - mu) ** 2).mean(axis=1, keepdims=True)
    return {3: (z - mu) / np.sqrt(var + eps) * w + b}


DEMOS = [DemoCase("examples.layernorm", layernorm, make_inputs, reference)]

if __name__ == "__main__":
    from _common import run_example

    raise SystemExit(0 if run_example(DEMOS[0]) else 1)
