"""Reduction facts the lowering needs: each state's merge law and its exact identity."""

from __future__ import annotations

import math

import tilec.ir as ir

__all__ = ["merge_laws", "identity"]

_MERGES = ("add", "mul", "max", "min")


def _strip_casts(v: ir.Value) -> ir.Value:
    for _ in range(64):
        d = v.defining_op
        if d is None or d.name != "arith" or d.attr("fn") != "cast":
            break
        v = d.operand(0)
    return v


def _reads_states(v: ir.Value, block: ir.Block, states: list[ir.Value]) -> bool:
    """True when ``v`` depends (inside ``block``) on a state argument."""
    stack, seen = [v], set()
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        if any(x is s for s in states):
            return True
        d = x.defining_op
        if d is None or d.parent is not block:
            continue
        stack.extend(d.operands)
        for r in d.regions:
            for inner in r.walk():
                stack.extend(inner.operands)
    return False


def merge_laws(op: ir.Operation) -> tuple[str, ...] | None:
    """Per state, the merge (``add``/``mul``/``max``/``min``) of a ``reduce``, or None.

    The ``combiner`` attribute wins when present (``custom`` means none); otherwise a state
    is recognized when its yield is, up to casts, that arith of the state and a value that
    does not read any state.
    """
    n_states = len(op.results)
    attr = op.attr("combiner")
    if attr is not None:
        return tuple(attr) if all(c in _MERGES for c in attr) and len(attr) == n_states \
            else None
    block = op.regions[0].entry
    states = list(block.args[:n_states])
    term = block.terminator
    if term is None:
        return None
    found = []
    for k in range(n_states):
        d = _strip_casts(term.operand(k)).defining_op
        if d is None or d.name != "arith" or d.attr("fn") not in _MERGES or d.parent is not block:
            return None
        a, b = (_strip_casts(x) for x in d.operands)
        other = d.operand(1) if a is states[k] else d.operand(0) if b is states[k] else None
        if other is None or _reads_states(other, block, states):
            return None
        found.append(d.attr("fn"))
    return tuple(found)


def identity(law: str, dtype: ir.ScalarType) -> float | int | bool:
    """The exact identity of ``law`` in ``dtype`` (``-0.0`` for float add)."""
    if dtype.is_float:
        return {"add": -0.0, "mul": 1.0, "max": -math.inf, "min": math.inf}[law]
    if dtype is ir.i1:
        return {"add": False, "mul": True, "max": False, "min": True}[law]
    bits = dtype.bits
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return {"add": 0, "mul": 1, "max": lo, "min": hi}[law]
