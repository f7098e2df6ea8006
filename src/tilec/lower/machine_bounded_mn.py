"""Bounded M/N input views as a realization: the accumulator rows and columns that the
bounded store does not write, past the arrays' edges, are not computed
(``PlannerOptions.bounded_mn_views``).

The planner proves (``plan/proofs/bounded_views.py``) that the output window starts where
A's rows (B's columns) do, so the rows the store writes are ``valid = clamp(C extent -
origin, 0, tile)`` with the origin read through A's (B's) bounded window at the ``mma``;
in the usual GEMM (C as long as A) the others are exactly the padded input rows. The
schedule marks such an ``mma`` with ``bounded_mn`` (``"m"``, ``"n"`` or ``"mn"``: the proved
axes) for the realizations below, and the lowering composes ``valid`` with the
realization's own coordinates:

* ``mma.sync`` rectangles: a subgroup whose rectangle starts at or past ``valid`` (rows or
  columns) skips its whole K loop, fragment loads and matrix steps (a subgroup-uniform
  guard around the loop; the accumulator fragments keep their values). Inside a partial
  rectangle, atom row ``fm`` (column ``fn``) whose first row (column) is at or past
  ``valid`` loads no A (B) fragment and issues no atom (subgroup-uniform guards; the atom is
  a subgroup collective, so its own rows are all computed once any is inside);
* the one-atom distributions (``mma.sync`` and lane FMA): a job whose atom starts outside
  is skipped with its job guard;
* lane FMA rectangles: a lane whose micro-tile starts outside (its first row or column)
  skips its K loop (lanes exchange nothing there);
* the scalar reference: a register part whose elements' rows (columns) increase along it
  skips its multiply-adds when its first element is outside (checked on the layout's
  table; other parts are computed as before).

Nothing that is stored changes: an element inside both extents is computed by the same
operations in the same order, so NaN, infinities, ``0 * Inf`` and signed zeros keep their
classification; the skipped elements keep whatever the accumulator held, and the bounded
store drops them. The warpgroup and ``simdgroup`` realizations compute the whole tile (the
schedule notes why).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import tilec.ir as ir
from tilec.ir import dist_layout as L
from tilec.ir.index_bounds import unit_term
from tilec.plan.proofs.bounded_views import sink_of

from .machine import GroupLowering
from .machine_bounded_k import clamped
from .options import LoweringBug

__all__ = ["Edge", "valid_extents", "rect_edge", "job_inside", "lane_inside",
           "part_inside", "both", "guarded_value"]

GUARD = "bounded M/N view: a rectangle inside the arrays"
"""The ``guard`` attribute of the ``if`` around a subgroup rectangle's K loop."""


@dataclass(frozen=True)
class Edge:
    """The accumulator rows and columns the program's store writes (None: that axis is not
    bounded)."""

    rows: ir.Value | None
    """``clamp(C rows - row origin, 0, BM)``: the accumulator rows the store writes."""
    cols: ir.Value | None
    """``clamp(C columns - column origin, 0, BN)``."""


def _stored(g: GroupLowering, op: ir.Operation, k: int, store_view: ir.Operation
            ) -> ir.Value:
    """``clamp(store extent - origin, 0, tile)`` along tile axis ``k`` of ``op``'s
    accumulator: the origin from operand ``k``'s bounded window (its symbols are computed
    before the ``mma``), the extent from the store's window (a constant or a shape-symbol
    parameter); the planner proved both windows start there."""
    v = op.operand(k)
    ld = v.defining_op
    view = ld.operand(0).defining_op if ld is not None and ld.name == "load" else None
    term = unit_term(view, k) if view is not None else None
    dst = unit_term(store_view, k)
    if view is None or term is None or dst is None:
        raise LoweringBug(ir.format_located(
            f"internal: an mma marked bounded_mn has no bounded window of operand {k} or of "
            "its store along that axis", op.loc))
    _, origin = term
    syms = [g.scalar(x) for x in view.operands[1:]]
    extent = g.extent(store_view.operand(0).type.shape[dst[0]])
    return clamped(g, extent, g.affine(origin, (), syms), int(v.type.shape[k]))


def valid_extents(g: GroupLowering, op: ir.Operation) -> Edge | None:
    """The stored extents of ``op`` (an ``mma`` marked ``bounded_mn``), else None."""
    axes = op.attr("bounded_mn")
    if not axes:
        return None
    st, why = sink_of(op)
    view = st.operand(0).defining_op if st is not None else None
    if view is None or view.name != "view":
        raise LoweringBug(ir.format_located(
            f"internal: an mma marked bounded_mn has no store through a window ({why})",
            op.loc))
    return Edge(_stored(g, op, 0, view) if "m" in axes else None,
                _stored(g, op, 1, view) if "n" in axes else None)


