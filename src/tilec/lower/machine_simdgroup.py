"""Machine lowering of the ``simdgroup`` realization of ``mma`` (metal:m1, docs/design/metal.md).

MSL's ``simdgroup_float8x8`` spreads an 8x8 block over the 32 lanes of a SIMD-group, two
elements each, in an assignment Apple does not document. So its fragments are opaque: only
``simdgroup.load``, ``simdgroup.mma`` and ``simdgroup.store`` (``tilec.ir.atoms``) may make
or read one, and they never leave the operation that made them. One execution:

* A (``M x K``) and B (``K x N``) are staged in group memory as for the other
  realizations (rows padded), and so is C, the accumulator as it arrives in the lane-FMA
  layout (``LANE_ATOMS["simdgroup.8x8.f32"]``, a documented layout of tilec's own);
* subgroup ``w`` owns the ``rm x rn`` blocks of its rectangle (``_origin``): it loads their
  C fragments, then for every 8-deep K step (unrolled, so that no fragment is carried by a
  Machine loop) loads the ``rm`` A and ``rn`` B fragments and issues ``rm * rn``
  ``simdgroup.mma``, then stores the C fragments back over its blocks of the C buffer;
* every lane reads its lane-FMA registers back from the C buffer.

Bounded M / N / K tails are the staging's: the operands are staged through their bounded
views (elements outside read the fill, 0), and the accumulator leaves through the ordinary
(bounded) store of its registers. The accumulator between executions (loop carries,
epilogues, stores, reductions) is therefore always in the documented layout: no other
operation can observe the fragments' layout, which is what makes the realization legal for
every program the rectangle realization is legal for.
"""

from __future__ import annotations

import tilec.ir as ir
from tilec.ir.atoms import SIMDGROUP_BLOCK, row_pad

from .machine import GroupLowering, Lowered
from .options import LoweringBug

__all__ = ["simdgroup_mma"]

_B = SIMDGROUP_BLOCK


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
    for step in range(k // _B):
        kk = ir.const(step * _B)
        fa = [load(a, row0 + fm * _B, kk) for fm in range(rm)]
        fb = [load(b, kk, col0 + fn * _B) for fn in range(rn)]
        accs = [g.atom("simdgroup.mma", [fa[f // rn], fb[f % rn], acc], [frag_t]).result
                for f, acc in enumerate(accs)]
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
