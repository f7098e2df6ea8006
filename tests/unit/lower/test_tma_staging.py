"""Tensor copies fill the swizzled rings of warpgroup operands (docs/design/hopper.md).

On ``cuda:sm_90`` a staged ``wgmma`` loop issues one ``tma.load`` per 64-column block of
each operand from thread 0, completing on one ``mbarrier`` per ring version; a window
whose array fails the in-kernel guard (a last extent that is not a whole number of
16-byte units) falls back to ``cp.async`` in the same kernel. Each case is simulated
against the reference interpreter with NaN-poisoned outputs.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING, bf16_matmul_args, differential

import tilec as tc
from tilec.lib import batched_matmul, matmul
from tilec.lower import LowerOptions, lower

BF16 = ml_dtypes.bfloat16
TILES = {"BM": 128, "BN": 128, "BK": 64}


def _machine(args: list[np.ndarray], target: str = "cuda:sm_90",
             options: LowerOptions | None = None) -> str:
    module = tc.compile(matmul, *args, target="reference", **TILES).module
    res = lower(module, target, options or LowerOptions(warp_specialized=False))
    assert res.machine is not None
    return str(res.machine)


def _count(text: str, cid: str) -> int:
    return text.count(f'catalog_id = "{cid}"')


def test_wgmma_rings_are_filled_by_tensor_copies() -> None:
    text = _machine(bf16_matmul_args(256, 256, 256))
    versions = 3  # the plain ring's default versions
    # A: one 128 x 64 box; B: two 64 x 64 boxes (BN = 128); issued at W - 1 prologue sites
    # and once in the loop
    assert _count(text, "tma.load") == versions * (1 + 2)
    assert "box = [128, 64]" in text and "box = [64, 64]" in text
    assert _count(text, "mbarrier.init") == versions
    assert _count(text, "mbarrier.inval") == versions
    assert _count(text, "mbarrier.wait") == 1
    assert _count(text, "mbarrier.expect_tx") == versions
    # the fallback stays for arrays the guard rejects
    assert _count(text, "cp.async.16") > 0


def test_tma_option_and_profile_decide() -> None:
    args = bf16_matmul_args(256, 256, 256)
    off = _machine(args, options=LowerOptions(warp_specialized=False, tma=False))
    assert _count(off, "tma.load") == 0 and _count(off, "mbarrier.init") == 0
    sm80 = _machine(args, target="cuda:sm_80")
    assert _count(sm80, "tma.load") == 0 and _count(sm80, "mbarrier.wait") == 0


@pytest.mark.skipif(SIMULATOR_MISSING is not None, reason=SIMULATOR_MISSING or "")
@pytest.mark.parametrize("shape", [
    (200, 136, 160),   # ragged in every axis: the boxes cross the edges (zero fill)
    (130, 130, 72),    # N = 130 is not a whole number of 16-byte units: B falls back
    (64, 64, 300),     # K = 300 (A's rows of 600 bytes are not): A falls back, many trips
    (128, 128, 64),    # one trip: the loop body never issues ahead
], ids=["ragged", "b_fallback", "a_fallback", "one_trip"])
def test_tensor_copy_staging_matches_the_reference(shape) -> None:
    m, n, k = shape
    differential(matmul, bf16_matmul_args(m, n, k, seed=m + n + k), [2], "cuda:sm_90", TILES,
                 rtol=2e-3, atol=2e-3)


@pytest.mark.skipif(SIMULATOR_MISSING is not None, reason=SIMULATOR_MISSING or "")
def test_tensor_copies_of_a_batched_operand() -> None:
    r = np.random.default_rng(5)
    b, m, n, k = 3, 72, 136, 96
    args = [r.standard_normal((b, m, k)).astype(BF16), r.standard_normal((b, k, n)).astype(BF16),
            np.zeros((b, m, n), np.float32)]
    res = differential(batched_matmul, args, [2], "cuda:sm_90", TILES, rtol=2e-3, atol=2e-3)
    text = str(res.machine)
    assert _count(text, "tma.load") > 0 and "box = [1, 128, 64]" in text


@pytest.mark.skipif(SIMULATOR_MISSING is not None, reason=SIMULATOR_MISSING or "")
@pytest.mark.parametrize("shape,stages", [
    ((200, 136, 320), 3),  # ragged, five trips: the refill is one iteration later
    ((130, 130, 200), 4),  # B falls back to cp.async; four versions, two issued ahead
    ((128, 128, 64), 3),   # one trip: the only iteration is the last (waits with 0)
], ids=["ragged3", "b_fallback4", "one_trip"])
def test_tensor_copies_with_a_group_in_flight(shape, stages) -> None:
    """One warpgroup group left in flight per iteration: the tensor-copy ring is refilled one
    iteration later and the product still matches the reference."""
    m, n, k = shape
    opts = LowerOptions(warp_specialized=False, wgmma_in_flight=1, wgmma_stages=stages)
    res = differential(matmul, bf16_matmul_args(m, n, k, seed=m * n + k), [2], "cuda:sm_90", TILES,
                       options=opts, rtol=2e-3, atol=2e-3)
    text = str(res.machine)
    assert "in_flight = 1" in text or "pending = 1" in text
    assert _count(text, "tma.load") > 0
    # W - 1 - L iterations are issued before the loop: 3 boxes each (A once, B twice)
    assert _count(text, "tma.load") == (stages - 1 - 1 + 1) * 3
    assert _count(text, "wgmma.wait") == 2  # pending 1, and 0 in the last iteration


def test_in_flight_is_a_plan_variant() -> None:
    """``variant={"wgmma_in_flight": 1}`` reaches the lowering (measured selection explores
    it); an unknown value is refused by the options."""
    from tilec.frontend.tunables import apply_variant

    opts = apply_variant(LowerOptions(warp_specialized=False),
                         {"wgmma_in_flight": 1, "wgmma_stages": 4})
    assert opts.wgmma_in_flight == 1 and opts.wgmma_stages == 4
    with pytest.raises(ValueError, match="wgmma_in_flight must be 0 or 1"):
        apply_variant(LowerOptions(warp_specialized=False), {"wgmma_in_flight": 2})


# ------------------------------------------------------------------ mbarrier rings

RING = LowerOptions(warp_specialized=False, mbarrier_ring=True)
NARROW = {"BM": 64, "BN": 64, "BK": 64}
"""One warpgroup (128 threads): the release is its own first thread's arrival."""
WIDE = {"BM": 128, "BN": 256, "BK": 64}
"""Two warpgroups (256 threads): thread 0's refill must wait for the other one."""
TALL = {"BM": 256, "BN": 128, "BK": 64}
"""Four warpgroups (512 threads): every B element has four readers."""


