"""Machine lowering of the ``simdgroup`` realization of ``mma`` (metal:m1, docs/design/metal.md).

MSL's ``simdgroup_float8x8`` spreads an 8x8 block over the 32 lanes of a SIMD-group, two
elements each, in an assignment Apple does not document. So its fragments are opaque: only
``simdgroup.load``, ``simdgroup.mma`` and ``simdgroup.store`` (``tilec.ir.atoms``) may make
or read one, and they never leave the operation that made them. One execution:

* A (``M x K``) and B (``K x N``) are staged in group memory as for the other
  realizations (rows padded), and so is C, the accumulator as it arrives in the lane-FMA
  layout (``LANE_ATOMS["simdgroup.8x8.f32"]``, a documented layout of tilec's own);
* subgroup ``w`` owns the ``rm x rn`` blocks of its rectangle (``_origin``): it loads their
  C fragments, then for every 8-deep K step (unrolled within the execution) loads the
  ``rm`` A and ``rn`` B fragments and issues ``rm * rn`` ``simdgroup.mma``, then stores
  the C fragments back over its blocks of the C buffer;
* every lane reads its lane-FMA registers back from the C buffer.

**Resident fragments.** When a ``serial`` loop's carried accumulator is the C of one
simdgroup ``mma`` of its body and nothing else (the block argument's only use) and that
``mma``'s result is yielded in its place and used by nothing else (the planner's closed
recurrence, a resident or direct accumulator), the accumulator crosses into the fragments
once before the loop (``enter_fragments``), the loop carries the fragments and every
execution only loads A and B fragments and issues its products (``resident_mma``), and the
fragments are stored and read back in the lane-FMA layout once after it
(``leave_fragments``). Nothing but the ``mma`` can see the accumulator inside the loop, so
its layout there is never observed. An MPP ``mma`` of staged operands qualifies the same way:
its cooperative destination is carried instead (``machine_mpp``, one value per lane).

Bounded M / N / K tails are the staging's: the operands are staged through their bounded
views (elements outside read the fill, 0), and the accumulator leaves through the ordinary
(bounded) store of its registers. The accumulator between executions (loop carries,
epilogues, stores, reductions) is therefore always in the documented layout: no other
operation can observe the fragments' layout, which is what makes the realization legal for
every program the rectangle realization is legal for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import tilec.ir as ir
from tilec.ir import dist_layout as L
from tilec.ir.atoms import MPP_REALIZATIONS, SIMDGROUP_BLOCK, row_pad

from .machine import GroupLowering, Lowered
from .options import LoweringBug
from .scheduled_layouts import block_arg_layout, layout_of

__all__ = ["simdgroup_mma", "Fragments", "FragmentSlot", "resident_accumulators",
           "enter_fragments", "leave_fragments", "resident_mma"]

_B = SIMDGROUP_BLOCK


@dataclass(eq=False)
class FragmentSlot:
    """A loop-carried accumulator kept in opaque fragments (``resident_accumulators``)."""

    mma: ir.Operation
    """The simdgroup ``mma`` whose sole carry it is."""
    layout: L.DistLayout
    """The accumulator's lane-FMA layout outside the loop."""
    count: int
    """Fragments per lane: ``rm * rn``; 1 for an MPP cooperative destination
    (``machine_mpp``: one ``tile<cap x f32>``)."""
    buffer: ir.Value | None = None
    """The C staging the accumulator crosses in and out through (one buffer for both)."""
    entry: ir.Operation | None = None
    """An MPP destination's ``mpp.dest.load``, whose ``transpose_b`` the loop's
    ``mpp.run`` settles (B's layout is known once B is staged: ``machine_mpp``)."""


@dataclass(frozen=True)
class Fragments:
    """An accumulator held as its subgroup's ``rm x rn`` opaque fragments (row-major)."""

    slot: FragmentSlot
    """What it carries."""
    values: tuple[ir.Value, ...]
    """One ``tile<2 x f32>`` per fragment."""


def _block_view(g: GroupLowering, buf: ir.Value, row: ir.AffineExpr, col: ir.AffineExpr
                ) -> ir.Value:
    """The 8x8 view of the block at ``(row, col)`` of ``buf``; ``row`` and ``col`` read the
    thread id ``s0`` (one subgroup-uniform block)."""
    m = ir.IndexMap(2, [row + ir.d(0), col + ir.d(1)], 1)
    return g.view(buf, [g.tid], m, (_B, _B), False)


