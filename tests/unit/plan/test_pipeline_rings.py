"""A ``pipeline``'s accumulator and ring as the planner counts them. Its mma in the last
stage, handed the carried value by the earlier stages, is a closed recurrence
(``ir.dataflow.closed_recurrence``), so the accumulator is proved resident instead of
counted in shared memory; and its window fixes the ring versions the lowering places
(``MatrixWorkload.ring_versions``), which ``matrix.ring_extra`` counts. Before, the planner
counted two versions and an accumulator tile: metal 32x32x32 f32 with ``WINDOW=4`` planned
a group the lowering could not place (36864 of 32768 bytes), and sm_90 128x256x64 bf16
with ``WINDOW=4`` found no plan though 199712 bytes of 232448 were enough."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from tilec.driver import compile_module
from tilec.ir.dataflow import closed_recurrence
from tilec.lib.matmul import matmul, pipelined_matmul
from tilec.plan import extract_groups


def _compiled(kernel, dt, n: int = 256, **bind) -> tc.Compiled:
    a, b = np.ones((n, n), dt), np.ones((n, n), dt)
    return tc.compile(kernel, a, b, np.zeros((n, n), np.float32), target="reference", **bind)


def _workload(comp: tc.Compiled):
    (group,) = extract_groups(comp.module)
    (w,) = group.workload.ops
    return w


def _lowered(comp: tc.Compiled, target: str):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        low = compile_module(comp.module, comp.fn_name, target, "allocate")
    return low, [str(w.message) for w in caught if issubclass(w.category, tc.PerformanceWarning)]


def test_the_last_stage_update_is_a_closed_recurrence() -> None:
    comp = _compiled(pipelined_matmul, np.float32, BM=32, BN=32, BK=32, WINDOW=3)
    (mma,) = [op for fn in comp.module for op in fn.walk() if op.name == "mma"]
    loop, pos = closed_recurrence(mma)
    assert loop.name == "pipeline" and pos == 0
    w = _workload(comp)
    assert w.recurrence is not None and w.ring_versions == 3


def test_a_serial_loop_leaves_the_versions_to_the_lowering() -> None:
    w = _workload(_compiled(matmul, np.float32, BM=32, BN=32, BK=32))
    assert w.recurrence is not None and w.ring_versions is None and w.min_ring_versions == 2


@pytest.mark.parametrize("window", [2, 3, 4])
def test_window_versions_count(window: int) -> None:
    from tilec.plan.matrix import Realization, ring_extra
    w = _workload(_compiled(pipelined_matmul, ml_dtypes.bfloat16, BM=64, BN=64, BK=64,
                            WINDOW=window))
    two = _workload(_compiled(pipelined_matmul, ml_dtypes.bfloat16, BM=64, BN=64, BK=64,
                              WINDOW=2))
    ring = w.ring_bytes()
    assert ring_extra(w, Realization.WGMMA) - ring_extra(two, Realization.WGMMA) \
        == (window - 2) * ring  # its barriers still fit the two 128-byte aligned arrays


def test_a_window_the_group_cannot_hold_is_not_planned() -> None:
    """Four 8 KB versions fill metal:m1's 32 KB: no matrix plan (the checked scalar
    reference, with a warning), not a plan the lowering refuses."""
    comp = _compiled(pipelined_matmul, np.float32, n=64, BM=32, BN=32, BK=32, WINDOW=4)
    low, warned = _lowered(comp, "metal:m1")
    assert any("no matrix plan for metal:m1" in m for m in warned), warned


def test_a_window_that_fits_is_planned_and_placed() -> None:
    comp = _compiled(pipelined_matmul, ml_dtypes.bfloat16, n=512, BM=128, BN=256, BK=64,
                     WINDOW=4)
    low, warned = _lowered(comp, "cuda:sm_90")
    assert not warned
    (res,) = low.resources
    assert 4 * (128 + 256) * 64 * 2 <= res["shared_bytes"] <= 232448
    versions = {op.attr("versions") for fn in low.module for op in fn.walk()
                if op.name == "memory" and op.attr("versions")}
    assert versions == {4}


def test_window_four_computes_what_the_reference_does() -> None:
    rng = np.random.default_rng(5)
    a = rng.standard_normal((64, 96)).astype(np.float32)
    b = rng.standard_normal((96, 64)).astype(np.float32)
    want, got = np.full((64, 64), np.nan, np.float32), np.full((64, 64), np.nan, np.float32)
    tc.interpret(pipelined_matmul, a, b, want, BM=32, BN=32, BK=32, WINDOW=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tc.PerformanceWarning)
        tc.simulate(pipelined_matmul, a, b, got, target="metal:m1", BM=32, BN=32, BK=32,
                    WINDOW=4)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
