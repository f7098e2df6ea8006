"""Ping-pong consumers (``LowerOptions.pingpong``; lower/machine_pingpong.py): a persistent
warp-specialized group of one consumer warpgroup gets a second, the two walking alternate
tiles with their K loops in turn. Each case is simulated against the reference with
NaN-poisoned outputs; a protocol without the turns is reported by the simulator."""

from __future__ import annotations

from collections import Counter

import pytest
from lowering_cases import SIMULATOR_MISSING, bf16_matmul_args, differential, poisoned
from lowering_cases import notes as _notes

import tilec as tc
import tilec.lower.machine_roles as roles
from tilec.lib import matmul
from tilec.lower import LowerOptions, lower

SMALL = {"BM": 64, "BN": 64, "BK": 64}
TWO = {"BM": 128, "BN": 128, "BK": 64}

needs_simulator = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                     reason=SIMULATOR_MISSING or "")


def _options(programs: int = 3, **kw) -> LowerOptions:
    return LowerOptions(warp_specialized=True, persistent=programs, pingpong=True, **kw)


def _lowered(tiles=SMALL, shape=(200, 136, 160), options=None):
    args = bf16_matmul_args(*shape)
    compiled = tc.compile(matmul, *args, target="reference", **tiles)
    return compiled, args, lower(compiled.module, "cuda:sm_90", options or _options())


# ------------------------------------------------------------------ the schedule


def test_two_consumers_take_alternate_tiles() -> None:
    _, _, res = _lowered()
    assert "ping-pong: 2 consumer warpgroups take alternate output tiles" in _notes(res)
    assert res.resources[0]["pingpong"] == 2
    grid = next(op for op in res.machine.walk() if op.attr("level") == "grid")
    assert grid.attr("threads") == 384  # two consumers of 128 and the producer
    splits = [op for op in res.machine.walk() if op.attr("roles") is not None]
    assert [s.attr("roles") for s in splits] == [("producer", "consumer"),
                                                ("consumer 1", "consumer 0")]
    inner = splits[1]
    for region in inner.regions:  # each consumer walks its own tiles
        assert [op for op in region.walk() if op.name == "serial"
                and any(o.name == "serial" for o in op.walk(include_self=False))]
    named = Counter((o.attr("id"), o.attr("threads")) for o in res.machine.walk()
                    if o.attr("catalog_id") == "barrier.named")
    assert {i for i, _ in named} == {1, 2, 3}, "each consumer meets at its own barrier"
    assert named[(1, 256)] and named[(2, 128)] and named[(3, 128)]
    inits = [o for o in res.machine.walk() if o.attr("catalog_id") == "mbarrier.init"]
    turns = [o for o in inits
             if o.operand(0).defining_op.operand(0).name_hint == "turn_barriers"]
    assert len(turns) == 2 and all(o.attr("count") == 1 for o in turns)


@pytest.mark.parametrize("tiles,options,why", [
    (TWO, _options(), "the tile takes 2 consumer warpgroups"),
    (SMALL, LowerOptions(warp_specialized=True, persistent=0, pingpong=True),
     "only a persistent group's consumers can take alternate tiles"),
    (SMALL, _options(cluster=2), "the group runs in a cluster"),
    (SMALL, LowerOptions(warp_specialized=False, pingpong=True),
     "only a persistent warp-specialized group's consumers take alternate tiles"),
])
def test_where_it_does_not_apply_the_report_says_why(tiles, options, why) -> None:
    _, _, res = _lowered(tiles=tiles, shape=(256, 384, 200), options=options)
    assert f"no ping-pong consumers: {why}" in _notes(res)
    assert "pingpong" not in res.resources[0]


def test_the_option_changes_the_variant_and_the_source() -> None:
    from tilec.driver import compile_module
    from tilec.frontend.tunables import apply_variant
    from tilec.targets.cuda.emitter import emit_cuda

    assert apply_variant(LowerOptions(), {"pingpong": True}).pingpong is True
    compiled, _, _ = _lowered()
    texts = {}
    for on in (False, True):
        comp = compile_module(compiled.module, "matmul", "cuda:sm_90", "allocate",
                              _options(3) if on else LowerOptions(warp_specialized=True,
                                                                  persistent=3))
        texts[on] = emit_cuda(comp.module, "matmul", "cuda:sm_90").text
    assert "__launch_bounds__(384, 1)" in texts[True]
    assert "__launch_bounds__(256" in texts[False]
    for t in ("bar.sync 2, 128", "bar.sync 3, 128", "turn_barriers"):
        assert t in texts[True] and t not in texts[False]


# ------------------------------------------------------------------ the simulator


@needs_simulator
@pytest.mark.parametrize("shape,programs", [
    ((200, 136, 160), 3),   # ragged: 12 tiles over 3 programs, 4 each
    ((256, 320, 512), 2),   # 8 trips a tile: the skipped tiles wrap the ring's phases
    ((130, 130, 72), 2),    # B fails the tensor-map guard: consumer 0 walks every tile
    ((192, 128, 64), 2),    # one trip per tile
    ((64, 64, 320), 5),     # one tile: consumer 1 walks none
    ((128, 192, 384), 1),   # one program, an odd tile count
], ids=["ragged", "wrapping", "fallback", "one_trip", "one_tile", "odd"])
def test_pingpong_groups_match_the_reference(shape, programs) -> None:
    m, n, k = shape
    res = differential(matmul, bf16_matmul_args(m, n, k, seed=m + n + k), [2], "cuda:sm_90",
                       SMALL, options=_options(programs), rtol=2e-3, atol=2e-3)
    assert res.resources[0]["pingpong"] == 2


@needs_simulator
def test_consumers_without_turns_are_reported(monkeypatch) -> None:
    """Without the turns consumer 1 waits on a ``full`` barrier while the phase before the
    one it wants has not completed: its parity wait returns a phase early."""
    from tilec.targets.reference.errors import SimulationError
    from tilec.targets.reference.simt import simulate_module

    monkeypatch.setattr(roles.ConsumerRing, "take_turn", lambda self, r, ordinal: None)
    compiled, args, res = _lowered(options=_options(3, wgmma_stages=3))
    with pytest.raises(SimulationError) as info:
        simulate_module(res.machine, compiled.fn_name, poisoned(args, [2]))
    assert info.value.kind in ("hang", "race") and "stage_barriers" in str(info.value)


def test_the_verifier_knows_both_role_splits() -> None:
    from tilec.ir.verifier_forms import MACHINE_ATTRS

    check = MACHINE_ATTRS["roles"].check
    assert check(("producer", "consumer")) and check(("consumer 1", "consumer 0"))
    assert not check(("consumer 0", "consumer 1"))


@needs_simulator
def test_two_thread_sets_on_one_named_barrier_are_reported(monkeypatch) -> None:
    """Consumer 0 given the id of the consumers' common meeting (1, over both): the
    hardware would count either set's arrivals toward the other's barrier."""
    import tilec.lower.machine_pingpong as pingpong
    from tilec.targets.reference.errors import SimulationError
    from tilec.targets.reference.simt import simulate_module

    monkeypatch.setattr(pingpong, "ROLE_BARRIER", 0)
    compiled, args, res = _lowered()
    with pytest.raises(SimulationError) as info:
        simulate_module(res.machine, compiled.fn_name, poisoned(args, [2]))
    assert info.value.kind == "divergence" and "named barrier 1 is met by threads" \
        in str(info.value)
