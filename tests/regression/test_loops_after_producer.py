"""A K loop after a warp-specialized one. The consumers' region is lowered twice (with and
without tensor maps, ``machine_roles._unswitched``), so every shared buffer of a later loop
was allocated twice; and the first loop's tensor-store buffers were not counted when the
later loop's ring versions were chosen. A fuzz program (128 x 128 then 128 x 64 products)
needed 314368 of the 232448 bytes an sm_90 group has; now each ring is allocated once, the
copies share it, and the group fits."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np

import tilec as tc
from tilec.driver import compile_module

CAPACITY = 232448  # cuda:sm_90, per group


@tc.kernel
def after_producer(A, B, W, C, D):
    for pm, pn in tc.parallel(tc.cdiv(A.shape[0], 128), tc.cdiv(B.shape[1], 128)):
        acc = tc.zeros((128, 128))
        for k in tc.serial(tc.cdiv(A.shape[1], 64)):
            acc = tc.mma(A.tile((pm * 128, k * 64), (128, 64), fill=0.0),
                         B.tile((k * 64, pn * 128), (64, 128), fill=0.0), acc)
        C.tile((pm * 128, pn * 128), (128, 128)).store(acc)
        acc2 = tc.zeros((128, 64))
        for k in tc.serial(tc.cdiv(A.shape[1], 64)):
            acc2 = tc.mma(A.tile((pm * 128, k * 64), (128, 64)),
                          W.tile((k * 64, pn * 64), (64, 64)), acc2)
        D.tile((pm * 128, pn * 64), (128, 64)).store(acc2)


def _args(m: int, n: int, k: int) -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    bf = ml_dtypes.bfloat16
    return [rng.standard_normal((m, k)).astype(bf), rng.standard_normal((k, n)).astype(bf),
            rng.standard_normal((k, n // 2)).astype(bf),
            np.full((m, n), np.nan, np.float32), np.full((m, n // 2), np.nan, np.float32)]


def _lowered():
    comp = tc.compile(after_producer, *_args(256, 256, 256), target="reference")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tc.PerformanceWarning)
        return compile_module(comp.module, comp.fn_name, "cuda:sm_90", "allocate")


def test_each_ring_is_allocated_once_and_the_group_fits() -> None:
    low = _lowered()
    (res,) = low.resources
    assert res.get("producer_threads"), "the first loop should get a producer warpgroup"
    assert 0 < res["shared_bytes"] <= CAPACITY
    roles = [op.attr("role") for fn in low.module for op in fn.walk() if op.name == "memory"]
    assert roles.count("stage 0 ring") == 2 and roles.count("stage 1 ring") == 2, roles
    assert roles.count("tensor store") == 1, roles


def test_the_later_loop_computes_what_the_reference_does() -> None:
    want = _args(128, 256, 128)
    tc.interpret(after_producer, *want)
    got = _args(128, 256, 128)
    tc.simulate(after_producer, *got, target="cuda:sm_90")
    for g, w in zip(got[3:], want[3:]):
        assert not np.isnan(g).any()
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-3)
