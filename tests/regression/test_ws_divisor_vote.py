"""An integer division of tile elements in a warp-specialized group's epilogue.

CPU fuzz campaign seed 20261236 (``--features matrix,gemm,bias_epilogue,elementwise,reduce,
windows``, program 789 on ``simt:cuda:sm_90+ws+persistent:2+cluster``): a group computed a
product and then ``(x ^ y) % (ones * ones + 1)`` of int16 tiles. The remainder's divisor
depends on the elements, so the lowering makes every thread of the group vote on a zero
divisor (``vote.any``, a barrier of the whole group: ``lower/machine_divisions.py``). The
schedule refuses the producer warpgroup for such a division, but it looked only for tile
divisions, and the division had been fused into an elementwise ``map``, whose region holds
scalar ones: the group got a producer, and the consumers voted without it (the simulator
reported 128 of the group's 256 threads reaching the vote; on the GPU a barrier the
producer never reaches). ``schedule_staging._roles_blocker`` now looks into map and reduce
regions too, with the lowering's own test of a divisor that may be zero."""

from __future__ import annotations

import numpy as np

import tilec as tc


@tc.kernel
def product_and_remainder(A, B, C, X, Y, Z, s):
    for p in tc.parallel(4):
        acc = tc.zeros((64, 64), tc.float32)
        for k in tc.serial(tc.cdiv(A.shape[1], 64)):
            acc = tc.mma(A.tile((p * 64, k * 64), (64, 64), fill=0.0),
                         B.tile((k * 64, 0), (64, 64), fill=0.0), acc)
        C.tile((p * 64, 0), (64, 64)).store(acc)
        Z.tile((p * 8, 0), (8, 4)).store(
            ((X.tile((p * 8, 0), (8, 4), fill=-1).load() ^ Y.tile((p * 8, 0), (8, 4),
                                                                   fill=-1).load())
             % ((tc.ones((8, 4), tc.int16) * tc.ones((8, 4), tc.int16)) + 1))
            if s > 0 else tc.full((8, 4), 5, tc.int16))


def test_a_division_in_an_epilogue_map_keeps_the_producer_out() -> None:
    import ml_dtypes

    rng = np.random.default_rng(789)
    a = rng.standard_normal((256, 128)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((128, 64)).astype(ml_dtypes.bfloat16)
    x = rng.integers(-100, 100, (32, 4)).astype(np.int16)
    y = rng.integers(-100, 100, (32, 4)).astype(np.int16)
    want = [np.full((256, 64), np.nan, np.float32), np.zeros((32, 4), np.int16)]
    tc.interpret(product_and_remainder, a, b, want[0], x, y, want[1], 1)
    got = [np.full((256, 64), np.nan, np.float32), np.full((32, 4), -7, np.int16)]
    variant = {"warp_specialized": True, "persistent": 2, "cluster": 2}
    compiled = tc.compile(product_and_remainder, a, b, got[0], x, y, got[1], 1,
                          target="simt:cuda:sm_90", variant=variant)
    notes = [n for g in compiled.compilation("schedule").groups for n in g.notes]
    assert any("checks its divisors with a barrier of every thread" in n for n in notes), notes
    tc.simulate(product_and_remainder, a, b, got[0], x, y, got[1], 1, target="cuda:sm_90",
                variant=variant)
    np.testing.assert_allclose(got[0], want[0], rtol=2e-3, atol=2e-3)
    np.testing.assert_array_equal(got[1], want[1])
