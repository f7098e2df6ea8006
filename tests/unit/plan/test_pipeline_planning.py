"""Pipeline planning before the final group selection (``PlannerOptions.plan_ring_versions``,
seed 000 "Pipeline planning happens before final group selection").

Without the option the planner counts the fewest ring versions (two) for every candidate
and the lowering chooses the versions after the plan, trimming them to what fits: a plan
priced with a deeper ring than it then gets. With it, each warpgroup candidate is enumerated
once per count of ``matrix.PIPELINE_VERSIONS``, its capacity check counts those versions,
the basis prices what a shallower ring exposes (``ring_version_scale``), and the lowering
places the planner's count. What changes: the selection of lib.matmul tiles (both orders
shown), the versions in the report, the program, and the results in the simulators."""

from __future__ import annotations

import warnings
from dataclasses import replace

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from paths import cubin, needs_nvrtc
from tilec.exec import get_profile
from tilec.lib.matmul import matmul
from tilec.lower import LoweringError, LowerOptions, lower
from tilec.plan import PlannerOptions, plan_group, plan_module, select_basis, shapes_from_arrays
from tilec.plan.cost.cuda_mma_v3 import derive
from tilec.plan.matrix import PIPELINE_VERSIONS, Realization, ring_extra
from tilec.targets.cuda.emitter import emit_cuda

BF16 = ml_dtypes.bfloat16
ON = {"plan_ring_versions": True}


def _args(m: int, n: int, k: int, seed: int = 0) -> list[np.ndarray]:
    r = np.random.default_rng(seed)
    return [r.standard_normal((m, k)).astype(BF16), r.standard_normal((k, n)).astype(BF16),
            np.full((m, n), np.nan, np.float32)]


def _module(args, **tiles):
    comp = tc.compile(matmul, *args, target="reference", **tiles)
    return comp.module, shapes_from_arrays(list(comp.module)[0], args)


def _plan(args, on: bool, **tiles):
    module, shapes = _module(args, **tiles)
    (g,) = plan_module(module, "cuda:sm_90", PlannerOptions(plan_ring_versions=on),
                       shapes).groups
    return g


def _options(on: bool, **more) -> LowerOptions:
    o = LowerOptions()
    return replace(o, planner=replace(o.planner, plan_ring_versions=on), **more)


def _lowered(args, on: bool, target: str = "cuda:sm_90", options: LowerOptions | None = None,
             **tiles):
    module, shapes = _module(args, **tiles)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tc.PerformanceWarning)
        return lower(module, target, replace(options or _options(on), shapes=shapes))


def _placed(res) -> set[int]:
    """The ring versions of every multi-version buffer the lowering placed."""
    return {op.attr("versions") for op in res.machine.walk()
            if op.name == "memory" and op.attr("versions")}


def _notes(res) -> str:
    return "\n".join(n for g in res.groups for n in g.notes)


def _choice(g):
    (p,) = g.selected.choices
    return p


# ------------------------------------------------------------------------ the plan


def test_off_leaves_the_versions_to_the_lowering() -> None:
    g = _plan(_args(512, 512, 512), False, BM=128, BN=128, BK=64)
    assert all(p.candidate.ring_versions is None for p in g.candidates)
    assert "ring" not in _choice(g).candidate.label
    assert "ring_versions" not in dict(_choice(g).features)


def test_warpgroup_candidates_are_enumerated_per_version_count() -> None:
    g = _plan(_args(512, 512, 512), True, BM=128, BN=128, BK=64)
    wg = [p.candidate for p in g.candidates if p.candidate.realization == Realization.WGMMA]
    by_mode: dict[str, list[int]] = {}
    for c in wg:
        by_mode.setdefault(c.accumulator, []).append(c.ring_versions)
    assert by_mode and all(sorted(v) == list(PIPELINE_VERSIONS) for v in by_mode.values())
    # the other realizations leave their count to the lowering (LowerOptions.stages)
    assert all(p.candidate.ring_versions is None for p in g.candidates
               if p.candidate.realization != Realization.WGMMA)
    # each version's bytes are counted: one more ring version and its barrier pair
    w = g.workload.ops[0]
    c2, c3 = (next(c for c in wg if c.accumulator == "direct" and c.ring_versions == v)
              for v in (2, 3))
    assert c3.ring_bytes - c2.ring_bytes == w.ring_bytes()  # barriers: two 128-byte arrays
    assert c2.ring_bytes == ring_extra(w, Realization.WGMMA)  # the fewest: the old count


