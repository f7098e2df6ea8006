"""Two K loops in one group: their rings are allocated at once, so each loop's versions are
chosen beside the other's (``schedule.py``: the rings placed before it and two versions of
each after it). With 128 x 256 x 64 bf16 tiles the first loop took four versions and the
group needed 295936 bytes of the 232448 an sm_90 group has; now both keep two."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np

import tilec as tc
from tilec.driver import compile_module

CAPACITY = 232448  # cuda:sm_90, per group


@tc.kernel
def two_loops(A, B, C, D, BM: tc.constexpr = 128, BN: tc.constexpr = 128,
              BK: tc.constexpr = 64):
    for pm, pn in tc.parallel(tc.cdiv(A.shape[0], BM), tc.cdiv(B.shape[1], BN)):
        acc = tc.zeros((BM, BN))
        for k in tc.serial(tc.cdiv(A.shape[1], BK)):
            acc = tc.mma(A.tile((pm * BM, k * BK), (BM, BK)),
                         B.tile((k * BK, pn * BN), (BK, BN)), acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)
        acc2 = tc.zeros((BM, BN))
        for k in tc.serial(tc.cdiv(A.shape[1], BK)):
            acc2 = tc.mma(A.tile((pm * BM, k * BK), (BM, BK)),
                          B.tile((k * BK, pn * BN), (BK, BN)), acc2)
        D.tile((pm * BM, pn * BN), (BM, BN)).store(acc2)


def _args(m: int, n: int, k: int) -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    return [rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16),
            rng.standard_normal((k, n)).astype(ml_dtypes.bfloat16),
            np.full((m, n), np.nan, np.float32), np.full((m, n), np.nan, np.float32)]


def test_two_rings_fit_together() -> None:
    comp = tc.compile(two_loops, *_args(512, 512, 512), target="reference", BN=256)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tc.PerformanceWarning)
        low = compile_module(comp.module, comp.fn_name, "cuda:sm_90", "allocate")
    (res,) = low.resources
    assert 0 < res["shared_bytes"] <= CAPACITY
    versions = [op.attr("versions") for fn in low.module for op in fn.walk()
                if op.name == "memory" and op.attr("versions")]
    assert versions == [2, 2, 2, 2]


def test_two_loops_compute_what_the_reference_does() -> None:
    want = _args(128, 256, 128)
    tc.interpret(two_loops, *want, BN=256)
    got = _args(128, 256, 128)
    tc.simulate(two_loops, *got, target="cuda:sm_90", BN=256)
    for g, w in zip(got[2:], want[2:]):
        assert not np.isnan(g).any()
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-4)
