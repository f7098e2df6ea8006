"""The default Hopper plan (``LowerOptions.warp_specialized``, ``persistent`` and
``wgmma_stages`` left None; ``PlannerOptions.fuse_matrix_epilogues`` on): a group of two
consumer warpgroups gets a producer warpgroup, four ring versions and a persistent grid in
the grouped traversal; other groups keep the ordinary ring. docs/design/
warp_specialization.md, "The default plan"."""

from __future__ import annotations

from dataclasses import replace

import ml_dtypes
import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING, differential
from lowering_cases import notes as _notes

import tilec as tc
from tilec.exec import get_profile
from tilec.lib import matmul
from tilec.lower import LowerOptions, lower

BF16 = ml_dtypes.bfloat16
UNITS = get_profile("cuda:sm_90").compute_units

needs_simulator = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                     reason=SIMULATOR_MISSING or "")


def _args(m: int, n: int, k: int, out=np.float32, seed: int = 0) -> list[np.ndarray]:
    r = np.random.default_rng(seed)
    return [r.standard_normal((m, k)).astype(BF16), r.standard_normal((k, n)).astype(BF16),
            np.zeros((m, n), out)]


def _lowered(tiles: dict[str, int], shape=(256, 384, 200), options=None, out=np.float32,
             static: bool = False):
    compiled = tc.compile(matmul, *_args(*shape, out=out), target="reference",
                          static_shapes=static, **tiles)
    return lower(compiled.module, "cuda:sm_90", options)


def _loop(res):
    return next(op for op in res.scheduled.walk() if op.name == "serial"
                and op.attr("schedule") == "double_buffer")


def test_two_consumer_warpgroups_get_a_producer_and_a_persistent_grid() -> None:
    assert UNITS
    res = _lowered({"BM": 128, "BN": 128, "BK": 64})
    loop = _loop(res)
    assert loop.attr("release") == "producer" and loop.attr("versions") == 4
    assert loop.attr("persistent") == UNITS and loop.attr("traversal") == ("grouped", 8)
    notes = _notes(res)
    assert "warp-specialized by default" in notes and "persistent by default" in notes
    assert res.resources[0]["persistent"] == UNITS
    assert res.resources[0]["traversal"].startswith("grouped:8")


def test_one_consumer_warpgroup_keeps_the_ordinary_ring() -> None:
    res = _lowered({"BM": 64, "BN": 64, "BK": 64})
    loop = _loop(res)
    assert loop.attr("release") is None and loop.attr("versions") == 3
    assert "no producer warpgroup by default: 1 consumer warpgroup(s), not two" in _notes(res)


def test_false_and_zero_turn_the_defaults_off() -> None:
    tiles = {"BM": 128, "BN": 128, "BK": 64}
    plain = _loop(_lowered(tiles, options=LowerOptions(warp_specialized=False)))
    assert plain.attr("release") is None and plain.attr("persistent") is None
    one_each = _loop(_lowered(tiles, options=LowerOptions(persistent=0)))
    assert one_each.attr("release") == "producer" and one_each.attr("persistent") is None
    three = _loop(_lowered(tiles, options=LowerOptions(wgmma_stages=3)))
    assert three.attr("release") == "producer" and three.attr("versions") == 3


def test_a_named_traversal_is_the_walk_of_the_default_persistent_grid() -> None:
    opts = LowerOptions()
    opts = replace(opts, planner=replace(opts.planner, program_traversal="grouped:2"))
    res = _lowered({"BM": 128, "BN": 128, "BK": 64}, options=opts)
    loop = _loop(res)
    assert loop.attr("persistent") == UNITS and loop.attr("traversal") is None
    assert res.resources[0]["traversal"].startswith("grouped:2")


def test_static_shapes_decide_with_the_call_extents() -> None:
    tiles = {"BM": 128, "BN": 128, "BK": 64}
    few = _lowered(tiles, static=True)  # 2 x 3 output tiles
    assert _loop(few).attr("release") == "producer"
    assert _loop(few).attr("persistent") is None
    assert f"not persistent by default: 6 output tiles, fewer than two per compute unit " \
           f"({UNITS})" in _notes(few)
    # B's rows (500 bf16 = 1000 bytes) are not 16-byte aligned: the tensor copies would
    # fall back inside the kernel, where the producer warpgroup is slower
    ragged = _lowered(tiles, shape=(256, 500, 200), static=True)
    assert _loop(ragged).attr("release") is None
    assert "are not all 16-byte aligned" in _notes(ragged)


def test_a_16_bit_output_is_cast_on_the_accumulator_registers_by_default() -> None:
    res = _lowered({"BM": 128, "BN": 256, "BK": 64}, out=BF16)
    (ch,) = res.groups[0].mma.values()
    assert ch.accumulator == "direct" and _loop(res).attr("release") == "producer"
    off = LowerOptions()
    off = replace(off, planner=replace(off.planner, fuse_matrix_epilogues=False))
    (ch,) = _lowered({"BM": 128, "BN": 128, "BK": 64}, out=BF16, options=off) \
        .groups[0].mma.values()
    assert ch.accumulator == "resident"


@needs_simulator
@pytest.mark.parametrize("shape,tiles,out", [
    ((256, 384, 200), {"BM": 128, "BN": 128, "BK": 64}, np.float32),
    ((200, 300, 136), {"BM": 128, "BN": 256, "BK": 64}, BF16),
    ((130, 70, 64), {"BM": 128, "BN": 64, "BK": 64}, np.float32),
], ids=["ragged", "bf16_out_wide", "one_trip"])
def test_the_default_plan_matches_the_reference(shape, tiles, out) -> None:
    m, n, k = shape
    res = differential(matmul, _args(m, n, k, out=out, seed=m + n + k), [2], "cuda:sm_90",
                       tiles, rtol=1e-2, atol=1e-2)
    assert _loop(res).attr("release") == "producer"
