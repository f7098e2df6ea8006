"""A transposed M operand keeps its warpgroup instructions from staying in flight.

The schedule stages only the loads that reach an ``mma`` as A, or as B directly or
transposed (``dataflow.matrix_uses``), into the ring. A transposed A (``x.T`` as the M
operand, e.g. the transposed product ``acc = tc.mma(B.T, A.T, acc)``) is instead stored
into its one staging buffer in every iteration. With the ring's groups left in flight
across the back edge, the next iteration's store overwrote the buffer while the previous
``wgmma`` still read it: a race the simulator reported on fuzzed programs of the ``gemm``
family. ``schedule_staging._in_flight_blocker`` now requires both operands to come from
the ring, so such a loop retires its group in the iteration that issued it."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from tilec.driver import compile_module


@tc.kernel
def transposed_product(A, B, C, BM: tc.constexpr = 64, BN: tc.constexpr = 128):
    """``C = (B.T @ A.T).T``, accumulated as a BN x BM tile (a fuzzed program's shape)."""
    for pm, pn in tc.parallel(tc.cdiv(C.shape[0], BM), tc.cdiv(C.shape[1], BN)):
        acc = tc.full((BN, BM), 0.5, tc.float32)
        for k in tc.serial(tc.cdiv(A.shape[1], 64)):
            acc = tc.mma(B.tile((k * 64, pn * BN), (64, BN), fill=0.0).T,
                         A.tile((pm * BM, k * 64), (BM, 64), fill=0.0).T, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc.T)


@pytest.mark.parametrize("variant", [None, {"warp_specialized": False},
                                     {"wgmma_in_flight": 1, "warp_specialized": False}])
def test_transposed_a_matches_reference(variant):
    rng = np.random.default_rng(3)
    A = rng.standard_normal((128, 192)).astype(ml_dtypes.bfloat16)
    B = rng.standard_normal((192, 256)).astype(ml_dtypes.bfloat16)
    ref = np.full((128, 256), np.nan, np.float32)
    tc.interpret(transposed_product, A, B, ref)
    out = np.full_like(ref, np.nan)
    kw = {"variant": variant} if variant else {}
    tc.simulate(transposed_product, A, B, out, target="cuda:sm_90", **kw)
    np.testing.assert_array_equal(out, ref)


def test_schedule_says_why_the_group_retires():
    A = np.zeros((128, 192), ml_dtypes.bfloat16)
    B = np.zeros((192, 256), ml_dtypes.bfloat16)
    C = np.zeros((128, 256), np.float32)
    comp = tc.compile(transposed_product, A, B, C, target="reference")
    low = compile_module(comp.module, comp.fn_name, "cuda:sm_90", "schedule")
    notes = " ".join(n for g in low.groups for n in g.notes)
    assert "every wgmma group retired where it is issued: operand A of the mma" in notes \
        and "is not copied into the ring" in notes, notes