def test_mbarrier_ring_replaces_the_loop_barrier() -> None:
    text = _machine(bf16_matmul_args(256, 256, 256), options=RING)
    w = 3  # the plain ring's default versions
    # W prologue issues and one refill, 3 boxes each; the fallback loop copies by cp.async
    assert _count(text, "tma.load") == (w + 1) * 3
    assert _count(text, "mbarrier.arrive") == 1
    assert _count(text, "mbarrier.init") == 2 * w and _count(text, "mbarrier.inval") == 2 * w
    assert 'release = "mbarrier"' not in text  # a schedule attribute, not a machine one
    # one loop; its group barriers are all the fallback's (the else of the guard)
    module = tc.compile(matmul, *bf16_matmul_args(256, 256, 256), target="reference",
                        **TILES).module
    machine = lower(module, "cuda:sm_90", RING).machine
    loops = [op for op in machine.walk() if op.name == "serial"
             and any(o.attr("catalog_id") == "mbarrier.arrive" for o in op.walk())]
    assert len(loops) == 1
    barriers = [o for o in loops[0].walk() if o.attr("catalog_id") == "barrier.group"]
    assert barriers
    for b in barriers:
        under, x = None, b
        while x.parent_op is not loops[0]:
            if x.parent_op.attr("guard") == "array extents legal for a tensor map " \
                    "(mbarrier ring)":
                under = x.parent.parent is x.parent_op.regions[1]
            x = x.parent_op
        assert under is True, "a group barrier outside the fallback"
    off = _machine(bf16_matmul_args(256, 256, 256))
    assert _count(off, "mbarrier.arrive") == 0


