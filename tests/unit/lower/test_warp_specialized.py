"""Warp-specialized mbarrier rings (``LowerOptions.warp_specialized``; docs/design/
warp_specialization.md): a producer warpgroup issues the tensor copies, the original
threads only wait, compute and release. The role split runs in the simulator as
co-routines (``simt_roles``); each case is checked against the reference interpreter with
NaN-poisoned outputs, and the protocol's broken variants are reported (hang or race).
"""

from __future__ import annotations

import ml_dtypes
import pytest
from lowering_cases import SIMULATOR_MISSING, bf16_matmul_args, differential, poisoned
from lowering_cases import notes as _notes

import tilec as tc
from tilec.lib import matmul
from tilec.lower import LowerOptions, lower

BF16 = ml_dtypes.bfloat16
WS = LowerOptions(warp_specialized=True)
ONE = {"BM": 64, "BN": 64, "BK": 64}
"""One consumer warpgroup (128 threads): no register rebalancing."""
TWO = {"BM": 128, "BN": 128, "BK": 64}
"""Two consumer warpgroups: ``setmaxnreg`` moves registers from the producer to them."""
WIDE = {"BM": 128, "BN": 256, "BK": 64}
"""Two consumer warpgroups, each with a 64 x 256 accumulator."""

needs_simulator = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                     reason=SIMULATOR_MISSING or "")


def _lowered(tiles: dict[str, int], shape=(256, 256, 256), target: str = "cuda:sm_90",
             options: LowerOptions = WS):
    args = bf16_matmul_args(*shape)
    compiled = tc.compile(matmul, *args, target="reference", **tiles)
    return compiled, args, lower(compiled.module, target, options)


def _cids(region) -> list[str]:
    return [o.attr("catalog_id") for o in region.walk() if o.name == "atom.call"]


def _split(machine):
    splits = [op for op in machine.walk() if op.name == "if" and op.attr("roles") is not None]
    assert len(splits) == 1
    return splits[0]


# ------------------------------------------------------------------ the schedule


def test_the_option_gives_the_group_a_producer_warpgroup() -> None:
    _, _, res = _lowered(TWO)
    notes = _notes(res)
    assert "warp-specialized: a producer warpgroup issues the copies for 2 consumer" in notes
    assert "released through mbarriers" in notes  # it implies the ring
    grid = next(op for op in res.machine.walk() if op.attr("level") == "grid")
    assert grid.attr("threads") == 384  # 256 consumers and the producer warpgroup
    split = _split(res.machine)
    assert tuple(split.attr("roles")) == ("producer", "consumer")
    producer, consumer = (_cids(r) for r in split.regions)
    # every tensor copy is the producer's; the consumers compute, wait and release
    assert "tma.load" in producer and "tma.load" not in consumer
    assert "mbarrier.wait" in producer and "mbarrier.expect_tx" in producer
    assert not [c for c in producer if c.startswith("wgmma")]
    assert [c for c in consumer if c.startswith("wgmma")]
    assert "mbarrier.arrive" in consumer and "mbarrier.arrive" not in producer
    # registers move from the producer to the two consumer warpgroups
    decs = [o for o in split.regions[0].walk() if o.attr("catalog_id") == "setmaxnreg"]
    incs = [o for o in split.regions[1].walk() if o.attr("catalog_id") == "setmaxnreg"]
    assert [(o.attr("action"), o.attr("count")) for o in decs] == [("dec", 40)]
    assert [(o.attr("action"), o.attr("count")) for o in incs] == [("inc", 232)]
    # nothing after the split meets every thread: the consumers' barriers are named ones
    assert "barrier.group" not in producer + consumer
    named = [o for o in split.regions[1].walk() if o.attr("catalog_id") == "barrier.named"]
    assert named and {(o.attr("id"), o.attr("threads")) for o in named} == {(1, 256)}


def test_one_consumer_warpgroup_keeps_its_registers() -> None:
    _, _, res = _lowered(ONE)
    split = _split(res.machine)
    assert not [o for o in split.walk() if o.attr("catalog_id") == "setmaxnreg"]
    named = [o for o in split.regions[1].walk() if o.attr("catalog_id") == "barrier.named"]
    assert {o.attr("threads") for o in named} == {128}


def test_where_it_does_not_apply_the_report_says_why() -> None:
    # four warpgroups of threads
    _, _, res = _lowered({"BM": 256, "BN": 128, "BK": 64})
    assert "not warp-specialized: the group's 512 threads are not one or two whole " \
        "warpgroups" in _notes(res)
    assert 'roles = ' not in str(res.machine)
    # split-K meets every thread after the loop
    _, _, res = _lowered(TWO, shape=(128, 128, 1024),
                         options=LowerOptions(warp_specialized=True, split_k=4))
    assert "not warp-specialized: split-K" in _notes(res)
    # no tensor copies: no ring, so no producer
    _, _, res = _lowered(TWO, options=LowerOptions(warp_specialized=True, tma=False))
    assert "no mbarrier ring" in _notes(res) and "roles = " not in str(res.machine)
    # sm_80 has no warpgroup instructions to stage
    _, _, res = _lowered(TWO, target="cuda:sm_80")
    assert "roles = " not in str(res.machine)


