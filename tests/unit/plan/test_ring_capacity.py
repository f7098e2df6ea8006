"""The planner's capacity check counts the lowering's ring (``matrix.ring_extra``): a plan it
selects fits the group's shared memory once lowered, and a tile that cannot fit is rejected
by the planner, not by the lowering after it."""

from __future__ import annotations

import warnings
from dataclasses import replace

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from tilec.driver import compile_module
from tilec.lib import matmul
from tilec.lower import LowerOptions
from tilec.plan.matrix import ring_extra

CAPACITY = 232448  # cuda:sm_90, per group


def _trip(**kw) -> LowerOptions:
    """Options that send a 16-bit output's f32 accumulator through shared memory (the
    default plan casts it on the accumulator's registers)."""
    o = LowerOptions(**kw)
    return replace(o, planner=replace(o.planner, fuse_matrix_epilogues=False))


def _lowered(tiles: tuple[int, int, int], out: type, variant: LowerOptions):
    m = n = k = 512
    a = np.ones((m, k), ml_dtypes.bfloat16)
    b = np.ones((k, n), ml_dtypes.bfloat16)
    c = np.zeros((m, n), out)
    bm, bn, bk = tiles
    module = tc.compile(matmul, a, b, c, target="reference", BM=bm, BN=bn, BK=bk).module
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        comp = compile_module(module, "matmul", "cuda:sm_90", "allocate", variant)
    (group,) = comp.plan.groups
    warned = [w for w in seen if issubclass(w.category, tc.PerformanceWarning)]
    assert bool(warned) == (group.selected is None)  # the scalar fallback says so
    return comp


@pytest.mark.parametrize("tiles,out", [
    ((128, 256, 64), ml_dtypes.bfloat16),  # the f32 accumulator goes through shared memory
    ((128, 128, 64), ml_dtypes.bfloat16),
    ((128, 256, 64), np.float32),          # stored straight from the registers
    ((256, 128, 64), np.float32),
])
def test_a_selected_plan_fits_once_lowered(tiles, out) -> None:
    comp = _lowered(tiles, out, _trip())
    (group,) = comp.plan.groups
    if group.selected is None:
        assert any("capacity" in d for d in group.diagnostics), group.diagnostics
        return
    realization = group.selected.choices[0].candidate.realization
    assert realization in ("wgmma", "rectangle")
    assert group.selected.shared_bytes <= CAPACITY
    (res,) = comp.resources  # the lowering allocated the group without a capacity error
    assert 0 < res["shared_bytes"] <= CAPACITY


def test_the_bf16_output_tile_that_cannot_fit_is_the_planners_rejection() -> None:
    """128x256x128 with a 16-bit output: two ring versions (192 KB) and the f32
    accumulator's trip through shared memory (128 KB) exceed 227 KB. The planner says so (no
    matrix plan), where it used to select a plan the lowering then refused."""
    comp = _lowered((128, 256, 128), ml_dtypes.bfloat16, _trip())
    (group,) = comp.plan.groups
    assert group.selected is None
    assert "exceeds the group-memory capacity" in " ".join(group.diagnostics)


def test_ring_extra_counts_a_second_version_and_its_overheads() -> None:
    from tilec.plan.matrix import Realization
    from tilec.plan.work import MatrixWorkload

    w = MatrixWorkload("mma#0", 128, 256, 64, dtype="bf16")
    staged = 128 * 64 * 2 + 64 * 256 * 2
    # whole 1024-byte tiles need no padding (the base's alignment is the group's, paid once);
    # two barrier arrays at 128-byte alignment
    assert ring_extra(w, Realization.WGMMA) == staged + 2 * 128
    assert ring_extra(w, Realization.RECTANGLE) == staged + 2 * 16 * (128 + 64)
    assert ring_extra(w, Realization.SCALAR) == 0


def test_the_schedule_trims_the_versions_the_planner_does_not_count() -> None:
    """The planner counts two ring versions; the schedule keeps as many of
    ``wgmma_stages`` as fit (six of the 128x256x64 ring do not: it keeps four)."""
    comp = _lowered((128, 256, 64), np.float32, LowerOptions(wgmma_stages=6))
    (res,) = comp.resources
    assert res["shared_bytes"] <= CAPACITY
    assert {op.attr("versions") for op in comp.module.walk()
            if op.name == "memory" and op.attr("versions")} == {4}


def test_the_schedule_leaves_room_for_the_accumulators_trip() -> None:
    """128x128x64 with a 16-bit output and six requested versions: six fit the capacity
    alone, but not beside the f32 accumulator's 64 KB trip through shared memory; the
    schedule keeps four (it used to keep six, which the lowering then refused)."""
    comp = _lowered((128, 128, 64), ml_dtypes.bfloat16, _trip(wgmma_stages=6))
    (res,) = comp.resources
    assert res["shared_bytes"] <= CAPACITY
    assert {op.attr("versions") for op in comp.module.walk()
            if op.name == "memory" and op.attr("versions")} == {4}


@pytest.mark.parametrize("tiles,fits", [((32, 32, 32), True), ((64, 32, 32), True),
                                        ((64, 64, 32), False), ((128, 64, 32), False)])
def test_metal_simdgroup_plans_count_their_padded_rings(tiles, fits) -> None:
    """On metal:m1 (32 KB per group) the register-fragment realizations' rings are padded
    rows: the planner's count is the lowering's allocation, and a tile whose ring cannot
    fit is the planner's rejection (it used to be selected, then refused by the
    lowering)."""
    a = np.ones((256, 256), np.float32)
    bm, bn, bk = tiles
    module = tc.compile(matmul, a, a, a.copy(), target="reference", BM=bm, BN=bn, BK=bk).module
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        comp = compile_module(module, "matmul", "metal:m1", "allocate", LowerOptions())
    (group,) = comp.plan.groups
    if fits:
        assert group.selected is not None
        assert group.selected.shared_bytes == comp.resources[0]["shared_bytes"] <= 32768
        assert not [w for w in seen if issubclass(w.category, tc.PerformanceWarning)]
    else:
        assert group.selected is None
        assert [w for w in seen if issubclass(w.category, tc.PerformanceWarning)]