def simdgroup_mma(g: GroupLowering, op: ir.Operation, c: Lowered, a: ir.Value, b: ir.Value,
                  k: int) -> Lowered:
    """One execution of the realization (module docstring); ``a`` and ``b`` are the staged
    operand views, ``c`` the accumulator in the lane-FMA layout."""
    if op.attr("distribution") != "rectangle":
        raise LoweringBug(ir.format_located(
            "internal: the simdgroup realization needs a rectangle distribution", op.loc))
    if k % _B:
        raise LoweringBug(ir.format_located(
            f"internal: K = {k} is not a multiple of the simdgroup block {_B}", op.loc))
    m, n = (int(e) for e in c.layout.shape)
    acc_t = c.dtype
    rm, rn, gn, gm = op.attr("rm"), op.attr("rn"), op.attr("gn"), op.attr("gm")
    warp = ir.s(0).floordiv(32)
    wm = ir.const(0) if gm == 1 else warp.floordiv(gn) if gn > 1 else warp
    wn = ir.const(0) if gn == 1 else warp.mod(gn)
    row0, col0 = wm * (rm * _B), wn * (rn * _B)
    frag_t = ir.TileType((2,), acc_t)

    buf = g.smem.buffer((m, n + row_pad(acc_t.bytes)), acc_t, "C staging")
    c_view = g.view(buf, [], ir.IndexMap.identity(2), (m, n), False)
    g.store_registers(c_view, c)
    g.sync.read(a, b, c_view)

    def load(mem: ir.Value, row: ir.AffineExpr, col: ir.AffineExpr) -> ir.Value:
        return g.atom("simdgroup.load", [_block_view(g, mem, row, col)], [frag_t]).result

    accs = [load(buf, row0 + fm * _B, col0 + fn * _B) for fm in range(rm) for fn in range(rn)]
    accs = _k_steps(g, load, a, b, accs, row0, col0, rm, rn, k)
    # each subgroup rewrites only its own blocks, which it alone has read: the tracker's
    # barrier before these stores orders them after every thread's C stores above too
    g.sync.write(c_view)
    for f, acc in enumerate(accs):
        fm, fn = divmod(f, rn)
        g.atom("simdgroup.store", [_block_view(g, buf, row0 + fm * _B, col0 + fn * _B), acc],
               [])
    g.sync.read(c_view)

    def back(start: int, length: int) -> ir.Value:
        tv = g.thread_view(c_view, c.layout, start, length)
        return g.op("load", [tv], [ir.TileType((length,), acc_t)]).result

    return g.build(c.layout, acc_t, back)


def _origin(op: ir.Operation) -> tuple[ir.AffineExpr, ir.AffineExpr]:
    """The row and column of the subgroup's first block (thread id ``s0``)."""
    rm, rn, gn, gm = op.attr("rm"), op.attr("rn"), op.attr("gn"), op.attr("gm")
    warp = ir.s(0).floordiv(32)
    wm = ir.const(0) if gm == 1 else warp.floordiv(gn) if gn > 1 else warp
    wn = ir.const(0) if gn == 1 else warp.mod(gn)
    return wm * (rm * _B), wn * (rn * _B)


def resident_accumulators(loop: ir.Operation) -> dict[int, FragmentSlot]:
    """Carried positions of ``loop`` whose accumulator may stay in fragments (module
    docstring): the ``mma`` is a simdgroup rectangle of a resident or direct accumulator
    directly in the body of a one-stage ``serial`` loop, its C is the block argument and
    its result the yielded value, each with no other use, all in one layout."""
    if loop.name != "serial" or len(loop.regions) != 1:
        return {}
    block = loop.regions[0].entry
    term = block.terminator
    if term is None:
        return {}
    out = {}
    for k, arg in enumerate(block.args[1:]):
        uses = list(arg.uses)
        if len(uses) != 1 or uses[0].index != 2:
            continue
        mma = uses[0].owner
        real = mma.name == "mma" and mma.attr("realization")
        if real not in ("simdgroup", *MPP_REALIZATIONS) \
                or mma.attr("distribution") != "rectangle" or mma.parent is not block \
                or mma.attr("accumulator") not in ("resident", "direct"):
            continue
        if real != "simdgroup" and (mma.attr("forwarded") or mma.attr("physical_k")):
            continue  # machine_mpp.resident_run: staged operands, every K step
        res = list(mma.result.uses)
        if len(res) != 1 or res[0].owner is not term or res[0].index != k:
            continue
        lay = layout_of(mma.result)
        if lay is None or block_arg_layout(arg) is not lay \
                or layout_of(loop.results[k]) is not lay:
            continue
        out[k] = FragmentSlot(mma, lay, mma.attr("rm") * mma.attr("rn")
                              if real == "simdgroup" else 1)
    return out


