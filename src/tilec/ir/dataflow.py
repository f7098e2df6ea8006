"""Data-flow questions about values of one function body, asked by the planner and the
lowering alike: does an operation read a value (through the operations that define its
operands), is a ``reindex`` a plain transpose, is a load the same tile on every iteration
of the loop around it, and which value a ``pipeline`` stage hands to the next (operand
``j`` of stage ``s``'s ``yield`` is argument ``j + 1`` of stage ``s + 1``; argument 0 is
the counter), whether an update is a loop's closed recurrence, and which matrix operands a
value feeds (what the lowering stages in shared memory)."""

from __future__ import annotations

from .core import BlockArgument, Operation, Value
from .dims import d
from .layout import IndexMap
from .types import TileType

__all__ = ["plain_transpose", "depends_on", "invariant_in", "handed_on", "handed_from",
           "closed_recurrence", "matrix_uses"]


def plain_transpose(op: Operation) -> bool:
    """Whether ``op`` is ``x.T`` of a 2-D tile: a ``reindex`` swapping the two axes, with no
    start symbols and nothing out of range (a renaming of the same elements)."""
    if op.name != "reindex" or op.num_operands != 1 or op.attr("fill") is not None:
        return False
    t = op.operand(0).type
    m = op.attr("map")
    return isinstance(t, TileType) and t.rank == 2 and m.n_symbols == 0 \
        and m == IndexMap(2, [d(1), d(0)]) \
        and tuple(op.result.type.shape) == tuple(t.shape)[::-1]


def depends_on(op: Operation, seeds: set[Value], within: Operation) -> bool:
    """Whether an operand of ``op`` depends on ``seeds`` through the operations that define
    it; the arguments of ``within``'s regions other than its counter (the carried values)
    count as dependent."""
    seen: set[Value] = set()
    counters = {r.entry.args[0] for r in within.regions if r.entry.args}
    carried = {a for r in within.regions for a in r.entry.args} - counters
    stack = list(op.operands)
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        if v in seeds or v in carried:
            return True
        p = v.defining_op
        if p is not None:
            stack.extend(p.operands)
    return False


def invariant_in(ld: Operation, loop: Operation) -> bool:
    """Whether load ``ld`` in one-region ``loop`` reads the same tile on every iteration:
    its address does not read the counter or a carried value, and nothing in the loop
    writes memory."""
    if len(loop.regions) != 1 or any(op.name in ("store", "atomic")
                                     for op in loop.walk(include_self=False)):
        return False
    return not depends_on(ld, {loop.regions[0].entry.args[0]}, loop)


def handed_on(yielded: Operation, index: int) -> Value | None:
    """The argument of the next ``pipeline`` stage that receives operand ``index`` of
    ``yielded`` (a stage's ``yield``); None when ``yielded`` ends no stage with a next."""
    loop = yielded.parent_op
    if yielded.name != "yield" or loop is None or loop.name != "pipeline":
        return None
    stage = next(i for i, r in enumerate(loop.regions) if r is yielded.parent_region)
    if stage + 1 >= len(loop.regions):
        return None
    return loop.regions[stage + 1].entry.args[index + 1]


def handed_from(v: Value) -> Value | None:
    """The value the previous ``pipeline`` stage yields as ``v``, when ``v`` is a later
    stage's carried argument; None otherwise (``handed_on`` read backwards)."""
    if not isinstance(v, BlockArgument) or v.index < 1:
        return None
    loop = v.owner.parent_op
    if loop is None or loop.name != "pipeline":
        return None
    stage = next(i for i, r in enumerate(loop.regions) if r is v.owner.parent)
    if stage < 1:
        return None
    yielded = loop.regions[stage - 1].entry.terminator
    if yielded is None or v.index - 1 >= yielded.num_operands:
        return None
    return yielded.operand(v.index - 1)


def closed_recurrence(op: Operation, carried: int = 2) -> tuple[Operation, int] | None:
    """(loop, position) when ``op`` is the sole update of carried value ``position`` of the
    ``serial`` or ``pipeline`` loop around it: its operand ``carried`` is that value (used
    by nothing else) and its result is yielded back into the same slot (used by nothing
    else). In a ``pipeline`` the update is in the last stage and the earlier stages only
    hand the value on (their argument goes straight into their ``yield``)."""
    block, loop = op.parent, op.parent_op
    if block is None or loop is None or loop.name not in ("serial", "pipeline"):
        return None
    c = op.operand(carried)
    if not isinstance(c, BlockArgument) or c.owner is not block or c.index == 0 \
            or c.num_uses != 1 or c.index - 1 >= len(loop.results):
        return None
    pos = c.index - 1
    term = block.terminator
    if term is None or term.name != "yield" or op.result.num_uses != 1:
        return None
    use = next(iter(op.result.uses))
    if use.owner is not term or use.index != pos:
        return None
    if loop.name == "pipeline":
        if block is not loop.regions[-1].entry:
            return None
        v: Value = c
        while (prev := handed_from(v)) is not None:
            if not isinstance(prev, BlockArgument) or prev.index != c.index \
                    or prev.num_uses != 1:
                return None
            v = prev
        if v.owner is not loop.regions[0].entry:  # type: ignore[attr-defined]
            return None
    return loop, pos


def matrix_uses(v: Value) -> list[tuple[Operation, int]] | None:
    """The (mma, operand) pairs ``v`` reaches, through pipeline stage hand-offs and a plain
    transpose read as B (``x.T`` as the B operand: the staged tile is then B's K-major
    layout, the lowering's ``Staged.transposed``); None when it has another use."""
    out: list[tuple[Operation, int]] = []
    for u in v.uses:
        op = u.owner
        if op.name == "mma" and u.index < 2:
            out.append((op, u.index))
            continue
        if plain_transpose(op):
            more = matrix_uses(op.result)
            if more is None or any(k != 1 for _, k in more):
                return None
            out.extend(more)
            continue
        nxt = handed_on(op, u.index)
        if nxt is not None:
            more = matrix_uses(nxt)
            if more is None:
                return None
            out.extend(more)
            continue
        return None
    return out or None
