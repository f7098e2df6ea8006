"""A matrix product over windows without a fill (their outside elements unspecified,
read as NaN), shared by the lowering tests and their GPU twin."""

from __future__ import annotations

import tilec as tc


@tc.kernel
def unfilled_matmul(A, B, C, BM: tc.constexpr, BN: tc.constexpr, BK: tc.constexpr):
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            acc = tc.mma(A.tile((pm * BM, k * BK), (BM, BK)),
                         B.tile((k * BK, pn * BN), (BK, BN)), acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)
