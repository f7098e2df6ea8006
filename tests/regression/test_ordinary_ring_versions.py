"""A warpgroup loop that the default plan gives no producer (its operands fill with 1.0,
which tensor copies cannot) falls back to the ordinary ring, whose versions the schedule
chooses like the producer's: the fuzzer's ``gemm,two_products`` campaign (seed 20261254)
crashed the schedule there ("_ring_versions() missing 1 required positional argument:
'once'") after the loop-invariant tile began to be counted once. The shrunk program, on
the simulator against the interpreter, outputs poisoned."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np

import tilec as tc
from tilec.targets.reference.simt import simulate_module


@tc.kernel
def two_products_filled(X0, X1, X2, Y0):
    for p0, p1 in tc.parallel(tc.cdiv(Y0.shape[0], 128), tc.cdiv(Y0.shape[1], 64)):
        acc = tc.full((128, 64), 0.5, tc.float32)
        for k in tc.serial(tc.cdiv(X1.shape[0], 64)):
            s = tc.dot(X0.tile((p0 * 128, 0), (128, 64), fill=1.0),
                       X1.tile((k * 64, 0), (64, 64), fill=1.0).T)
            acc = tc.mma(s.to(tc.bfloat16), X2.tile((k * 64, p1 * 64), (64, 64), fill=1.0),
                         acc)
        Y0.tile((p0 * 128, p1 * 64), (128, 64)).store(acc)


def _args(seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    x0 = (rng.standard_normal((200, 64)) / 8).astype(ml_dtypes.bfloat16)
    x1 = (rng.standard_normal((100, 64)) / 8).astype(ml_dtypes.bfloat16)
    x2 = (rng.standard_normal((100, 96)) / 8).astype(ml_dtypes.bfloat16)
    return [x0, x1, x2, np.full((200, 96), np.nan, np.float32)]


def test_the_ordinary_ring_of_a_filled_loop_is_simulated_like_the_interpreter() -> None:
    want = _args()
    tc.interpret(two_products_filled, *want)
    got = _args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tc.PerformanceWarning)
        comp = two_products_filled.compile(*got, target="simt:cuda:sm_90")
        notes = " ".join(n for g in comp.compilation().groups for n in g.notes)
        simulate_module(comp.executable().module, comp.fn_name, got)
    assert "no producer warpgroup by default" in notes, notes
    assert not np.isnan(got[3]).any()
    np.testing.assert_allclose(got[3], want[3], rtol=2e-2, atol=2e-2)