def test_the_versions_are_in_the_report() -> None:
    g = _plan(_args(512, 512, 512), True, BM=128, BN=128, BK=64)
    p = _choice(g)
    assert p.candidate.ring_versions == 4  # room for the deepest ring: it is chosen
    sel = g.to_json()["selected"]["operations"][0]
    assert sel["footprint"]["ring_versions"] == 4
    assert sel["features"]["ring_versions"] == 4.0 and sel["features"]["shallow_ring"] == 1.0
    assert g.to_json()["options"]["plan_ring_versions"] is True
    assert "direct ring 4 @ 256" in g.render()


def test_deeper_rings_that_do_not_fit_are_dropped_and_the_minimum_stays() -> None:
    """128x128x192: 96 KB a version, so two fit and three do not. Old order: the plan is
    priced with the basis's three versions and the lowering then trims its ring to two;
    new order: the plan says two, priced as two (its shallow ring included)."""
    args = _args(512, 512, 768)
    old, new = _plan(args, False, BM=128, BN=128, BK=192), _plan(args, True, BM=128, BN=128,
                                                                 BK=192)
    assert _choice(old).candidate.realization == Realization.WGMMA
    assert _choice(new).candidate.ring_versions == 2
    cap = new.selected.capacity
    deep = [p.candidate for p in new.candidates if p.candidate.realization == "wgmma"
            and p.candidate.ring_versions > 2]
    assert deep and all(c.shared_bytes + c.ring_bytes > cap for c in deep)
    old_bytes = dict(_choice(old).features)["group_shared_bytes"]
    new_bytes = dict(_choice(new).features)["group_shared_bytes"]
    assert old_bytes > cap >= new_bytes  # the old price counted a ring it did not get
    assert dict(_choice(new).features)["shallow_ring"] > 1.0
    assert _placed(_lowered(args, False, BM=128, BN=128, BK=192)) == {2}
    res = _lowered(args, True, BM=128, BN=128, BK=192)
    assert _placed(res) == {2} and "2 ring versions as planned" in _notes(res)


def test_the_new_order_chooses_differently_default_basis() -> None:
    """64x256x64 on 2048^3 (cuda_mma_v6 as it is): the old order priced the warpgroup
    candidate with three ring versions (120 KB: one group per SM, four warps) and chose a
    128-thread mma.sync rectangle; with the versions planned the two-version warpgroup ring
    (two groups per SM) is priced as what it is, shallow ring included, and chosen."""
    args = _args(2048, 2048, 2048)
    old, new = (_plan(args, on, BM=64, BN=256, BK=64) for on in (False, True))
    assert _choice(old).candidate.label == "rectangle 1x4/4x8 direct @ 128"
    assert _choice(new).candidate.label == "wgmma 4x1/1x32 direct ring 2 @ 128"
    assert 1.0 < dict(_choice(new).features)["shallow_ring"] < 1.325


def test_the_new_order_drops_a_plan_that_fits_only_without_its_pipeline() -> None:
    """The seed's case, with a basis whose shallow-ring price is steeper than the measured
    one (two versions 2.5x four: a hypothetical coefficient, to show the mechanism): 128x64x256
    fits two warpgroup ring versions only. The old order selects that warpgroup plan, and
    the lowering then shrinks its ring to two; the new order prices the ring it gets and
    selects the mma.sync rectangle, whose ring is its whole pipeline."""
    args = _args(512, 512, 8192)
    module, shapes = _module(args, BM=128, BN=64, BK=256)
    base = select_basis(get_profile("cuda:sm_90"), PlannerOptions())
    steep = replace(base, coefficients=derive(
        base.coefficients, {"ring_version_scale": ((2, 2.5), (3, 1.2), (4, 1.0))},
        {"ring_version_scale": "a test's hypothetical price"}, "prior", "test"))
    (old_g,) = plan_module(module, "cuda:sm_90", PlannerOptions(), shapes).groups
    work = old_g.workload
    old = plan_group(work, "cuda:sm_90", PlannerOptions(), basis=steep)
    new = plan_group(work, "cuda:sm_90", PlannerOptions(plan_ring_versions=True), basis=steep)
    assert _choice(old).candidate.realization == Realization.WGMMA  # the scale is not read
    assert _choice(new).candidate.realization == Realization.RECTANGLE
    assert _placed(_lowered(args, False, BM=128, BN=64, BK=256)) == {2}  # shrunk from 4


# --------------------------------------------------------------------- the lowering


