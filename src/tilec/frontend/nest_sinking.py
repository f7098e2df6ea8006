"""Values defined before a ``tc.parallel`` nest that only compute addresses or constants,
moved into the nests that use them.

A ``view`` of memory (``A.T``, ``A.permute(...)``, a ``.tile`` window and its
unit-axis reshapes) is address arithmetic: it reads and writes nothing.
A tile ``constant`` (``tc.zeros``) or coordinate tile (``iota``, ``tc.arange``)
is a pure value of compile-time shape. TileIR keeps views inside a
``parallel`` (verifier invariant 4), and GPU targets run no tile code
outside their one nest, but the DSL lets a kernel name any of these at
function level, ahead of the nest (``At = A.T``, ``cols = tc.arange(BN)``), as
a reader expects. Capture builds them where they are written;
``sink_into_nests`` then gives every nest that uses one a copy at the start of
the nest's body (its operands, the base memory and any runtime origin or
start, are computed before the nest, so they dominate the copy) and drops the
original. The Candidate IR every target receives therefore has them inside
their nests, as if the kernel had been written that way; a value two nests
use is computed by each (``reference`` and ``cpu`` run several top-level
nests).

A value used at top level other than by another such value (a memory or
tile carried out of a top-level ``if`` or loop, a tile passed to a top-level
nest as the init of an ancestor update) cannot move: a view there is a
located ``TileSyntaxError`` that says to take it inside the nest; a tile
constant or coordinate tile stays where it is (the reference and ``cpu`` run
it there; GPU lowering refuses such a top level with its own reason).
"""

from __future__ import annotations

import linecache

import tilec.ir as ir

from .errors import TileSyntaxError

__all__ = ["sink_into_nests"]


def _nest_around(op: ir.Operation) -> ir.Operation | None:
    """The outermost ``parallel`` strictly enclosing ``op``, None outside every nest."""
    nest = None
    cur = op.parent_op
    while cur is not None:
        if cur.name == "parallel":
            nest = cur
        cur = cur.parent_op
    return nest


def _movable(op: ir.Operation) -> bool:
    """A view, or a tile constant or coordinate tile, outside every nest."""
    if op.name == "view" or (op.name in ("constant", "iota")
                             and isinstance(op.result.type, ir.TileType)):
        return _nest_around(op) is None
    return False


def _error(view: ir.Operation, user: ir.Operation) -> TileSyntaxError:
    loc = view.loc
    line = linecache.getline(loc.filename, loc.line).rstrip("\n") if loc.known else ""
    at = f" (line {user.loc.line})" if user.loc.known else ""
    return TileSyntaxError(
        f"this view of an array is taken outside a tc.parallel nest and its value is passed "
        f"on by a top-level '{user.name}'{at}; a view taken before a nest may only be used "
        f"inside nests: take it inside the loop body of the nest that uses it",
        loc.filename, loc.line, loc.col, loc.end_col, line)


def sink_into_nests(fn: ir.Function) -> None:
    """Move every view, tile constant and coordinate tile outside all ``parallel`` nests of
    ``fn`` into the nests that use it."""
    tops = [op for op in fn.walk() if _movable(op)]
    # users first: a view of a top-level view is copied into a nest before the view it
    # reads, and inserting each copy at the top of the body puts the read one above it
    for op in reversed(tops):
        stuck = next((u.owner for u in op.result.uses if _nest_around(u.owner) is None), None)
        if stuck is not None:
            if op.name == "view":
                raise _error(op, stuck)
            continue
        copies: dict[int, ir.Value] = {}
        for use in list(op.result.uses):
            nest = _nest_around(use.owner)
            assert nest is not None
            copy = copies.get(nest.id)
            if copy is None:
                body = nest.regions[0].entry
                new = ir.Operation(op.name, op.operands, [op.result.type], dict(op.attributes),
                                   loc=op.loc, result_names=[op.result.name_hint])
                body.insert_op(new, body.operations.first)
                copy = copies[nest.id] = new.result
            use.owner.set_operand(use.index, copy)
        op.erase()