def _c_buffer(g: GroupLowering, slot: FragmentSlot) -> ir.Value:
    if slot.buffer is None:
        m, n = (int(e) for e in slot.layout.shape)
        slot.buffer = g.smem.buffer((m, n + row_pad(ir.f32.bytes)), ir.f32, "C staging")
    return slot.buffer


def enter_fragments(g: GroupLowering, slot: FragmentSlot, c: Lowered) -> Fragments:
    """The accumulator ``c`` (lane-FMA layout) into its subgroup's fragments, through the
    C staging (before the loop)."""
    m, n = (int(e) for e in slot.layout.shape)
    buf = _c_buffer(g, slot)
    c_view = g.view(buf, [], ir.IndexMap.identity(2), (m, n), False)
    g.store_registers(c_view, g.canonical(c))
    g.sync.read(c_view)
    row0, col0 = _origin(slot.mma)
    rn = slot.mma.attr("rn")
    frag_t = ir.TileType((2,), ir.f32)
    vals = tuple(g.atom("simdgroup.load", [_block_view(g, buf, row0 + (f // rn) * _B,
                                                        col0 + (f % rn) * _B)],
                        [frag_t]).result for f in range(slot.count))
    return Fragments(slot, vals)


def leave_fragments(g: GroupLowering, x: Fragments) -> Lowered:
    """The fragments stored once through the C staging and read back in the lane-FMA layout
    (after the loop)."""
    slot = x.slot
    m, n = (int(e) for e in slot.layout.shape)
    buf = _c_buffer(g, slot)
    c_view = g.view(buf, [], ir.IndexMap.identity(2), (m, n), False)
    g.sync.write(c_view)
    row0, col0 = _origin(slot.mma)
    rn = slot.mma.attr("rn")
    for f, v in enumerate(x.values):
        g.atom("simdgroup.store", [_block_view(g, buf, row0 + (f // rn) * _B,
                                               col0 + (f % rn) * _B), v], [])
    g.sync.read(c_view)

    def back(start: int, length: int) -> ir.Value:
        tv = g.thread_view(c_view, slot.layout, start, length)
        return g.op("load", [tv], [ir.TileType((length,), ir.f32)]).result

    return g.build(slot.layout, ir.f32, back)


def resident_mma(g: GroupLowering, op: ir.Operation, c: Fragments, a: ir.Value, b: ir.Value,
                 k: int) -> Fragments:
    """One execution on resident fragments: A and B fragments per 8-deep K step and the
    products; the accumulator stays in ``c``'s fragments."""
    if op is not c.slot.mma or k % _B:
        raise LoweringBug(ir.format_located(
            "internal: resident fragments reached an mma they were not planned for", op.loc))
    rm, rn = op.attr("rm"), op.attr("rn")
    row0, col0 = _origin(op)
    frag_t = ir.TileType((2,), ir.f32)

    def load(mem: ir.Value, row: ir.AffineExpr, col: ir.AffineExpr) -> ir.Value:
        return g.atom("simdgroup.load", [_block_view(g, mem, row, col)], [frag_t]).result

    return Fragments(c.slot, tuple(_k_steps(g, load, a, b, list(c.values), row0, col0, rm, rn,
                                            k)))


def _k_steps(g: GroupLowering, load: Callable[[ir.Value, ir.AffineExpr, ir.AffineExpr],
                                               ir.Value],
             a: ir.Value, b: ir.Value, accs: list[ir.Value], row0: ir.AffineExpr,
             col0: ir.AffineExpr, rm: int, rn: int, k: int) -> list[ir.Value]:
    """Per 8-deep K step: the subgroup's ``rm`` A and ``rn`` B fragments (``load``) and its
    ``rm x rn`` products into ``accs`` (row-major); the new accumulator fragments."""
    for step in range(k // _B):
        kk = ir.const(step * _B)
        fa = [load(a, row0 + fm * _B, kk) for fm in range(rm)]
        fb = [load(b, kk, col0 + fn * _B) for fn in range(rn)]
        accs = [g.atom("simdgroup.mma", [fa[f // rn], fb[f % rn], acc], [acc.type]).result
                for f, acc in enumerate(accs)]
    return accs
