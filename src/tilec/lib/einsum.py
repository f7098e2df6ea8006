"""Einsum as a composition: reindex every operand into the joint index space, multiply, reduce.

``tc.einsum(spec, *tiles)`` is itself built from ``reindex`` + ``map`` +
``reduce`` (no einsum opcode); these kernels tile it over memory.
"""

from __future__ import annotations

import numpy as np

import tilec as tc
from tilec.demo import DemoCase

__all__ = ["outer", "einsum_matmul", "row_dot", "DEMOS"]


@tc.kernel
def outer(x, y, Z, BM: tc.constexpr = 32, BN: tc.constexpr = 32):
    """``Z[i, j] = x[i] * y[j]``."""
    M = x.shape[0]
    N = y.shape[0]
    assert Z.shape[0] == M and Z.shape[1] == N, "Z must be len(x) x len(y)"
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        xs = x.tile((pm * BM,), (BM,), fill=0.0)
        ys = y.tile((pn * BN,), (BN,), fill=0.0)
        Z.tile((pm * BM, pn * BN), (BM, BN)).store(tc.einsum("i,j->ij", xs, ys))


@tc.kernel
def einsum_matmul(A, B, C, BM: tc.constexpr = 16, BN: tc.constexpr = 16, BK: tc.constexpr = 8):
    """``C = einsum('ik,kj->ij', A, B)`` accumulated over K tiles (a reduce per tile)."""
    M, K = A.shape
    N = B.shape[1]
    assert B.shape[0] == K, "A is M x K, so B must be K x N"
    assert C.shape[0] == M and C.shape[1] == N, "C must be M x N"
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = acc + tc.einsum("ik,kj->ij", a, b)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def row_dot(A, B, out, BM: tc.constexpr = 16, BK: tc.constexpr = 32):
    """``out[i] = sum_k A[i, k] * B[i, k]``."""
    M, K = A.shape
    assert B.shape[0] == M and B.shape[1] == K, "B must have A's shape"
    assert out.shape[0] == M, "out must have one element per row of A"
    for pm in tc.parallel(tc.cdiv(M, BM)):
        acc = tc.zeros((BM,), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            acc = acc + tc.einsum("ik,ik->i", a, b)
        out.tile((pm * BM,), (BM,)).store(acc)


def _outer_inputs(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal(40).astype(np.float32), rng.standard_normal(37).astype(np.float32),
            np.zeros((40, 37), np.float32))


def _mm_inputs(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal((30, 20)).astype(np.float32),
            rng.standard_normal((20, 25)).astype(np.float32), np.zeros((30, 25), np.float32))


def _rowdot_inputs(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal((21, 70)).astype(np.float32),
            rng.standard_normal((21, 70)).astype(np.float32), np.zeros(21, np.float32))


DEMOS = [
    DemoCase("lib.einsum_outer", outer, _outer_inputs,
             lambda x, y, z: {2: np.einsum("i,j->ij", x.astype(np.float64), y)}),
    DemoCase("lib.einsum_matmul", einsum_matmul, _mm_inputs,
             lambda a, b, c: {2: np.einsum("ik,kj->ij", a.astype(np.float64), b)}),
    DemoCase("lib.einsum_row_dot", row_dot, _rowdot_inputs,
             lambda a, b, o: {2: np.einsum("ik,ik->i", a.astype(np.float64), b)}),
]
