"""Matrix kernels with an elementwise epilogue between the accumulator and its store,
shared by the scalar-epilogue proof's tests and the lowering's simulated tests."""

from __future__ import annotations

import tilec as tc


@tc.func
def product(A, B, pm, pn, BM, BN, BK):
    """The f32 accumulator of output tile ``(pm, pn)`` of ``A @ B``."""
    K = A.shape[1]
    acc = tc.zeros((BM, BN), tc.float32)
    for k in tc.serial(tc.cdiv(K, BK)):
        a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
        b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
        acc = tc.mma(a, b, acc)
    return acc


@tc.kernel
def scaled_relu(A, B, C, alpha, BM: tc.constexpr = 64, BN: tc.constexpr = 64,
                BK: tc.constexpr = 64):
    """``C = max(alpha * (A @ B), 0)`` stored in ``C``'s type."""
    M = A.shape[0]
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = product(A, B, pm, pn, BM, BN, BK)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(tc.maximum(acc * alpha, 0.0))


@tc.kernel
def plus_residual(A, B, R, C, BM: tc.constexpr = 64, BN: tc.constexpr = 64,
                  BK: tc.constexpr = 64):
    """``C = A @ B + 2 R``: the residual is a computed tile, not a reindexed load."""
    M = A.shape[0]
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = product(A, B, pm, pn, BM, BN, BK)
        r = R.tile((pm * BM, pn * BN), (BM, BN), fill=0.0).load() * 2.0
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc + r)
