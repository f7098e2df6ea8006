"""Realize the planner's shared-value choices on a Candidate module
(``plan/shared_ssa.py``, ``PlannerOptions.shared_ssa``).

``realize_shared_values`` rewrites a copy of the module, so the captured module (and every
other target's compilation of it) is unchanged:

* ``recompute``: every consumer after the first gets its own copy of the producing ``map``,
  placed just before the consumer's ancestor in the producer's block (a consumer inside a
  loop gets the copy before the loop, computed once, not once per iteration);
* ``materialize``: a compiler-owned shared ``memory`` (named ``<value>_shared``; Candidate
  ``memory`` takes no attributes) before the producer, a ``store`` of the value right after
  it, and a ``load`` of the buffer before each consumer, which reads the load instead. The
  buffer holds the value for the rest of its group: nothing else writes it;
* ``retain``: nothing changes.

The result is Candidate TileIR like any other: the schedule gives each copy or load the
layout its consumer wants, and the lowering places the barriers the buffer's accesses need.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tilec.ir as ir
from tilec.plan.shared_ssa import MATERIALIZE, RECOMPUTE, RETAIN, SharedValue, plan_shared_values

from .cloning import clone_module, clone_op

__all__ = ["realize_shared_values", "apply_shared_ssa"]


def _ancestor_in(op: ir.Operation, block: ir.Block) -> ir.Operation:
    """``op`` or the operation of ``block`` that encloses it."""
    while op.parent is not block:
        owner = op.parent.parent_op if op.parent is not None else None
        if owner is None:
            raise ValueError("internal: a consumer outside its producer's block nest")
        op = owner
    return op


def _recompute(v: SharedValue) -> None:
    producer = v.op
    block = producer.parent
    for consumer in v.consumers[1:]:
        at = _ancestor_in(consumer, block)
        copy = clone_op(producer, {})
        block.insert_op(copy, at)
        for k, x in enumerate(consumer.operands):
            if x is producer.result:
                consumer.set_operand(k, copy.result)


def _materialize(v: SharedValue) -> None:
    producer = v.op
    t = producer.result.type
    mem_t = ir.MemoryType(tuple(t.shape), t.dtype, "shared")
    ident = ir.IndexMap(len(t.shape), [ir.d(k) for k in range(len(t.shape))])
    name = producer.result.name_hint or "value"
    b = ir.Builder(ir.InsertionPoint.before_op(producer), producer.loc)
    buf = b.create("memory", [], [mem_t], result_names=[f"{name}_shared"]).result
    after = producer.next_op
    b = ir.Builder(ir.InsertionPoint(producer.parent, after), producer.loc)
    view = b.create("view", [buf], [mem_t], {"map": ident, "bounds": "total"}).result
    b.create("store", [view, producer.result], [])
    for consumer in v.consumers:
        b = ir.Builder(ir.InsertionPoint.before_op(consumer), consumer.loc)
        view = b.create("view", [buf], [mem_t], {"map": ident, "bounds": "total"}).result
        loaded = b.create("load", [view], [t], result_names=[name]).result
        for k, x in enumerate(consumer.operands):
            if x is producer.result:
                consumer.set_operand(k, loaded)


def realize_shared_values(module: ir.Module, values: Sequence[SharedValue]
                          ) -> tuple[ir.Module, list[SharedValue]]:
    """A copy of ``module`` with ``values``' recompute and materialize choices made, and the
    choices re-pointed at the copy's operations (``module`` itself is not changed)."""
    new, ops = clone_module(module)
    moved: list[SharedValue] = []
    for v in values:
        op = ops[v.op.id]
        moved.append(SharedValue(op, tuple(ops[c.id] for c in v.consumers), v.choice,
                                 v.reason, v.fns))
    for v in moved:
        if v.choice == RECOMPUTE:
            _recompute(v)
        elif v.choice == MATERIALIZE:
            _materialize(v)
    return new, moved


def apply_shared_ssa(module: ir.Module, mode: str, profile: Any
                     ) -> tuple[ir.Module, list[SharedValue]]:
    """Plan ``module``'s shared values in ``mode`` (``PlannerOptions.shared_ssa``) for
    ``profile`` and realize the choices: the module to plan and lower from (``module`` itself
    when every value is retained) and the choices, on that module."""
    values = plan_shared_values(module, mode, profile)
    if all(v.choice == RETAIN for v in values):
        return module, values
    new, values = realize_shared_values(module, values)
    ir.verify(new, "candidate")
    return new, values
