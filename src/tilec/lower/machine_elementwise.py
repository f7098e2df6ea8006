"""Machine lowering of pure values: constants, coordinate tiles (``iota``), scalar arithmetic,
``map`` and ``reindex``.

A ``map`` runs its scalar region over each thread's registers: its tile
operands are first brought into the result's distribution (the Scheduled
form's repartition records), then cut into common parts, and one ``map`` of
``tile<P>`` per part carries the region over unchanged. A ``reindex`` is a
register renaming when every thread holds the elements it needs (broadcasts
of row statistics, of a row vector, transposes of a loaded tile ...), else a
repartition through shared memory. Integer divisions whose divisor may be
zero are guarded on the way (``machine_divisions``), and so are reindexes
whose runtime start may leave their source (``machine_bounds``). An ``iota``
becomes one per-thread ``iota`` per register part, its map composed with the
distribution's (the thread id a symbol), so no data moves.
"""

from __future__ import annotations

import tilec.ir as ir

from .cloning import clone_region
from .machine import Forwarded, GroupLowering, Lowered, Staged, rule
from .machine_bounds import guard_reindex
from .machine_divisions import (
    guard_region,
    guard_scalar_division,
    has_masked_registers,
    validity,
    vote_check,
)
from .options import LoweringBug
from .schedule import SCHEDULE_ATTRS
from .schedule_staging import plain_transpose
from .scheduled_layouts import layout_of

__all__ = ["lower_map_parts", "scalar_region"]


@rule("constant")
def _constant(g: GroupLowering, op: ir.Operation) -> None:
    t = op.result.type
    value = op.attr("value")
    if isinstance(t, ir.TileType):
        lay = layout_of(op.result)
        g.bind(op.result, g.build(lay, t.dtype, lambda o, n: g.splat(value, n, t.dtype)))
    else:
        g.bind(op.result, g.op("constant", [], [t], {"value": value},
                               [], [op.result.name_hint]).result)


@rule("iota")
def _iota(g: GroupLowering, op: ir.Operation) -> None:
    # each register holds the value of its tile coordinates, the layout's map of (tid,
    # register): one per-thread iota per part, whose map reads the thread id as a symbol
    t = op.result.type
    lay = layout_of(op.result)
    value = op.attr("map").results[0]
    syms = [g.scalar(v) for v in op.operands]
    tid = ir.s(len(syms))

    def make(start: int, length: int) -> ir.Value:
        coords = [e.substitute([tid, ir.d(0) + start]) for e in lay.map.results]
        m = ir.IndexMap(1, [value.substitute(coords)], len(syms) + 1)
        return g.op("iota", [*syms, g.tid], [ir.TileType((length,), t.dtype)],
                    {"map": m}).result

    g.bind(op.result, g.build(lay, t.dtype, make))


@rule("arith", "tuple", "tuple_get")
def _scalar(g: GroupLowering, op: ir.Operation) -> None:
    operands = [g.scalar(v) for v in op.operands]
    if op.name == "arith":
        operands = guard_scalar_division(g, op, operands)
    attrs = {k: v for k, v in op.attributes.items() if k not in SCHEDULE_ATTRS}
    new = g.op(op.name, operands, [r.type for r in op.results], attrs,
               names=[r.name_hint for r in op.results])
    for r, nr in zip(op.results, new.results):
        g.bind(r, nr)


def scalar_region(g: GroupLowering, region: ir.Region) -> ir.Region:
    """A copy of a scalar ``map``/``reduce`` body; values it reads from outside are looked up
    (uniform scalars), scheduling attributes are dropped."""
    inside: set[ir.Value] = set()
    for op in region.walk():
        inside.update(op.results)
        for r in op.regions:
            for b in r.blocks:
                inside.update(b.args)
    for b in region.blocks:
        inside.update(b.args)
    vmap: dict[ir.Value, ir.Value] = {}
    for op in region.walk():
        for v in op.operands:
            if v not in inside and v not in vmap:
                vmap[v] = g.scalar(v)
    new = clone_region(region, vmap)
    for op in new.walk():
        for k in SCHEDULE_ATTRS:
            op.attributes.pop(k, None)
    return new


