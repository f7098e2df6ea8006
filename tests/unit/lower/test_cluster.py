"""Clusters of persistent warp-specialized groups (``LowerOptions.cluster``;
lower/machine_cluster.py): programs 2c and 2c + 1 form cluster c, walk pair tiles, and share
the operand whose window does not depend on the row tile (B) through multicast tensor
copies; each group's ``empty`` barriers count both groups' releases. Each case is simulated
against the reference with NaN-poisoned outputs, the two groups of a cluster co-simulated
(targets/reference/simt_cluster.py); the protocol's broken variants are reported."""

from __future__ import annotations

import re
from dataclasses import replace

import ml_dtypes
import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING, bf16_matmul_args, differential, poisoned
from lowering_cases import notes as _notes

import tilec as tc
import tilec.ir as ir
import tilec.lower.machine_cluster as machine_cluster
from tilec.lib import batched_matmul, matmul
from tilec.lower import LowerOptions, lower

BF16 = ml_dtypes.bfloat16
SMALL = {"BM": 64, "BN": 64, "BK": 64}
TWO = {"BM": 128, "BN": 128, "BK": 64}

needs_simulator = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                     reason=SIMULATOR_MISSING or "")


def _options(programs: int, traversal: str | None = None, cluster: int | None = 2,
             **kw) -> LowerOptions:
    opts = LowerOptions(warp_specialized=True, persistent=programs, cluster=cluster, **kw)
    if traversal is not None:
        opts = replace(opts, planner=replace(opts.planner, program_traversal=traversal))
    return opts


def _lowered(tiles=TWO, shape=(384, 256, 128), options=None, kernel=matmul):
    args = bf16_matmul_args(*shape)
    compiled = tc.compile(kernel, *args, target="reference", **tiles)
    return compiled, args, lower(compiled.module, "cuda:sm_90", options or _options(4))


def _atoms(module: ir.Module, cid: str) -> list[ir.Operation]:
    return [op for op in module.walk() if op.name == "atom.call"
            and op.attr("catalog_id") == cid]


def _grid(module: ir.Module) -> ir.Operation:
    return next(op for op in module.walk() if op.attr("level") == "grid")


# ------------------------------------------------------------------ the schedule


def test_the_programs_pair_into_clusters_that_multicast_b() -> None:
    _, _, res = _lowered()
    notes = _notes(res)
    assert "clusters of 2 groups on neighbouring tiles of grid axis 0; multicast: load at" \
        in notes
    info = res.resources[0]["cluster"]
    assert info["groups"] == 2 and info["axis"] == 0 and len(info["multicast"]) == 1
    m = res.machine
    grid = _grid(m)
    assert grid.attr("cluster") == 2 and grid.attr("rank") == 1
    # the extent is 2 * min(pair tiles, P // 2): whole clusters, each walking pair tiles
    extent = grid.operand(0).defining_op
    assert extent.name == "arith" and extent.attr("fn") == "mul"
    assert extent.operand(1).defining_op.attr("value") == 2
    cap = extent.operand(0).defining_op
    assert cap.attr("fn") == "min" and cap.operand(1).defining_op.attr("value") == 2
    loads = _atoms(m, "tma.load")
    shared = {op.operand(1).name_hint for op in loads if op.attr("multicast") == 2}
    own = {op.operand(1).name_hint for op in loads if op.attr("multicast") is None}
    assert shared == {"B"} and own == {"A"}
    assert len(_atoms(m, "mbarrier.arrive.peer")) == len(_atoms(m, "mbarrier.arrive")) >= 1
    counts = sorted({op.attr("count") for op in _atoms(m, "mbarrier.init")})
    assert counts == [1, 4], "full: one arrival; empty: 2 consumer warpgroups x 2 groups"
    assert not _atoms(m, "mbarrier.inval"), "the barriers stay valid until the groups end"
    meets = _atoms(m, "barrier.cluster")
    split = next(op for op in m.walk() if op.attr("roles") is not None)
    body = split.parent
    assert len(meets) == 2 and all(op.parent is body for op in meets)
    ops = list(body.operations)
    assert ops.index(meets[0]) < ops.index(split) < ops.index(meets[1]), \
        "one meeting after the barriers' initialization, one before the groups end"


def test_where_clusters_do_not_apply_the_report_says_why() -> None:
    _, _, res = _lowered(options=LowerOptions(warp_specialized=True, persistent=0, cluster=2))
    assert "no cluster: only a persistent group's programs pair up" in _notes(res)
    assert "cluster" not in res.resources[0] and _grid(res.machine).attr("cluster") is None
    _, _, res = _lowered(options=_options(1))
    assert "no cluster: at most 1 programs" in _notes(res)
    assert not _atoms(res.machine, "barrier.cluster")
    for off in (None, 0, 1):
        _, _, res = _lowered(options=_options(4, cluster=off))
        notes = _notes(res)
        assert "clusters of" not in notes and "no cluster" not in notes
        assert not _atoms(res.machine, "mbarrier.arrive.peer")


