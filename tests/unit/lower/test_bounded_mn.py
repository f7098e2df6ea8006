"""Bounded M/N input views (``PlannerOptions.bounded_mn_views``; the proof
``plan/proofs/bounded_views.py``, the realization ``lower/machine_bounded_mn.py``): the
accumulator rectangles whose A rows or B columns lie outside the arrays skip their fragment
loads and matrix steps, because the proof shows the bounded store never writes them.
Differential against the reference interpreter (outputs poisoned first) in the three
simulators, every legal candidate of ragged M/N shapes, and with NaN, infinities and signed
zeros at the edge rows and columns compared bit for bit (sign included); the
counterexamples leave the program as it is and stay exact."""

from __future__ import annotations

from dataclasses import replace

import ml_dtypes
import numpy as np
import pytest
from bounded_mn_cases import matmul_from, special
from lowering_cases import SIMULATOR_MISSING, differential, poisoned, reference

import tilec as tc
from tilec.lib import matmul
from tilec.lower import LowerOptions, lower, matrix_candidates
from tilec.lower.machine_bounded_mn import GUARD
from tilec.plan import PlannerOptions, plan_module

needs_simulator = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                     reason=SIMULATOR_MISSING or "")
BF16 = ml_dtypes.bfloat16
TILES = {"BM": 32, "BN": 32, "BK": 32}
TARGETS = ["metal:m1", "cuda:sm_80", "cuda:sm_90"]


@tc.kernel
def moving_rows(A, B, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32,
                BK: tc.constexpr = 32):
    """A's row window moves with the K loop: the rows outside differ between K steps."""
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM + k, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def crossed(A, B, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32, BK: tc.constexpr = 32):
    """The store's rows follow the other program coordinate than A's rows (a square grid)."""
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pn * BM, pm * BN), (BM, BN)).store(acc)


