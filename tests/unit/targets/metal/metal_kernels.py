"""Small kernels whose MSL the Metal tests golden-check, check and refuse.

Each golden subject exercises one part of the emitter: ``scale_add`` the vectorized,
guarded global accesses; ``row_max_small`` the SIMD-group shuffle butterfly;
``int_div_tile`` ``vote.any`` (a divisor read from the elements) and a device check;
``matmul_small`` threadgroup staging, barriers and the lane-FFMA product.
"""

from __future__ import annotations

import numpy as np

import tilec as tc


@tc.kernel
def scale_add(X, Y, a, B: tc.constexpr = 128):
    """``Y = a * X + 1``."""
    for p in tc.parallel(tc.cdiv(X.shape[0], B)):
        x = X.tile((p * B,), (B,), fill=0.0)
        Y.tile((p * B,), (B,)).store(x * a + 1.0)


@tc.kernel
def row_max_small(X, out, BM: tc.constexpr = 4, BN: tc.constexpr = 64):
    """``out[i] = max_j X[i, j]`` for rows of at most ``BN`` elements."""
    M, N = X.shape
    assert N <= BN, "a row must fit one tile"
    for pm in tc.parallel(tc.cdiv(M, BM)):
        x = X.tile((pm * BM, 0), (BM, BN), fill=float("-inf"))
        out.tile((pm * BM,), (BM,)).store(tc.max(x, axis=1))


@tc.kernel
def int_div_tile(X, D, Y, B: tc.constexpr = 64):
    """``Y = X // D`` elementwise on i32 (floor division by elements)."""
    for p in tc.parallel(tc.cdiv(X.shape[0], B)):
        x = X.tile((p * B,), (B,), fill=0)
        d = D.tile((p * B,), (B,), fill=1)
        Y.tile((p * B,), (B,)).store(x // d)


@tc.kernel
def matmul_small(A, B, C, BM: tc.constexpr = 8, BN: tc.constexpr = 16, BK: tc.constexpr = 4):
    """``C = A @ B`` with 8x16 output tiles and a K loop of 4."""
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def add_f64(X, Y, B: tc.constexpr = 64):
    """``Y = X + X`` on f64 (Metal has no f64)."""
    for p in tc.parallel(tc.cdiv(X.shape[0], B)):
        x = X.tile((p * B,), (B,), fill=0.0)
        Y.tile((p * B,), (B,)).store(x + x)


@tc.kernel
def dead_f64(X, s, Y, B: tc.constexpr = 4):
    """``Y = 1`` with an f64 array whose load is dead and an unused f64 scalar (a fuzzer
    finding: the emitter refused the parameter without a source location)."""
    for p in tc.parallel(2):
        unused = X.tile((0,), (1,), fill=1.0).load()  # noqa: F841
        Y.tile((p * B,), (B,)).store(tc.full((B,), 1.0, tc.float32))


@tc.kernel
def scatter_add(X, Y, B: tc.constexpr = 64):
    """Every program adds its window of ``X`` into ``Y[:B]`` (atomics)."""
    for p in tc.parallel(tc.cdiv(X.shape[0], B)):
        Y.tile((0,), (B,)).atomic_add(X.tile((p * B,), (B,), fill=0.0))


def _f32(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def golden_args(name: str) -> list:
    """Example arguments each golden subject is compiled with (ragged shapes)."""
    rng = np.random.default_rng(0)
    if name == "scale_add":
        return [_f32(rng, 300), np.zeros(300, np.float32), np.float32(2.0)]
    if name == "row_max_small":
        return [_f32(rng, 10, 50), np.zeros(10, np.float32)]
    if name == "int_div_tile":
        x = rng.integers(-100, 100, 200).astype(np.int32)
        d = rng.integers(1, 9, 200).astype(np.int32)
        return [x, d, np.zeros(200, np.int32)]
    if name == "matmul_small":
        return [_f32(rng, 20, 12), _f32(rng, 12, 24), np.zeros((20, 24), np.float32)]
    raise KeyError(name)


GOLDEN = {"scale_add": scale_add, "row_max_small": row_max_small,
          "int_div_tile": int_div_tile, "matmul_small": matmul_small}
"""The golden subjects by name."""


@tc.kernel
def conversions(X, H, G, J, K, B: tc.constexpr = 64):
    """Integers to 16-bit floats and floats to integers (none of it through ``double``):
    ``H = f16(X)``, ``G = bf16(X)``, ``J = i32(H)``, ``K = i8(G)``."""
    for p in tc.parallel(tc.cdiv(X.shape[0], B)):
        i = X.tile((p * B,), (B,), fill=0)
        h = i.to(tc.float16)
        g = i.to(tc.bfloat16)
        H.tile((p * B,), (B,)).store(h)
        G.tile((p * B,), (B,)).store(g)
        J.tile((p * B,), (B,)).store(h.to(tc.int32))
        K.tile((p * B,), (B,)).store(g.to(tc.int8))
