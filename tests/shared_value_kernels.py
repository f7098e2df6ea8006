"""Kernels with pure tile values read by several consumers, shared by the shared-SSA tests
(``plan/shared_ssa.py``, ``PlannerOptions.shared_ssa``): a cheap value ``d`` (multiplies
and a subtraction) and an expensive one ``e`` (an exponential), each read twice, a mask
(an ``i1`` tile) read twice, and a value read inside a loop and after it."""

from __future__ import annotations

import numpy as np

import tilec as tc


@tc.kernel
def softmax_parts(X, Y, S, P, Q, B: tc.constexpr = 16, N: tc.constexpr = 32):
    """Per row block: ``d = 0.5 x - y``, ``e = exp(d - max(d))``; ``S`` gets ``e``'s row sums,
    ``P = e * y`` and ``Q = d * y``."""
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, B)):
        x = X.tile((p * B, 0), (B, N), fill=0.0)
        y = Y.tile((p * B, 0), (B, N), fill=0.0)
        d = x * 0.5 - y
        e = tc.exp(d - d.max(1)[:, None])
        S.tile((p * B,), (B,)).store(e.sum(1))
        P.tile((p * B, 0), (B, N)).store(e * y)
        Q.tile((p * B, 0), (B, N)).store(d * y)


@tc.kernel
def masked_twice(X, A, C, B: tc.constexpr = 16, N: tc.constexpr = 32):
    """``A = where(x > 0, x, 0)`` and ``C = where(x > 0, 1, -1)``: the mask read twice."""
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, B)):
        x = X.tile((p * B, 0), (B, N), fill=0.0)
        pos = x > 0.0
        A.tile((p * B, 0), (B, N)).store(tc.where(pos, x, 0.0))
        C.tile((p * B, 0), (B, N)).store(tc.where(pos, 1.0, -1.0))


@tc.kernel
def looped(X, D, Out, B: tc.constexpr = 16, N: tc.constexpr = 32, K: tc.constexpr = 3):
    """``D = d = x * x + 1``, then ``d`` read inside a loop of ``K`` rounds (``acc = acc * 0.5
    + d``) and after it (``Out = acc - d``)."""
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, B)):
        x = X.tile((p * B, 0), (B, N), fill=0.0)
        d = x * x + 1.0
        D.tile((p * B, 0), (B, N)).store(d)
        acc = tc.zeros((B, N), tc.float32)
        for _ in tc.serial(K):
            acc = acc * 0.5 + d
        Out.tile((p * B, 0), (B, N)).store(acc - d)


def softmax_inputs(rows: int = 48, seed: int = 0) -> list[np.ndarray]:
    """``X``, ``Y`` and the three outputs of ``softmax_parts`` (zeros)."""
    r = np.random.default_rng(seed)
    x = r.standard_normal((rows, 32)).astype(np.float32)
    y = r.standard_normal((rows, 32)).astype(np.float32)
    return [x, y, np.zeros(rows, np.float32), np.zeros((rows, 32), np.float32),
            np.zeros((rows, 32), np.float32)]


def numpy_softmax_parts(x: np.ndarray, y: np.ndarray, b: int = 16
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What ``softmax_parts`` computes, in numpy (float64)."""
    d = x.astype(np.float64) * 0.5 - y
    e = np.concatenate([np.exp(blk - blk.max(1, keepdims=True))
                        for blk in np.split(d, range(b, len(d), b))])
    return e.sum(1), e * y, d * y