def test_the_option_changes_the_variant_and_the_source() -> None:
    from tilec.driver import compile_module
    from tilec.frontend.tunables import apply_variant
    from tilec.targets.cuda.emitter import emit_cuda

    assert apply_variant(LowerOptions(), {"cluster": 2}).cluster == 2
    with pytest.raises(ValueError, match="cluster must be 0, 1 or 2"):
        LowerOptions(cluster=3)
    compiled, _, _ = _lowered()
    texts = {}
    for c in (None, 2):
        comp = compile_module(compiled.module, "matmul", "cuda:sm_90", "allocate",
                              _options(4, cluster=c))
        texts[c] = emit_cuda(comp.module, "matmul", "cuda:sm_90").text
    uses = [r"__cluster_dims__\(2, 1, 1\)", r"tc_tma_load_2d_mc(_p)?\(tc_smem_addr",
            r"tc_mbar_arrive_peer(_p)?\(tc_smem_addr", r"barrier\.cluster\.arrive"]
    for pattern in uses:
        assert re.search(pattern, texts[2]), pattern
        assert not re.search(pattern, texts[None]), pattern


# ------------------------------------------------------------------ the simulator


@needs_simulator
@pytest.mark.parametrize("shape,tiles,programs,traversal", [
    ((384, 256, 128), TWO, 4, None),            # odd row tiles: the last pair's second is out
    ((256, 256, 64), TWO, 2, None),             # even row tiles, one K step
    ((300, 200, 320), TWO, 4, None),            # ragged edges, five K steps
    ((128, 128, 128), TWO, 8, None),            # more programs than pairs: one cluster
    ((384, 384, 128), TWO, 4, "grouped:2"),     # the grouped order of the walk
    ((256, 130, 72), TWO, 2, None),             # B fails the tensor-map guard: fallback
    ((136, 136, 160), SMALL, 6, None),          # one consumer warpgroup, 64-row tiles
], ids=["odd_rows", "one_step", "ragged", "few_tiles", "grouped", "fallback", "small"])
def test_clusters_match_the_reference(shape, tiles, programs, traversal) -> None:
    m, n, k = shape
    res = differential(matmul, bf16_matmul_args(m, n, k, seed=m + n + k), [2], "cuda:sm_90", tiles,
                       options=_options(programs, traversal), rtol=2e-3, atol=2e-3)
    assert res.resources[0]["cluster"]["groups"] == 2


@needs_simulator
def test_a_batched_grid_pairs_row_tiles() -> None:
    r = np.random.default_rng(9)
    args = [r.standard_normal((3, 100, 70)).astype(BF16),
            r.standard_normal((3, 70, 130)).astype(BF16), np.zeros((3, 100, 130), np.float32)]
    res = differential(batched_matmul, args, [2], "cuda:sm_90", SMALL, options=_options(6),
                       rtol=2e-3, atol=2e-3)
    assert res.resources[0]["cluster"]["axis"] == 1


def _simulate(res, compiled, args) -> None:
    from tilec.targets.reference.simt import simulate_module

    simulate_module(res.machine, compiled.fn_name, poisoned(args, [2]))


def _broken(edit, shape=(384, 256, 320)):
    """Lower, apply ``edit`` to the Machine IR, simulate: the simulator's error."""
    from tilec.targets.reference.errors import SimulationError

    compiled, args, res = _lowered(shape=shape)
    edit(res.machine)
    with pytest.raises(SimulationError) as info:
        _simulate(res, compiled, args)
    return info.value


@needs_simulator
def test_consumers_that_skip_the_peer_release_hang() -> None:
    def skip(m):
        for op in _atoms(m, "mbarrier.arrive.peer"):
            op.erase()

    e = _broken(skip)
    assert e.kind == "hang" and "ring_empty_barriers" in str(e) and "2 of 4 arrivals" in str(e)


@needs_simulator
def test_empty_barriers_counting_one_group_only_race() -> None:
    def one_group(m):  # the producer refills once either group's consumers released
        for op in _atoms(m, "mbarrier.init"):
            if op.attr("count") == 4:
                op.attributes["count"] = 2

    e = _broken(one_group)
    assert e.kind == "race" and "ring" in str(e)


@needs_simulator
def test_groups_that_do_not_meet_before_they_end_race() -> None:
    e = _broken(lambda m: _atoms(m, "barrier.cluster")[-1].erase())
    assert e.kind == "race" and "with no barrier.cluster between" in str(e)


@needs_simulator
def test_groups_that_do_not_meet_after_the_initialization_race() -> None:
    e = _broken(lambda m: _atoms(m, "barrier.cluster")[0].erase())
    assert e.kind == "race" and "barrier.cluster" in str(e)


@needs_simulator
def test_cluster_atoms_on_a_grid_without_clusters_are_errors() -> None:
    def unclustered(m):
        del _grid(m).attributes["cluster"]
        for op in _atoms(m, "barrier.cluster"):
            op.erase()

    e = _broken(unclustered)
    assert e.kind == "unsupported" and "multicast = 2 on a grid without clusters" in str(e)


@needs_simulator
def test_a_release_to_a_rank_outside_the_cluster_is_an_error(monkeypatch) -> None:
    from tilec.targets.reference.errors import SimulationError

    bind = machine_cluster.Cluster.bind

    def far(self, g, program):
        bind(self, g, program)
        self.peer = g.index(self.size)  # no such group

    monkeypatch.setattr(machine_cluster.Cluster, "bind", far)
    compiled, args, res = _lowered()
    with pytest.raises(SimulationError) as info:
        _simulate(res, compiled, args)
    assert info.value.kind == "unsupported" and "cluster rank 2" in str(info.value)
