"""Shared SSA values (``plan/shared_ssa.py``, ``lower/shared_values.py``,
``PlannerOptions.shared_ssa``): each mode changes the program of ``softmax_parts`` as it
says (``retain``, the default, not at all), every choice is reported with its reason, and a
value the mode may not realize (an ``i1`` mask in shared memory, a tile larger than the
group memory) falls back to ``retain`` with the reason. The numbers on every path are
``tests/regression/test_shared_values.py``."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from shared_value_kernels import looped, masked_twice, softmax_inputs, softmax_parts
from tilec.plan import PlannerOptions
from tilec.plan.shared_ssa import EXPENSIVE_FNS, plan_shared_values


def _compiled(kernel, args, target: str = "simt:cuda:sm_90", mode: str | None = None):
    variant = None if mode is None else {"shared_ssa": mode}
    return kernel.compile(*args, target=target, variant=variant)


def _planned(kernel, args, mode: str, target: str = "simt:cuda:sm_90"):
    """A fresh compilation of ``kernel`` for ``target`` run through its plan stage."""
    from tilec.driver import begin, default_options
    from tilec.frontend.tunables import apply_variant
    from tilec.runtime import load_backend

    captured = kernel.compile(*args, target="reference")
    options = apply_variant(default_options(load_backend(target)), {"shared_ssa": mode})
    return begin(captured.module, captured.fn_name, target, options).run("plan")


def _counts(module: ir.Module) -> tuple[int, int, int]:
    """(maps, memories, exp functions) of a module."""
    ops = [op for fn in module for op in fn.walk()]
    return (sum(op.name == "map" for op in ops), sum(op.name == "memory" for op in ops),
            sum(op.name == "arith" and op.attr("fn") == "exp" for op in ops))


def _choices(plan) -> dict[str, str]:
    return {v.name: v.choice for v in plan.shared_values}


def test_retain_is_the_default_and_changes_nothing() -> None:
    assert PlannerOptions().shared_ssa == "retain"
    args = softmax_inputs()
    default = _compiled(softmax_parts, args)
    retain = _compiled(softmax_parts, args, mode="retain")
    planned = _planned(softmax_parts, args, "retain")
    assert planned.module is planned.records[0].value  # no copy, no rewrite
    assert _choices(planned.plan) == {"d": "retain", "e": "retain"}
    assert ir.print_module(default.executable().module) == \
        ir.print_module(retain.executable().module)


@pytest.mark.parametrize("mode,choices,counts", [
    ("retain", {"d": "retain", "e": "retain"}, (4, 0, 1)),
    ("recompute", {"d": "recompute", "e": "recompute"}, (7, 0, 2)),   # d: 3 consumers
    ("expensive_only", {"d": "recompute", "e": "retain"}, (6, 0, 1)),  # e has an exp
    ("materialize", {"d": "materialize", "e": "materialize"}, (4, 2, 1)),
])
def test_each_mode_changes_the_program_as_it_says(mode, choices, counts) -> None:
    args = softmax_inputs()
    c = _compiled(softmax_parts, args, mode=mode)
    comp = _planned(softmax_parts, args, mode)
    assert _choices(comp.plan) == choices
    assert _counts(comp.module) == counts
    assert _counts(comp.records[0].value) == (4, 0, 1)  # the captured module is unchanged
    if mode != "retain":
        assert ir.print_module(c.executable().module) != \
            ir.print_module(_compiled(softmax_parts, args).executable().module)
    report = comp.plan.to_json()["shared_values"]
    assert {v["value"]: v["choice"] for v in report} == choices
    assert f"shared values ({mode}): 2" in comp.plan.render()


def test_materialized_values_take_group_memory() -> None:
    args = softmax_inputs()
    plain = _compiled(softmax_parts, args).compilation("machine").resources[0]
    shared = _compiled(softmax_parts, args, mode="materialize").compilation("machine")
    # d and e, 16 x 32 f32 each, in compiler-owned shared buffers
    assert shared.resources[0]["shared_bytes"] >= plain["shared_bytes"] + 2 * 16 * 32 * 4


def test_cpu_realizes_each_mode() -> None:
    args = softmax_inputs()
    texts = {m: _compiled(softmax_parts, args, "cpu", m).source
             for m in ("retain", "recompute", "materialize")}
    assert texts["recompute"].count("= tc_exp_f32(") == 2 * texts["retain"].count("= tc_exp_f32(")
    assert texts["materialize"] != texts["retain"]


def test_a_mask_is_not_materialized() -> None:
    x = np.zeros((32, 32), np.float32)
    plan = _planned(masked_twice, [x, x.copy(), x.copy()], "materialize").plan
    (v,) = plan.shared_values
    assert (v.name, v.choice) == ("pos", "retain")
    assert "an i1 tile has no shared-memory form here" in v.reason
    plan = _planned(masked_twice, [x, x.copy(), x.copy()], "expensive_only").plan
    assert _choices(plan) == {"pos": "recompute"}


def test_a_value_larger_than_the_group_memory_is_retained() -> None:
    args = softmax_inputs()
    module = tc.compile(softmax_parts, *args, target="reference").module
    small = SimpleNamespace(shared_bytes_per_group=1024)
    values = plan_shared_values(module, "materialize", small)
    assert [v.choice for v in values] == ["retain", "retain"]
    assert "its 2048 bytes, with the 0 of its group's values materialized before it, exceed " \
           "the target's 1024 bytes of group memory" in values[0].reason
    one = SimpleNamespace(shared_bytes_per_group=3000)  # d fits, then e does not
    values = plan_shared_values(module, "materialize", one)
    assert [v.choice for v in values] == ["materialize", "retain"]
    assert "with the 2048 of its group's values materialized before it" in values[1].reason


def test_a_copy_for_a_consumer_in_a_loop_goes_before_the_loop() -> None:
    x = np.zeros((32, 32), np.float32)
    comp = _planned(looped, [x, x.copy(), x.copy()], "recompute")
    (v,) = comp.plan.shared_values
    assert v.choice == "recompute" and [c.name for c in v.consumers] == ["store", "map", "map"]
    fn = next(iter(comp.module))
    (group,) = [op for op in fn.entry.operations if op.name == "parallel"]
    ops = list(group.regions[0].entry.operations)
    loop = next(k for k, op in enumerate(ops) if op.name == "serial")
    before = [op for op in ops[:loop] if op.name == "map"]
    assert len(before) == 2  # d, and d's copy for the loop, computed once before it
    (inner,) = [op for op in ops[loop].regions[0].entry.operations if op.name == "map"]
    assert inner.operand(1) is before[1].result
    materialized = _planned(looped, [x, x.copy(), x.copy()], "materialize").module
    fn = next(iter(materialized))
    loads = [op for op in fn.walk() if op.name == "load" and op.parent.parent_op is not None
             and op.parent.parent_op.name == "serial"]
    assert len(loads) == 1  # the loop's consumer loads the buffer in each iteration


def test_unknown_modes_are_refused() -> None:
    with pytest.raises(ValueError, match="shared_ssa must be one of retain, recompute"):
        PlannerOptions(shared_ssa="always")
    with pytest.raises(ValueError, match="shared_ssa must be one of"):
        plan_shared_values(ir.Module(), "sometimes")
    assert {"exp", "div", "tanh"} <= EXPENSIVE_FNS and "add" not in EXPENSIVE_FNS


def test_lower_applies_the_mode_unless_the_planner_is_off() -> None:
    from dataclasses import replace

    from tilec.lower import LowerOptions, lower

    args = softmax_inputs()
    module = tc.compile(softmax_parts, *args, target="reference").module
    o = LowerOptions()
    on = replace(o, planner=replace(o.planner, shared_ssa="recompute"))
    off = replace(on, planner=replace(on.planner, enabled=False))
    maps = [sum(op.name == "map" for fn in lower(module, "cuda:sm_90", opts, machine=False
                                                 ).scheduled for op in fn.walk())
            for opts in (o, on, off)]
    assert maps[1] > maps[0] == maps[2]
    assert _counts(module) == (4, 0, 1)  # lowering never changes its input