@tc.kernel
def shifted(A, B, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32, BK: tc.constexpr = 32):
    """``C[8:] = A @ B`` with C 8 rows longer than A (C's first rows are not written)."""
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.full((BM, BN), -0.0, tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM + 8, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def transposed_a(AT, B, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32,
                 BK: tc.constexpr = 32):
    """A read as ``x.T`` of a K x M window (not a load in the mma's block)."""
    K, M = AT.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = AT.tile((k * BK, pm * BM), (BK, BM), fill=0.0).T
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


def _options(on: bool, **kw) -> LowerOptions:
    o = LowerOptions(**kw)
    return replace(o, planner=replace(o.planner, bounded_mn_views=on))


def _args(m: int, n: int, k: int, dt, seed: int = 0, out: tuple[int, int] | None = None
          ) -> list[np.ndarray]:
    r = np.random.default_rng(seed)
    return [r.standard_normal((m, k)).astype(dt), r.standard_normal((k, n)).astype(dt),
            np.zeros(out or (m, n), np.float32)]


def _lowered(kernel, args, target, on, tiles=TILES, **kw):
    module = tc.compile(kernel, *args, target="reference", static_shapes=True,
                        **tiles).module
    return lower(module, target, _options(on, **kw))


def _mma(res):
    return next(op for op in res.scheduled.walk() if op.name == "mma")


def _guards(res) -> int:
    """``if``s of the realization's bounded M/N guards (rectangles, fragments)."""
    return sum(1 for op in next(iter(res.machine)).walk() if op.name == "if"
               and str(op.attr("guard", "")).startswith("bounded M/N view"))


# --------------------------------------------------------------- the proof, in the report


def test_the_fact_is_in_the_plan_report() -> None:
    args = _args(40, 47, 100, np.float32)
    module = tc.compile(matmul, *args, target="reference", static_shapes=True,
                        **TILES).module
    plan = plan_module(module, "cuda:sm_80", PlannerOptions(bounded_mn_views=True))
    fact = plan.groups[0].workload.ops[0].bounded_mn
    assert fact is not None and fact.axes == "mn"
    assert fact.m.actuals() == [32, 8] and fact.n.actuals() == [32, 15]
    text = plan.render()
    assert "M: stored = clamp(40 - 32*p0, 0, 32), actual = clamp(40 - 32*p0, 0, 32)" in text
    assert "edge extents [8]" in text
    assert plan.to_json()["groups"][0]["operations"][0]["bounded_mn"]["m"]["actuals"] == [32, 8]
    off = plan_module(module, "cuda:sm_80", PlannerOptions())
    assert off.groups[0].workload.ops[0].bounded_mn is None


def _fact(kernel, args, tiles=TILES):
    module = tc.compile(kernel, *args, target="reference", static_shapes=True,
                        **tiles).module
    plan = plan_module(module, "cuda:sm_80", PlannerOptions(bounded_mn_views=True))
    return plan.groups[0].workload.ops[0].bounded_mn


def test_counterexamples_are_not_proved() -> None:
    shift = _fact(shifted, _args(40, 47, 100, np.float32, out=(48, 47)))
    assert shift.m is None and shift.n is not None
    assert any("shifted by 8" in r for r in shift.reasons)
    moving = _fact(moving_rows, _args(40, 47, 100, np.float32))
    assert moving.m is None and any("loop counter" in r for r in moving.reasons)
    cross = _fact(crossed, _args(40, 40, 64, np.float32))
    assert cross.m is None and cross.n is None
    assert any("not provably aligned" in r for r in cross.reasons)
    a = np.random.default_rng(0).standard_normal((64, 40)).astype(np.float32)
    tr = _fact(transposed_a, [a, np.zeros((64, 47), np.float32),
                              np.zeros((40, 47), np.float32)])
    assert tr.m is None and tr.n is not None
    assert any("not a load in the mma's block" in r for r in tr.reasons)


def test_a_longer_output_is_proved_with_its_own_extent() -> None:
    # C has 8 rows more than A: rows 40..47 hold INIT + 0 * B and are stored, so the rows
    # computed are C's, not A's (the valid input rectangle does not decide what is stored)
    wide = _fact(matmul_from, _args(40, 47, 100, np.float32, out=(48, 47)))
    assert wide.axes == "mn"
    assert wide.m.actuals() == [32, 8] and wide.m.storeds() == [32, 16]


# --------------------------------------------------------------- what the option changes


@pytest.mark.parametrize("target", TARGETS)
def test_the_option_changes_the_program(target) -> None:
    args = _args(40, 47, 100, np.float32)
    off = _lowered(matmul, args, target, False)
    on = _lowered(matmul, args, target, True)
    assert _mma(off).attr("bounded_mn") is None and _guards(off) == 0
    assert _mma(on).attr("bounded_mn") == "mn"
    assert _guards(on) > 0
    # the rectangle's K loop sits under its guard
    assert any(op.name == "if" and op.attr("guard") == GUARD
               for op in next(iter(on.machine)).walk())
    assert str(on.machine) != str(off.machine)
    assert any("bounded MN views realized" in n for g in on.groups for n in g.notes)


@pytest.mark.parametrize("kernel,args", [
    (shifted, _args(40, 47, 100, np.float32, out=(48, 47))),
    (moving_rows, _args(40, 47, 100, np.float32)),
    (crossed, _args(40, 40, 64, np.float32)),
], ids=["shifted", "moving_rows", "crossed"])
def test_unproved_cases_keep_the_program(kernel, args) -> None:
    off = _lowered(kernel, args, "cuda:sm_80", False)
    on = _lowered(kernel, args, "cuda:sm_80", True)
    if kernel is not crossed:  # N is still proved there: only the M guards are missing
        assert _mma(on).attr("bounded_mn") == "n"
        return
    assert _mma(on).attr("bounded_mn") is None and _guards(on) == 0
    assert str(on.machine) == str(off.machine)


@needs_simulator
@pytest.mark.parametrize("target", TARGETS)
def test_a_shape_generic_module(target) -> None:
    # the extents are shape symbols: the store's is read at run time
    args = _args(40, 47, 100, np.float32)
    res = differential(matmul, args, [2], target, TILES, options=_options(True))
    assert _mma(res).attr("bounded_mn") == "mn" and _guards(res) > 0


def test_the_warpgroup_realization_says_why_not() -> None:
    args = _args(130, 130, 64, BF16)
    module = tc.compile(matmul, *args, target="reference", static_shapes=True,
                        BM=128, BN=128, BK=64).module
    res = lower(module, "cuda:sm_90", _options(True))
    mma = _mma(res)
    if mma.attr("realization", "").startswith("wgmma"):
        assert mma.attr("bounded_mn") is None
        assert any("not realized by the wgmma" in n for g in res.groups for n in g.notes)


# ----------------------------------------------------------------------- differential


CANDIDATE_SHAPES = [
    # name, target, dtype, (M, N, K), (BM, BN, BK)
    ("bf16_sm90", "cuda:sm_90", BF16, (40, 19, 20), (32, 16, 16)),
    ("f16_sm80", "cuda:sm_80", np.float16, (17, 30, 33), (16, 32, 16)),
    ("bf16_sm80_wide", "cuda:sm_80", BF16, (70, 40, 16), (64, 64, 16)),
    ("f32_sm80", "cuda:sm_80", np.float32, (33, 20, 9), (32, 16, 8)),
    ("f32_m1", "metal:m1", np.float32, (20, 33, 9), (16, 32, 8)),
    ("f32_m1_wide", "metal:m1", np.float32, (40, 70, 9), (64, 64, 8)),
]


@needs_simulator
@pytest.mark.parametrize("name,target,dt,shape,tile", CANDIDATE_SHAPES,
                         ids=[s[0] for s in CANDIDATE_SHAPES])
def test_every_candidate_on_ragged_m_n(name, target, dt, shape, tile) -> None:
    bm, bn, bk = tile
    cx = {"BM": bm, "BN": bn, "BK": bk}
    module = tc.compile(matmul, *_args(*shape, dt), target="reference", static_shapes=True,
                        **cx).module
    opts = _options(True)
    cands = [c["candidate"] for c in matrix_candidates(module, target, opts)]
    assert cands
    kinds = set()
    for i, cand in enumerate(cands):
        o = replace(opts, force_matrix={"mma#0": cand})
        res = differential(matmul, _args(*shape, dt, seed=i + 1), [2], target, cx,
                           options=o, rtol=1e-2, atol=1e-2, static_shapes=True)
        mma = _mma(res)
        if mma.attr("realization") not in ("simdgroup",) \
                and not mma.attr("realization").startswith("wgmma"):
            assert mma.attr("bounded_mn") == "mn", mma.attr("realization")
            assert _guards(res) > 0 or mma.attr("distribution") == "one_atom"
        kinds.add((mma.attr("realization"), mma.attr("distribution")))
    assert any(d == "rectangle" for _, d in kinds), kinds


@needs_simulator
@pytest.mark.parametrize("target", TARGETS)
def test_the_scalar_reference_realization(target) -> None:
    args = _args(40, 47, 20, np.float32, seed=3)
    res = differential(matmul, args, [2], target, TILES,
                       options=_options(True, matrix_realizations=False), static_shapes=True)
    assert _mma(res).attr("realization") == "reference"
    assert _mma(res).attr("bounded_mn") == "mn"


def _exact(kernel, args, target, opts, tiles):
    res = differential(kernel, args, [2], target, tiles, options=opts, exact=True,
                       static_shapes=True)
    comp = tc.compile(kernel, *args, target="reference", static_shapes=True, **tiles)
    want = poisoned(args, [2])
    reference(comp.module, comp.fn_name, want)
    got = poisoned(args, [2])
    from tilec.targets.reference.simt import simulate_module

    simulate_module(res.machine, comp.fn_name, got)
    # the sign of a NaN is no part of its class (IEEE 754 leaves it unspecified for an
    # operation's NaN result, and the reference and the simulators differ there with the
    # option off too): signs are compared on every other element
    num = ~np.isnan(want[2])
    assert np.array_equal(np.signbit(want[2])[num], np.signbit(got[2])[num]), \
        "a signed zero differs"
    return res, want[2]


@needs_simulator
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape", [(40, 47, 40), (33, 63, 29), (63, 33, 64)])
def test_nan_inf_and_signed_zero_at_the_edge(target, shape) -> None:
    args = special(*shape)
    res, want = _exact(matmul_from, args, target, _options(True), {})
    assert _mma(res).attr("bounded_mn") == "mn"
    m, n, k = shape
    assert np.isnan(want).any() and np.isinf(want).any()
    # +0 rows of A against negative B: -0.0 sums, made +0.0 by a padded K tail's +0 * +0
    assert want[m - 4, n - 2] == 0 and np.signbit(want[m - 4, n - 2]) == (k % 32 == 0)


@needs_simulator
@pytest.mark.parametrize("target", TARGETS)
def test_a_wider_output_keeps_its_padded_rows(target) -> None:
    # rows 40..47 of C are stored: INIT + 0 * B, NaN where B has an infinity, -0.0 where
    # the products are -0.0 against INIT = -0.0 (K = 64: no padded K tail makes them +0.0);
    # the option must not skip them
    args = special(40, 47, 64, out=(48, 47))
    res, want = _exact(matmul_from, args, target, _options(True), {})
    assert _mma(res).attr("bounded_mn") == "mn"
    assert np.isnan(want[40:]).any() and (np.signbit(want[40:]) & (want[40:] == 0)).any()


@needs_simulator
@pytest.mark.parametrize("target", TARGETS)
def test_with_bounded_k_views(target) -> None:
    args = special(40, 47, 70)
    o = _options(True)
    o = replace(o, planner=replace(o.planner, bounded_k_views=True))
    res, _ = _exact(matmul_from, args, target, o, {})
    assert _mma(res).attr("bounded_mn") == "mn"


def test_cpu_matches_the_reference() -> None:
    # cpu lowers no group to Machine IR: the option leaves its C as it is
    args = special(40, 47, 40)
    want = poisoned(args, [2])
    comp = tc.compile(matmul_from, *args, target="reference", static_shapes=True)
    reference(comp.module, comp.fn_name, want)
    got = poisoned(args, [2])
    tc.compile(matmul_from, *got, target="cpu")(*got)
    assert np.array_equal(want[2], got[2], equal_nan=True)
    assert np.array_equal(np.signbit(want[2]), np.signbit(got[2]))


def test_the_fuzz_path_and_the_variant() -> None:
    from tilec.frontend.tunables import apply_variant
    from tilec.testing.fuzz.paths import path_error, split_path

    assert split_path("simt:metal:m1+boundedmn") == ("simt:metal:m1",
                                                      {"bounded_mn_views": True})
    assert path_error("simt:cuda:sm_80+boundedmn") is None
    assert apply_variant(LowerOptions(), {"bounded_mn_views": True}).planner.bounded_mn_views
