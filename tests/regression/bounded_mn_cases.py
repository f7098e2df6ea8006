"""Kernels and inputs shared by the bounded M/N views tests
(``tests/unit/lower/test_bounded_mn.py`` in the simulators,
``tests/device/test_cuda_bounded_mn.py`` on the GPU)."""

from __future__ import annotations

import numpy as np

import tilec as tc

__all__ = ["matmul_from", "special"]


@tc.kernel
def matmul_from(A, B, C, INIT: tc.constexpr = -0.0, BM: tc.constexpr = 32,
                BN: tc.constexpr = 32, BK: tc.constexpr = 32):
    """``C = INIT + A @ B`` (a literal initial accumulator: ``-0.0`` keeps signed zeros)."""
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.full((BM, BN), INIT, tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


def special(m: int, n: int, k: int, out: tuple[int, int] | None = None,
            dt: type = np.float32) -> list[np.ndarray]:
    """Small integers (exact products and sums) with infinities, NaN and signed zeros in
    the last rows of A and the last columns of B (inside the arrays, at the edge tiles),
    and in rows and columns whose products are signed zeros; A and B of type ``dt`` (every
    value is exact in 16-bit floats too), C float32."""
    r = np.random.default_rng(m * n + k)
    a = r.integers(-2, 3, (m, k)).astype(np.float32)
    b = r.integers(-2, 3, (k, n)).astype(np.float32)
    a[m - 1, 3] = np.inf
    a[m - 2, 5] = np.nan
    a[m - 3, :] = -0.0
    a[m - 4, :] = 0.0
    b[3, n - 1] = -np.inf
    b[:, n - 2] = -np.abs(b[:, n - 2]) - 1.0  # +0 rows of A against it: -0.0 sums
    b[5, n - 3] = 0.0
    b[:, n - 4] = 0.0
    b[7, 0] = np.inf  # 0 * inf in the +-0 rows of A
    return [a.astype(dt), b.astype(dt), np.zeros(out or (m, n), np.float32)]