def test_the_option_changes_the_plan_variant_and_the_source() -> None:
    from tilec.driver import compile_module
    from tilec.frontend.tunables import apply_variant
    from tilec.targets.cuda.emitter import emit_cuda

    assert apply_variant(LowerOptions(), {"warp_specialized": True}).warp_specialized
    compiled, _, _ = _lowered(TWO)
    texts = {}
    for ws in (False, True):
        comp = compile_module(compiled.module, "matmul", "cuda:sm_90", "allocate",
                              LowerOptions(mbarrier_ring=True, warp_specialized=ws))
        texts[ws] = emit_cuda(comp.module, "matmul", "cuda:sm_90").text
    on, off = texts[True], texts[False]
    # the register split needs the count at entry fixed: one group per SM, stated
    assert "__launch_bounds__(384, 1)" in on and "__launch_bounds__(256" in off
    assert "setmaxnreg.dec.sync.aligned.u32 40" in on
    assert "setmaxnreg.inc.sync.aligned.u32 232" in on
    assert "bar.sync 1, 256" in on
    assert "setmaxnreg" not in off and "bar.sync 1" not in off


# ------------------------------------------------------------------ the simulator


@needs_simulator
@pytest.mark.parametrize("tiles", [ONE, TWO, WIDE],
                         ids=["one_consumer", "two_consumers", "wide"])
@pytest.mark.parametrize("shape", [
    (200, 136, 160),   # ragged: the boxes cross the edges
    (130, 130, 72),    # B's array fails the tensor-map guard: the consumers' fallback runs
    (64, 64, 300),     # A's too, with many trips
    (128, 128, 64),    # one trip: nothing is released
    (128, 256, 640),   # ten trips: every version is released and refilled three times
], ids=["ragged", "b_fallback", "a_fallback", "one_trip", "ten_trips"])
def test_warp_specialized_rings_match_the_reference(shape, tiles) -> None:
    m, n, k = shape
    differential(matmul, bf16_matmul_args(m, n, k, seed=m + 2 * n + k), [2], "cuda:sm_90", tiles,
                 options=WS, rtol=2e-3, atol=2e-3)


def _broken(change, tiles: dict[str, int] = TWO) -> None:
    """Simulate a ten-trip warp-specialized GEMM after ``change(machine)`` (which returns
    how many operations it changed)."""
    from tilec.targets.reference.simt import simulate_module

    args = bf16_matmul_args(128, 256, 640)
    compiled = tc.compile(matmul, *args, target="reference", **tiles)
    res = lower(compiled.module, "cuda:sm_90", WS)
    assert change(res.machine)
    simulate_module(res.machine, compiled.fn_name, poisoned(args, [2]))


def _erase(cid: str, region: int):
    def change(machine) -> int:
        split = _split(machine)
        ops = [o for o in split.regions[region].walk() if o.attr("catalog_id") == cid]
        for o in ops:
            for r in o.results:
                assert not list(r.uses)
            o.erase()
        return len(ops)
    return change


@needs_simulator
def test_a_missing_release_is_a_hang() -> None:
    from tilec.targets.reference.errors import SimulationError

    with pytest.raises(SimulationError) as info:
        _broken(_erase("mbarrier.arrive", 1))
    assert info.value.kind == "hang" and "ring_empty_barriers" in str(info.value)


@needs_simulator
def test_a_producer_that_does_not_wait_for_the_release_races() -> None:
    from tilec.targets.reference.errors import SimulationError

    with pytest.raises(SimulationError) as info:
        _broken(_erase("mbarrier.wait", 0))
    assert info.value.kind == "race" and "tma.load" in str(info.value)


@needs_simulator
def test_the_wrong_parity_is_a_hang() -> None:
    from tilec.targets.reference.errors import SimulationError

    def flip(machine) -> int:
        waits = [o for o in _split(machine).regions[0].walk()
                 if o.attr("catalog_id") == "mbarrier.wait"]
        for w in waits:  # 1 - parity becomes the parity
            w.set_operand(1, w.operand(1).defining_op.operand(1))
        return len(waits)

    with pytest.raises(SimulationError) as info:
        _broken(flip)
    assert info.value.kind == "hang"


@needs_simulator
def test_a_consumer_increase_without_the_producer_decrease_never_returns() -> None:
    from tilec.targets.reference.errors import SimulationError

    with pytest.raises(SimulationError) as info:
        _broken(_erase("setmaxnreg", 0))
    assert info.value.kind == "hang" and "setmaxnreg.inc to 232" in str(info.value)


@needs_simulator
def test_a_named_barrier_short_of_threads_is_reported() -> None:
    from tilec.targets.reference.errors import SimulationError

    def widen(machine) -> int:
        named = [o for o in _split(machine).walk() if o.attr("catalog_id") == "barrier.named"]
        for o in named:
            o.attributes["threads"] = 384
        return len(named)

    args = bf16_matmul_args(130, 130, 72)  # the fallback: the consumers meet at named barriers
    compiled = tc.compile(matmul, *args, target="reference", **TWO)
    res = lower(compiled.module, "cuda:sm_90", WS)
    assert widen(res.machine)
    from tilec.targets.reference.simt import simulate_module

    with pytest.raises(SimulationError) as info:
        simulate_module(res.machine, compiled.fn_name, poisoned(args, [2]))
    assert info.value.kind == "divergence" and "named barrier 1 for 384 threads" in str(
        info.value)
