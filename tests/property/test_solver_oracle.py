"""The Pareto solver is exact: a brute-force oracle over every combination agrees with it.

Three levels: random abstract problems (scores and released bytes), the seed's
capacity cases (a slower resident realization is the only feasible one, for one
and for two coupled operations), and whole ``plan_group`` runs on random small
matrix groups, where the oracle re-prices every candidate combination itself.
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tilec.plan as plan
from tilec.exec import get_profile
from tilec.ir.atoms import SWIZZLE_ALIGN
from tilec.plan.cost import SimdgroupReferenceBasis


def oracle(problem: plan.Problem) -> tuple[float, tuple[int, ...]] | None:
    """Score every combination; the best feasible (kernel score, choices), or None."""
    best = None
    for choice in itertools.product(*(range(len(o)) for o in problem.ops)):
        score, released, pools = 0.0, 0, {}
        for opts, j in zip(problem.ops, choice):
            o = opts[j]
            score += o.score
            released += o.released
            if o.bonus is not None and problem.ops[o.bonus[0]][choice[o.bonus[0]]].tag \
                    == o.bonus[1]:
                released += o.bonus[2]
            for kind, size in o.pools:
                pools[kind] = max(pools.get(kind, 0), size)
        need = problem.base_bytes - released + sum(pools.values())
        if problem.capacity is not None and need > problem.capacity:
            continue
        final = (score + problem.offset) * problem.scale
        if best is None or final < best[0]:
            best = (final, choice)
    return best


options_st = st.lists(st.builds(plan.Option, st.integers(0, 40).map(float),
                                st.integers(0, 24)), min_size=0, max_size=4)
problem_st = st.builds(
    lambda key, ops, base, cap, off, scale: plan.Problem(key, tuple(tuple(o) for o in ops), base,
                                                         cap, float(off), float(scale)),
    st.integers(0, 10**6), st.lists(options_st, min_size=1, max_size=4), st.integers(0, 80),
    st.one_of(st.none(), st.integers(0, 80)), st.integers(0, 20), st.integers(1, 4))


@st.composite
def coupled_problem_st(draw: st.DrawFn) -> plan.Problem:
    """Problems whose options need scratch pools of two kinds (the largest of each is paid
    once) and release more when an earlier operation chose a tagged option."""
    ops = []
    for i in range(draw(st.integers(1, 4))):
        opts = []
        for _ in range(draw(st.integers(1, 4))):
            bonus = None
            if i and draw(st.booleans()):
                bonus = (draw(st.integers(0, i - 1)), draw(st.sampled_from("xy")),
                         draw(st.integers(0, 16)))
            pools = draw(st.lists(st.tuples(st.sampled_from(["f32", "i32"]),
                                            st.integers(0, 20)), max_size=2))
            opts.append(plan.Option(float(draw(st.integers(0, 40))), draw(st.integers(0, 24)),
                                    tuple(pools), draw(st.sampled_from(["", "x", "y"])), bonus))
        ops.append(tuple(opts))
    return plan.Problem(draw(st.integers(0, 10**6)), tuple(ops), draw(st.integers(0, 100)),
                        draw(st.one_of(st.none(), st.integers(0, 80))))


@settings(max_examples=400, deadline=None)
@given(st.lists(coupled_problem_st(), min_size=1, max_size=3, unique_by=lambda p: p.key))
def test_pools_and_bonuses_match_brute_force(problems: list[plan.Problem]) -> None:
    """The scratch pools and bonuses keep the dynamic program exact."""
    problems = sorted(problems, key=lambda p: p.key)
    for p, r in zip(problems, plan.solve(problems)[1]):
        e = oracle(p)
        if e is None:
            assert r.best is None and r.reason
            continue
        assert r.best is not None and r.best.score == e[0]
        assert p.capacity is None or r.best.bytes <= p.capacity


@settings(max_examples=400, deadline=None)
@given(st.lists(problem_st, min_size=1, max_size=4, unique_by=lambda p: p.key))
def test_dynamic_program_matches_brute_force(problems: list[plan.Problem]) -> None:
    problems = sorted(problems, key=lambda p: p.key)
    best, results, counters = plan.solve(problems)
    expected = [oracle(p) for p in problems]
    for p, r, e in zip(problems, results, expected):
        if e is None:
            assert r.best is None and r.reason
            continue
        assert r.best is not None and r.best.score == e[0]
        # the reported choice really has the reported score and fits
        chosen = [p.ops[i][j] for i, j in enumerate(r.best.choices)]
        assert sum(o.released for o in chosen) == r.best.released
        assert p.finalize(sum(o.score for o in chosen)) == r.best.score
        assert p.capacity is None or r.best.bytes <= p.capacity
    feasible = [e[0] for e in expected if e is not None]
    if not feasible:
        assert best is None
    else:
        assert best is not None and best.score == min(feasible)
        # ties go to the earliest problem
        first = next(p.key for p, e in zip(problems, expected) if e and e[0] == best.score)
        assert best.key == first
    assert counters.problems == len(problems)


def test_slower_resident_is_the_only_feasible_choice_for_one_operation() -> None:
    fast, resident = plan.Option(10.0, 0), plan.Option(15.0, 8)
    roomy = plan.Problem(128, ((fast, resident),), base_bytes=30, capacity=None)
    tight = dataclasses.replace(roomy, capacity=25)
    assert plan.solve_problem(roomy).best.choices == (0,)
    sol = plan.solve_problem(tight).best
    assert sol.choices == (1,) and sol.score == 15.0 and sol.bytes == 22
    assert oracle(tight) == (15.0, (1,))


def test_coupled_operations_share_one_capacity() -> None:
    fast, resident = plan.Option(10.0, 0), plan.Option(15.0, 8)
    ops = ((fast, resident), (fast, resident))
    # each operation alone fits with its fast choice; together one must go resident
    one = plan.solve_problem(plan.Problem(1, ops, base_bytes=40, capacity=33)).best
    assert one.score == 25.0 and sorted(one.choices) == [0, 1]
    both = plan.solve_problem(plan.Problem(1, ops, base_bytes=40, capacity=25)).best
    assert both.choices == (1, 1) and both.score == 30.0
    none = plan.solve_problem(plan.Problem(1, ops, base_bytes=40, capacity=23))
    assert none.best is None and "capacity" in none.reason
    # greedy per-operation selection would have picked (0, 0), which does not fit
    assert 40 - 0 > 25


def _resident_only_group(n_ops: int) -> tuple[plan.GroupWorkload, SimdgroupReferenceBasis]:
    """Metal groups whose cheapest realization (one-atom) does not fit 32 KiB."""
    profile = get_profile("metal:m1")
    # one op: 8K A + 16K B + 8K C + 8K D = 40 KiB, 32 KiB resident;
    # two ops: 2 x (2K + 4K + 8K + 8K) = 44 KiB, 28 KiB when both are resident
    k = 16 if n_ops == 2 else 64
    ops = tuple(plan.MatrixWorkload(f"mma#{i}", 32, 64, k, executions=2, recurrence=2)
                for i in range(n_ops))
    # a steep state-pressure prior makes the resident rectangles slower than one-atom
    coeffs = dataclasses.replace(SimdgroupReferenceBasis(profile).coefficients,
                                 preferred_fragment_scalars_per_lane=6.0)
    return plan.GroupWorkload("g", ops), SimdgroupReferenceBasis(profile, coeffs)


@pytest.mark.parametrize("n_ops", [1, 2])
def test_planner_picks_the_slower_resident_realization_when_capacity_binds(n_ops: int) -> None:
    g, basis = _resident_only_group(n_ops)
    profile = basis.profile
    en = plan.enumerate_group(g, profile, plan.PlannerOptions(threads=128), basis.families)
    priced = [[basis.price(c, oe.op) for c in oe.candidates] for oe in en.by_threads[128]]
    base = sum(sum(w.staging_bytes().values()) for w in g.ops)
    assert base > profile.shared_bytes_per_group
    terms = basis.group_terms(128, g)
    def option(p, w: plan.MatrixWorkload) -> plan.Option:
        pools = ((w.acc_dtype, p.candidate.pool_bytes),) if p.candidate.pool_bytes else ()
        return plan.Option(p.score, p.candidate.released_bytes, pools)

    problem = plan.Problem(128, tuple(tuple(option(p, w) for p in ps)
                                      for ps, w in zip(priced, g.ops)),
                           base, profile.shared_bytes_per_group, terms.offset, terms.scale)
    unconstrained = plan.solve_problem(dataclasses.replace(problem, capacity=None)).best
    sol = plan.solve_problem(problem).best
    assert sol is not None and sol.score > unconstrained.score
    chosen = [priced[i][j].candidate for i, j in enumerate(sol.choices)]
    free = [priced[i][j].candidate for i, j in enumerate(unconstrained.choices)]
    assert all(c.realization == "one_atom" for c in free)
    # a register accumulator: resident, or non-resident through the group's one scratch
    # pool (two operations pay one accumulator tile of pool, not two)
    assert all(c.realization == "rectangle" for c in chosen)
    assert oracle(problem)[0] == sol.score


def _group_bytes(base: int, combo: tuple, ops: tuple) -> int:
    """What a combination of priced candidates needs, counted independently of the solver:
    the base less what each releases beside its ring (``MatrixCandidate.ring_bytes``), plus
    the largest scratch pool of each accumulator type and one swizzled base alignment,
    less the A staging of a warpgroup product whose source product is a warpgroup one."""
    need, pools = base, {}
    real = {w.op: p.candidate.realization for p, w in zip(combo, ops)}
    for p, w in zip(combo, ops):
        c = p.candidate
        need -= c.released_bytes - c.ring_bytes
        if c.pool_bytes:
            pools[w.acc_dtype] = max(pools.get(w.acc_dtype, 0), c.pool_bytes)
        if c.realization == "wgmma":
            pools["swizzled base"] = SWIZZLE_ALIGN
        if c.register_a and real.get(w.a_from) == "wgmma":
            need -= c.register_a
    return need + sum(pools.values())


shape_st = st.sampled_from([8, 16, 32, 64])


@st.composite
def group_st(draw: st.DrawFn) -> plan.GroupWorkload:
    ops = []
    for i in range(draw(st.integers(1, 2))):
        e = draw(st.sampled_from([1, 2, 4]))
        rec = draw(st.sampled_from([None, e]))
        direct = rec is not None and draw(st.booleans())
        m, n, k = draw(shape_st), draw(shape_st), draw(st.sampled_from([8, 16, 32]))
        dom = plan.ScalarDomains(m * n * e, m * n, m * n) if rec is not None else \
            plan.ScalarDomains()
        ops.append(plan.MatrixWorkload(f"mma#{i}", m, n, k, executions=e, recurrence=rec,
                                       direct_output=direct, domains=dom))
    # common allocations push many draws against Metal's 32 KiB, so capacity binds often
    return plan.GroupWorkload("g", tuple(ops), programs=draw(st.integers(1, 2048)),
                              common_elements=draw(st.integers(0, 10**5)),
                              common_shared_bytes=draw(st.sampled_from([0, 8192, 16384])))


@settings(max_examples=100, deadline=None)
@given(group_st(), st.sampled_from(["metal:m1", "cuda:sm_90", "metal:steep"]), st.booleans())
def test_plan_group_agrees_with_exhaustive_pricing(g: plan.GroupWorkload, target: str,
                                                   mpp: bool) -> None:
    steep = target == "metal:steep"
    target = "metal:m1" if steep else target
    profile = get_profile(target)
    opts = plan.PlannerOptions(metal_mpp=mpp and not steep)
    given_basis = None
    if steep:
        # a steep pressure prior makes nonresident one-atom plans cheapest, so the
        # capacity decides between them and slower resident / direct rectangles
        _, given_basis = _resident_only_group(1)
    gp = plan.plan_group(g, target, opts, basis=given_basis)
    if gp.replaced is not None:      # MPP found nothing; the reference basis re-planned
        opts = plan.PlannerOptions()
    basis = given_basis or plan.select_basis(profile, opts)
    en = plan.enumerate_group(g, profile, opts, basis.families)
    base = g.common_shared_bytes + sum(sum(w.staging_bytes().values()) for w in g.ops)
    best = None
    for t in en.search.counts:
        lists = [[basis.price(c, oe.op, g.programs) for c in oe.candidates]
                 for oe in en.by_threads[t]]
        terms = basis.group_terms(t, g)
        for combo in itertools.product(*lists):
            if _group_bytes(base, combo, g.ops) > profile.shared_bytes_per_group:
                continue
            total = 0.0
            for p in combo:
                total += p.score
            final = terms.finalize(total)
            if best is None or final < best:
                best = final
    if best is None:
        assert gp.selected is None
    else:
        assert gp.selected is not None
        assert gp.selected.kernel_score == pytest.approx(best, rel=1e-12)
        assert gp.selected.shared_bytes <= profile.shared_bytes_per_group
