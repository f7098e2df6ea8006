"""How each matrix operand reaches shared memory (``MatrixWorkload.a_staging``): a load
copied every iteration gets a ring, a loop-invariant load one copy, a computed operand (or a
load outside every loop, held in registers) one buffer without a ring; the capacity check,
the ring and the occupancy estimate count only what the lowering places
(``matrix.ring_extra``)."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from tilec.driver import compile_module
from tilec.lib import matmul
from tilec.lib.attention import flash_attention
from tilec.lib.matmul import pipelined_matmul
from tilec.plan import extract_groups
from tilec.plan.matrix import Realization, ring_extra
from tilec.plan.work import MatrixWorkload

CAPACITY = 232448  # cuda:sm_90, per group


def _attention(bm: int, bn: int, d: int) -> tc.Compiled:
    q = np.zeros((2, 256, d), ml_dtypes.bfloat16)
    return tc.compile(flash_attention, q, q.copy(), q.copy(), q.copy(), np.float32(0.1),
                      target="reference", BM=bm, BN=bn, HEAD_DIM=d)


def _workloads(module) -> dict[str, MatrixWorkload]:
    (group,) = extract_groups(module)
    return {w.op: w for w in group.workload.ops}


@tc.kernel
def _stores_in_loop(A, B, C, D):
    """The A window does not move, but the loop stores: it is copied every iteration."""
    for p in tc.parallel(1):
        acc = tc.zeros((16, 16))
        for k in tc.serial(2):
            acc = tc.mma(A.tile((0, 0), (16, 16)), B.tile((k * 16, 0), (16, 16)), acc)
            D.tile((p * 16 + k, 0), (1, 16)).store(tc.zeros((1, 16)))
        C.tile((p * 16, 0), (16, 16)).store(acc)


@tc.kernel
def _no_loop(A, B, C):
    for p in tc.parallel(2):
        C.tile((p * 16, 0), (16, 16)).store(
            tc.dot(A.tile((p * 16, 0), (16, 32)), B.tile((0, 0), (32, 16))))


def test_attention_operands() -> None:
    """The query tile is the same on every key block (once), keys and values move with the
    loop (ring), the probabilities are computed (value)."""
    ws = _workloads(_attention(64, 64, 64).module)
    assert (ws["mma#0"].a_staging, ws["mma#0"].b_staging) == ("once", "ring")
    assert (ws["mma#1"].a_staging, ws["mma#1"].b_staging) == ("value", "ring")
    assert ws["mma#0"].to_json()["staging"] == {"A": "once", "B": "ring"}


def test_a_gemm_copies_both_operands_every_iteration() -> None:
    a = np.ones((256, 256), np.float32)
    comp = tc.compile(matmul, a, a.copy(), a.copy(), target="reference", BM=64, BN=64, BK=32)
    (w,) = _workloads(comp.module).values()
    assert (w.a_staging, w.b_staging) == ("ring", "ring")
    assert w.ring_bytes() == sum(w.staging_bytes()[x] for x in "AB")


def test_a_loop_that_stores_keeps_the_ring_and_no_loop_holds_values() -> None:
    a = np.ones((64, 64), np.float32)
    comp = tc.compile(_stores_in_loop, a, a.copy(), a.copy(), a.copy(), target="reference")
    (w,) = _workloads(comp.module).values()
    assert (w.a_staging, w.b_staging) == ("ring", "ring")
    comp = tc.compile(_no_loop, a[:32, :32].copy(), a[:32, :16].copy(), a[:32, :16].copy(),
                      target="reference")
    (w,) = _workloads(comp.module).values()
    assert (w.a_staging, w.b_staging) == ("value", "value")


def test_ring_extra_counts_ring_operands_only() -> None:
    base = MatrixWorkload("mma#0", 64, 64, 64, dtype="bf16")
    once_a = MatrixWorkload("mma#0", 64, 64, 64, dtype="bf16", a_staging="once")
    value_both = MatrixWorkload("mma#0", 64, 64, 64, dtype="bf16", a_staging="value",
                                b_staging="value")
    tile = 64 * 64 * 2
    assert ring_extra(base, Realization.WGMMA) - ring_extra(once_a, Realization.WGMMA) == tile
    assert ring_extra(value_both, Realization.WGMMA) == 0  # whole blocks, no ring barriers
    assert ring_extra(base, Realization.RECTANGLE) - \
        ring_extra(once_a, Realization.RECTANGLE) == tile
    assert once_a.copied_bytes() == (tile, tile)
    with pytest.raises(ValueError, match="staging 'twice'"):
        MatrixWorkload("mma#0", 64, 64, 64, a_staging="twice")


@pytest.mark.parametrize("bm,bn,d", [(128, 64, 128), (64, 64, 128), (128, 64, 64)])
def test_attention_plans_warpgroup_instructions_and_fits(bm: int, bn: int, d: int) -> None:
    """With the query copied once and the probabilities never in a ring, both products of
    attention at head dimension 128 (and 128 query rows at 64) plan warpgroup
    instructions, where the count of two ring versions of every operand sent 128 x 128
    to the scalar reference and 64 x 128's first product to warp-wide atoms; the lowering
    places the plan within the capacity."""
    comp = _attention(bm, bn, d)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tc.PerformanceWarning)
        lowered = compile_module(comp.module, comp.fn_name, "cuda:sm_90", "allocate")
    (group,) = lowered.plan.groups
    assert group.selected is not None
    assert {str(p.candidate.realization) for p in group.selected.choices} == {"wgmma"}
    (res,) = lowered.resources
    assert 0 < res["shared_bytes"] <= CAPACITY


def test_a_pipeline_stage_hand_off_is_a_ring() -> None:
    """In a two-stage ``pipeline`` the mma reads the loads through the next stage's
    arguments; the lowering stages them with the loop's window of versions, so they are
    ``ring`` (they were once taken for computed values, and the planner selected a
    metal:m1 plan the lowering then refused for its shared memory)."""
    a = np.ones((256, 256), np.float32)
    comp = tc.compile(pipelined_matmul, a, a.copy(), a.copy(), target="reference", BM=32,
                      BN=32, BK=64)
    (w,) = _workloads(comp.module).values()
    assert (w.a_staging, w.b_staging) == ("ring", "ring")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tc.PerformanceWarning)
        lowered = compile_module(comp.module, comp.fn_name, "metal:m1", "allocate")
    (res,) = lowered.resources
    assert res["shared_bytes"] <= 32768
