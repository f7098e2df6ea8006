"""The seed's worked numbers, recomputed by the planner's own formulas.

Nothing here is a lookup: every quantity comes out of enumeration, work counts,
cost-basis features or the IR extraction, and is compared with the number the
seed prints.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import tilec.plan as plan
from tilec.exec import get_profile
from tilec.plan.cost import MppMemoryV3Basis, SimdgroupReferenceBasis

KIB = 1024


def _reference_candidates() -> dict[str, plan.Priced]:
    """The seed's three columns for 32x64 output, K tile 32, 32 iterations, 128 threads."""
    profile = get_profile("metal:m1")
    w = plan.MatrixWorkload("mma#0", 32, 64, 32, executions=32, recurrence=32,
                            direct_output=True)
    g = plan.GroupWorkload("g", (w,), programs=1)
    opts = plan.PlannerOptions(threads=128)
    basis = SimdgroupReferenceBasis(profile)
    en = plan.enumerate_group(g, profile, opts, basis.families)
    (oe,) = en.by_threads[128]
    out = {}
    for c in oe.candidates:
        d = c.distribution
        if c.realization == "one_atom":
            out["one_atom"] = basis.price(c, w)
        elif (d.gm, d.gn, d.rm, d.rn) == (1, 4, 4, 2) and c.accumulator != "nonresident":
            out[c.accumulator] = basis.price(c, w)
    assert set(out) == {"one_atom", "resident", "direct"}
    return out


COLUMNS = ("one_atom", "resident", "direct")


@pytest.mark.parametrize("feature,expected", [
    ("matrix_issues", (4096, 4096, 4096)),
    ("input_transfers", (8192, 3072, 3072)),
    ("accumulator_transfers", (2048, 64, 0)),
    ("direct_global_stores", (0, 0, 32)),
    ("live_fragment_scalars", (6, 28, 28)),
])
def test_reference_table(feature: str, expected: tuple[int, int, int]) -> None:
    cands = _reference_candidates()
    got = tuple(cands[c].feature(feature) for c in COLUMNS)
    assert got == expected
    # the feature is the work count itself, not a rescaled copy
    assert tuple(getattr(cands[c].work, feature) for c in COLUMNS) == expected


