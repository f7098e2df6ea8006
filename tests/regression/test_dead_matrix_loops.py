"""Capture drops loops and branches that only compute values nobody reads (GPU fuzz campaign
20261202, program 249: an accumulator loop whose 128 x 64 product was never stored reached
ptxas as a degenerate warpgroup instruction, and the launch ended in "an illegal
instruction"). Stores, atomics and checks keep their loops."""

from __future__ import annotations

import numpy as np

import tilec as tc
from tilec.driver import lower_for
from tilec.targets.cuda.backend import CUDABackend


@tc.kernel
def dead_products(X0, X1, Y0):
    """The shrunk fuzz program: two products whose results are never read."""
    for p0 in tc.parallel(2):
        acc1 = tc.zeros((64, 16), tc.float32)
        for k2 in tc.serial(2):
            acc1 = tc.mma(X0.tile((-28, k2 * 2), (64, 2), fill=float("inf")),
                          X1.tile((k2 * 2, 0), (2, 16), fill=float("inf")), acc1)
        acc3 = tc.zeros((128, 64), tc.float32)
        for k4 in tc.serial(1):
            acc3 = tc.mma(X1.tile((-126, k4 * 64 - 63), (128, 64), fill=0.0),
                          X0.tile((k4 * 64, -60), (64, 64), fill=0.0), acc3)
        Y0.tile((p0 * 8,), (8,)).store(tc.full((8,), 1.0, tc.float32))


@tc.kernel
def loop_that_stores(X, Y, Z):
    """A loop whose carried product is unused but which stores: it stays."""
    for _p in tc.parallel(1):
        acc = tc.zeros((16, 16))
        for k in tc.serial(2):
            acc = tc.mma(X.tile((0, k * 16), (16, 16)), X.tile((k * 16, 0), (16, 16)), acc)
            Z.tile((k, 0), (1, 16)).store(tc.ones((1, 16)))
        Y.tile((0, 0), (16, 16)).store(tc.zeros((16, 16)))


def _args() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.standard_normal((72, 8)).astype(np.float16),
            rng.standard_normal((5, 1)).astype(np.float16), np.full(9, np.nan, np.float32)]


def _ops(module) -> list[str]:
    return [op.name for fn in module for op in fn.walk()]


def test_capture_drops_the_dead_products() -> None:
    comp = tc.compile(dead_products, *_args(), target="reference")
    assert "mma" not in _ops(comp.module) and "serial" not in _ops(comp.module)
    src = CUDABackend("cuda:sm_90").emit(lower_for(comp.module, comp.fn_name, "cuda:sm_90"),
                                         comp.fn_name)
    assert "wgmma" not in (src.text if hasattr(src, "text") else src)


def test_the_outputs_are_unchanged() -> None:
    want = _args()
    tc.interpret(dead_products, *want)
    got = _args()
    tc.simulate(dead_products, *got, target="cuda:sm_90")
    np.testing.assert_array_equal(got[2], want[2])
    np.testing.assert_array_equal(want[2], np.ones(9, np.float32))  # both programs store


def test_a_loop_that_stores_stays() -> None:
    x = np.ones((32, 32), np.float32)
    comp = tc.compile(loop_that_stores, x, np.zeros((16, 16), np.float32),
                      np.zeros((2, 16), np.float32), target="reference")
    ops = _ops(comp.module)
    assert "serial" in ops and ops.count("store") == 2
