"""Machine lowering of ``reduce``: lane-local folds, subgroup shuffle trees, shared memory.

Strategies (chosen by the Scheduled form, ``strategy`` attribute):

* ``lane``: a row's elements are all in one thread's registers (the ``rows``
  layout with a team of one); the thread folds them with the reduce's own
  update region, in column order. This is also the ``strict_fold`` path:
  serial per row, contributions in source order, bit-identical.
* ``warp_shuffle``: a row is spread over a team of up to 32 lanes of one
  subgroup; each lane folds its registers starting from the merge's exact
  identity, then ``shfl.xor`` over the team's lane bits combines partials
  (every team lane ends with the same value), then the seed is merged in.
* ``shared``: teams larger than a subgroup: after the subgroup tree, lane 0
  of every subgroup writes its partial to shared memory; after a barrier
  every thread folds its row's partials in subgroup order.
* ``in_place``: the rows of a matrix accumulator (or of elementwise work on one) reduced in
  its own layout (``ir.layout_reduce``): each thread folds its registers of each of its
  rows, part by part, then ``shfl.xor`` over the row's lanes; the result is distributed as
  the broadcast image of the input, so ``m[:, None]`` is a register renaming.
* ``serial``: the checked reference for anything else (other axes, several
  axes, large strict folds): the input goes to shared memory and each thread
  folds the contributions of its output elements in source order.
"""

from __future__ import annotations

import math
from typing import Any

import tilec.ir as ir
from tilec.ir.layout_reduce import in_place_reduction

from .machine import GroupLowering, Lowered, rule
from .machine_divisions import guard_region
from .machine_elementwise import scalar_region
from .options import LoweringBug
from .reductions import identity
from .schedule import SCHEDULE_ATTRS
from .scheduled_layouts import layout_of

__all__ = ["pool_view"]


def _reduce_attrs(op: ir.Operation, **over: Any) -> dict[str, Any]:
    attrs = {k: v for k, v in op.attributes.items() if k not in SCHEDULE_ATTRS}
    attrs.update(over)
    return attrs


@rule("reduce")
def _reduce(g: GroupLowering, op: ir.Operation) -> None:
    # The update's arguments are states and elements (never uniform): its divisions must
    # divide by uniform values, checked here, before the reduction.
    runs = math.prod(int(e) for e in op.operand(0).type.shape) > 0
    guard_region(g, op, [None] * len(op.regions[0].entry.args), runs, False)
    strategy = op.attr("strategy")
    if strategy == "serial":
        _serial(g, op)
    elif strategy == "in_place":
        _in_place(g, op)
    else:
        _rows(g, op, strategy)


# ---------------------------------------------------------------------- in place


def _in_place(g: GroupLowering, op: ir.Operation) -> None:
    """The rows of a matrix accumulator reduced where they are (``ir.layout_reduce``): per
    canonical part, each thread folds its registers of each of its rows; the parts merge;
    the row's lanes combine over ``shfl.xor``; the seed joins; the output registers repeat
    the rows as its layout says."""
    x = g.canonical(g.operand(op, 0))
    out_layout = layout_of(op.results[0])
    plan = in_place_reduction(x.layout, out_layout)
    laws = ir.merge_laws(op)
    if isinstance(plan, str) or laws is None or len(op.results) != 1:
        raise LoweringBug(ir.format_located(
            f"internal: an 'in_place' reduction the schedule cannot have planned "
            f"({plan if isinstance(plan, str) else 'no merge law'})", op.loc))
    dt = op.results[0].type.dtype
    ident = g.op("constant", [], [dt], {"value": identity(laws[0], dt)}).result
    partial: list[ir.Value] | None = None
    for part, (gmap, width) in zip(x.parts, plan.gathers):
        shaped = g.op("reindex", [part], [ir.TileType((plan.rows, width), x.dtype)],
                      {"map": gmap}).result
        local = g.op("reduce", [shaped, ident], [ir.TileType((plan.rows,), dt)],
                     _reduce_attrs(op, axes=(1,)), [scalar_region(g, op.regions[0])])
        partial = list(local.results) if partial is None else \
            _merge(g, laws, partial, list(local.results))
    assert partial is not None
    for mask in plan.masks:
        other = [g.atom("shfl.xor", [p, g.index(mask)], [p.type], width=32).result
                 for p in partial]
        partial = _merge(g, laws, partial, other)
    partial = _merge(g, laws, [g.scalar(s) for s in op.operands[1:]], partial)
    full = g.op("reindex", partial, [ir.TileType((out_layout.local,), dt)],
                {"map": plan.expand}).result
    g.bind(op.results[0], Lowered(out_layout, [full]))


# -------------------------------------------------------------------------- rows


