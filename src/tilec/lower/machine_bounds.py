"""Machine lowering of reads that may leave their tile or memory (tileir.md: an error).

A ``reindex`` without ``fill`` whose start is a runtime value (a tile slice
``x[i * 8:(i + 1) * 8]``, an index ``x[i]``) must read inside its source. On a
GPU the source is spread over the group's registers (or repartitioned through
shared memory), so nothing would notice a read past its end. The lowering
puts one uniform ``check {kind = "index"}`` per source axis a runtime value
may move out of range (``ir.index_bounds``) before the ``reindex``: its
symbols are Candidate scalars, uniform across the group, so the group stops
as a whole, before any later effect, and each target reports it through the
channel of its checks (``KernelIndexError`` at the slice, with its start).
Axes whose start value ranges prove in range get no check.

A Candidate ``view`` with ``bounds = "total"`` must keep every element an
access reaches inside its base, and the uniform views of the SIMT region are
not guarded per element on a GPU. Capture only makes axis permutations of
whole memories, which value ranges (``index_bounds.view_in_range``) prove in
range: they cost nothing. Any other total view gets, before each ``load``,
``store`` or ``atomic`` that reads or writes through it directly (every
element reaches it then), one uniform ``check {kind = "index"}`` per base axis,
located at the view. A total view used otherwise (cut by a further view, or
read ahead of program order by a staged load) that is not proven in range is
refused with a located ``LoweringError``.
"""

from __future__ import annotations

import tilec.ir as ir
from tilec.ir.index_bounds import TOTAL_VIEW_MESSAGE, extremes, reindex_bounds, split, view_in_range
from tilec.ir.ranges import Range, analyze_ranges

from .machine import GroupLowering
from .options import LoweringError

__all__ = ["guard_reindex", "check_total_view", "guard_total_access"]


def _ranges(g: GroupLowering) -> dict[int, Range]:
    fl = g.fl
    if fl.ranges is None:
        fl.ranges = analyze_ranges(fl.src)  # once per function (ir.ranges: its cost)
    return fl.ranges


def guard_reindex(g: GroupLowering, op: ir.Operation) -> None:
    """Before Candidate ``reindex`` ``op``: a uniform ``check(lo <= g(s) <= hi, start)``
    for each source axis it may leave, in axis order. Ahead of program order
    (``speculative``) nothing is checked: the iteration checks its own copy."""
    tests, mixed = reindex_bounds(op, _ranges(g))
    if mixed:
        raise _mixed_map(g, op, mixed[0])
    if g.speculative or not tests:
        return
    syms = [g.scalar(v) for v in op.operands[1:]]
    for t in sorted(tests, key=lambda t: t.axis):
        offset = g.affine(t.offset, (), syms)
        start = g.arith("add", offset, g.index(t.lo)) if t.lo else offset
        ok = t.admissible
        if ok is None:  # the slice is longer than the axis: no start fits
            cond = g.op("constant", [], [ir.i1], {"value": False}).result
        else:
            cond = g.arith("and", g.arith("ge", offset, g.index(ok.lo)),
                           g.arith("le", offset, g.index(ok.hi)))
        message, label = t.describe()
        g.b.create("check", [cond, start], [], {"message": message, "labels": (label,),
                                                "kind": "index"}, loc=op.loc)


def _mixed_map(g: GroupLowering, op: ir.Operation, axis: int) -> LoweringError:
    """The error for a ``reindex`` whose axis mixes tile coordinates and symbols."""
    return LoweringError(ir.format_located(
        f"{g.target} cannot check this reindex without fill: its map {op.attr('map')} reads "
        f"axis {axis} through a floordiv/mod of both tile coordinates and runtime values "
        "(give it a fill, or slice before reshaping)", op.loc))


def _separable(op: ir.Operation) -> bool:
    """True when every result of view ``op``'s map splits into a coordinate part and a symbol
    part (``index_bounds.split``) over a static domain."""
    return all(d.is_static for d in op.result.type.shape) and \
        all(split(e) is not None for e in op.attr("map").results)


def _checked_at_accesses(g: GroupLowering, op: ir.Operation) -> bool:
    """True when the accesses of total view ``op`` can check it: each use is the memory
    operand of a ``load``, ``store`` or ``atomic``, lowered in program order."""
    return not g.speculative and _separable(op) and all(
        u.owner.name in _ACCESSES and u.index == 0 for u in op.result.uses)


_ACCESSES = ("load", "store", "atomic")


def check_total_view(g: GroupLowering, op: ir.Operation) -> None:
    """Refuse Candidate ``view`` ``op`` declared ``total`` unless it is proven in range or its
    accesses check it (``guard_total_access``)."""
    if op.attr("bounds", "total") != "total" or view_in_range(op, _ranges(g)) \
            or _checked_at_accesses(g, op):
        return
    raise LoweringError(ir.format_located(
        f"{g.target} cannot check this view with bounds = \"total\": its map "
        f"{op.attr('map')} is not proven to stay inside its base, and it is not read or "
        "written directly (the group's accesses through further views are not guarded per "
        "element); declare it bounds = \"bounded\" (out-of-range elements then read the "
        "fill and are not written)", op.loc))


def guard_total_access(g: GroupLowering, access: ir.Operation) -> None:
    """Before Candidate ``access`` (a load, store or atomic): when it goes through a total view
    that is not proven in range, a uniform check per base axis that every element of the
    view maps inside the base, reported at the view."""
    v = access.operand(0).defining_op
    if v is None or v.name != "view" or v.attr("bounds", "total") != "total":
        return
    ranges = _ranges(g)
    if view_in_range(v, ranges):
        return
    m: ir.IndexMap = v.attr("map")
    dom = [int(d) for d in v.result.type.shape]
    if any(n == 0 for n in dom):
        return
    syms = [g.scalar(x) for x in v.operands[1:]]
    for e, ext in zip(m.results, v.operand(0).type.shape):
        f, off = split(e)  # type: ignore[misc]  # check_total_view made sure
        lo, hi = extremes(f, dom)
        offset = g.affine(off, (), syms)
        last = g.arith("sub", g.extent(ext), g.index(hi + 1))
        cond = g.arith("and", g.arith("ge", offset, g.index(-lo)),
                       g.arith("le", offset, last))
        g.b.create("check", [cond], [], {"message": TOTAL_VIEW_MESSAGE, "labels": (),
                                         "kind": "index"}, loc=v.loc)
