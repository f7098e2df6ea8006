"""``cuda_mma_v5``: v4 with a price for staged chunks whose rows are not 16-byte aligned;
the workload carries the alignment of each operand's rows, the basis prices only
misaligned chunks, and the model's pick for a misaligned ``lib.matmul`` agrees with the
H200 sweep it was fitted to where v4's did not."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_cuda_v2 import _gemm
from test_cuda_v3 import only_these_differ

import tilec.plan as plan
from tilec.exec import get_profile
from tilec.plan.cost import basis_named
from tilec.plan.cost.cuda_mma_v4 import SM90_V4
from tilec.plan.cost.cuda_mma_v5 import SM80_V5, SM90_V5, V5_VALUES

SM90 = get_profile("cuda:sm_90")
V4_OPTIONS = plan.PlannerOptions(cost_basis="cuda_mma_v4")
V5_OPTIONS = plan.PlannerOptions(cost_basis="cuda_mma_v5")


def test_only_v5s_four_coefficients_differ_from_v4() -> None:
    assert basis_named("cuda_mma_v5", SM90).coefficients is SM90_V5
    assert basis_named("cuda_mma_v5", get_profile("cuda:sm_80")).coefficients is SM80_V5
    only_these_differ(SM90_V5, SM80_V5, SM90_V4, V5_VALUES,
                      ("b3206a5", "27f09b5", "e200bc0", "2175251", "0acda3a"))


def _misaligned(g: plan.GroupWorkload, a: float, b: float) -> plan.GroupWorkload:
    (w,) = g.ops
    return dataclasses.replace(g, ops=(dataclasses.replace(w, a_aligned_rows=a,
                                                           b_aligned_rows=b),))


def _at(g: plan.GroupWorkload, threads: int, options: plan.PlannerOptions | None = None
        ) -> plan.Priced:
    got = [p for p in plan.plan_group(g, SM90, options).candidates
           if p.candidate.threads == threads and p.candidate.realization == "rectangle"
           and p.candidate.accumulator == "direct"]
    return min(got, key=lambda p: p.score)


def test_only_misaligned_chunks_are_priced() -> None:
    g = _gemm(128, 128, 64, "bf16", programs=200, executions=14)
    aligned = _at(g, 256, V5_OPTIONS)
    assert aligned.feature("misaligned_chunks") == 0.0
    half_a = _at(_misaligned(g, 0.5, 1.0), 256, V5_OPTIONS)
    # A: 128 x 64 bf16 = 1024 chunks per step, half of them misaligned, 14 steps
    assert half_a.feature("misaligned_chunks") == pytest.approx(1024 * 0.5 * 14)
    both = _at(_misaligned(g, 0.5, 0.25), 256, V5_OPTIONS)
    assert both.feature("misaligned_chunks") == pytest.approx((512 + 1024 * 0.75) * 14)
    k = SM90_V5
    assert half_a.feature("staging") - aligned.feature("staging") == pytest.approx(
        1024 * 0.5 * 14 * k.misaligned_chunk)
    alone = half_a.feature("resident_subgroups") // half_a.candidate.subgroups
    assert half_a.feature("exposed_steps") - aligned.feature("exposed_steps") == pytest.approx(
        14 * k.misaligned_step / alone)
    assert half_a.score > aligned.score
    # v4 counts the chunks but prices none of them
    v4a, v4m = _at(g, 256, V4_OPTIONS), _at(_misaligned(g, 0.5, 1.0), 256, V4_OPTIONS)
    assert v4m.feature("misaligned_chunks") == half_a.feature("misaligned_chunks")
    assert v4m.score == v4a.score


def test_an_aligned_fraction_outside_zero_one_is_rejected() -> None:
    (w,) = _gemm(64, 64, 32, "bf16").ops
    with pytest.raises(ValueError, match="aligned row fractions"):
        dataclasses.replace(w, a_aligned_rows=0.0)
    with pytest.raises(ValueError, match="aligned row fractions"):
        dataclasses.replace(w, b_aligned_rows=1.5)


@pytest.mark.parametrize("k,n,want", [(256, 128, (1.0, 1.0)), (250, 128, (0.5, 1.0)),
                                      (256, 131, (1.0, 0.25)), (254, 134, (0.5, 0.5))])
def test_the_workload_reads_each_operands_row_alignment(matmul_module, k, n, want) -> None:
    """f32 rows of K (A) and N (B) elements: a pitch of 4K bytes starts every
    ``16 / gcd(4K, 16)``-th row 16-byte aligned."""
    module = matmul_module(symbolic=True, bounded=True, bounded_store=True)
    (site,) = plan.extract_groups(module, shapes={"M": 128, "K": k, "N": n})
    (w,) = site.workload.ops
    assert (w.a_aligned_rows, w.b_aligned_rows) == want
    (generic,) = plan.extract_groups(module)          # pitches unknown: priced as aligned
    assert (generic.workload.ops[0].a_aligned_rows, generic.workload.ops[0].b_aligned_rows
            ) == (1.0, 1.0)


def test_a_misaligned_matmul_picks_the_large_tiles_that_ran_fastest(tmp_path,
                                                                    monkeypatch) -> None:
    """bf16 1300x1700x900 (both pitches 8 mod 16) on the H200 at e200bc0
    (benchmarks/results/tune_matmul-NVIDIA-H200-2026-12-02.json): 128x256x64 at 512
    threads 0.0739 ms, 256x128x64 at 512 0.0747 ms; v4's pick, 64x64x64 at 128, 0.1065
    (``benchmarks/model_regret.py --set misaligned_chunk=0 --set misaligned_step=0``)."""
    import ml_dtypes

    from tilec.lib.matmul import matmul

    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    bf = ml_dtypes.bfloat16
    args = [np.empty((1300, 900), bf), np.empty((900, 1700), bf),
            np.empty((1300, 1700), np.float32)]
    times = {(128, 256, 64): 0.0739, (256, 128, 64): 0.0747, (64, 64, 64): 0.1065}
    matmul.forget_resolutions()
    sel = matmul.resolve(args, "cuda")
    matmul.forget_resolutions()
    # v6, the default since, prices misaligned rows as v5 does
    assert sel.source == "model" and "cuda_mma_v6" in str(sel)
    got = (sel.values["BM"], sel.values["BN"], sel.values["BK"])
    assert times.get(got, np.inf) <= 1.02 * min(times.values()), got
