"""Persistent warp-specialized groups (``LowerOptions.persistent``; lower/machine_roles.py):
the grid becomes ``min(tiles, P)`` programs, each walking output tiles in the traversal
order, with both roles carrying the ring's versions and phases from tile to tile. Each case
is simulated against the reference with NaN-poisoned outputs; the protocol's broken
variants (a tile's last version never released, consumers restarting the ring, two
programs on one tile) are reported by the simulator."""

from __future__ import annotations

from dataclasses import replace

import ml_dtypes
import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING, bf16_matmul_args, differential, poisoned
from lowering_cases import notes as _notes

import tilec as tc
import tilec.lower.machine_roles as roles
from tilec.lib import batched_matmul, matmul
from tilec.lower import LowerOptions, lower

BF16 = ml_dtypes.bfloat16
SMALL = {"BM": 64, "BN": 64, "BK": 64}
TWO = {"BM": 128, "BN": 128, "BK": 64}

needs_simulator = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                     reason=SIMULATOR_MISSING or "")


def _options(programs: int, traversal: str | None = None, **kw) -> LowerOptions:
    opts = LowerOptions(warp_specialized=True, persistent=programs, **kw)
    if traversal is not None:
        opts = replace(opts, planner=replace(opts.planner, program_traversal=traversal))
    return opts


def _lowered(tiles=TWO, shape=(256, 384, 200), options=None, kernel=matmul):
    args = bf16_matmul_args(*shape)
    compiled = tc.compile(kernel, *args, target="reference", **tiles)
    return compiled, args, lower(compiled.module, "cuda:sm_90", options or _options(2))


# ------------------------------------------------------------------ the schedule


def test_the_group_becomes_programs_that_walk_tiles() -> None:
    _, _, res = _lowered()
    assert "persistent: at most 2 programs walk the output tiles" in _notes(res)
    assert res.resources[0]["persistent"] == 2
    grid = next(op for op in res.machine.walk() if op.attr("level") == "grid")
    assert grid.attr("rank") == 1 and grid.attr("threads") == 384
    extent = grid.operand(0).defining_op  # min(tiles, 2), computed before the launch
    assert extent.name == "arith" and extent.attr("fn") == "min"
    split = next(op for op in res.machine.walk() if op.attr("roles") is not None)
    for region in split.regions:  # each role walks the tiles with its own loop
        walks = [op for op in region.walk() if op.name == "serial"
                 and any(o.name == "serial" for o in op.walk(include_self=False))]
        assert walks, "a tile loop around the K loop"
    consumer = split.regions[1]
    invals = [o for o in consumer.walk() if o.attr("catalog_id") == "mbarrier.inval"]
    # the consumers' region is unswitched on the tensor-map guard: the walk with the
    # tensor-copy protocol under it, the ordinary ring's walk in its else branch
    unswitch = next(op for op in consumer.entry.operations if op.name == "if"
                    and "consumers" in str(op.attr("guard")))
    walk = next(op for op in unswitch.regions[0].entry.operations if op.name == "serial")
    assert invals and not [o for o in walk.walk() if o in invals], \
        "the barriers are invalidated once, after the walk"
    fallback = [op for op in unswitch.regions[1].walk() if op.name == "atom.call"]
    assert not [o for o in fallback if o.attr("catalog_id") == "mbarrier.wait"], \
        "the ordinary ring's copy waits on no barrier"
    assert [o for o in fallback if o.attr("catalog_id") == "cp.async.16"]


def test_where_it_does_not_apply_the_report_says_why() -> None:
    _, _, res = _lowered(options=LowerOptions(persistent=4, warp_specialized=False))
    assert "not persistent: only a warp-specialized group walks tiles" in _notes(res)
    grid = next(op for op in res.machine.walk() if op.attr("level") == "grid")
    assert grid.attr("rank") == 2

    @tc.kernel
    def lower_triangle(A, B, C, BM: tc.constexpr = 128, BN: tc.constexpr = 128,
                       BK: tc.constexpr = 64):
        M, K = A.shape
        N = B.shape[1]
        for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
            acc = tc.zeros((BM, BN), tc.float32)
            for k in tc.serial(pm + 1):  # the trip count depends on the row block
                a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
                b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
                acc = tc.mma(a, b, acc)
            C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)

    _, _, res = _lowered(kernel=lower_triangle)
    assert "not persistent: the loop's end depends on the program's coordinates" \
        in _notes(res)
    assert "warp-specialized: a producer warpgroup" in _notes(res)


