"""Transpose: each program reads one tile and writes its ``.T`` (a ``reindex``)."""

from __future__ import annotations

import numpy as np

import tilec as tc
from tilec.demo import DemoCase

__all__ = ["transpose", "DEMOS"]


@tc.kernel
def transpose(X, Y, BM: tc.constexpr = 32, BN: tc.constexpr = 32):
    """``Y = X.T``."""
    M, N = X.shape
    assert Y.shape[0] == N and Y.shape[1] == M, "Y must have X's shape reversed"
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        x = X.tile((pm * BM, pn * BN), (BM, BN), fill=0.0)
        Y.tile((pn * BN, pm * BM), (BN, BM)).store(x.T)


def _inputs(rng: np.random.Generator) -> tuple:
    x = rng.standard_normal((45, 70)).astype(np.float32)
    return x, np.zeros((70, 45), np.float32)


DEMOS = [DemoCase("lib.transpose", transpose, _inputs, lambda x, y: {1: x.T.copy()})]
