"""``cuda_mma_v2``: the default CUDA plans for GEMM tiles and how each score term responds.

The expected plans are the ones the H200 plan sweeps measured fastest (or within
noise of it); docs/design/planner.md tabulates both sweeps (16-bit plans: commit
712eac1, ldmatrix A and B loads; exact f32 and 64x64x32: the earlier sweep).
"""

from __future__ import annotations

import dataclasses

import pytest

import tilec.plan as plan
from tilec.exec import FACT_KINDS, get_profile
from tilec.plan.cost import CudaMmaV1Basis, CudaMmaV2Basis, select_basis
from tilec.plan.cost.cuda_mma_v2 import SM90_V2, CudaV2Coefficients

SM90 = get_profile("cuda:sm_90")


def _gemm(m: int, n: int, k: int, dtype: str, programs: int | None = None,
          executions: int = 1) -> plan.GroupWorkload:
    """One lib.matmul-shaped group: a resident, directly stored accumulator."""
    w = plan.MatrixWorkload("mma#0", m, n, k, dtype=dtype, executions=executions,
                            recurrence=executions, direct_output=True)
    return plan.GroupWorkload("g", (w,), programs=programs)


def _warp_tile(p: plan.Priced) -> tuple[int, int]:
    c = p.candidate
    am, an, _ = c.atom.shape
    return c.distribution.rm * am, c.distribution.rn * an


def _selected(g: plan.GroupWorkload, target: str = "cuda:sm_90", **opts) -> plan.Priced:
    opts.setdefault("cost_basis", "cuda_mma_v2")  # the default is v4 (test_cuda_v4.py)
    gp = plan.plan_group(g, target, plan.PlannerOptions(**opts))
    assert gp.cost_basis == opts["cost_basis"]
    assert gp.selected is not None
    (choice,) = gp.selected.choices
    return choice


# (tile, dtype) -> (threads, warp tile); 4096^3 has 32*32 programs of 128 K-steps at 128x128
DEFAULTS = {
    ((128, 128, 32), "bf16"): (128, (64, 64)),
    ((128, 128, 32), "f16"): (128, (64, 64)),
    ((128, 256, 32), "bf16"): (256, (64, 64)),
    ((128, 128, 32), "f32"): (256, (32, 64)),
    # not re-measured since B fragments use ldmatrix.x4.trans: the symmetric load prices pick
    # 32x32 over 64x16 (which the earlier sweep measured 7% faster only while B cost 5x A)
    ((64, 64, 32), "bf16"): (128, (32, 32)),
    ((64, 64, 32), "f32"): (128, (32, 32)),
}

# the exact-f32 defaults before the 16-bit refit (fitted to the earlier sweep): it must keep them
F32_DEFAULTS = {
    (128, 128, 32): (256, (32, 64)),
    (128, 256, 32): (256, (64, 64)),
    (256, 128, 32): (256, (64, 64)),
    (128, 128, 64): (256, (32, 64)),
    (64, 64, 32): (128, (32, 32)),
}