def test_the_lowering_places_the_planned_versions() -> None:
    args = _args(512, 512, 512)
    default = _lowered(args, False, BM=128, BN=128, BK=64)
    assert _placed(default) == {4}  # its own choice: four with a producer warpgroup
    g = _plan(args, True, BM=128, BN=128, BK=64)
    for v in (2, 3):
        forced = next(p.candidate for p in g.candidates
                      if p.candidate.realization == "wgmma" and p.candidate.ring_versions == v
                      and p.candidate.accumulator == "direct")
        res = _lowered(args, True, options=_options(True, force_matrix={"mma#0": forced}),
                       BM=128, BN=128, BK=64)
        assert _placed(res) == {v}
        assert f"{v} ring versions as planned" in _notes(res)
    # an explicit LowerOptions.wgmma_stages wins over the planner's count
    res = _lowered(args, True, options=_options(True, wgmma_stages=3), BM=128, BN=128, BK=64)
    assert _placed(res) == {3} and "as planned" not in _notes(res)


def test_a_planned_count_the_lowering_cannot_place_is_trimmed_with_a_note() -> None:
    args = _args(512, 512, 768)
    g = _plan(_args(512, 512, 512), True, BM=128, BN=128, BK=192)
    four = next(p.candidate for p in g.candidates if p.candidate.realization == "wgmma"
                and p.candidate.ring_versions == 4 and p.candidate.accumulator == "direct")
    res = _lowered(args, True, options=_options(True, force_matrix={"mma#0": four}),
                   BM=128, BN=128, BK=192)
    assert _placed(res) == {2}
    assert "4 ring versions as planned (PlannerOptions.plan_ring_versions), trimmed to 2" \
        in _notes(res)


@pytest.mark.parametrize("target", ["cuda:sm_80", "metal:m1"])
def test_targets_without_warpgroup_instructions_are_unchanged(target: str) -> None:
    args = _args(256, 256, 256)
    a, b = (_lowered(args, on, target, BM=64, BN=64, BK=32) for on in (False, True))
    assert ir.print_module(a.machine) == ir.print_module(b.machine)


# --------------------------------------------------------------------- the results

CASES = [  # (tiles, shape): the kernels whose plan or program the option changes
    ({"BM": 64, "BN": 64, "BK": 192}, (64, 128, 576)),      # rectangle -> wgmma ring 2
    ({"BM": 128, "BN": 128, "BK": 64}, (128, 128, 832)),    # ring 4 as planned, 13 K steps
    ({"BM": 128, "BN": 64, "BK": 256}, (130, 70, 1000)),    # ring 2, ragged edges
    ({"BM": 64, "BN": 256, "BK": 64}, (64, 256, 320)),      # rectangle -> wgmma ring 2
]


@pytest.mark.parametrize("target", ["cuda:sm_90", "cuda:sm_80", "metal:m1", "cpu"])
@pytest.mark.parametrize("tiles,shape", CASES, ids=[str(s) for _, s in CASES])
def test_results_match_the_reference(target: str, tiles, shape) -> None:
    if target != "cpu":
        pytest.importorskip("tilec.targets.reference.simt")
    args = _args(*shape, seed=sum(shape))
    want = [x.copy() for x in args]
    tc.interpret(matmul, *want, **tiles)
    assert not np.isnan(want[-1]).any()
    results = []
    for variant in ({}, ON):
        got = [x.copy() for x in args]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tc.PerformanceWarning)
            try:
                if target == "cpu":
                    tc.compile(matmul, *got, target="cpu", variant=variant, **tiles)(*got)
                else:
                    tc.simulate(matmul, *got, target=target, variant=variant, **tiles)
            except LoweringError as e:  # metal:m1's 32 KB: the same refusal either way
                results.append(str(e))
                continue
        np.testing.assert_allclose(got[-1], want[-1], rtol=1e-4, atol=1e-4)
        results.append("ran")
    assert results[0] == results[1]


# ---------------------------------------------------------------------- CUDA source


@needs_nvrtc
@pytest.mark.parametrize("tiles,versions", [({"BM": 64, "BN": 64, "BK": 192}, 2),
                                            ({"BM": 128, "BN": 128, "BK": 64}, 3)],
                         ids=["ring2-no-producer", "ring3-producer"])
def test_the_cuda_source_compiles(tiles, versions: int) -> None:
    args = _args(512, 512, 1024)
    g = _plan(args, True, **tiles)
    cand = next(p.candidate for p in g.candidates if p.candidate.realization == "wgmma"
                and p.candidate.ring_versions == versions
                and p.candidate.accumulator == "direct")
    res = _lowered(args, True, options=_options(True, force_matrix={"mma#0": cand}), **tiles)
    assert _placed(res) == {versions}
    cubin(emit_cuda(res.machine, "matmul", "cuda:sm_90"), "sm_90")
