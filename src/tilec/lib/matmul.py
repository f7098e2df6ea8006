"""Matrix products as ordinary kernels: matmul, batched matmul, GEMM with a fused epilogue.

Each is zero initialization plus ``tc.mma`` over K tiles; there is no GEMM
opcode. Bounded windows make ragged edges safe: loads outside the matrices
read 0, stores outside them are dropped. Each kernel asserts its shape
contract (checked on the host before the launch), since bounded windows would
otherwise turn a K mismatch into a silently truncated product.
"""

from __future__ import annotations

import math

import numpy as np

import tilec as tc
from tilec.demo import DemoCase

__all__ = ["matmul", "linear", "pipelined_matmul", "batched_matmul", "gemm_bias_act", "DEMOS"]


@tc.kernel
def matmul(A, B, C, BM: tc.constexpr = tc.tunable(32, 64, 128, 256, default=64),
           BN: tc.constexpr = tc.tunable(32, 64, 128, 256, default=64),
           BK: tc.constexpr = tc.tunable(32, 64), PRECISION: tc.constexpr = "exact"):
    """``C = A @ B`` for row-major ``A: MxK``, ``B: KxN`` (f32 accumulation)."""
    M, K = A.shape
    N = B.shape[1]
    assert B.shape[0] == K, "A is M x K, so B must be K x N"
    assert C.shape[0] == M and C.shape[1] == N, "C must be M x N"
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc, precision=PRECISION)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def linear(A, W, C, BM: tc.constexpr = tc.tunable(32, 64, 128, 256, default=64),
           BN: tc.constexpr = tc.tunable(32, 64, 128, 256, default=64),
           BK: tc.constexpr = tc.tunable(32, 64), PRECISION: tc.constexpr = "exact"):
    """``C = A @ W.T`` for row-major ``A: MxK`` and ``W: NxK`` (a linear layer's weight,
    f32 accumulation). Each ``W`` tile is read as the K-major B operand it already is: no
    transpose is materialized (docs/design/lowering.md, "K-major B operands")."""
    M, K = A.shape
    N = W.shape[0]
    assert W.shape[1] == K, "A is M x K, so W must be N x K"
    assert C.shape[0] == M and C.shape[1] == N, "C must be M x N"
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            w = W.tile((pn * BN, k * BK), (BN, BK), fill=0.0)
            acc = tc.mma(a, w.T, acc, precision=PRECISION)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def pipelined_matmul(A, B, C, BM: tc.constexpr = tc.tunable(32, 64, 128, 256, default=64),
                     BN: tc.constexpr = tc.tunable(32, 64, 128, 256, default=64),
                     BK: tc.constexpr = tc.tunable(32, 64), WINDOW: tc.constexpr = 2):
    """``C = A @ B`` with the K loop cut into a load stage and a compute stage."""
    M, K = A.shape
    N = B.shape[1]
    assert B.shape[0] == K, "A is M x K, so B must be K x N"
    assert C.shape[0] == M and C.shape[1] == N, "C must be M x N"
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.pipeline(tc.cdiv(K, BK), stages=2, window=WINDOW):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0).load()
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0).load()
            tc.stage("compute")
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def batched_matmul(A, B, C, BM: tc.constexpr = tc.tunable(16, 32, 64, 128, default=32),
                   BN: tc.constexpr = tc.tunable(16, 32, 64, 128, default=32),
                   BK: tc.constexpr = tc.tunable(16, 32, 64, default=32)):
    """``C[b] = A[b] @ B[b]`` for every batch index ``b``."""
    NB, M, K = A.shape
    N = B.shape[2]
    assert B.shape[0] == NB, "A and B must hold the same number of matrices"
    assert B.shape[1] == K, "A[b] is M x K, so B[b] must be K x N"
    assert C.shape[0] == NB and C.shape[1] == M and C.shape[2] == N, "C must be NB x M x N"
    for b, pm, pn in tc.parallel(NB, tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((b, pm * BM, k * BK), (1, BM, BK), fill=0.0).reshape(BM, BK)
            w = B.tile((b, k * BK, pn * BN), (1, BK, BN), fill=0.0).reshape(BK, BN)
            acc = tc.mma(a, w, acc)
        C.tile((b, pm * BM, pn * BN), (1, BM, BN)).store(acc)


@tc.func
def activation(x, ACT):
    """The epilogue nonlinearity named by the compile-time string ``ACT``."""
    if ACT == "relu":
        return tc.maximum(x, 0.0)
    if ACT == "gelu":
        return 0.5 * x * (1.0 + tc.erf(x * 0.7071067811865476))
    if ACT == "silu":
        return x * tc.sigmoid(x)
    if ACT == "tanh":
        return tc.tanh(x)
    tc.static_assert(ACT == "none", "ACT is one of none, relu, gelu, silu, tanh")
    return x


@tc.kernel
def gemm_bias_act(A, B, bias, C, BM: tc.constexpr = tc.tunable(32, 64, 128, 256, default=64),
                  BN: tc.constexpr = tc.tunable(32, 64, 128, 256, default=64),
                  BK: tc.constexpr = tc.tunable(32, 64), ACT: tc.constexpr = "relu"):
    """``C = act(A @ B + bias)`` with the bias added and the activation applied in registers."""
    M, K = A.shape
    N = B.shape[1]
    assert B.shape[0] == K, "A is M x K, so B must be K x N"
    assert bias.shape[0] == N, "bias must have one element per column of C"
    assert C.shape[0] == M and C.shape[1] == N, "C must be M x N"
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        bb = bias.tile((pn * BN,), (BN,), fill=0.0)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(activation(acc + bb[None, :], ACT))


# --------------------------------------------------------------------------- demos


def _gelu(x: np.ndarray) -> np.ndarray:
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def _mm_inputs(rng: np.random.Generator) -> tuple:
    a = rng.standard_normal((70, 50)).astype(np.float32)
    b = rng.standard_normal((50, 45)).astype(np.float32)
    return a, b, np.zeros((70, 45), np.float32)


def _linear_inputs(rng: np.random.Generator) -> tuple:
    a = rng.standard_normal((70, 50)).astype(np.float32)
    w = rng.standard_normal((45, 50)).astype(np.float32)
    return a, w, np.zeros((70, 45), np.float32)


def _bmm_inputs(rng: np.random.Generator) -> tuple:
    a = rng.standard_normal((3, 20, 24)).astype(np.float32)
    b = rng.standard_normal((3, 24, 18)).astype(np.float32)
    return a, b, np.zeros((3, 20, 18), np.float32)


def _gemm_inputs(rng: np.random.Generator) -> tuple:
    a, b, c = _mm_inputs(rng)
    return a, b, rng.standard_normal(45).astype(np.float32), c


DEMOS = [
    DemoCase("lib.matmul", matmul, _mm_inputs,
             lambda a, b, c: {2: a.astype(np.float64) @ b}, {"BM": 32, "BN": 32, "BK": 16}),
    DemoCase("lib.linear", linear, _linear_inputs,
             lambda a, w, c: {2: a.astype(np.float64) @ w.T}, {"BM": 32, "BN": 32, "BK": 16}),
    DemoCase("lib.pipelined_matmul", pipelined_matmul, _mm_inputs,
             lambda a, b, c: {2: a.astype(np.float64) @ b}, {"BM": 32, "BN": 32, "BK": 16}),
    DemoCase("lib.batched_matmul", batched_matmul, _bmm_inputs,
             lambda a, b, c: {2: np.matmul(a.astype(np.float64), b)},
             {"BM": 16, "BN": 16, "BK": 16}),
    DemoCase("lib.gemm_bias_gelu", gemm_bias_act, _gemm_inputs,
             lambda a, b, bias, c: {3: _gelu(a.astype(np.float64) @ b + bias)},
             {"BM": 32, "BN": 32, "BK": 16, "ACT": "gelu"}),
]
