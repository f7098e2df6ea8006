"""Lowering: Candidate -> Scheduled -> Machine TileIR (see docs/design/lowering.md).

``lower_to_scheduled(module, target)`` returns a new module whose operations
carry the planner's committed choices (distributions, memory plans,
realizations, strategies); ``lower_to_machine(module, target)`` returns the
explicit per-lane form for the target. Neither mutates its input.
``matrix_candidates`` lists every legal planner candidate of each group, so
tests can force each one through ``LowerOptions.force_matrix``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import tilec.ir as ir
from tilec.ir.dist_layout import DistLayout

from .options import LoweringBug, LoweringError, LowerOptions

__all__ = ["lower_to_scheduled", "lower_to_machine", "lower", "Lowering", "matrix_candidates",
           "rewrite_for_planning", "LowerOptions", "LoweringError", "DistLayout"]


def rewrite_for_planning(module: ir.Module, profile: Any, planner: Any
                         ) -> tuple[ir.Module, list[Any], list[str]]:
    """What the planner plans instead of ``module`` (``module`` itself where nothing changes):
    its shared values realized (``PlannerOptions.shared_ssa``), then its TF32 products
    swapped (``operand_swap``); with the choices and one line per swap. The compile driver's
    plan stage and ``lower`` (which plans when given no plan) share it, so both plan the
    same module."""
    from .operand_swap import swap_tf32_products
    from .shared_values import apply_shared_ssa

    module, shared = apply_shared_ssa(module, planner.shared_ssa, profile)
    module, swapped = swap_tf32_products(module, profile, planner)
    return module, shared, swapped


@dataclass
class Lowering:
    """Both forms of one lowering and what was decided on the way."""

    scheduled: ir.Module
    """The Scheduled form."""
    machine: ir.Module | None = None
    """The Machine form (None when only scheduling was asked for)."""
    groups: list[Any] = field(default_factory=list)
    """Per group: the ``schedule.GroupSchedule`` decisions (plan, layouts, notes)."""
    resources: list[dict[str, Any]] = field(default_factory=list)
    """Per group of the Machine form: threads and shared bytes."""


def lower(module: ir.Module, target: str, options: LowerOptions | None = None,
          machine: bool = True, plan: Any = None) -> Lowering:
    """Schedule ``module`` for ``target`` and, when ``machine``, lower it to Machine TileIR.

    ``plan`` is the planner's ``ModulePlan`` for ``module`` (planned here when None)."""
    from .machine import lower_scheduled_module
    from .schedule import schedule_module

    options = options or LowerOptions()
    if plan is None and options.planner.enabled:  # a given plan planned the module as it is
        from tilec.exec import get_profile

        try:
            profile = get_profile(target)
        except ValueError:  # scheduling names the unknown target
            profile = None
        module, _, _ = rewrite_for_planning(module, profile, options.planner)
    scheduled, groups = schedule_module(module, target, options, plan)
    if options.verify:
        ir.verify(scheduled, "scheduled")
    result = Lowering(scheduled, groups=groups)
    if machine:
        result.machine, result.resources = lower_scheduled_module(scheduled, options)
        if options.verify:
            ir.verify(result.machine, "machine")
    return result


def lower_to_scheduled(module: ir.Module, target: str, options: LowerOptions | None = None
                       ) -> ir.Module:
    """The Scheduled form of a Candidate ``module`` for ``target`` (a new module)."""
    return lower(module, target, options, machine=False).scheduled


def lower_to_machine(module: ir.Module, target: str, options: LowerOptions | None = None
                     ) -> ir.Module:
    """The Machine form of a Candidate (or already Scheduled) ``module`` (a new module)."""
    from .machine import lower_scheduled_module

    options = options or LowerOptions()
    if _is_scheduled(module):
        out, _ = lower_scheduled_module(module, options)
        if options.verify:
            ir.verify(out, "machine")
        return out
    machine = lower(module, target, options).machine
    if machine is None:
        raise LoweringBug("internal: lowering to Machine TileIR returned no module")
    return machine


def _is_scheduled(module: ir.Module) -> bool:
    fns = list(module)
    return bool(fns) and all(f.attributes.get("form") == "scheduled" for f in fns)


def matrix_candidates(module: ir.Module, target: str, options: LowerOptions | None = None
                      ) -> list[dict[str, Any]]:
    """Every legal matrix candidate per group: ``[{"group", "op", "candidate"}, ...]``."""
    from tilec.exec import get_profile
    from tilec.plan import extract_groups, plan_group

    from .operand_swap import swap_tf32_products

    options = options or LowerOptions()
    profile = get_profile(target)
    if options.planner.enabled:  # the module ``lower`` plans (its TF32 products swapped)
        module, _ = swap_tf32_products(module, profile, options.planner)
    out = []
    shapes = dict(options.shapes) if options.shapes else None
    for site in extract_groups(module, options.planner, shapes):
        if site.workload is None:
            continue
        plan = plan_group(site.workload, profile, options.planner)
        for p in plan.candidates:
            out.append({"group": site.label, "op": p.candidate.op, "candidate": p.candidate})
    return out
