"""Matrix kernels with an elementwise epilogue between the accumulator and its store,
shared by the scalar-epilogue proof's tests and the lowering's simulated tests."""

from __future__ import annotations

import tilec as tc
from tilec.lib.matmul import activation


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


@tc.kernel
def residual_act(A, B, R, C, BM: tc.constexpr = 64, BN: tc.constexpr = 64,
                 BK: tc.constexpr = 64, ACT: tc.constexpr = "gelu"):
    """``C = act(A @ B + R)``: the residual is a window of the output's shape, loaded in
    the epilogue (an owned load: each owner of an accumulator element loads its own)."""
    M = A.shape[0]
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = product(A, B, pm, pn, BM, BN, BK)
        r = R.tile((pm * BM, pn * BN), (BM, BN), fill=0.0)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(activation(acc + r, ACT))


@tc.kernel
def reduced_residual(A, B, X, C, BM: tc.constexpr = 64, BN: tc.constexpr = 64,
                     BK: tc.constexpr = 64):
    """``C = A @ B + rowsum(X)[:, None]``: the added tile is a reduction's result (a
    computed tile), not a load."""
    M = A.shape[0]
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = product(A, B, pm, pn, BM, BN, BK)
        s = tc.sum(X.tile((pm * BM, 0), (BM, 16), fill=0.0), axis=1)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc + s[:, None])


@tc.kernel
def residual_kept(A, B, R, C, D, BM: tc.constexpr = 64, BN: tc.constexpr = 64,
                  BK: tc.constexpr = 64):
    """``C = A @ B + 2 R`` and ``D = 2 R``: the scaled residual has a second reader, so it
    is a computed tile of its own (not merged into the epilogue)."""
    M = A.shape[0]
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = product(A, B, pm, pn, BM, BN, BK)
        r = R.tile((pm * BM, pn * BN), (BM, BN), fill=0.0).load() * 2.0
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc + r)
        D.tile((pm * BM, pn * BN), (BM, BN)).store(r)


@tc.kernel
def transposed(A, B, C, BM: tc.constexpr = 64, BK: tc.constexpr = 64):
    """``C = (A @ B).T`` by tiles: element ``(i, j)`` of the stored tile is element
    ``(j, i)`` of the accumulator (a neighbour read)."""
    M = A.shape[0]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(M, BM)):
        acc = product(A, B, pm, pn, BM, BM, BK)
        C.tile((pn * BM, pm * BM), (BM, BM)).store(acc.T * 2.0)