def test_the_option_changes_the_variant_and_the_source() -> None:
    from tilec.driver import compile_module
    from tilec.frontend.tunables import apply_variant
    from tilec.targets.cuda.emitter import emit_cuda

    assert apply_variant(LowerOptions(), {"persistent": 132}).persistent == 132
    with pytest.raises(ValueError, match="persistent must be an integer"):
        LowerOptions(persistent=-1)
    compiled, _, _ = _lowered()
    texts = {}
    for p in (0, 132):
        comp = compile_module(compiled.module, "matmul", "cuda:sm_90", "allocate",
                              _options(p))
        texts[p] = emit_cuda(comp.module, "matmul", "cuda:sm_90").text
    assert "_program = (int)blockIdx.x" in texts[132]
    assert "_program = " not in texts[0] and "blockIdx.y" in texts[0]


# ------------------------------------------------------------------ the simulator


@needs_simulator
@pytest.mark.parametrize("shape,tiles,programs,traversal", [
    ((200, 136, 160), SMALL, 3, None),          # ragged: 12 tiles over 3 programs
    ((256, 384, 200), TWO, 2, None),            # two consumer warpgroups, 3 tiles each
    ((300, 200, 130), SMALL, 4, "grouped:2"),   # the grouped order of the walk
    ((130, 130, 72), SMALL, 2, None),           # B fails the tensor-map guard: fallback
    ((192, 128, 64), SMALL, 2, None),           # one trip per tile
    ((64, 64, 320), SMALL, 5, None),            # fewer tiles than programs
], ids=["ragged", "two_consumers", "grouped", "fallback", "one_trip", "few_tiles"])
def test_persistent_groups_match_the_reference(shape, tiles, programs, traversal) -> None:
    m, n, k = shape
    differential(matmul, bf16_matmul_args(m, n, k, seed=m + n + k), [2], "cuda:sm_90", tiles,
                 options=_options(programs, traversal), rtol=2e-3, atol=2e-3)


def _simulate_broken(monkeypatch, attr: str, replacement) -> None:
    from tilec.targets.reference.simt import simulate_module

    monkeypatch.setattr(attr[0], attr[1], replacement)
    compiled, args, res = _lowered(options=_options(2, wgmma_stages=3))
    simulate_module(res.machine, compiled.fn_name, poisoned(args, [2]))


@needs_simulator
def test_a_tile_whose_last_version_is_never_released_hangs(monkeypatch) -> None:
    from tilec.targets.reference.errors import SimulationError

    with pytest.raises(SimulationError) as info:
        _simulate_broken(monkeypatch, (roles.ConsumerRing, "release_last"),
                         lambda self, lb, ub, state: None)
    assert info.value.kind == "hang" and "ring_empty_barriers" in str(info.value)


@needs_simulator
def test_consumers_that_restart_the_ring_each_tile_hang(monkeypatch) -> None:
    from tilec.targets.reference.errors import SimulationError

    walk = roles.TileWalk.walk

    def restart(self, g, state, body, meet=True):
        zeros = lambda s: body([g.index(0), g.index(0)])  # noqa: E731
        return walk(self, g, state, zeros if meet else body, meet)

    with pytest.raises(SimulationError) as info:
        _simulate_broken(monkeypatch, (roles.TileWalk, "walk"), restart)
    assert info.value.kind == "hang" and "stage_barriers" in str(info.value)


@needs_simulator
def test_two_programs_on_one_tile_are_a_race(monkeypatch) -> None:
    from tilec.targets.reference.errors import SimulationError

    coords = roles.TileWalk._coordinates

    def first_column(self, g, t, extents):
        c = coords(self, g, t, extents)
        return [c[0], g.index(0)]

    with pytest.raises(SimulationError) as info:
        _simulate_broken(monkeypatch, (roles.TileWalk, "_coordinates"), first_column)
    assert info.value.kind == "race" and "programs may run in any order" in str(info.value)


@needs_simulator
@pytest.mark.parametrize("traversal", [None, "grouped:2"])
def test_a_batched_grid_walks_every_matrix(traversal) -> None:
    """A grid of three axes: the batch stays the outermost coordinate of the walk."""
    r = np.random.default_rng(9)
    args = [r.standard_normal((3, 100, 70)).astype(BF16),
            r.standard_normal((3, 70, 130)).astype(BF16), np.zeros((3, 100, 130), np.float32)]
    res = differential(batched_matmul, args, [2], "cuda:sm_90", SMALL,
                       options=_options(5, traversal), rtol=2e-3, atol=2e-3)
    assert res.resources[0]["persistent"] == 5
