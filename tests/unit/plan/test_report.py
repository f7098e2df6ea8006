"""plan_module over Candidate TileIR, and the JSON / text reports."""

from __future__ import annotations

import json

import pytest

import tilec.ir as ir
import tilec.plan as plan
from tilec.exec import get_profile


@pytest.mark.parametrize("target", ["cuda:sm_90", "cuda:sm_80", "metal:m1"])
def test_plan_module_selects_a_legal_candidate(matmul_module, target: str) -> None:
    module = matmul_module(m=128, n=128, k=256, bm=32, bn=64, bk=32)
    ir.verify(module)
    mp = plan.plan_module(module, target)
    assert [g.group for g in mp.groups] == ["@matmul/parallel#0"]
    (gp,) = mp.groups
    profile = get_profile(target)
    sel = gp.selected
    assert sel is not None
    assert sel.threads % profile.subgroup_width == 0
    assert sel.threads <= profile.max_threads_per_group
    assert sel.shared_bytes <= profile.shared_bytes_per_group
    (choice,) = sel.choices
    c = choice.candidate
    d = c.distribution
    am, an, _ = c.atom.shape
    # exact coverage of the 32x64 output by the selected distribution
    assert d.atoms_m * am == 32 and d.atoms_n * an == 64
    covered = {d.forward(s, f) for s in range(d.subgroups) for f in range(d.fragments)} - {None}
    assert len(covered) == d.atoms_m * d.atoms_n
    assert c.fragment_scalars <= gp.fragment_budget
    assert gp.admission == "automatic_cooperative"
    # rejections carry reasons; the selected score is the lowest over all thread counts
    assert gp.rejected and all(r.reason for r in gp.rejected)
    scores = [o.result.best.score for o in gp.outcomes if o.result.best is not None]
    assert sel.kernel_score == min(scores)
    assert gp.cost_basis == plan.select_basis(profile, plan.PlannerOptions()).name


def test_json_is_complete_and_serializable(matmul_module) -> None:
    mp = plan.plan_module(matmul_module(), "cuda:sm_90")
    data = json.loads(json.dumps(mp.to_json()))
    (g,) = data["groups"]
    assert g["cost_basis"] == "cuda_mma_v6"
    assert g["selected"]["threads"] > 0
    op = g["selected"]["operations"][0]
    for key in ("distribution", "footprint", "work", "features", "score", "atom"):
        assert key in op
    assert len(g["candidates"]) == g["counters"]["candidates"]
    assert len(g["rejected"]) == g["counters"]["rejected"]
    assert all(r["reason"] for r in g["rejected"])
    assert {"thread_counts", "dp_states_generated", "dp_states_dominated"} <= set(g["counters"])
    assert data["profile"]["name"] == "cuda:sm_90"
    assert data["options"]["direct_accumulator_store"] is True
    # deterministic: a second run gives identical JSON
    assert json.dumps(plan.plan_module(matmul_module(), "cuda:sm_90").to_json(),
                      sort_keys=True) == json.dumps(mp.to_json(), sort_keys=True)


def test_render_is_readable(matmul_module) -> None:
    text = plan.plan_module(matmul_module(), "metal:m1").render()
    assert "plan for metal:m1" in text
    assert "selected:" in text and "cost basis metal_simdgroup_reference_v1" in text
    assert "rejected" in text and "nonexact coverage" in text


def test_cpu_and_unplanned_groups_are_reported(matmul_module) -> None:
    mp = plan.plan_module(matmul_module(), "cpu")
    (gp,) = mp.groups
    assert gp.selected is None and gp.fallback.startswith("the target's own realization")
    assert gp.cost_basis is None
    fn = ir.Function("empty", [])
    bld = ir.Builder(ir.InsertionPoint.at_end(fn.entry))
    n = bld.value("constant", [], ir.index, {"value": 4})
    body = ir.Block([ir.index])
    bld.create("parallel", [n], [], {"rank": 1}, [ir.Region([body])])
    with bld.at(ir.InsertionPoint.at_end(body)):
        bld.create("yield", [])
    bld.create("return", [])
    mp = plan.plan_module(ir.Module([fn]), "cuda:sm_90")
    assert mp.groups == [] and mp.unplanned[0]["reason"].startswith("no mma")
    assert "not planned" in mp.render()


def test_exact_thread_constraint_from_the_program(matmul_module) -> None:
    mp = plan.plan_module(matmul_module(threads=64), "cuda:sm_90")
    (gp,) = mp.groups
    assert gp.workload.exact_threads == 64
    assert gp.selected.threads == 64 and gp.counters["thread_counts"] == 1
    assert gp.admission == "explicit_constraint"
    both = plan.plan_module(matmul_module(threads=64), "cuda:sm_90",
                            plan.PlannerOptions(threads=128))
    assert both.groups[0].selected.threads == 64
    assert any("overrides PlannerOptions.threads=128" in d for d in both.groups[0].diagnostics)


def test_planner_disabled_keeps_the_reference_path(matmul_module) -> None:
    mp = plan.plan_module(matmul_module(), "metal:m1", plan.PlannerOptions(enabled=False))
    (gp,) = mp.groups
    assert gp.selected is None and "planner disabled" in gp.fallback


def test_mpp_with_no_legal_candidate_falls_back_to_the_reference_basis() -> None:
    # 8x8 output: no MPP descriptor is legal (M or N must be a multiple of 16)
    w = plan.MatrixWorkload("mma#0", 8, 8, 16)
    gp = plan.plan_group(plan.GroupWorkload("g", (w,)), "metal:m1",
                         plan.PlannerOptions(metal_mpp=True))
    assert gp.cost_basis == "metal_simdgroup_reference_v1" and gp.selected is not None
    assert gp.replaced is not None and gp.replaced.cost_basis == "metal_mpp_memory_v3"
    assert gp.to_json()["replaced"]["selected"] is None


def test_capacity_rejection_is_reported() -> None:
    # 64x64x128 f32: A 32K + B 32K + C 16K + D 16K; nothing fits Metal's 32 KiB
    w = plan.MatrixWorkload("mma#0", 64, 64, 128)
    gp = plan.plan_group(plan.GroupWorkload("g", (w,)), "metal:m1",
                         plan.PlannerOptions(threads=128))
    assert gp.selected is None
    assert any("exceeds the group-memory capacity" in d for d in gp.diagnostics)
    assert gp.counters["dp_capacity_rejected"] >= 1


def test_realization_kinds_are_a_closed_enum_that_reads_as_its_names(matmul_module) -> None:
    from tilec.plan import REALIZATIONS, Realization

    assert REALIZATIONS == tuple(Realization) and len(set(REALIZATIONS)) == 6
    assert Realization("wgmma") is Realization.WGMMA and f"{Realization.ONE_ATOM}" == "one_atom"
    with pytest.raises(ValueError):
        Realization("tensor_core")
    mp = plan.plan_module(matmul_module(), "cuda:sm_90")
    kinds = {p.candidate.realization for g in mp.groups for p in g.candidates}
    assert kinds and all(isinstance(k, Realization) for k in kinds)
    assert json.loads(json.dumps(mp.to_json()))["groups"][0]["candidates"]
