"""The matrix family's enumeration: divisors, factorizations, thread counts, rejections."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tilec.plan as plan
from tilec.exec import get_profile


@given(st.integers(1, 5000))
def test_divisors_match_brute_force(n: int) -> None:
    got = plan.divisors(n)
    assert list(got) == [d for d in range(1, n + 1) if n % d == 0]


def test_divisors_use_square_root_trial_divisions(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = math.isqrt

    def spy(n: int) -> int:
        calls.append(n)
        return real(n)

    monkeypatch.setattr(plan.threads, "isqrt", spy)
    assert plan.divisors(10**6)[-1] == 10**6
    assert calls == [10**6]  # the loop bound is isqrt(n), not n
    with pytest.raises(ValueError):
        plan.divisors(0)


@given(st.integers(1, 512))
def test_factorizations_complete_unique_ordered(g: int) -> None:
    fs = plan.factorizations(g)
    assert set(fs) == {(a, b) for a in range(1, g + 1) for b in range(1, g + 1) if a * b == g}
    assert len(set(fs)) == len(fs)
    assert [a for a, _ in fs] == sorted(a for a, _ in fs)


def test_thread_search_all_complete_subgroup_counts() -> None:
    p = get_profile("cuda:sm_90")
    s = plan.thread_search(p, plan.PlannerOptions())
    assert s.counts == tuple(range(32, 1025, 32)) and s.diagnostic is None
    assert plan.thread_search(p, plan.PlannerOptions(threads=256)).counts == (256,)
    odd = plan.thread_search(p, plan.PlannerOptions(threads=100))
    assert odd.counts == (100,) and odd.scalar_only
    big = plan.thread_search(p, plan.PlannerOptions(threads=2048))
    assert big.counts == () and "exceeds" in big.diagnostic


def test_thread_budget_exceeded_is_a_diagnostic_not_a_prefix() -> None:
    w = plan.MatrixWorkload("mma#0", 32, 64, 32)
    g = plan.GroupWorkload("g", (w,))
    gp = plan.plan_group(g, "cuda:sm_90", plan.PlannerOptions(max_thread_candidates=8))
    assert gp.selected is None and gp.candidates == []
    assert any("max_thread_candidates is 8" in d for d in gp.diagnostics)
    assert gp.counters["thread_counts"] == 0
    # an exact request needs only one width and stays within any budget
    exact = plan.plan_group(g, "cuda:sm_90",
                            plan.PlannerOptions(max_thread_candidates=1, threads=128))
    assert exact.selected is not None and exact.selected.threads == 128


def _enumerate(m: int, n: int, k: int, target: str, families: tuple[str, ...],
               **opts) -> plan.Enumeration:
    w = plan.MatrixWorkload("mma#0", m, n, k, recurrence=1, direct_output=True)
    return plan.enumerate_group(plan.GroupWorkload("g", (w,)), get_profile(target),
                                plan.PlannerOptions(**opts), families)


def test_every_exact_factorization_is_found_once() -> None:
    profile = get_profile("metal:m1")
    en = _enumerate(64, 128, 32, "metal:m1", ("simdgroup",), max_fragment_scalars_per_lane=10**6)
    u, v = 64 // 8, 128 // 8
    for t, entries in en.by_threads.items():
        g = t // profile.subgroup_width
        (oe,) = entries
        rects = {(c.distribution.gm, c.distribution.gn) for c in oe.candidates
                 if c.realization == "rectangle"}
        want = {(a, g // a) for a in range(1, g + 1) if g % a == 0 and u % a == 0
                and v % (g // a) == 0}
        assert rects == want, t
        keys = [(c.distribution.gm, c.distribution.gn, c.accumulator, c.realization)
                for c in oe.candidates]
        assert len(keys) == len(set(keys))
        assert sum(c.realization == "one_atom" for c in oe.candidates) == 1


def test_enumeration_is_deterministic() -> None:
    a = _enumerate(64, 64, 64, "cuda:sm_80", ("mma_sync", "lane_ffma"))
    b = _enumerate(64, 64, 64, "cuda:sm_80", ("mma_sync", "lane_ffma"))
    assert [[c.label for c in oe.candidates] for t in a.by_threads for oe in a.by_threads[t]] \
        == [[c.label for c in oe.candidates] for t in b.by_threads for oe in b.by_threads[t]]
    assert a.rejections == b.rejections


def test_nonexact_coverage_and_descriptor_rejections_have_reasons() -> None:
    en = _enumerate(24, 64, 32, "metal:m1", ("mpp",), threads=64)
    reasons = [r.reason for r in en.rejections]
    assert any(r.startswith("nonexact coverage: gm=2 does not divide U=3") for r in reasons)
    en2 = _enumerate(8, 8, 16, "metal:m1", ("mpp",), threads=32)
    assert any("M or N must be a multiple of 16" in r for r in (x.reason for x in en2.rejections))
    # a K that is not a multiple of 16 is the descriptor's dynamic-K tail case: legal
    en3 = _enumerate(16, 16, 8, "metal:m1", ("mpp",), threads=32)
    assert not any("static K" in r.reason for r in en3.rejections)
    assert en3.by_threads[32][0].candidates
    assert plan.mpp_descriptor_rule(get_profile("metal:m1").atom("mpp.matmul2d.f32.subgroup"),
                                    8, 8, 8) == ("MPP matmul2d on each subgroup's rectangle: "
                                                 "descriptor 8x8: M or N must be a multiple "
                                                 "of 16")


def test_tf32_atom_needs_permission_and_exact_f32_uses_ffma() -> None:
    exact = _enumerate(32, 32, 32, "cuda:sm_90", ("mma_sync", "lane_ffma"), threads=128)
    atoms = {c.atom.id for c in exact.by_threads[128][0].candidates}
    assert atoms == {"ffma"}
    assert any(r.atom == "mma.m16n8k8.tf32" and "tf32 permission" in r.reason
               for r in exact.rejections)
    w = plan.MatrixWorkload("mma#0", 32, 32, 32, precision="tf32")
    tf = plan.enumerate_group(plan.GroupWorkload("g", (w,)), get_profile("cuda:sm_90"),
                              plan.PlannerOptions(threads=128), ("mma_sync", "lane_ffma"))
    assert {c.atom.id for c in tf.by_threads[128][0].candidates} == {"mma.m16n8k8.tf32", "ffma"}
    wb = plan.MatrixWorkload("mma#0", 32, 32, 32, dtype="bf16")
    bf = plan.enumerate_group(plan.GroupWorkload("g", (wb,)), get_profile("cuda:sm_80"),
                              plan.PlannerOptions(threads=64), ("mma_sync", "lane_ffma"))
    assert {c.atom.id for c in bf.by_threads[64][0].candidates} == {"mma.m16n8k16.bf16"}


def test_cuda_fragment_budget_uses_the_atoms_own_counts() -> None:
    w = plan.MatrixWorkload("mma#0", 64, 64, 16, dtype="bf16", recurrence=1,
                            direct_output=True)
    en = plan.enumerate_group(plan.GroupWorkload("g", (w,)), get_profile("cuda:sm_90"),
                              plan.PlannerOptions(threads=32,
                                                  max_fragment_scalars_per_lane=10**6),
                              ("mma_sync",))
    rect = [c for c in en.by_threads[32][0].candidates if c.realization == "rectangle"]
    # one warp owns 4x8 atoms of 16x8: A 4*4, B 8*2, C 32*4 registers per lane
    assert {c.fragment_scalars for c in rect} == {4 * 4 + 8 * 2 + 32 * 4}
    # at 1024 threads the register file leaves 64 per thread
    big = plan.MatrixWorkload("mma#0", 256, 256, 16, dtype="bf16")
    en2 = plan.enumerate_group(plan.GroupWorkload("g", (big,)), get_profile("cuda:sm_90"),
                               plan.PlannerOptions(threads=1024,
                                                   max_fragment_scalars_per_lane=10**6),
                               ("mma_sync",))
    assert any(r.reason.startswith("register file:") and "64 available" in r.reason
               for r in en2.rejections)


def test_incompatible_exact_threads_use_the_scalar_reference() -> None:
    en = _enumerate(32, 64, 32, "metal:m1", ("simdgroup",), threads=96 + 5)
    (oe,) = en.by_threads[101]
    assert [c.realization for c in oe.candidates] == ["scalar"]
    assert any("not a whole number" in r.reason for r in en.rejections)
    gp = plan.plan_group(plan.GroupWorkload("g", (plan.MatrixWorkload("mma#0", 32, 64, 32),)),
                         "metal:m1", plan.PlannerOptions(threads=101))
    assert gp.selected is not None and gp.selected.choices[0].candidate.realization == "scalar"
    assert gp.selected.structure is None


def test_residency_options_and_missing_proofs_are_reported() -> None:
    en = _enumerate(32, 64, 32, "metal:m1", ("simdgroup",), threads=128,
                    direct_accumulator_store=False)
    modes = {c.accumulator for c in en.by_threads[128][0].candidates}
    assert modes == {"nonresident", "resident"}
    assert any("direct_accumulator_store" in r.reason for r in en.rejections)
    en = _enumerate(32, 64, 32, "metal:m1", ("simdgroup",), threads=128,
                    accumulator_residency=False)
    assert {c.accumulator for c in en.by_threads[128][0].candidates} == {"nonresident"}
    w = plan.MatrixWorkload("mma#0", 32, 64, 32)
    en = plan.enumerate_group(plan.GroupWorkload("g", (w,)), get_profile("metal:m1"),
                              plan.PlannerOptions(threads=128), ("simdgroup",))
    assert any("no proved closed recurrence" in r.reason for r in en.rejections)


def test_collective_scope_checks_the_descriptor_on_the_whole_tile() -> None:
    """The MPP whole-group operation (execution_simdgroups<G>) is enumerated beside the
    subgroup one: its descriptor is the group tile's, so it is legal where the subgroup
    rectangles are not; with one SIMD-group it is the subgroup operation."""
    en = _enumerate(16, 16, 16, "metal:m1", ("mpp",), threads=128)
    cands = en.by_threads[128][0].candidates
    assert {c.atom.id for c in cands} == {"mpp.matmul2d.f32.group"}
    assert any(r.atom == "mpp.matmul2d.f32.subgroup" and "M or N must be a multiple of 16"
               in r.reason for r in en.rejections)
    one = _enumerate(16, 16, 16, "metal:m1", ("mpp",), threads=32)
    assert {c.atom.id for c in one.by_threads[32][0].candidates} == {"mpp.matmul2d.f32.subgroup"}
    assert any(r.atom == "mpp.matmul2d.f32.group" and "is the subgroup operation" in r.reason
               for r in one.rejections)
