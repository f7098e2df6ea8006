"""Data-flow questions about values of one function body, asked by the planner and the
lowering alike: does an operation read a value (through the operations that define its
operands), is a ``reindex`` a plain transpose, is a load the same tile on every iteration
of the loop around it, and which value a ``pipeline`` stage hands to the next (operand
``j`` of stage ``s``'s ``yield`` is argument ``j + 1`` of stage ``s + 1``; argument 0 is
the counter), whether an update is a loop's closed recurrence, and which matrix operands a
value feeds (what the lowering stages in shared memory), and which power of two an index
value is known to be a multiple of (``pow2_divisor``: what tensor copies' alignment rule
asks of a window's origin)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .core import BlockArgument, Operation, Value
from .dims import AffineExpr, d
from .layout import IndexMap
from .types import TileType, index

__all__ = ["plain_transpose", "depends_on", "invariant_in", "handed_on", "handed_from",
           "carried_in",
           "closed_recurrence", "matrix_uses", "transposed_a_staged", "pow2_divisor",
           "affine_pow2_divisor", "arith_divisor"]


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


def carried_in(v: Value) -> Value | None:
    """The value the body of a ``serial`` loop yields for its next iteration as ``v``, when
    ``v`` is a carried argument of that body (a software-pipelined loop's scores, computed
    one iteration ahead); None otherwise."""
    if not isinstance(v, BlockArgument) or v.index < 1:
        return None
    loop = v.owner.parent_op
    if loop is None or loop.name != "serial" or v.owner is not loop.regions[0].entry:
        return None
    yielded = v.owner.terminator
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
    layout, the lowering's ``Staged.transposed``) or as the A of a TF32 product of f32
    operands (``transposed_a_staged``); None when it has another use."""
    out: list[tuple[Operation, int]] = []
    for u in v.uses:
        op = u.owner
        if op.name == "mma" and u.index < 2:
            out.append((op, u.index))
            continue
        if plain_transpose(op):
            more = matrix_uses(op.result)
            if more is None or any(k != 1 and not transposed_a_staged(m) for m, k in more):
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


def transposed_a_staged(mma: Operation) -> bool:
    """Whether a staged tile read transposed as ``mma``'s A operand stays staged (and is
    read through the transposed view): f32 operands under ``precision = "tf32"``, whose
    every realization reads A element by element (TF32 atoms, lane FMAs, the reference; a
    warpgroup instruction takes such an A from registers), never with the 16-bit
    ``ldmatrix`` that assumes A's rows are contiguous."""
    policy = mma.attr("policy")
    return mma.operand(0).type.dtype.bytes == 4 and policy is not None \
        and policy.precision == "tf32"


_POW2_CAP = 1 << 62
"""The largest divisor ``pow2_divisor`` reports (an index is 64 bits wide)."""


def _lowbit(c: int) -> int:
    """The largest power of two dividing ``c`` (0 for 0), at most ``_POW2_CAP``."""
    return min(abs(c) & -abs(c), _POW2_CAP) if c else 0


def pow2_divisor(v: Value, _memo: dict[Value, int] | None = None) -> int:
    """A power of two that integer scalar ``v`` is a multiple of in every execution, or 0
    when ``v`` is exactly zero; 1 when nothing is known.

    Only ``index`` values and powers of two are tracked: a power of two survives the wrap
    of the 64-bit integer (a product or sum of multiples of ``2**k`` is one modulo
    ``2**64``), so the answer is sound for the value the machine computes. Sources:
    constants; ``add``, ``sub``, ``min``, ``max``, ``select`` (the smaller of the operands'
    divisors), ``mul`` (the product), ``neg``, ``abs``, ``floordiv`` and ``rem`` by a
    constant power of two; the counter of a ``serial`` or ``pipeline`` loop (its lower
    bound plus multiples of its step). Anything else (parameters, ``parallel``
    coordinates, loaded or carried values) is a multiple of 1 only."""
    memo = {} if _memo is None else _memo
    got = memo.get(v)
    if got is not None:
        return got
    memo[v] = 1  # a cycle (none in SSA outside regions) reads as unknown
    out = 1
    op = v.defining_op
    if op is not None and op.name == "constant":
        c = op.attr("value")
        if isinstance(c, int) and not isinstance(c, bool):
            out = _lowbit(c)
    elif op is not None and op.name == "arith" and v.type is index:
        out = _arith_pow2(op, memo)
    elif isinstance(v, BlockArgument) and v.index == 0:
        loop = v.owner.parent_op
        if loop is not None and loop.name in ("serial", "pipeline"):
            out = math.gcd(pow2_divisor(loop.operand(0), memo),
                           pow2_divisor(loop.operand(2), memo))
            out = out or 1  # lb = step = 0: the counter is 0, but claim nothing odd
    memo[v] = out
    return out


def arith_divisor(fn: str, divs: Sequence[int]) -> int:
    """A known divisor of the result of index ``arith fn`` from known divisors of its
    operands (0: the value is exactly zero, a multiple of everything): a product for
    ``mul``, the greatest common divisor for ``add``, ``sub``, ``min``, ``max`` and the
    two branches of ``select``, the operand's for ``neg`` and ``abs``; 1 for anything
    else."""
    if fn == "mul":
        return divs[0] * divs[1]
    if fn in ("add", "sub", "max", "min"):
        return math.gcd(divs[0], divs[1])
    if fn in ("neg", "abs"):
        return divs[0]
    if fn == "select":
        return math.gcd(divs[1], divs[2])
    return 1


def _arith_pow2(op: Operation, memo: dict[Value, int]) -> int:
    fn = op.attr("fn")
    args = op.operands

    def div(x: Value) -> int:
        return pow2_divisor(x, memo) if x.type is index else 1

    if fn == "cast":
        return div(args[0]) if len(args) == 1 else 1
    if fn in ("floordiv", "rem"):
        c = args[1].defining_op
        c = c.attr("value") if c is not None and c.name == "constant" else None
        if args[0].type is not index or not isinstance(c, int) or c <= 0 or c & (c - 1):
            return 1
        a = div(args[0])
        if fn == "floordiv":
            return 0 if a == 0 else a // c if a >= c else 1
        return 0 if a == 0 or a >= c else a
    if fn not in ("mul", "add", "sub", "max", "min", "neg", "abs", "select"):
        return 1
    # divisors that are powers of two (or 0) stay so under products and gcds
    return min(arith_divisor(fn, [div(x) for x in args]), _POW2_CAP)


def affine_pow2_divisor(e: AffineExpr, syms: list[int]) -> int:
    """A power of two that the affine expression ``e`` (with no dimension atoms) is a
    multiple of, given a divisor per symbol (``pow2_divisor``'s convention; 1 for a
    ``floordiv`` or ``mod`` atom)."""
    out = _lowbit(e.constant)
    for atom, k in e.terms:
        d = syms[atom[1]] if atom[0] == "s" else 1
        if atom[0] == "d":
            return 1
        out = math.gcd(out, 0 if d == 0 else min(d * _lowbit(k), _POW2_CAP))
    return out
