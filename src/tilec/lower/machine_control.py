"""Machine lowering of structured control inside a group: ``serial``, ``pipeline``, ``if``,
``check``.

Loop bounds and branch conditions are uniform scalars, so every thread runs
the same iterations and branches (barriers inside them are legal). A loop
whose step may not be positive (value ranges) is preceded by ``check(step > 0)
{kind = "step"}``, so the group stops as a whole before the loop, as tileir.md
asks; a constant or provably positive step gets nothing. A carried
tile travels as its distribution's canonical register parts. Barrier state
follows control flow: a loop body starts from what is pending before the loop
and ends with a barrier when anything is pending (the next iteration is a new
segment); a branch merges both sides' pending accesses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tilec.ir as ir
from tilec.ir.atoms import MPP_REALIZATIONS
from tilec.ir.ranges import analyze_ranges, step_may_be_nonpositive

from .machine import GroupLowering, Lowered, Staged, rule
from .machine_mpp import defer_epilogue, enter_destination, leave_destination
from .machine_simdgroup import (
    Fragments,
    FragmentSlot,
    enter_fragments,
    leave_fragments,
    resident_accumulators,
)
from .options import LoweringBug
from .scheduled_layouts import block_arg_layout, layout_of

__all__ = ["flatten", "unflatten"]


def flatten(g: GroupLowering, values: Sequence[Lowered | ir.Value]) -> list[ir.Value]:
    """Machine values carried for ``values``: a tile's canonical parts, a scalar itself."""
    out: list[ir.Value] = []
    for x in values:
        if isinstance(x, Fragments):
            out.extend(x.values)
        elif isinstance(x, Lowered):
            out.extend(g.canonical(x).parts)
        else:
            out.append(x)
    return out


def unflatten(layouts: Sequence[object], flat: Sequence[ir.Value]) -> list[Any]:
    """The inverse of ``flatten`` given each value's layout (None for scalars; a
    ``FragmentSlot`` for an accumulator carried in fragments)."""
    out: list[Any] = []
    pos = 0
    for lay in layouts:
        if isinstance(lay, FragmentSlot):
            out.append(Fragments(lay, tuple(flat[pos:pos + lay.count])))
            pos += lay.count
        elif lay is None:
            out.append(flat[pos])
            pos += 1
        else:
            n = len(lay.parts)  # type: ignore[attr-defined]
            out.append(Lowered(lay, list(flat[pos:pos + n])))  # type: ignore[arg-type]
            pos += n
    return out


def _terminator(block: ir.Block) -> ir.Operation:
    """The block's ``yield`` (the Scheduled verifier gives every structured block one)."""
    term = block.terminator
    if term is None:
        raise LoweringBug("internal: a block of a structured operation has no terminator")
    return term


def _value(g: GroupLowering, op: ir.Operation, k: int) -> Any:
    v = op.operand(k)
    if isinstance(v.type, ir.TileType):
        x = g.lookup(v)
        return x if isinstance(x, Fragments) else g.operand(op, k)
    return g.scalar(v)


def _layouts(values: Sequence[ir.Value]) -> list[object]:
    return [layout_of(v) if isinstance(v.type, ir.TileType) else None for v in values]


def _forward(g: GroupLowering, v: ir.Value, lay: object) -> Lowered | ir.Value | Staged:
    """A value handed from one pipeline stage to the next, in the next stage's layout."""
    x = g.lookup(v)
    if isinstance(x, Staged) or not isinstance(v.type, ir.TileType):
        return x
    return g.tile(v, lay)  # type: ignore[arg-type]


def _guard_step(g: GroupLowering, op: ir.Operation, step: ir.Value) -> None:
    """``check(step > 0, step) {kind = "step"}`` before loop ``op`` (and before a staged
    loop's prologue) unless its step is provably positive."""
    fl = g.fl
    if fl.ranges is None:
        fl.ranges = analyze_ranges(fl.src)  # once per function (ir.ranges: its cost)
    if not step_may_be_nonpositive(op, fl.ranges):
        return
    ok = g.arith("gt", step, g.index(0))
    g.b.create("check", [ok, step], [], {"message": op.name, "labels": ("step",),
                                         "kind": "step"}, loc=op.loc)


