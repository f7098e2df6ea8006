"""Machine lowering of data-dependent accesses: ``load_scalar``, ``gather``, ``scatter``.

* ``load_scalar`` stays one operation that every thread of the group executes
  (the address is uniform, as every scalar of the SIMT region is): each thread
  reads the same element, so its value is uniform like a loop counter's;
* ``gather`` and ``scatter`` become one operation per register part: the part
  of the index tile (in the layout of the elements it addresses) and the
  thread map of the distribution, ``map = (d0)[tid] -> tile coordinates``,
  with the tile ``shape`` (coordinates outside it are masked registers). Each
  register then reads or writes memory at its own coordinates with the one
  along ``axis`` replaced by its index, bounded like any access;
* replicated distributions scatter from one owner thread per element, as
  stores do, so an indexed atomic adds each element once.

Barriers come from the same tracker as the other accesses (``machine_sync``): a
read after another thread's write of the same memory waits for a barrier.
"""

from __future__ import annotations

import tilec.ir as ir
from tilec.ir import dist_layout as L

from .machine import GroupLowering, Lowered, rule
from .options import LoweringBug, LoweringError
from .scheduled_layouts import layout_of

__all__: list[str] = []


def _thread_map(layout: L.DistLayout, start: int) -> ir.IndexMap:
    """Register ``d0`` of the part starting at ``start`` -> its tile coordinates (symbol 0 is
    the thread id)."""
    tm = layout.thread_map()
    if start:
        tm = ir.IndexMap(1, [e.substitute([ir.d(0) + start]) for e in tm.results], 1)
    return tm


@rule("load_scalar")
def _load_scalar(g: GroupLowering, op: ir.Operation) -> None:
    mem = g.scalar(op.operand_named("memory"))
    g.sync.read(mem)
    g.bind(op.result, g.op("load_scalar", [mem], [op.result.type],
                           {"fill": op.attr("fill")}, names=[op.result.name_hint]).result)


@rule("gather")
def _gather(g: GroupLowering, op: ir.Operation) -> None:
    mem = g.scalar(op.operand_named("memory"))
    lay = layout_of(op.result)
    idx = g.canonical(g.operand(op, 1))
    if idx.layout is not lay:
        raise LoweringBug("internal: gather indices are not in the result's layout")
    g.sync.read(mem)
    dt = op.result.type.dtype
    shape = tuple(int(e) for e in op.result.type.shape)
    attrs = {"axis": op.attr("axis"), "fill": op.attr("fill")}
    parts = dict(zip(idx.offsets, idx.parts))

    def make(start: int, length: int) -> ir.Value:
        return g.op("gather", [mem, parts[start], g.tid], [ir.TileType((length,), dt)],
                    {**attrs, "map": _thread_map(lay, start), "shape": shape}).result

    g.bind(op.result, g.build(lay, dt, make))


@rule("scatter")
def _scatter(g: GroupLowering, op: ir.Operation) -> None:
    mem = g.scalar(op.operand_named("memory"))
    kind = op.attr("kind")
    if kind is not None:
        dt = mem.type.dtype
        allowed = None if g.profile is None else g.profile.atomic_dtypes
        if allowed is not None and dt.name not in allowed:
            raise LoweringError(ir.format_located(
                f"{g.target} has no atomic {kind} on {dt} memory (scatter_add)", op.loc))
    value = g.canonical(g.operand(op, 2))
    idx = g.canonical(g.operand(op, 1))
    if idx.layout is not value.layout:
        raise LoweringBug("internal: scatter indices are not in the values' layout")
    lay = value.layout
    g.sync.write(mem)
    shape = tuple(int(e) for e in op.operand(2).type.shape)
    attrs = {"axis": op.attr("axis")}
    if kind is not None:
        attrs["kind"] = kind
    owner = None
    if lay.replicated:
        owner = L.owner_predicate(lay)
        if owner is None:
            raise LoweringBug(f"internal: no owner threads for the replicated {lay}")

    def emit(x: Lowered = value) -> None:
        for off, ipart, vpart in zip(x.offsets, idx.parts, x.parts):
            g.op("scatter", [mem, ipart, vpart, g.tid], [],
                 {**attrs, "map": _thread_map(lay, off), "shape": shape})

    if owner is None or owner == (1, g.threads):
        emit()
    else:
        g.guarded(g.owner_condition(*owner), emit)