def test_reference_table_compact_shared_allocation() -> None:
    cands = _reference_candidates()
    assert tuple(cands[c].candidate.shared_bytes // KIB for c in COLUMNS) == (28, 20, 12)
    # and the 1x4 x 4x2 layout is the one the family derives for 128 threads
    d = cands["direct"].candidate.distribution
    assert (d.subgroups, d.atoms_m, d.atoms_n) == (4, 4, 8)


def test_reference_formulas_generalize() -> None:
    # I = U*V*Q*E and rectangle inputs G*(rm+rn)*Q*E for the same tile, by hand
    u, v, q, e, g, rm, rn, ell = 32 // 8, 64 // 8, 32 // 8, 32, 4, 4, 2, 32
    cands = _reference_candidates()
    assert cands["direct"].work.matrix_issues == u * v * q * e
    assert cands["direct"].work.input_transfers == g * (rm + rn) * q * e
    assert cands["one_atom"].work.input_transfers == 2 * u * v * q * e
    assert cands["resident"].work.accumulator_transfers == Fraction(2 * u * v * e, ell)
    assert cands["direct"].work.direct_global_stores == Fraction(u * v * e, ell)


def test_mpp_state_budget_32x64_local_output() -> None:
    profile = get_profile("metal:m1")
    mpp = profile.atom("mpp.matmul2d.f32.subgroup")
    ref = profile.atom("simdgroup.8x8.f32")
    rm, rn = 32 // 8, 64 // 8
    assert plan.fragment_scalars(mpp, "mpp", rm, rn) == 64
    assert plan.fragment_scalars(ref, "rectangle", rm, rn) == 88
    # one subgroup owning the whole 32x64: legal for MPP at the 64 budget, rejected for the
    # reference emitter (charging MPP for A/B fragments would wrongly discard it)
    w = plan.MatrixWorkload("mma#0", 32, 64, 32)
    g = plan.GroupWorkload("g", (w,))
    opts = plan.PlannerOptions(threads=32, max_fragment_scalars_per_lane=64)
    en_mpp = plan.enumerate_group(g, profile, opts, ("mpp",))
    assert [c.fragment_scalars for c in en_mpp.by_threads[32][0].candidates] == [64]
    en_ref = plan.enumerate_group(g, profile, opts, ("simdgroup",))
    rects = [c for c in en_ref.by_threads[32][0].candidates if c.realization == "rectangle"]
    assert rects == []
    assert any("88 explicit scalars" in r.reason for r in en_ref.rejections)


def test_minimum_budgets_are_realization_specific() -> None:
    profile = get_profile("metal:m1")
    mpp = profile.atom("mpp.matmul2d.f32.subgroup")
    ref = profile.atom("simdgroup.8x8.f32")
    assert plan.minimum_fragment_budget(mpp) == 4      # the 8x16 descriptor
    assert plan.minimum_fragment_budget(ref) == 6      # one 8x8 atom: A, B and C
    w = plan.MatrixWorkload("mma#0", 8, 16, 16)
    g = plan.GroupWorkload("g", (w,))
    for family, minimum in (("mpp", 4), ("simdgroup", 6)):
        ok = plan.enumerate_group(g, profile, plan.PlannerOptions(
            threads=32, max_fragment_scalars_per_lane=minimum), (family,))
        assert ok.by_threads[32][0].candidates, family
        below = plan.enumerate_group(g, profile, plan.PlannerOptions(
            threads=32, max_fragment_scalars_per_lane=minimum - 1), (family,))
        # no atom realization survives; only the checked scalar reference remains
        assert [c.realization for c in below.by_threads[32][0].candidates] == ["scalar"]
        assert any("below this realization's minimum" in r.reason for r in below.rejections)


def test_mpp_physical_k_192_vs_180(matmul_module) -> None:
    # 32x64 tile, three nominal K=16 iterations over a physical K of 45, from the IR
    module = matmul_module(m=32, n=64, k=48, bm=32, bn=64, bk=16, bounded=True, source_k=45)
    (site,) = plan.extract_groups(module, plan.PlannerOptions(bounded_k_views=True))
    (w,) = site.workload.ops
    assert w.executions == 3 and w.physical_k_proved and w.mean_k == 15
    profile = get_profile("metal:m1")
    basis = MppMemoryV3Basis(profile)
    en = plan.enumerate_group(site.workload, profile, plan.PlannerOptions(threads=32),
                              basis.families)
    priced = basis.price(en.by_threads[32][0].candidates[0], w)
    assert priced.feature("nominal_matrix_issues") == 192
    assert priced.feature("matrix_issues") == 180


def test_elided_scalar_domains_10240_and_6144(matmul_module) -> None:
    # the same recurrence: yield copy 32*64*3, literal initializer and scalar sink 32*64 each
    module = matmul_module(m=32, n=64, k=48, bm=32, bn=64, bk=16)
    (site,) = plan.extract_groups(module)
    (w,) = site.workload.ops
    assert w.direct_output and w.recurrence == 3
    profile = get_profile("metal:m1")
    en = plan.enumerate_group(site.workload, profile, plan.PlannerOptions(threads=32),
                              ("mpp",))
    by_mode = {c.accumulator: c for c in en.by_threads[32][0].candidates}
    assert by_mode["direct"].elided_elements == 10240
    assert by_mode["resident"].elided_elements == 6144
    assert by_mode["nonresident"].elided_elements == 0
    # global stores stay charged for the direct candidate
    assert plan.work_counts(by_mode["direct"], w).direct_global_stores == 32 * 64 // 64