@rule("serial", "pipeline")
def _loop(g: GroupLowering, op: ir.Operation) -> None:
    from .machine_pipeline import Staging
    from .machine_ring import GuardedRing

    lb, ub, step = (g.scalar(v) for v in op.operands[:3])
    _guard_step(g, op, step)
    if g.split_k is not None and g.split_k.loop is op:
        lb, ub = g.split_k.k_range(g, lb, ub, step)  # this program's share (machine_split)
    carried: list[Any] = _layouts(op.results)
    values = [_value(g, op, 3 + k) for k in range(len(op.results))]
    # an accumulator that only its simdgroup mma sees inside the loop stays in fragments
    # across it (machine_simdgroup: crossed in once before, out once after)
    resident = resident_accumulators(op)
    for k, slot in resident.items():
        mpp = slot.mma.attr("realization") in MPP_REALIZATIONS  # a cooperative destination
        values[k] = (enter_destination if mpp else enter_fragments)(g, slot, values[k])
        carried[k] = slot
    inits = flatten(g, values)
    staging: Any = Staging(g, op) if op.attr("schedule") == "double_buffer" else None
    if staging is not None and op.attr("release") == "mbarrier":
        staging = GuardedRing(staging)  # machine_ring: both protocols under one guard
    results = _staged_loop(g, op, staging, lb, ub, step, inits, carried)
    for r, x in zip(op.results, unflatten(carried, results)):
        if isinstance(x, Fragments):
            mpp = x.slot.mma.attr("realization") in MPP_REALIZATIONS
            if mpp and defer_epilogue(g, r, x):
                continue  # a scalar epilogue on the destination's elements, at its store
            x = (leave_destination if mpp else leave_fragments)(g, x)
        g.bind(r, x)


def _staged_loop(g: GroupLowering, op: ir.Operation, staging: Any, lb: ir.Value,
                 ub: ir.Value, step: ir.Value, inits: list[ir.Value],
                 carried: list[Any], state: list[ir.Value] | None = None) -> list[ir.Value]:
    """The machine loop of ``op`` with ``staging``'s protocol (None: not staged); returns
    its results without the protocol's carried state. ``state``: the protocol's state at
    the first iteration (default zeros); when given, the results end with its state after
    the last."""
    if staging is not None:
        inits = [*inits, *(state if state is not None
                           else [g.index(0) for _ in range(staging.carried)])]
        staging.prologue(lb, ub, step)
    body = ir.Block([ir.index, *(v.type for v in inits)])
    attrs = {"unroll": op.attr("unroll")} if op.attr("unroll") is not None else {}
    loop = g.op("serial", [lb, ub, step, *inits], [v.type for v in inits], attrs,
                [ir.Region([body])])
    before = g.sync.state()
    with g.scope(ir.Builder(ir.InsertionPoint.at_end(body))):
        iv = body.args[0]
        args: list[Lowered | ir.Value | Staged] = unflatten(carried, body.args[1:])
        if staging is not None:
            staging.begin_iteration(iv, ub, step, list(body.args[-staging.carried:]))
        for s, region in enumerate(op.regions):
            block = region.entry
            g.bind(block.args[0], iv)
            for a, x in zip(block.args[1:], args):
                g.bind(a, x)
            outer_block, outer_deferred = g.retire_block, g.deferred_retire
            g.retire_block, g.deferred_retire = block, False
            try:
                g.lower_block(block)
                if g.deferred_retire:  # a product for the next iteration: retire it here
                    g.atom("wgmma.wait", [], [], pending=0)
            finally:
                g.retire_block, g.deferred_retire = outer_block, outer_deferred
            term = _terminator(block)
            if s + 1 < len(op.regions):
                nxt = op.regions[s + 1].entry.args[1:]
                args = [_forward(g, v, block_arg_layout(a)) for v, a in zip(term.operands, nxt)]
            else:
                args = [_value(g, term, k) for k in range(term.num_operands)]
        yields = flatten(g, args)
        if staging is not None:
            staging.end_iteration()
            yields.extend(staging.next_carried(list(body.args[-staging.carried:])))
        g.sync.end_segment()
        g.op("yield", yields, [])
    g.sync.merge(before, g.sync.state())
    if g.turns is not None and g.turns.loop is op:  # the last turn, before the ring's end
        g.turns.end()
    if staging is not None:
        staging.drain()
        staging.finish()
    keep = staging.carried if staging is not None and state is None else 0
    return list(loop.results)[:len(loop.results) - keep]


