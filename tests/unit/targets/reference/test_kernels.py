"""Whole kernels built by hand (matmul, row softmax) run through the reference target vs numpy."""

from __future__ import annotations

import time

import ml_dtypes
import numpy as np
import pytest
from refir import K, bits, mem, poisoned, tile

import tilec.ir as ir
from tilec.runtime import get_backend


def matmul_kernel(bm: int, bn: int, bk: int, dt: ir.ScalarType = ir.f32,
                  precision: str = "exact", order: str = "strict_fold") -> K:
    """C = A @ B with a grid of (cdiv(M, bm), cdiv(N, bn)) programs and a serial K loop."""
    k = K("matmul", [("A", mem(["M", "K"], dt)), ("B", mem(["K", "N"], dt)),
                     ("C", mem(["M", "N"]))],
          shape_symbols=("M", "N", "K"), shape_bindings=((0, 0), (1, 1), (0, 1)))
    A, B, C, M, N, KK = k.args
    BM, BN, BK = k.idx(bm), k.idx(bn), k.idx(bk)
    gm, gn, nk = k.arith("cdiv", M, BM), k.arith("cdiv", N, BN), k.arith("cdiv", KK, BK)

    def program(pm, pn):
        m0, n0 = k.arith("mul", pm, BM), k.arith("mul", pn, BN)
        acc0 = k.const(0.0, tile([bm, bn]))

        def step(kk, acc):
            k0 = k.arith("mul", kk, BK)
            a = k.load(k.view(A, [m0, k0], [bm, bk]), fill=0.0)
            b = k.load(k.view(B, [k0, n0], [bk, bn]), fill=0.0)
            return [k.mma(a, b, acc, precision, order)]

        (acc,) = k.serial(k.idx(0), nk, k.idx(1), [acc0], step)
        k.store(k.view(C, [m0, n0], [bm, bn]), acc)
        return []

    k.parallel([gm, gn], [], program)
    k.ret()
    return k


def strict_matmul_oracle(a: np.ndarray, b: np.ndarray, bk: int) -> np.ndarray:
    """The strict f32 order as plain Python: per element, k ascending, no FMA.

    K-tiling does not change the order: the accumulator is carried across tiles.
    Zero-filled K padding adds (+0.0) * x terms, which leave any accumulator
    unchanged except -0.0 + +0.0; the test data avoid exact zero sums.
    """
    m, kk = a.shape
    n = b.shape[1]
    out = np.zeros((m, n), np.float32)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    for i in range(m):
        for j in range(n):
            acc = np.float32(0.0)
            for t in range(kk):
                acc = np.float32(acc + np.float32(a32[i, t] * b32[t, j]))
            out[i, j] = acc
    return out


@pytest.mark.parametrize("shape", [(64, 48, 40), (37, 29, 23), (1, 1, 1), (16, 16, 16)])
def test_matmul_ragged_matches_numpy_and_strict_oracle(shape):
    m, n, kk = shape
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal((m, kk)).astype(np.float32)
    b = rng.standard_normal((kk, n)).astype(np.float32)
    c = poisoned((m, n))
    matmul_kernel(16, 16, 8).run(a, b, c)
    assert not np.isnan(c).any()
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    if m * n * kk <= 40000:
        assert np.array_equal(bits(c), bits(strict_matmul_oracle(a, b, 8)))


