"""Row softmax: one tile per row block, and an online (streaming) version for long rows.

Out-of-range columns load as ``-inf``, so they add ``exp(-inf) = 0`` to the
row sum without a mask. The one-tile ``softmax`` refuses rows longer than
``BN`` (its assert is checked before the launch) instead of normalizing only
their first ``BN`` columns.
"""

from __future__ import annotations

import numpy as np

import tilec as tc
from tilec.demo import DemoCase

__all__ = ["softmax", "online_softmax", "DEMOS"]


@tc.kernel
def softmax(X, Y, BM: tc.constexpr = tc.tunable(1, 2, 4, 8, 16, default=4),
            BN: tc.constexpr = 128):
    """``Y = softmax(X, axis=1)`` for rows of at most ``BN`` elements."""
    M, N = X.shape
    assert N <= BN, "softmax holds a row in one tile: pass BN >= N or use online_softmax"
    assert Y.shape[0] == M and Y.shape[1] == N, "Y must have X's shape"
    for pm in tc.parallel(tc.cdiv(M, BM)):
        x = X.tile((pm * BM, 0), (BM, BN), fill=float("-inf"))
        e = tc.exp(x - tc.max(x, axis=1)[:, None])
        Y.tile((pm * BM, 0), (BM, BN)).store(e / tc.sum(e, axis=1)[:, None])


@tc.kernel
def online_softmax(X, Y, BM: tc.constexpr = tc.tunable(1, 2, 4, 8, 16, default=4),
                   BN: tc.constexpr = tc.tunable(32, 64, 128, 256)):
    """Softmax of rows of any length: a running max and rescaled sum, then a second pass."""
    M, N = X.shape
    assert Y.shape[0] == M and Y.shape[1] == N, "Y must have X's shape"
    for pm in tc.parallel(tc.cdiv(M, BM)):
        m = tc.full((BM,), float("-inf"))
        s = tc.zeros((BM,))
        for j in tc.serial(tc.cdiv(N, BN)):
            x = X.tile((pm * BM, j * BN), (BM, BN), fill=float("-inf"))
            m_new = tc.maximum(m, tc.max(x, axis=1))
            s = s * tc.exp(m - m_new) + tc.sum(tc.exp(x - m_new[:, None]), axis=1)
            m = m_new
        for j in tc.serial(tc.cdiv(N, BN)):
            x = X.tile((pm * BM, j * BN), (BM, BN), fill=float("-inf"))
            Y.tile((pm * BM, j * BN), (BM, BN)).store(tc.exp(x - m[:, None]) / s[:, None])


def reference_softmax(x: np.ndarray) -> np.ndarray:
    """Numpy softmax over the last axis, in float64."""
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _inputs(rng: np.random.Generator) -> tuple:
    return rng.standard_normal((10, 100)).astype(np.float32), np.zeros((10, 100), np.float32)


DEMOS = [
    DemoCase("lib.softmax", softmax, _inputs, lambda x, y: {1: reference_softmax(x)}),
    DemoCase("lib.online_softmax", online_softmax, _inputs,
             lambda x, y: {1: reference_softmax(x)}),
]