@rule("if")
def _if(g: GroupLowering, op: ir.Operation) -> None:
    cond = g.scalar(op.operand(0))
    results = _layouts(op.results)
    blocks = [ir.Block(), ir.Block()]
    before = g.sync.state()
    ends = []
    types: list[ir.Type] | None = None
    flat_yields = []
    for region, blk in zip(op.regions, blocks):
        g.sync.restore(before)
        with g.scope(ir.Builder(ir.InsertionPoint.at_end(blk))):
            g.lower_block(region.entry)
            term = _terminator(region.entry)
            flat = flatten(g, [_value(g, term, k) for k in range(term.num_operands)])
            flat_yields.append(flat)
            types = [v.type for v in flat]
        ends.append(g.sync.state())
    new = g.op("if", [cond], types or [], {}, [ir.Region([blocks[0]]), ir.Region([blocks[1]])])
    for blk, flat in zip(blocks, flat_yields):
        ir.Builder(ir.InsertionPoint.at_end(blk)).create("yield", flat)
    g.sync.merge(*ends)
    for r, x in zip(op.results, unflatten(results, new.results)):
        g.bind(r, x)


@rule("parallel")
def _nested_parallel(g: GroupLowering, op: ir.Operation) -> None:
    """A parallel nest inside a group: its instances run one after another, each with the
    whole group. Every instance starts from the same entry snapshot (the inits); each tile
    update is joined in a shared buffer that first holds the init (untouched coordinates
    keep it) and receives every instance's payload at its origin (parts outside are
    dropped); a scalar init ends as the last instance's value (row-major order)."""
    rank = op.attr("rank")
    extents = [g.scalar(v) for v in op.operands[:rank]]
    inits = [_value(g, op, rank + k) for k in range(len(op.results))]
    joins: list[ir.Value | None] = []
    for k, (init, res) in enumerate(zip(inits, op.results)):
        if isinstance(init, Lowered):
            shape = tuple(int(e) for e in res.type.shape)
            buf = g.smem.buffer(shape, res.type.dtype, f"join {k}")
            g.store_registers(buf, init)
            joins.append(buf)
        else:
            joins.append(None)
    total = extents[0]
    for e in extents[1:]:
        total = g.arith("mul", total, e)
    scalars = [x for x in inits if not isinstance(x, Lowered)]
    body = ir.Block([ir.index, *(v.type for v in scalars)])
    loop = g.op("serial", [g.index(0), total, g.index(1), *scalars],
                [v.type for v in scalars], {}, [ir.Region([body])])
    before = g.sync.state()
    block = op.regions[0].entry
    with g.scope(ir.Builder(ir.InsertionPoint.at_end(body))):
        rest = body.args[0]
        coords = []
        for e in reversed(extents[1:]):
            coords.append(g.arith("rem", rest, e))
            rest = g.arith("floordiv", rest, e)
        coords.append(rest)
        for a, c in zip(block.args[:rank], reversed(coords)):
            g.bind(a, c)
        for a, x in zip(block.args[rank:], inits):
            g.bind(a, x)
        g.lower_block(block)
        term = _terminator(block)
        pos = 0
        carried = []
        for k, buf in enumerate(joins):
            payload_v = term.operand(pos)
            pos += 1
            if buf is None:
                carried.append(g.scalar(payload_v))
                continue
            r = op.results[k].type.rank
            origin = [g.scalar(v) for v in term.operands[pos:pos + r]]
            pos += r
            payload = g.tile(payload_v)
            shape = tuple(int(e) for e in payload_v.type.shape)
            window = g.view(buf, origin, ir.IndexMap.tile_at_symbols(r), shape, True)
            g.store_registers(window, payload)
        g.sync.end_segment()
        g.op("yield", carried, [])
    g.sync.merge(before, g.sync.state())
    it = iter(loop.results)
    for res, buf in zip(op.results, joins):
        if buf is None:
            g.bind(res, next(it))
            continue
        lay = layout_of(res)
        dt = res.type.dtype
        g.sync.read(buf)

        def load(start: int, length: int, buf: ir.Value = buf, lay: object = lay,
                 dt: ir.ScalarType = dt) -> ir.Value:
            tv = g.thread_view(buf, lay, start, length)  # type: ignore[arg-type]
            return g.op("load", [tv], [ir.TileType((length,), dt)]).result

        g.bind(res, g.build(lay, dt, load))


@rule("check")
def _check(g: GroupLowering, op: ir.Operation) -> None:
    # Its operands are uniform scalars, so every thread of the group fails or passes it
    # together: a failing group can stop as a whole, barriers and all (the SIMT simulator
    # reports a check whose threads disagree).
    attrs = {k: op.attr(k) for k in ("message", "labels")}
    g.b.create("check", [g.scalar(v) for v in op.operands], [], attrs, loc=op.loc)
