"""Views of memory taken before a ``tc.parallel`` nest, moved into the nests that use them.

A ``view`` (``A.T``, ``A.permute(...)``, a ``.tile`` window and its unit-axis
reshapes) is address arithmetic: it reads and writes nothing. TileIR keeps
it inside a ``parallel`` (verifier invariant 4), but the DSL lets a kernel
name one at function level, ahead of the nest (``At = A.T``), as a reader
expects. Capture builds such a view where it is written; ``sink_views`` then
gives every nest that uses it a copy at the start of the nest's body (its
operands, the base memory and any runtime origin, are computed before the
nest, so they dominate the copy) and drops the original. The Candidate IR
every target receives therefore has each view inside its nest, as if the
kernel had been written that way; a view that two nests use is taken by
each (``reference`` and ``cpu`` run several top-level nests).

A top-level view whose value reaches anything but a nest or another
top-level view (a memory carried out of a top-level ``if`` or loop) cannot
be moved, and is a located ``TileSyntaxError`` that says to take it inside
the nest.
"""

from __future__ import annotations

import linecache

import tilec.ir as ir

from .errors import TileSyntaxError

__all__ = ["sink_views"]


def _outermost_nest(op: ir.Operation) -> ir.Operation | None:
    """The outermost ``parallel`` enclosing ``op`` (or ``op`` itself), None outside every nest."""
    nest = None
    cur: ir.Operation | None = op
    while cur is not None:
        if cur.name == "parallel":
            nest = cur
        cur = cur.parent_op
    return nest


def _error(view: ir.Operation, user: ir.Operation) -> TileSyntaxError:
    loc = view.loc
    line = linecache.getline(loc.filename, loc.line).rstrip("\n") if loc.known else ""
    at = f" (line {user.loc.line})" if user.loc.known else ""
    return TileSyntaxError(
        f"this view of an array is taken outside a tc.parallel nest and its value is passed "
        f"on by a top-level '{user.name}'{at}; a view taken before a nest may only be used "
        f"inside nests: take it inside the loop body of the nest that uses it",
        loc.filename, loc.line, loc.col, loc.end_col, line)


def sink_views(fn: ir.Function) -> None:
    """Move every ``view`` outside all ``parallel`` nests of ``fn`` into the nests using it."""
    tops = [op for op in fn.walk() if op.name == "view" and _outermost_nest(op) is None]
    # users first: a view of a top-level view is copied into a nest before the view it
    # reads, and inserting each copy at the top of the body puts the read one above it
    for op in reversed(tops):
        copies: dict[int, ir.Value] = {}
        for use in list(op.result.uses):
            nest = _outermost_nest(use.owner)
            if nest is None:
                raise _error(op, use.owner)
            copy = copies.get(nest.id)
            if copy is None:
                body = nest.regions[0].entry
                new = ir.Operation("view", op.operands, [op.result.type], dict(op.attributes),
                                   loc=op.loc, result_names=[op.result.name_hint])
                body.insert_op(new, body.operations.first)
                copy = copies[nest.id] = new.result
            use.owner.set_operand(use.index, copy)
        op.erase()
