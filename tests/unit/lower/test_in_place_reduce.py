"""Row reductions in a matrix accumulator's own distribution (the ``in_place`` strategy,
``ir.layout_reduce``; docs/design/lowering.md, "Reductions in place").

A row of an ``m16n8`` or ``wgmma`` C fragment lives in the four lanes of a quad, in
registers that are the same for every thread: each thread folds its registers of each of
its rows, the quad combines over ``shfl.xor`` 1 and 2, and the result is distributed as the
broadcast image of the input, so ``m[:, None]`` back over the rows is a register renaming.
The analysis is exact on the layouts' tables; the schedule picks it for reductions of a
product (or of elementwise work on one) whose merges it recognizes; each case is simulated
against the reference with NaN-poisoned outputs on both CUDA profiles."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING

import tilec as tc
import tilec.ir as ir
import tilec.ir.dist_layout as L
from tilec.ir import IndexMap, d
from tilec.ir.layout_reduce import broadcast_image, in_place_reduction
from tilec.lower import LowerOptions, lower

BF16 = ml_dtypes.bfloat16
FRAG = IndexMap(2, [(d(0) % 32).floordiv(4) + (d(1) % 4).floordiv(2) * 8,
                    (d(0) % 4) * 2 + (d(1) % 2)])
"""The m16n8 C fragment: (lane, c) -> (lane / 4 + 8 (c / 2), 2 (lane mod 4) + c mod 2)."""

needs_simulator = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                     reason=SIMULATOR_MISSING or "")


@pytest.mark.parametrize("m,n,threads,gm,rn", [(64, 64, 128, 4, 8), (64, 128, 128, 4, 16),
                                               (128, 64, 256, 8, 8), (32, 16, 64, 2, 2)])
def test_a_fragment_reduces_over_its_quads(m, n, threads, gm, rn) -> None:
    src = L.fragment_acc((m, n), threads, gm, 1, 1, rn, 16, 8, FRAG, 4)
    out = broadcast_image(src)
    plan = in_place_reduction(src, out)
    assert not isinstance(plan, str), plan
    assert plan.rows == 2 and plan.masks == (1, 2) and len(plan.gathers) == rn
    assert all(width == 2 for _, width in plan.gathers)
    # every output register names a row the thread holds, and the image broadcasts back
    (rows_o,), _ = out.table()
    (rows_s, _), _ = src.table()
    for j in range(out.local):
        r = int(plan.expand.apply((j,))[0])
        reg = int(plan.gathers[0][0].apply((r, 0))[0])
        assert (rows_o[:, j] == rows_s[:, reg]).all()


def test_where_it_does_not_apply_it_says_why() -> None:
    two_warps = L.fragment_acc((64, 64), 128, 2, 2, 2, 4, 16, 8, FRAG, 4)
    assert isinstance(in_place_reduction(two_warps, broadcast_image(two_warps)), str)
    rep = L.replicated((8, 8), 32)
    assert "twice" in in_place_reduction(rep, L.replicated((8,), 32))
    blocked = L.blocked((64, 64), 128, ir.f32)
    assert isinstance(in_place_reduction(blocked, L.row_reduced((64,), 128, 1)), str)


@tc.kernel
def softmax_of_product(A, B, P, M, S, BM: tc.constexpr = 64, BN: tc.constexpr = 64,
                       BK: tc.constexpr = 32, LAW: tc.constexpr = "max"):
    for pm in tc.parallel(tc.cdiv(A.shape[0], BM)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(A.shape[1], BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, 0), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        s = acc * 0.5
        m = tc.max(s, axis=1) if LAW == "max" else tc.min(s, axis=1)
        p = tc.exp(s - m[:, None])
        total = tc.sum(p, axis=1)
        P.tile((pm * BM, 0), (BM, BN)).store(p / total[:, None])
        M.tile((pm * BM,), (BM,)).store(m)
        S.tile((pm * BM,), (BM,)).store(total)


def _args(m: int, k: int, n: int = 64, dtype=BF16):
    r = np.random.default_rng(m + k)
    return [r.standard_normal((m, k)).astype(dtype), r.standard_normal((k, n)).astype(dtype),
            np.full((m, n), np.nan, np.float32), np.full((m,), np.nan, np.float32),
            np.full((m,), np.nan, np.float32)]


def _attention_args(s: int, d: int = 64):
    r = np.random.default_rng(s)
    q, k, v = (r.standard_normal((2, s, d)).astype(BF16) for _ in range(3))
    return [q, k, v, np.full(q.shape, np.nan, BF16), np.float32(d ** -0.5)]


def test_the_schedule_reduces_the_attention_scores_in_place() -> None:
    """bf16 attention with 64x64 score tiles on sm_90 (wgmma accumulators, one warpgroup
    per 64 rows): both row reductions in place, and no shared scratch inside the key loop."""
    from tilec.driver import compile_module
    from tilec.lib.attention import flash_attention

    args = _attention_args(200)
    compiled = tc.compile(flash_attention, *args, target="reference", BM=64, BN=64,
                          HEAD_DIM=64)
    sched = compile_module(compiled.module, "flash_attention", "cuda:sm_90", "schedule",
                           LowerOptions()).module
    assert [op.attr("strategy") for op in sched.walk() if op.name == "reduce"] == \
        ["in_place", "in_place"]
    machine = lower(compiled.module, "cuda:sm_90", LowerOptions()).machine
    loop = next(op for op in machine.walk() if op.name == "serial"
                and any(o.attr("catalog_id") == "shfl.xor" for o in op.walk()))
    views = {o.operand(0) for o in loop.walk() if o.name == "view"}
    roles = {v.defining_op.attr("role") for v in views
             if v.defining_op is not None and v.defining_op.name == "memory"}
    assert "scratch" not in roles, roles


@needs_simulator
@pytest.mark.parametrize("causal", [False, True])
def test_simulated_in_place_attention_matches_the_reference(causal: bool) -> None:
    from tilec.lib.attention import flash_attention

    args = _attention_args(150)
    want = [a.copy() for a in args]
    tc.interpret(flash_attention, *want, BM=64, BN=64, HEAD_DIM=64, CAUSAL=causal)
    got = [a.copy() for a in args]
    tc.simulate(flash_attention, *got, target="cuda:sm_90", BM=64, BN=64, HEAD_DIM=64,
                CAUSAL=causal)
    g, w = got[3].astype(np.float32), want[3].astype(np.float32)
    assert not np.isnan(g).any()
    np.testing.assert_allclose(g, w, rtol=2e-2, atol=2e-2)


def test_a_strict_fold_keeps_its_order() -> None:
    """``strict_fold`` fixes the order of the contributions: no tree, so no in-place plan."""
    from tilec.driver import compile_module

    @tc.kernel
    def strict_rows(A, B, M, BM: tc.constexpr = 64, BN: tc.constexpr = 64,
                    BK: tc.constexpr = 32):
        for pm in tc.parallel(tc.cdiv(A.shape[0], BM)):
            acc = tc.zeros((BM, BN), tc.float32)
            for k in tc.serial(tc.cdiv(A.shape[1], BK)):
                a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
                b = B.tile((k * BK, 0), (BK, BN), fill=0.0)
                acc = tc.mma(a, b, acc)
            M.tile((pm * BM,), (BM,)).store(tc.sum(acc, axis=1, policy="strict_fold"))

    a, b = _args(64, 64)[:2]
    compiled = tc.compile(strict_rows, a, b, np.zeros(64, np.float32), target="reference")
    sched = compile_module(compiled.module, "strict_rows", "cuda:sm_90", "schedule",
                           LowerOptions()).module
    assert [op.attr("strategy") for op in sched.walk() if op.name == "reduce"] != ["in_place"]


@needs_simulator
@pytest.mark.parametrize("target", ["cuda:sm_90", "cuda:sm_80"])
@pytest.mark.parametrize("m,k,law", [(100, 96, "max"), (64, 32, "min"), (130, 70, "max")])
def test_simulated_in_place_reductions_match_the_reference(target: str, m: int, k: int,
                                                            law: str) -> None:
    args = _args(m, k)
    want = [a.copy() for a in args]
    tc.interpret(softmax_of_product, *want, LAW=law)
    got = [a.copy() for a in args]
    tc.simulate(softmax_of_product, *got, target=target, LAW=law)
    for g, w in zip(got[2:], want[2:]):
        assert not np.isnan(g).any()
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)
