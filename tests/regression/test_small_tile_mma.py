"""Issue: small-tile ``mma`` read B's staged tile for rows >= BN of A.

Tiles with no matrix atom (BN = 4, or 16-bit operands with a K below the atom's)
take the checked scalar realization, which staged A and B in one scratch pool at
equal slots of the operand's own size: B's slot began at ``K * N`` elements while
A covered ``M * K``, so whenever ``M > N`` the two overlapped. Every tile-shape class
of ``lib.matmul`` is swept here in the simulator of each profile; the GPU sweep is in
``tests/device/test_cuda_small_tiles.py``.
"""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from tilec.lib.matmul import matmul

DTYPES = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}


def _check(target: str, m: int, n: int, k: int, bm: int, bn: int, bk: int, dt: str,
           seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(DTYPES[dt])
    b = rng.standard_normal((k, n)).astype(DTYPES[dt])
    c = np.full((m, n), np.nan, np.float32)
    tc.simulate(matmul, a, b, c, target=target, BM=bm, BN=bn, BK=bk)
    want = a.astype(np.float64) @ b.astype(np.float64)
    # f32 accumulation of exactly representable products: K * 2^-23 relative per term.
    bound = k * 2.0 ** -22 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
    assert not np.isnan(c).any(), "an output element was never written"
    bad = np.abs(c - want) > bound + 1e-30
    assert not bad.any(), f"{int(bad.sum())} of {c.size} wrong, first at {np.argwhere(bad)[0]}"


@pytest.mark.parametrize("target", ["cuda:sm_90", "cuda:sm_80", "metal:m1"])
def test_the_issue_cases(target: str) -> None:
    a = np.arange(1, 6, dtype=np.float32).reshape(5, 1)
    b = np.array([[10.0]], np.float32)
    c = np.full((5, 1), np.nan, np.float32)
    tc.simulate(matmul, a, b, c, target=target, BM=8, BN=4, BK=8)
    np.testing.assert_array_equal(c.ravel(), [10, 20, 30, 40, 50])
    _check(target, 8, 4, 8, 8, 4, 8, "f32")
    _check(target, 10, 8, 8, 16, 8, 8, "f16")
    _check(target, 37, 21, 29, 16, 8, 4, "f16")
    _check(target, 37, 21, 29, 16, 8, 4, "f32")


SWEEP = list(itertools.product([8, 16, 32, 64], [4, 8, 16, 32, 64], [4, 8, 16, 32],
                               sorted(DTYPES)))


@pytest.mark.parametrize("bm,bn,bk,dt", SWEEP, ids=lambda v: str(v))
def test_every_tile_shape_class_cuda(bm: int, bn: int, bk: int, dt: str) -> None:
    # Ragged in every dimension: a partial last tile in M, N and K.
    _check("cuda:sm_90", bm + 3, bn + 1, 2 * bk + 1, bm, bn, bk, dt, seed=bm * bn + bk)


@pytest.mark.parametrize("bm,bn,bk", list(itertools.product([8, 16, 32], [4, 8, 16], [4, 8,
                                                                                       16])))
def test_every_tile_shape_class_metal(bm: int, bn: int, bk: int) -> None:
    _check("metal:m1", bm + 3, bn + 1, 2 * bk + 1, bm, bn, bk, "f32", seed=bm + bn * bk)
