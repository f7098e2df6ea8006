"""Bounded K views as a realization: the K steps past a tile's physical K are not read and
their padded columns are not staged (``PlannerOptions.bounded_k_views``).

The planner proves (``plan/extract.py``, ``k_interval``) that both operands of an ``mma``
are zero-filled loads of bounded views whose K origin is affine in the loop counter, with
equal intervals: the *physical* K of an execution is ``actual = clamp(extent - origin, 0,
BK)`` while the logical tile keeps ``BK``. The schedule marks such an ``mma`` with
``physical_k`` (for the realizations below); the lowering then

* guards each K step of the realization's K loop by ``step < cdiv(actual, width)``
  (``width``: the K columns one step reads, ``k_step``), so the common zero x zero suffix
  of the tile is not read;
* restores the one observable effect of that suffix: adding ``+0 * +0`` turns a ``-0.0``
  accumulator into ``+0.0`` (every other value is unchanged, NaN and infinities included),
  so when ``actual < BK`` the accumulator is added ``+0.0`` once after the loop;
* copies a synchronous staged operand chunk by chunk, each chunk under ``k0 < cdiv(actual,
  width) * width`` (``k0``: the chunk's first K column for the thread): the ring columns
  the guarded steps do not read are neither loaded nor written. Columns inside a copied
  chunk past ``actual`` still read the view's zero fill, so every column a live step reads
  holds the reference's value. Asynchronous copies (``cp.async``, tensor copies) keep
  staging the whole tile: their fill is the hardware's, and the guarded reads stay correct.

Only the lane-FMA (``ffma``), ``mma.sync`` atom and scalar reference realizations take
it; the warpgroup and ``simdgroup`` realizations keep nominal K (the schedule notes why).
"""

from __future__ import annotations

import tilec.ir as ir
from tilec.ir.atoms import LANE_ATOMS, MMA_ATOMS
from tilec.ir.index_bounds import unit_term

from .machine import GroupLowering

__all__ = ["k_step", "physical_k_at_mma", "physical_k_of_window",
           "live_steps", "signed_zero_tail", "tail_axis", "clamped"]


def k_step(op: ir.Operation) -> int:
    """K columns one step of ``op``'s realization reads (its K loop's step width)."""
    k = int(op.operand_named("a").type.shape[1])
    real = op.attr("realization")
    if real in MMA_ATOMS:
        return MMA_ATOMS[real].ak
    if real == "ffma" and op.attr("distribution") == "rectangle":
        assert op.attr("atom") in LANE_ATOMS
        return next(x for x in (4, 2, 1) if k % x == 0)
    return 1


def clamped(g: GroupLowering, extent: ir.Value, origin: ir.Value, k: int) -> ir.Value:
    """``clamp(extent - origin, 0, k)``."""
    left = g.arith("sub", extent, origin)
    return g.arith("max", g.arith("min", left, g.index(k)), g.index(0))


def physical_k_at_mma(g: GroupLowering, op: ir.Operation) -> ir.Value:
    """The physical K of ``op``'s current execution, from A's bounded view (the planner
    proved B's interval equal) with the Scheduled origins' machine values."""
    k = int(op.operand_named("a").type.shape[1])
    ld = op.operand(0).defining_op
    view = ld.operand(0).defining_op if ld is not None and ld.name == "load" else None
    term = unit_term(view, 1) if view is not None else None
    if view is None or term is None:
        from .options import LoweringBug

        raise LoweringBug(ir.format_located(
            "internal: an mma marked physical_k has no bounded K view of A", op.loc))
    j, origin = term
    syms = [g.scalar(v) for v in view.operands[1:]]
    return clamped(g, g.extent(view.operand(0).type.shape[j]), g.affine(origin, (), syms), k)


def physical_k_of_window(g: GroupLowering, window: ir.Value, axis: int, k: int
                         ) -> ir.Value | None:
    """The physical K of a lowered staged window (a Machine ``view`` of a bounded window of
    a memory) along tile ``axis``; None when the window is not such a view."""
    view = window.defining_op
    term = unit_term(view, axis) if view is not None else None
    if view is None or term is None:
        return None
    j, origin = term
    extent = g.extent(view.operand(0).type.shape[j])  # a constant or a shape symbol
    return clamped(g, extent, g.affine(origin, (), list(view.operands[1:])), k)


def live_steps(g: GroupLowering, actual: ir.Value, width: int) -> ir.Value:
    """``cdiv(actual, width)``: the K steps of ``width`` columns that read a physical one."""
    return actual if width == 1 else g.arith("cdiv", actual, g.index(width))


def signed_zero_tail(g: GroupLowering, parts: list[ir.Value], actual: ir.Value, k: int
                     ) -> list[ir.Value]:
    """``parts + (+0.0)`` when ``actual < k`` (the skipped ``+0 * +0`` suffix turns ``-0.0``
    into ``+0.0`` and changes nothing else), else ``parts``; integer accumulators as they
    are."""
    if not parts or not parts[0].type.dtype.is_float:
        return parts
    cond = g.arith("lt", actual, g.index(k))
    t_blk, e_blk = ir.Block(), ir.Block()
    with g.scope(ir.Builder(ir.InsertionPoint.at_end(t_blk))):
        out = []
        for p in parts:
            dt = p.type.dtype
            blk = ir.Block([dt])
            b = ir.Builder(ir.InsertionPoint.at_end(blk))
            zero = b.value("constant", [], dt, {"value": 0.0})
            b.create("yield", [b.value("arith", [blk.args[0], zero], dt, {"fn": "add"})])
            out.append(g.op("map", [p], [p.type], {"shape": ir.IndexSet([p.type.shape[0]])},
                            [ir.Region([blk])]).result)
        g.op("yield", out, [])
    ir.Builder(ir.InsertionPoint.at_end(e_blk)).create("yield", parts)
    res = g.op("if", [cond], [p.type for p in parts], {}, [ir.Region([t_blk]),
                                                            ir.Region([e_blk])])
    return list(res.results)


def tail_axis(ld: ir.Operation) -> tuple[int, int] | None:
    """(tile K axis, K step width) of a staged load whose every use is an operand of an
    ``mma`` marked ``physical_k`` (A: axis 1, B: axis 0); None otherwise (the whole tile
    is staged)."""
    axis, width = None, None
    for u in ld.result.uses:
        op = u.owner
        if op.name != "mma" or u.index > 1 or not op.attr("physical_k"):
            return None
        ax, w = 1 - u.index, k_step(op)
        if axis is not None and (ax, w) != (axis, width):
            return None
        axis, width = ax, w
    return None if axis is None or width is None else (axis, width)