def _rows(g: GroupLowering, op: ir.Operation, strategy: str) -> None:
    n_in = op.attr("n_inputs")
    inputs = [g.canonical(g.operand(op, k)) for k in range(n_in)]
    lay_in = inputs[0].layout
    nrs, ncs, v = lay_in.regs
    team = lay_in.param("team", 1) or 1
    teams = lay_in.param("teams", g.threads // team) or 1
    width = ncs * v
    states_t = [r.type.dtype for r in op.results]
    out_layouts = [layout_of(r) for r in op.results]
    seeds = [g.scalar(s) for s in op.operands[n_in:]]
    laws = ir.merge_laws(op)
    direct = team == 1
    if not direct and laws is None:
        raise LoweringBug(ir.format_located(
            f"internal: a team-{team} row reduction without recognized merge laws (the "
            "schedule plans teams only for reductions whose merges it recognizes)", op.loc))
    # 1. lane-local fold of each row's registers (in column order)
    shaped = []
    for x in inputs:
        if len(x.parts) != 1:
            raise LoweringBug(ir.format_located(
                f"internal: a row reduction's input is one register array, not "
                f"{len(x.parts)} parts of {x.layout}", op.loc))
        shaped.append(g.op("reindex", [x.parts[0]], [ir.TileType((nrs, width), x.dtype)],
                           {"map": ir.IndexMap(2, [ir.d(0) * width + ir.d(1)])}).result)
    init = seeds if direct else [g.op("constant", [], [t], {"value": identity(law, t)}).result
                                 for law, t in zip(laws, states_t)]  # type: ignore[arg-type]
    local = g.op("reduce", [*shaped, *init], [ir.TileType((nrs,), t) for t in states_t],
                 _reduce_attrs(op, axes=(1,)), [scalar_region(g, op.regions[0])])
    partial = list(local.results)
    if not direct and laws is not None:  # (laws are known for a team: checked above)
        # 2. shuffle tree over the team's lanes (xor keeps a team inside its subgroup)
        mask = 1
        while mask < min(team, 32):
            m = g.index(mask)
            other = [g.atom("shfl.xor", [p, m], [p.type], width=32).result for p in partial]
            partial = _merge(g, laws, partial, other)
            mask *= 2
        # 3. across the team's subgroups through shared memory
        if team > 32:
            partial = _across_warps(g, laws, partial, nrs, team, teams)
        # 4. the seed joins once (the reference merges it last, on the left), unless it
        # is the law's exact identity (merge(identity, x) is x bit for bit)
        if not all(ir.is_merge_identity(s, law)
                   for s, law in zip(op.operands[n_in:], laws)):
            partial = _merge(g, laws, seeds, partial)
    for r, lay, p in zip(op.results, out_layouts, partial):
        if lay.local != nrs:
            raise LoweringBug(ir.format_located(
                f"internal: a row reduction over {nrs} rows per thread is scheduled to "
                f"produce {lay}", op.loc))
        g.bind(r, Lowered(lay, [p]))


def _merge(g: GroupLowering, laws: tuple[str, ...], a: list[ir.Value], b: list[ir.Value]
           ) -> list[ir.Value]:
    """The states ``a`` merged with ``b`` register by register (``ir.merge_region``); ``a``
    may be uniform scalars (the seeds)."""
    types = [p.type for p in b]
    n = int(types[0].shape[0])
    return list(g.op("map", [*a, *b], types, {"shape": ir.IndexSet([n])},
                     [ir.merge_region(laws, [t.dtype for t in types])]).results)


def _across_warps(g: GroupLowering, laws: tuple[str, ...], partial: list[ir.Value], nrs: int,
                  team: int, teams: int) -> list[ir.Value]:
    """Subgroup partials of a team to every team thread, via shared memory (one slot per
    state), merged in subgroup order."""
    per = team // 32
    rows = nrs * teams
    s0 = ir.s(0)
    row_of = ir.d(0) * teams + (s0.floordiv(team) if team > 1 else s0)
    sub = s0.mod(team).floordiv(32)
    wmap = ir.IndexMap(1, [row_of, sub], 1)
    bufs = [_slot_nd(g, (rows, per), p.type.dtype, k) for k, p in enumerate(partial)]
    g.sync.write(*bufs)

    def write() -> None:
        for buf, p in zip(bufs, partial):
            tv = g.view(buf, [g.tid], wmap, (nrs,), False)
            g.op("store", [tv, p], [])

    g.guarded(g.arith("eq", g.lane(), g.index(0)), write)
    g.sync.read(*bufs)
    rmap = ir.IndexMap(1, [ir.d(0).floordiv(per) * teams + (s0.floordiv(team) if team > 1
                                                             else s0),
                           ir.d(0).mod(per)], 1)
    shaped, idents = [], []
    for buf, law, p in zip(bufs, laws, partial):
        dt = p.type.dtype
        tv = g.view(buf, [g.tid], rmap, (nrs * per,), False)
        vals = g.op("load", [tv], [ir.TileType((nrs * per,), dt)]).result
        shaped.append(g.op("reindex", [vals], [ir.TileType((nrs, per), dt)],
                           {"map": ir.IndexMap(2, [ir.d(0) * per + ir.d(1)])}).result)
        idents.append(g.op("constant", [], [dt], {"value": identity(law, dt)}).result)
    types = [p.type.dtype for p in partial]
    red = g.op("reduce", [*shaped, *idents], [ir.TileType((nrs,), t) for t in types],
               {"n_inputs": len(types), "axes": (1,),
                "policy": ir.ReductionPolicy("strict_fold", True), "combiner": laws},
               [ir.merge_region(laws, types)])
    return list(red.results)


# ------------------------------------------------------------------------ serial


def _serial(g: GroupLowering, op: ir.Operation) -> None:
    n_in = op.attr("n_inputs")
    axes = sorted(op.attr("axes"))
    in_t = op.operand(0).type
    shape = tuple(int(e) for e in in_t.shape)
    kept = [a for a in range(len(shape)) if a not in axes]
    red_shape = [shape[a] for a in axes]
    count = math.prod(red_shape)
    out_layouts = [layout_of(r) for r in op.results]
    lay = out_layouts[0]
    xs = [g.tile(op.operand(k)) for k in range(n_in)]
    bufs = []
    for k, x in enumerate(xs):
        buf = _slot_nd(g, shape, x.dtype, k)
        g.store_registers(buf, x)
        bufs.append(buf)
    g.sync.read(*bufs)  # every input's loads are in the loop below
    seeds = [g.scalar(s) for s in op.operands[n_in:]]
    states_t = [r.type.dtype for r in op.results]
    # Input coordinate of (output coordinate, contribution number s0), row-major over axes.
    red_coords = _unravel(ir.s(0), red_shape)
    results = []
    for a in range(len(shape)):
        results.append(ir.d(kept.index(a)) if a in kept else red_coords[axes.index(a)])
    pre = ir.IndexMap(len(kept), results, 1)
    init = []
    for n in lay.parts:
        for s, t in zip(seeds, states_t):
            init.append(_broadcast(g, s, n, t))
    body = ir.Block([ir.index, *(v.type for v in init)])
    c0, cn, c1 = g.index(0), g.index(count), g.index(1)
    loop = g.op("serial", [c0, cn, c1, *init], [v.type for v in init], {}, [ir.Region([body])])
    n_states = len(states_t)
    with g.scope(ir.Builder(ir.InsertionPoint.at_end(body))):
        iv = body.args[0]
        outs: list[ir.Value] = []
        for j, (off, n) in enumerate(zip(lay.part_offsets, lay.parts)):
            states = list(body.args[1 + j * n_states:1 + (j + 1) * n_states])
            elems = []
            for buf, x_t in zip(bufs, [op.operand(k).type for k in range(n_in)]):
                tv = g.thread_view(buf, lay, off, n, pre, [iv])
                elems.append(g.op("load", [tv], [ir.TileType((n,), x_t.dtype)]).result)
            new = g.op("map", [*states, *elems], [ir.TileType((n,), t) for t in states_t],
                       {"shape": ir.IndexSet([n])}, [scalar_region(g, op.regions[0])])
            outs.extend(new.results)
        g.op("yield", outs, [])
    for k, (r, lay_k) in enumerate(zip(op.results, out_layouts)):
        parts = [loop.results[j * n_states + k] for j in range(len(lay.parts))]
        g.bind(r, Lowered(lay_k, parts))


def _slot_nd(g: GroupLowering, shape: tuple[int, ...], dt: ir.ScalarType, slot: int
             ) -> ir.Value:
    """Slot ``slot`` of the ``dt`` scratch pool cut into equal slots of ``shape``."""
    return pool_view(g, shape, dt, math.prod(shape) * slot)


def pool_view(g: GroupLowering, shape: tuple[int, ...], dt: ir.ScalarType, start: int
              ) -> ir.Value:
    """A row-major ``shape`` view of the ``dt`` scratch pool from element ``start`` on (the
    pool grows to hold it). Callers that keep several views live at once give them
    disjoint ``[start, start + prod(shape))`` ranges."""
    n = math.prod(shape)
    flat = g.smem.pool(dt, start + n)
    lin = ir.const(start)
    stride = 1
    for k in reversed(range(len(shape))):
        lin = lin + ir.d(k) * stride
        stride *= shape[k]
    return g.view(flat, [], ir.IndexMap(len(shape), [lin]), shape, False)


def _unravel(x: ir.AffineExpr, shape: list[int]) -> list[ir.AffineExpr]:
    out = []
    stride = math.prod(shape)
    for k, e in enumerate(shape):
        stride //= e
        y = x.floordiv(stride) if stride > 1 else x
        out.append(y if k == 0 else y.mod(e))
    return out


def _broadcast(g: GroupLowering, s: ir.Value, n: int, t: ir.ScalarType) -> ir.Value:
    """A register array holding the uniform scalar ``s`` ``n`` times."""
    blk = ir.Block([t])
    ir.Builder(ir.InsertionPoint.at_end(blk)).create("yield", [blk.args[0]])
    return g.op("map", [s], [ir.TileType((n,), t)], {"shape": ir.IndexSet([n])},
                [ir.Region([blk])]).result