def lower_map_parts(g: GroupLowering, region: ir.Region, operands: list[Lowered | ir.Value],
                    layouts: list, result_types: list[ir.ScalarType]) -> list[Lowered]:
    """Run a scalar region over registers: tile operands (all in ``layouts[0]``'s register
    order) are cut into common parts; one machine ``map`` per part."""
    lay = layouts[0]
    tiles = [x for x in operands if isinstance(x, Lowered)]
    cuts = set(lay.part_offsets)
    for x in tiles:
        cuts.update(x.offsets)
    cuts = sorted(c for c in cuts if c < lay.local)
    bounds = cuts + [lay.local]
    split = {id(x): g.split(x, cuts) for x in tiles}
    outs: list[list[ir.Value]] = [[] for _ in result_types]
    for a, b in zip(bounds, bounds[1:]):
        n = b - a
        args = []
        for x in operands:
            if isinstance(x, Lowered):
                s = split[id(x)]
                args.append(s.parts[s.offsets.index(a)])
            else:
                args.append(x)
        new = g.op("map", args, [ir.TileType((n,), t) for t in result_types],
                   {"shape": ir.IndexSet([n])}, [scalar_region(g, region)])
        for k, r in enumerate(new.results):
            outs[k].append(r)
    return [Lowered(lay_k, parts) for lay_k, parts in zip(layouts, outs)]


@rule("map")
def _map(g: GroupLowering, op: ir.Operation) -> None:
    layouts = [layout_of(r) for r in op.results]
    operands: list[Lowered | ir.Value] = []
    for k, v in enumerate(op.operands):
        operands.append(g.operand(op, k) if isinstance(v.type, ir.TileType) else g.scalar(v))
    for x in operands:
        if isinstance(x, Lowered) and x.layout is not layouts[0]:
            raise AssertionError(f"map operand in {x.layout}, result in {layouts[0]}")
    lay = layouts[0]
    runs = lay.size > 0
    guard = guard_region(g, op, [None if isinstance(v.type, ir.TileType) else v
                                 for v in op.operands], runs, has_masked_registers(lay))
    if guard.valid:
        operands.append(validity(g, lay))
    outs = lower_map_parts(g, guard.region, operands, layouts + [lay] * guard.flags,
                           [r.type.dtype for r in op.results] + [ir.i1] * guard.flags)
    for r, x in zip(op.results, outs):
        g.bind(r, x)
    if guard.flags:
        vote_check(g, guard, outs[len(op.results):])


@rule("reindex")
def _reindex(g: GroupLowering, op: ir.Operation) -> None:
    staged = g.lookup(op.operand(0))
    if isinstance(staged, Forwarded):  # x.T of a forwarded operand: its transposed view
        rows, cols = (int(e) for e in op.result.type.shape)
        g.bind(op.result, Forwarded(g.view(staged.view, [], ir.IndexMap(2, [ir.d(1), ir.d(0)]),
                                           (rows, cols), False), staged.fill))
        return
    if isinstance(staged, Staged):  # x.T of a staged operand: the transposed view
        if not plain_transpose(op):
            raise LoweringBug(ir.format_located(
                "internal: a staged matrix operand is only read transposed (the schedule's "
                "matrix_uses)", op.loc))
        rows, cols = (int(e) for e in op.result.type.shape)
        view = g.view(staged.view, [], ir.IndexMap(2, [ir.d(1), ir.d(0)]), (rows, cols),
                      False)
        g.bind(op.result, Staged(view, not staged.transposed))
        return
    guard_reindex(g, op)  # a runtime start out of range stops the group here
    src = g.tile(op.operand(0))
    syms = [g.scalar(v) for v in op.operands[1:]]
    g.bind(op.result, g.convert(src, layout_of(op.result), op.attr("map"), syms,
                                op.attr("fill")))
