"""Machine lowering of addressable effects: views, manual memory, loads, stores, atomics.

Candidate views become the same uniform views in the SIMT region; every
access then goes through a *per-thread view* on top of them: its map sends
register ``i`` of the thread's part to the tile coordinate the distribution
assigns (``(d0)[s.., tid] -> map(tid, start + d0)``), so the element guards of
a ``bounded`` window apply per element, and a masked distribution's
registers outside the tile are guarded too. A ``total`` view not proven in
range is checked before each access through it (``machine_bounds``). Manual
memory (spaces ``local`` and ``shared``) is realized as a group shared
buffer. Stores of a replicated distribution are issued by one owner thread
per element.
"""

from __future__ import annotations

import tilec.ir as ir

from .machine import Forwarded, GroupLowering, rule
from .machine_bounds import check_total_view, guard_total_access
from .machine_mpp import pending_epilogue, store_epilogue
from .options import LoweringBug, LoweringError
from .scheduled_layouts import layout_of

__all__: list[str] = []


@rule("view")
def _view(g: GroupLowering, op: ir.Operation) -> None:
    check_total_view(g, op)
    base = g.scalar(op.operand_named("base"))
    syms = [g.scalar(v) for v in op.operands[1:]]
    t = op.result.type
    if base.type.space != t.space:
        t = ir.MemoryType(t.shape, t.dtype, base.type.space)
    attrs = {"map": op.attr("map"), "bounds": op.attr("bounds", "total")}
    g.bind(op.result, g.op("view", [base, *syms], [t], attrs, names=[op.result.name_hint]).result)


@rule("memory")
def _memory(g: GroupLowering, op: ir.Operation) -> None:
    t = op.result.type
    if t.space not in ("local", "shared"):
        raise LoweringError(ir.format_located(f"manual memory in space {t.space!r} is not "
                                              "realized (local and shared are)", op.loc))
    shape = tuple(int(e) for e in t.shape)
    g.bind(op.result, g.smem.buffer(shape, t.dtype, f"memory {op.result.name_hint or ''}"
                                    .strip()))


@rule("load")
def _load(g: GroupLowering, op: ir.Operation) -> None:
    guard_total_access(g, op)
    mem = g.scalar(op.operand_named("memory"))
    if op.attr("forwarded"):  # read where the mma runs (machine_matrix), not here
        g.bind(op.result, Forwarded(mem, op.attr("fill")))
        return
    lay = layout_of(op.result)
    dt = op.result.type.dtype
    g.sync.read(mem)
    fill = op.attr("fill")
    attrs = {} if fill is None else {"fill": fill}

    def make(start: int, length: int) -> ir.Value:
        tv = g.thread_view(mem, lay, start, length)
        return g.op("load", [tv], [ir.TileType((length,), dt)], attrs).result

    g.bind(op.result, g.build(lay, dt, make))


@rule("store")
def _store(g: GroupLowering, op: ir.Operation) -> None:
    if op.attr("tensor_store") and g.tensor_stores is not None:
        g.tensor_stores.store(op)  # machine_epilogue
        return
    epi = pending_epilogue(g, op)
    if epi is not None:  # a scalar epilogue on an MPP destination's elements
        store_epilogue(g, op, *epi)
        return
    guard_total_access(g, op)
    g.store_registers(g.scalar(op.operand_named("memory")), g.operand(op, 1))


@rule("atomic")
def _atomic(g: GroupLowering, op: ir.Operation) -> None:
    dt = op.operand_named("memory").type.dtype
    kind = op.attr("kind")
    exchange = kind in ir.EXCHANGE_KINDS
    allowed = None if g.profile is None else \
        g.profile.exchange_dtypes if exchange else g.profile.atomic_dtypes
    if allowed == ():
        raise LoweringError(ir.format_located(
            f"{g.target} has no atomic operations (atomic {kind} on {dt} memory): "
            "write disjoint windows instead", op.loc))
    if allowed is not None and dt.name not in allowed:
        what = "exchanges" if exchange else "atomics update"
        raise LoweringError(ir.format_located(
            f"{g.target} has no atomic {kind} on {dt} memory (its {what} "
            f"{', '.join(a for a in allowed if a != 'index')}): "
            + ("use a memory of one of those types" if exchange else
               "accumulate into a memory of one of those types"), op.loc))
    guard_total_access(g, op)
    if not exchange:
        g.store_registers(g.scalar(op.operand_named("memory")), g.operand(op, 1), atomic=kind)
        return
    _exchange(g, op)


def _exchange(g: GroupLowering, op: ir.Operation) -> None:
    """``xchg``/``cas``: each thread exchanges its registers' elements and keeps the old
    values in the same registers. The planner gives the value, the compared value and the
    result one layout that holds every element once (``schedule``), so no owner guard."""
    mem = g.scalar(op.operand_named("memory"))
    lay = layout_of(op.result)
    if lay.replicated:
        if not op.result.type.rank:
            raise LoweringError(ir.format_located(
                f"{g.target} cannot exchange through a rank-0 view (atomic "
                f"{op.attr('kind')}): take a window of shape (1,) instead", op.loc))
        raise LoweringBug(f"internal: atomic {op.attr('kind')} in the replicated {lay}")
    dt = op.result.type.dtype
    ins = [g.canonical(g.operand(op, k)) for k in range(1, op.num_operands)]
    if any(x.layout != lay for x in ins):
        raise LoweringBug(f"internal: atomic {op.attr('kind')} operands not in {lay}")
    g.sync.write(mem)  # a write orders like a read-modify-write
    attrs = {"kind": op.attr("kind")}
    if op.attr("fill") is not None:
        attrs["fill"] = op.attr("fill")
    parts = iter(zip(*(x.parts for x in ins)))

    def make(start: int, length: int) -> ir.Value:
        tv = g.thread_view(mem, lay, start, length)
        return g.op("atomic", [tv, *next(parts)], [ir.TileType((length,), dt)], attrs).result

    g.bind(op.result, g.build(lay, dt, make))


@rule("sync")
def _sync(g: GroupLowering, op: ir.Operation) -> None:
    g.sync.barrier()
    for r in op.results:
        g.bind(r, None)
