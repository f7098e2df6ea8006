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

**Arg-reductions** (``tc.argmax``/``tc.argmin``) pair two states: a value state with law
``max`` (``min``) and, right after it, an index state with law ``argmax`` (``argmin``). Their
update is the pair merge itself, ``emit_merge``: the value state takes the IEEE maximum
(minimum); the index state takes the other partial's index when that partial's value comes
first in the order "NaN, then larger (smaller) values" or ties with it (equal values, -0.0 and
+0.0 included, or both NaN) at a lower index. Ties broken by index make this the maximum of a
total order on (value, index) pairs, so it is associative and commutative: any tree gives the
same index, the first (lowest) one among the best values. It is recognized only in that
canonical form (the whole update equals ``emit_merge`` of the block's arguments), which is
what capture builds; the exact identity of the index state is its type's largest value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .attributes import COMBINERS
from .builder import Builder, InsertionPoint
from .core import Block, BlockArgument, Operation, Region, Value
from .equality import structurally_equal
from .types import ScalarType, i1

__all__ = ["MERGES", "ARG_LAWS", "strip_casts", "recognize_merges", "merge_laws", "emit_merge",
           "merge_region", "merge_identity", "is_merge_identity"]

MERGES = tuple(c for c in COMBINERS if c != "custom")
"""The merge laws a tree may regroup (the record's laws but ``custom``)."""

ARG_LAWS = {"argmax": "max", "argmin": "min"}
"""Index-state law -> the law of the value state it follows."""


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
    laws = _independent_merges(block, n_states)
    if n_states == 2 and laws[0] in ("max", "min") and laws[1] is None:
        arg = "argmax" if laws[0] == "max" else "argmin"
        if _is_canonical_merge(block, (laws[0], arg)):
            return (laws[0], arg)
    return laws


def _is_canonical_merge(block: Block, laws: tuple[str, ...]) -> bool:
    """True when ``block`` is, structurally, ``merge_region(laws, ...)`` of its own types."""
    n = len(laws)
    types = [a.type for a in block.args]
    if len(types) != 2 * n or types[:n] != types[n:] \
            or not all(isinstance(t, ScalarType) for t in types):
        return False
    return structurally_equal(block, merge_region(laws, types[:n]).entry)


def _independent_merges(block: Block, n_states: int) -> tuple[str | None, ...]:
    """Per state: the law of an update ``op(state, lift)``, None where it is not one."""
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


def emit_merge(b: Builder, laws: Sequence[str], a: Sequence[Value], x: Sequence[Value]
               ) -> list[Value]:
    """Emit, at ``b``, the merge of partial states ``a`` and ``x`` (one law per state): one
    ``arith`` per independent law; an arg law's index keeps ``a``'s unless ``x``'s value comes
    first or ties at a lower index (module docstring)."""
    out = []
    for k, law in enumerate(laws):
        if law in ARG_LAWS:
            if k == 0 or laws[k - 1] != ARG_LAWS[law]:
                raise ValueError(f"merge law {law!r} must follow a {ARG_LAWS[law]!r} state")
            out.append(_arg_index(b, law, a[k - 1], a[k], x[k - 1], x[k]))
        else:
            out.append(b.value("arith", [a[k], x[k]], a[k].type, {"fn": law}))
    return out


def _arg_index(b: Builder, law: str, av: Value, ai: Value, xv: Value, xi: Value) -> Value:
    """The index an arg law keeps: ``xi`` where ``(xv, xi)`` comes first, else ``ai``."""

    def f(fn: str, p: Value, q: Value) -> Value:
        return b.value("arith", [p, q], i1, {"fn": fn})

    better = f("gt" if law == "argmax" else "lt", xv, av)
    tie = f("eq", xv, av)  # -0.0 == +0.0
    if av.type.is_float:  # a NaN comes before every number; two NaNs tie
        x_nan = f("ne", xv, xv)
        better = f("or", better, f("and", x_nan, f("eq", av, av)))
        tie = f("or", tie, f("and", x_nan, f("ne", av, av)))
    take = f("or", better, f("and", tie, f("lt", xi, ai)))
    return b.value("arith", [take, xi, ai], ai.type, {"fn": "select"})


def merge_region(laws: Sequence[str], types: Sequence[ScalarType]) -> Region:
    """``^(a..., x...): yield(merge)``: the merge of two partial states as a region (the
    update of a reduction whose contributions are themselves partial states)."""
    blk = Block(list(types) * 2)
    b = Builder(InsertionPoint.at_end(blk))
    n = len(laws)
    b.create("yield", emit_merge(b, laws, blk.args[:n], blk.args[n:]))
    return Region([blk])


def merge_identity(law: str, dtype: ScalarType) -> float | int | bool:
    """The exact identity of ``law`` in ``dtype`` (``-0.0`` for float add; an arg law's index
    state: the type's largest value, which every real index precedes)."""
    if law in ARG_LAWS:
        law = "min"
    if dtype.is_float:
        return {"add": -0.0, "mul": 1.0, "max": -math.inf, "min": math.inf}[law]
    if dtype is i1:
        return {"add": False, "mul": True, "max": False, "min": True}[law]
    lo, hi = dtype.int_bounds
    return {"add": 0, "mul": 1, "max": lo, "min": hi}[law]


def is_merge_identity(v: Value, law: str) -> bool:
    """Whether ``v`` is a ``constant`` holding the exact identity of ``law`` in its type
    (``merge_identity``; ``-0.0`` for a float sum, so ``+0.0`` is not one): merging it with
    any ``x`` gives ``x`` bit for bit, so a fold may leave it out."""
    d = v.defining_op
    if d is None or d.name != "constant" or not isinstance(v.type, ScalarType) \
            or law not in ("add", "mul", "max", "min"):
        return False
    t, x = v.type, d.attr("value")
    want = merge_identity(law, t)
    if t.is_float:
        try:
            x = float(x)
        except (TypeError, ValueError):
            return False
        return x == want and math.copysign(1.0, x) == math.copysign(1.0, want)
    return not isinstance(x, float) and x == want
