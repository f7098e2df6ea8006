"""Row reductions over rows of any length: a carried accumulator per row block."""

from __future__ import annotations

import numpy as np

import tilec as tc
from tilec.demo import DemoCase

__all__ = ["row_sum", "row_max", "row_mean_strict", "DEMOS"]


@tc.kernel
def row_sum(X, out, BM: tc.constexpr = 8, BN: tc.constexpr = 32):
    """``out[i] = sum_j X[i, j]`` (default policy: any summation order)."""
    M, N = X.shape
    assert out.shape[0] == M, "out must have one element per row of X"
    for pm in tc.parallel(tc.cdiv(M, BM)):
        acc = tc.zeros((BM,))
        for j in tc.serial(tc.cdiv(N, BN)):
            acc = acc + tc.sum(X.tile((pm * BM, j * BN), (BM, BN), fill=0.0), axis=1)
        out.tile((pm * BM,), (BM,)).store(acc)


@tc.kernel
def row_max(X, out, BM: tc.constexpr = 8, BN: tc.constexpr = 32):
    """``out[i] = max_j X[i, j]`` (IEEE maximum: NaN propagates)."""
    M, N = X.shape
    assert out.shape[0] == M, "out must have one element per row of X"
    for pm in tc.parallel(tc.cdiv(M, BM)):
        acc = tc.full((BM,), float("-inf"))
        for j in tc.serial(tc.cdiv(N, BN)):
            x = X.tile((pm * BM, j * BN), (BM, BN), fill=float("-inf"))
            acc = tc.maximum(acc, tc.max(x, axis=1))
        out.tile((pm * BM,), (BM,)).store(acc)


@tc.kernel
def row_mean_strict(X, out, BM: tc.constexpr = 8, BN: tc.constexpr = 128):
    """``out[i] = mean_j X[i, j]`` summed in source order (bit-identical on every target)."""
    M, N = X.shape
    assert N <= BN, "row_mean_strict holds a row in one tile: pass BN >= N"
    assert out.shape[0] == M, "out must have one element per row of X"
    for pm in tc.parallel(tc.cdiv(M, BM)):
        x = X.tile((pm * BM, 0), (BM, BN), fill=0.0)
        total = tc.sum(x, axis=1, policy="strict_fold")
        out.tile((pm * BM,), (BM,)).store(total / tc.float32(N))


def _inputs(rng: np.random.Generator) -> tuple:
    return rng.standard_normal((19, 75)).astype(np.float32), np.zeros(19, np.float32)


DEMOS = [
    DemoCase("lib.row_sum", row_sum, _inputs, lambda x, o: {1: x.astype(np.float64).sum(1)}),
    DemoCase("lib.row_max", row_max, _inputs, lambda x, o: {1: x.max(1)}),
    DemoCase("lib.row_mean_strict", row_mean_strict, _inputs,
             lambda x, o: {1: x.astype(np.float64).mean(1)}),
]