@pytest.mark.skipif(SIMULATOR_MISSING is not None, reason=SIMULATOR_MISSING or "")
@pytest.mark.parametrize("tiles", [NARROW, WIDE, TALL],
                         ids=["one_warpgroup", "two_warpgroups", "four_warpgroups"])
@pytest.mark.parametrize("shape", [
    (200, 136, 160),   # ragged: the boxes cross the edges
    (130, 130, 72),    # B's array fails the tensor-map guard: the fallback loop runs
    (64, 64, 300),     # A's too, with many trips
    (128, 128, 64),    # one trip: nothing is released
    (128, 256, 640),   # ten trips: every version is released and refilled three times
], ids=["ragged", "b_fallback", "a_fallback", "one_trip", "ten_trips"])
def test_mbarrier_ring_matches_the_reference(shape, tiles) -> None:
    m, n, k = shape
    differential(matmul, bf16_matmul_args(m, n, k, seed=m + 2 * n + k), [2], "cuda:sm_90", tiles,
                 options=RING, rtol=2e-3, atol=2e-3)


def _mutated(drop: str, tiles: dict[str, int] = WIDE) -> None:
    """Simulate the ring of a 10-trip GEMM with every ``drop`` atom of its loop removed."""
    from lowering_cases import poisoned

    from tilec.targets.reference.simt import simulate_module

    args = bf16_matmul_args(128, 256, 640)
    compiled = tc.compile(matmul, *args, target="reference", **tiles)
    res = lower(compiled.module, "cuda:sm_90", RING)
    gone = 0
    for op in list(res.machine.walk()):
        if op.name == "atom.call" and op.attr("catalog_id") == drop.split(":")[0] \
                and (":" not in drop or op.operand(0).defining_op.operand(0).defining_op
                     .attr("role") == "ring empty barriers"):
            for r in op.results:
                assert not list(r.uses)
            op.erase()
            gone += 1
    assert gone
    simulate_module(res.machine, compiled.fn_name, poisoned(args, [2]))


@pytest.mark.skipif(SIMULATOR_MISSING is not None, reason=SIMULATOR_MISSING or "")
def test_a_missing_release_is_reported_as_a_hang() -> None:
    from tilec.targets.reference.errors import SimulationError

    with pytest.raises(SimulationError) as info:
        _mutated("mbarrier.arrive")
    assert info.value.kind == "hang" and "ring_empty_barriers" in str(info.value)


@pytest.mark.skipif(SIMULATOR_MISSING is not None, reason=SIMULATOR_MISSING or "")
def test_a_refill_that_does_not_wait_for_the_release_races() -> None:
    from tilec.targets.reference.errors import SimulationError

    with pytest.raises(SimulationError) as info:
        _mutated("mbarrier.wait:empty")
    assert info.value.kind == "race" and "tma.load" in str(info.value)


def test_mbarrier_ring_is_a_plan_variant_and_noted_where_blocked() -> None:
    from tilec.frontend.tunables import apply_variant

    opts = apply_variant(LowerOptions(warp_specialized=False), {"mbarrier_ring": True})
    assert opts.mbarrier_ring
    args = bf16_matmul_args(256, 256, 256)
    module = tc.compile(matmul, *args, target="reference", **TILES).module
    notes = "\n".join(n for g in lower(module, "cuda:sm_90", RING).groups for n in g.notes)
    assert "released through mbarriers" in notes
    blocked = "\n".join(n for g in lower(module, "cuda:sm_90",
                                          LowerOptions(warp_specialized=False,
                                                       mbarrier_ring=True, tma=False)).groups
                         for n in g.notes)
    assert "no mbarrier ring: the target or the options give no tensor copies" in blocked
    sm80 = _machine(args, target="cuda:sm_80", options=RING)
    assert _count(sm80, "mbarrier.arrive") == 0