@pytest.mark.parametrize("target", ["cuda:sm_90", "cuda:sm_80"])
@pytest.mark.parametrize("key", list(DEFAULTS), ids=lambda k: f"{'x'.join(map(str, k[0]))}-{k[1]}")
def test_default_gemm_plans(key, target: str) -> None:
    (m, n, k), dtype = key
    threads, tile = DEFAULTS[key]
    # as the lowering sees lib.matmul (symbolic programs and trip count) and with 4096^3 bound
    for g in (_gemm(m, n, k, dtype),
              _gemm(m, n, k, dtype, programs=(4096 // m) * (4096 // n), executions=4096 // k)):
        p = _selected(g, target)
        assert p.candidate.threads == threads, (key, p.candidate.label)
        assert _warp_tile(p) == tile
        assert p.candidate.accumulator == "direct"
        assert p.feature("registers") <= 255 and p.feature("spill") == 1.0


@pytest.mark.parametrize("tile", list(F32_DEFAULTS), ids=lambda t: "x".join(map(str, t)))
def test_exact_f32_defaults_are_unchanged_by_the_16_bit_refit(tile) -> None:
    m, n, k = tile
    threads, warp_tile = F32_DEFAULTS[tile]
    for target in ("cuda:sm_90", "cuda:sm_80"):
        p = _selected(_gemm(m, n, k, "f32"), target)
        assert (p.candidate.threads, _warp_tile(p)) == (threads, warp_tile), target
        assert p.candidate.atom.id == "ffma"
    ffma = SM90_V2.prices("ffma")
    assert (ffma.issue, ffma.a_load, ffma.b_load) == (1.0, 0.75, 0.75)


# H200, lib.matmul bf16 4096^3, commit 712eac1 (benchmarks/results/gemm_plans-NVIDIA-H200-
# 2026-11-30.json): tile -> {(threads, warp tile): ms}
MEASURED_712EAC1 = {
    (128, 128, 32): {(128, (64, 64)): 0.495, (128, (128, 32)): 0.510, (128, (32, 128)): 0.510,
                     (256, (64, 32)): 0.506, (256, (32, 64)): 0.520, (256, (128, 16)): 0.569,
                     (256, (16, 128)): 0.560, (512, (32, 32)): 0.743, (1024, (32, 16)): 0.998},
    (128, 256, 32): {(256, (64, 64)): 0.547, (256, (32, 128)): 0.584, (256, (128, 32)): 0.590,
                     (512, (64, 32)): 0.587, (512, (32, 64)): 0.582},
}


def modelled_as_measured(g: plan.GroupWorkload, measured: dict, basis: object,
                         cost_basis: str) -> dict:
    """The model's time of each measured (threads, warp tile) plan of ``g`` under
    ``cost_basis``, after checking that every pair whose measured times differ by more
    than 5% is ordered the same by the model."""
    model = {}
    for p in _priced(g, cost_basis=cost_basis):
        key = (p.candidate.threads, _warp_tile(p))
        if key in measured:
            t = basis.group_terms(key[0], g)  # type: ignore[attr-defined]
            model[key] = (p.score + t.offset) * t.scale
    assert set(model) == set(measured)
    for x in measured:
        for y in measured:
            if measured[y] > 1.05 * measured[x]:
                assert model[x] < model[y], (x, measured[x], y, measured[y])
    return model


@pytest.mark.parametrize("tile", list(MEASURED_712EAC1), ids=lambda t: "x".join(map(str, t)))
def test_model_orders_the_measured_bf16_plans_as_measured(tile) -> None:
    m, n, k = tile
    measured = MEASURED_712EAC1[tile]
    g = _gemm(m, n, k, "bf16", programs=(4096 // m) * (4096 // n), executions=4096 // k)
    model = modelled_as_measured(g, measured, CudaMmaV2Basis(SM90), "cuda_mma_v2")
    fastest = min(measured, key=measured.__getitem__)
    assert min(model, key=model.__getitem__) == fastest


def test_v1_stays_selectable_and_still_prefers_the_most_threads() -> None:
    basis = select_basis(SM90, plan.PlannerOptions(cost_basis="cuda_mma_v1"))
    assert isinstance(basis, CudaMmaV1Basis)
    gp = plan.plan_group(_gemm(128, 128, 32, "bf16"), SM90,
                         plan.PlannerOptions(cost_basis="cuda_mma_v1"))
    assert gp.cost_basis == "cuda_mma_v1" and gp.selected.threads == 1024


def _priced(g: plan.GroupWorkload, **opts) -> list[plan.Priced]:
    gp = plan.plan_group(g, SM90, plan.PlannerOptions(**opts))
    return [p for p in gp.candidates if p.candidate.realization == "rectangle"
            and p.candidate.accumulator == "direct"]


def test_more_threads_cost_more_warp_steps_per_mma() -> None:
    ps = _priced(_gemm(128, 128, 32, "bf16"), cost_basis="cuda_mma_v2")
    per_threads = {}
    for p in ps:
        per_threads.setdefault(p.candidate.threads, set()).add(p.feature("warp_steps_per_mma"))
    counts = sorted(per_threads)
    assert counts[0] == 128 and counts[-1] == 1024
    # independent of the warp grid; strictly growing with the thread count
    assert all(len(v) == 1 for v in per_threads.values())
    values = [per_threads[t].pop() for t in counts]
    assert values == sorted(values) and len(set(values)) == len(values)
    k = SM90_V2
    assert values[0] == pytest.approx(4 * k.warp_step / 256)  # 4 warps, 8*16*2 mma per step


def test_bigger_warp_tiles_load_fewer_fragments_per_mma() -> None:
    ps = _priced(_gemm(128, 128, 32, "bf16"))
    for p in ps:
        d = p.candidate.distribution
        # each warp loads rm A and rn B fragments per K step for rm*rn mma
        assert p.feature("fragment_loads_per_mma") == pytest.approx(1 / d.rm + 1 / d.rn)
    by_area = sorted(ps, key=lambda p: _warp_tile(p)[0] * _warp_tile(p)[1])
    square = {(32, 16): None, (32, 32): None, (64, 32): None, (64, 64): None}
    for p in by_area:
        if _warp_tile(p) in square:
            square[_warp_tile(p)] = p.feature("fragment_loads_per_mma")
    got = [square[t] for t in ((32, 16), (32, 32), (64, 32), (64, 64))]
    assert all(v is not None for v in got) and got == sorted(got, reverse=True)


def test_fragments_over_the_budget_or_register_file_are_rejected_with_a_reason() -> None:
    g = _gemm(128, 128, 32, "bf16")
    gp = plan.plan_group(g, SM90, plan.PlannerOptions(threads=64))
    assert gp.fragment_budget == 192
    reasons = [r.reason for r in gp.rejected if r.threads == 64 and r.realization == "rectangle"
               and not r.reason.startswith("nonexact")]
    # two warps: each owns 8x8 or 4x16 atoms, 256 accumulator + 48 A/B fragment scalars
    assert reasons and all(r.startswith("fragment budget: 304 explicit scalars per lane "
                                        "(256 accumulator + 48 A/B fragment) exceed the budget "
                                        "of 192") for r in reasons)
    raised = plan.plan_group(g, SM90, plan.PlannerOptions(threads=64,
                                                          max_fragment_scalars_per_lane=10**6))
    assert any(r.reason.startswith("register file: 304 fragment registers per lane") and
               "255 available to each of 64 threads" in r.reason for r in raised.rejected)
    # the default budget admits 64x64 bf16 warp tiles (160 scalars per lane)
    tiles = {_warp_tile(p) for p in _priced(g, threads=128)}
    assert (64, 64) in tiles


def test_register_estimate_over_the_cap_is_penalized() -> None:
    ps = _priced(_gemm(128, 128, 32, "f32"))
    at128 = [p for p in ps if p.candidate.threads == 128 and _warp_tile(p) == (64, 64)]
    at256 = [p for p in ps if p.candidate.threads == 256 and _warp_tile(p) == (32, 64)]
    (hot,), (cool,) = at128, at256
    assert hot.feature("registers") > 255 and hot.feature("spill") > 1.0
    assert cool.feature("registers") < 255 and cool.feature("spill") == 1.0
    k = SM90_V2
    assert hot.feature("spill") == pytest.approx(
        1 + k.spill_weight * (hot.feature("registers") - 255) / 255)
    # more staged chunks per thread means more registers at the same fragment count
    assert hot.feature("registers") == pytest.approx(
        152 + k.base_registers + k.registers_per_chunk * 16)


def test_occupancy_from_shared_memory_and_registers() -> None:
    # K=256 stages 2 x 128 KiB of A and B per group: one group of 4 warps per SM
    ps = _priced(_gemm(128, 128, 256, "bf16"), threads=128)
    assert ps and all(p.feature("resident_subgroups") == 4 for p in ps)
    assert all(p.feature("latency") == pytest.approx(2.0) for p in ps)
    # at K=32 the registers bind: about 240 per lane leaves two groups of 4 warps
    (p,) = [p for p in _priced(_gemm(128, 128, 32, "bf16"), threads=128)
            if _warp_tile(p) == (64, 64)]
    assert p.feature("resident_subgroups") == 8 and p.feature("latency") == 1.0


def test_group_terms_small_groups_and_an_underfilled_device() -> None:
    basis = CudaMmaV2Basis(SM90)
    unknown = _gemm(64, 64, 32, "bf16")
    assert basis.group_terms(32, unknown).scale == 4.0
    assert basis.group_terms(64, unknown).scale == 2.0
    assert basis.group_terms(128, unknown).scale == 1.0
    one = _gemm(64, 64, 32, "bf16", programs=1)
    assert basis.group_terms(128, one).scale == 2.0     # 4 warps on an otherwise empty GPU
    assert basis.group_terms(256, one).scale == 1.0
    many = _gemm(64, 64, 32, "bf16", programs=132 * 10)
    assert basis.group_terms(128, many).scale == pytest.approx(10.0)  # waves only


def test_every_coefficient_is_a_tagged_fact() -> None:
    k = SM90_V2
    names = {f.name for f in k.facts}
    for f in dataclasses.fields(k):
        if f.name not in ("atoms", "facts", "provenance"):
            assert f.name in names
    for a in k.atoms:
        assert {f"issue[{a.atom}]", f"a_load[{a.atom}]", f"b_load[{a.atom}]"} <= names
    assert all(f.kind in FACT_KINDS and f.source for f in k.facts)
    assert {f.kind for f in k.facts} == {"spec", "measured", "prior"} - {"spec"}
    with pytest.raises(ValueError, match="without a fact: warp_step"):
        CudaV2Coefficients(**{**{f.name: getattr(k, f.name) for f in dataclasses.fields(k)},
                              "facts": tuple(f for f in k.facts if f.name != "warp_step")})
    with pytest.raises(ValueError, match="disagrees"):
        dataclasses.replace(k, warp_step=1.0)
    js = CudaMmaV2Basis(SM90).coefficients_json()
    assert js["atoms"]["mma.m16n8k16.bf16"]["b_load"] == 0.95
    assert any(f["name"] == "warp_step" and f["kind"] == "measured" for f in js["facts"])


def test_report_explains_the_choice_with_score_terms() -> None:
    gp = plan.plan_group(_gemm(128, 128, 32, "bf16"), SM90,
                         plan.PlannerOptions(cost_basis="cuda_mma_v2"))
    text = gp.render()
    assert "cost basis cuda_mma_v2" in text and "selected: 128 threads" in text
    for column in ("warp", "x group", "math", "frag lds", "warp stp", "regs est", "resident",
                   "spill", "latency"):
        assert column in text
    best = text.split("candidates for mma#0")[1].splitlines()[2]
    assert best.split()[:2] == ["128", "rectangle"] and "64x64" in best