def _lt(g: GroupLowering, e: ir.AffineExpr, bound: ir.Value | None) -> ir.Value | None:
    """``e < bound`` (``e`` affine in ``s1`` = thread id), or None when there is no bound."""
    if bound is None:
        return None
    return g.arith("lt", g.affine(e, (), [g.index(0), g.tid]), bound)


def both(g: GroupLowering, x: ir.Value | None, y: ir.Value | None) -> ir.Value | None:
    """``x and y`` where None is true."""
    if x is None or y is None:
        return y if x is None else x
    return g.arith("and", x, y)


@dataclass(frozen=True)
class RectEdge:
    """The guards of one subgroup rectangle of ``rm x rn`` atoms."""

    inside: ir.Value | None
    """The rectangle's first row and column are inside (around the K loop)."""
    rows: list[ir.Value | None]
    """Atom row ``fm`` starts inside (None: implied by ``inside``)."""
    cols: list[ir.Value | None]
    """Atom column ``fn`` starts inside."""


def rect_edge(g: GroupLowering, edge: Edge, row0: ir.AffineExpr, col0: ir.AffineExpr,
              rm: int, rn: int, am: int, an: int) -> RectEdge:
    """The guards of the subgroup rectangle at ``(row0, col0)`` (affine in the thread id),
    computed once before its K loop."""
    inside = both(g, _lt(g, row0, edge.rows), _lt(g, col0, edge.cols))
    rows = [None] + [_lt(g, row0 + fm * am, edge.rows) for fm in range(1, rm)]
    cols = [None] + [_lt(g, col0 + fn * an, edge.cols) for fn in range(1, rn)]
    return RectEdge(inside, rows, cols)


def job_inside(g: GroupLowering, edge: Edge | None, row0: ir.AffineExpr,
               col0: ir.AffineExpr) -> ir.Value | None:
    """A one-atom job's atom starts inside (subgroup-uniform), or None without an edge."""
    if edge is None:
        return None
    return both(g, _lt(g, row0, edge.rows), _lt(g, col0, edge.cols))


def lane_inside(g: GroupLowering, edge: Edge | None, row: ir.AffineExpr,
                col: ir.AffineExpr) -> ir.Value | None:
    """A lane micro-tile whose rows (columns) start at ``row`` (``col``) and increase is
    inside, or None without an edge."""
    return job_inside(g, edge, row, col)


def part_inside(g: GroupLowering, edge: Edge | None, layout: L.DistLayout, off: int,
                size: int) -> ir.Value | None:
    """Register part ``[off, off + size)`` of ``layout`` starts inside along each axis
    whose coordinates do not decrease along the part for any thread (checked on the
    layout's table: then a first element outside means every element is); None when no
    such guard holds."""
    if edge is None:
        return None
    coords, valid = layout.table()
    if not bool(np.all(valid[:, off:off + size])):
        return None
    tm = layout.thread_map()
    first = [e.substitute([ir.const(off)]) for e in tm.results]
    cond = None
    for axis, bound in ((0, edge.rows), (1, edge.cols)):
        seg = coords[axis][:, off:off + size]
        if bound is None or not bool(np.all(np.diff(seg, axis=1) >= 0)):
            continue
        # the thread map reads the thread id as s0; _lt reads it as s1
        e = first[axis].substitute([], [ir.s(1)])
        cond = both(g, cond, _lt(g, e, bound))
    return cond


def guarded_value(g: GroupLowering, cond: ir.Value | None, make: Callable[[], ir.Value],
                  regs: int, dtype: ir.ScalarType) -> ir.Value:
    """``make()`` under ``cond`` (zeros of ``regs`` registers otherwise: a fragment the
    guarded atoms do not read), or unconditionally when ``cond`` is None."""
    if cond is None:
        return make()
    zero = g.splat(0, regs, dtype)
    t_blk, e_blk = ir.Block(), ir.Block()
    with g.scope(ir.Builder(ir.InsertionPoint.at_end(t_blk))):
        v = make()
        g.op("yield", [v], [])
    ir.Builder(ir.InsertionPoint.at_end(e_blk)).create("yield", [zero])
    return g.op("if", [cond], [v.type], {"guard": "bounded M/N view: a fragment inside"},
                [ir.Region([t_blk]), ir.Region([e_blk])]).result
