"""The merge law of a ``reduce``: one analysis, read by capture, the verifier, lowering and
every target.

A ``reduce`` may be regrouped (``unordered_tree``) only when each state's update is a
*recognized merge*: the state's next value is, up to ``cast`` chains, one ``arith`` of
``add``/``mul``/``max``/``min`` whose operands are the state itself and a *lift*, a value
computed from the elements and loop invariants alone, through pure operations without
regions (the element, ``e * e``...). Partial states then merge with that law in the state's
type (tileir.md, invariant 9).

Capture records the result on the operation (``combiner``: one law per state, or
``"custom"`` where a state has none), so every later reader calls ``merge_laws(op)``, which
returns the record and only recognizes the update itself for written IR that carries none.
The verifier checks that a record agrees with ``recognize_merges``. Cost: O(update size).
"""

from __future__ import annotations

from collections.abc import Sequence

from .attributes import COMBINERS
from .core import Block, BlockArgument, Operation, Value

__all__ = ["MERGES", "strip_casts", "recognize_merges", "merge_laws"]

MERGES = tuple(c for c in COMBINERS if c != "custom")
"""The merge laws a tree may regroup (the record's laws but ``custom``)."""


def strip_casts(v: Value) -> Value:
    """``v`` with any chain of ``arith cast`` peeled off (at most 64 deep)."""
    for _ in range(64):
        d = v.defining_op
        if d is None or d.name != "arith" or d.attr("fn") != "cast":
            break
        v = d.operand(0)
    return v


def _inside(op: Operation, block: Block) -> bool:
    """True when ``op`` is in ``block`` or nested (at any depth) in one of its operations."""
    b: Block | None = op.parent
    while b is not None:
        if b is block:
            return True
        owner = b.parent_op
        b = owner.parent if owner is not None else None
    return False


def _is_lift(v: Value, block: Block, states: Sequence[Value]) -> bool:
    """True when ``v`` reads no state and is computed in ``block`` by pure operations only
    (values defined outside the update are invariant across contributions)."""
    stack, seen = [v], set()
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        if isinstance(x, BlockArgument):
            if any(x is s for s in states):
                return False
            continue
        d = x.defining_op
        if d is None or not _inside(d, block):
            continue
        if d.opdef.effect != "pure" or d.regions:
            return False
        stack.extend(d.operands)
    return True


def recognize_merges(block: Block, n_states: int) -> tuple[str | None, ...]:
    """Per state of the update ``block`` (states first, then elements): its merge law, or
    None where the update is not a recognized merge."""
    states = block.args[:n_states]
    term = block.operations.last
    if term is None or term.name != "yield" or term.num_operands < n_states:
        return (None,) * n_states
    out: list[str | None] = []
    for k in range(n_states):
        d = strip_casts(term.operand(k)).defining_op
        law = None
        if d is not None and d.name == "arith" and d.attr("fn") in MERGES \
                and d.parent is block and d.num_operands == 2:
            a, b = (strip_casts(x) for x in d.operands)
            for mine, other in ((a, b), (b, a)):
                if mine is states[k] and _is_lift(other, block, states):
                    law = d.attr("fn")
        out.append(law)
    return tuple(out)


def merge_laws(op: Operation) -> tuple[str, ...] | None:
    """The merge law of every state of ``reduce`` ``op``, or None when some state has none.

    The ``combiner`` record wins when present (``"custom"`` means no merge); without one
    the update is recognized."""
    n_states = len(op.results)
    record = op.attr("combiner")
    if record is not None:
        if len(record) == n_states and all(c in MERGES for c in record):
            return tuple(record)
        return None
    laws = recognize_merges(op.regions[0].entry, n_states)
    return None if any(law is None for law in laws) else laws  # type: ignore[return-value]