def test_matmul_unordered_policy_and_target_registry():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((33, 20)).astype(np.float32)
    b = rng.standard_normal((20, 17)).astype(np.float32)
    c = poisoned((33, 17))
    k = matmul_kernel(8, 8, 8, order="unordered_tree")
    exe = get_backend("reference").compile(k.module, "matmul")
    assert "mma" in exe.source and exe.name == "matmul"
    exe(a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    # The reference evaluates unordered_tree mma in strict k order too: bit-identical.
    c2 = poisoned((33, 17))
    matmul_kernel(8, 8, 8).run(a, b, c2)
    assert np.array_equal(bits(c), bits(c2))


def test_matmul_bf16_operands_accumulate_in_f32_exactly():
    rng = np.random.default_rng(2)
    bf = ml_dtypes.bfloat16
    a = rng.standard_normal((20, 12)).astype(bf)
    b = rng.standard_normal((12, 10)).astype(bf)
    c = poisoned((20, 10))
    matmul_kernel(8, 8, 4, dt=ir.bf16).run(a, b, c)
    assert np.array_equal(bits(c), bits(strict_matmul_oracle(a, b, 4)))


def test_matmul_tf32_rounds_operands():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((8, 8)).astype(np.float32)
    b = rng.standard_normal((8, 8)).astype(np.float32)
    c = poisoned((8, 8))
    matmul_kernel(8, 8, 8, precision="tf32").run(a, b, c)
    from tilec.targets.numerics import tf32_round

    want = strict_matmul_oracle(tf32_round(a), tf32_round(b), 8)
    assert np.array_equal(bits(c), bits(want))
    assert not np.array_equal(bits(c), bits(strict_matmul_oracle(a, b, 8)))


def test_matmul_256_is_fast():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((256, 256)).astype(np.float32)
    b = rng.standard_normal((256, 256)).astype(np.float32)
    c = poisoned((256, 256))
    exe = matmul_kernel(64, 64, 32).compile()
    start = time.perf_counter()
    exe(a, b, c)
    elapsed = time.perf_counter() - start
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
    assert elapsed < 3.0, f"256^3 matmul took {elapsed:.2f} s"


def softmax_kernel(bm: int, bn: int, policy: str) -> K:
    """Row softmax of X (M x N, N <= bn) into Y, one program per bm rows."""
    k = K("softmax", [("X", mem(["M", "N"])), ("Y", mem(["M", "N"]))],
          shape_symbols=("M", "N"), shape_bindings=((0, 0), (0, 1)))
    X, Y, M, N = k.args
    BM = k.idx(bm)

    def program(pm):
        m0 = k.arith("mul", pm, BM)
        zero = k.idx(0)
        x = k.load(k.view(X, [m0, zero], [bm, bn]), fill=float("-inf"))
        (mx,) = k.reduce([x], [k.const(float("-inf"))], [1],
                         lambda s, e: [k.arith("max", s, e)], policy)
        mxb = k.reindex(mx, ir.IndexMap(2, [ir.d(0)]), [bm, bn])
        (ex,) = k.map([bm, bn], [x, mxb], lambda a, m: [k.arith("exp", k.arith("sub", a, m))])
        (sm,) = k.reduce([ex], [k.const(0.0)], [1], lambda s, e: [k.arith("add", s, e)], policy)
        smb = k.reindex(sm, ir.IndexMap(2, [ir.d(0)]), [bm, bn])
        (y,) = k.map([bm, bn], [ex, smb], lambda a, s: [k.arith("div", a, s)])
        k.store(k.view(Y, [m0, zero], [bm, bn]), y)
        return []

    k.parallel([k.arith("cdiv", M, BM)], [], program)
    k.ret()
    return k


@pytest.mark.parametrize("policy", ["strict_fold", "unordered_tree"])
def test_row_softmax_ragged(policy):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((37, 27)) * 4).astype(np.float32)
    y = poisoned((37, 27))
    softmax_kernel(8, 32, policy).run(x, y)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-7)


def test_zero_filled_k_padding_takes_part_in_the_sum():
    """The padded products are (+0) * (+0) = +0: a -0.0 accumulator becomes +0.0.

    Dropping the zero-by-zero K suffix (as an MPP bounded-K realization may)
    would keep -0.0, so such a realization is not bit-identical here.
    """
    k = K("pad", [("A", mem([1, 1])), ("B", mem([1, 1])), ("C", mem([1, 1]))])
    A, B, C = k.args
    zero = k.idx(0)
    a = k.load(k.view(A, [zero, zero], [1, 4]), fill=0.0)
    b = k.load(k.view(B, [zero, zero], [4, 1]), fill=0.0)
    k.store(C, k.mma(a, b, k.load(C)))
    k.ret()
    c = np.array([[-0.0]], np.float32)
    k.run(np.array([[-0.0]], np.float32), np.array([[1.0]], np.float32), c)
    assert c[0, 0] == 0 and not np.signbit(c[0, 0])
