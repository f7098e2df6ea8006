"""Machine lowering of the MPP realizations of ``mma`` (metal:m1, docs/design/metal.md).

Apple's Metal Performance Primitives ``matmul2d`` multiplies tensors in memory into a
cooperative destination tensor whose elements are spread over the scope's lanes in an
implementation-defined way. So, as for the ``simdgroup`` realization, the accumulator
between operations stays in tilec's documented lane-FMA layout of the 8x8 atom grid, and one
execution is:

* A (``M x K``) and B (``K x N``) are staged in group memory as for the other realizations,
  and so is C, the accumulator as it arrives, in a padded ``M x N`` buffer;
* ``mpp`` (subgroup scope): SIMD-group ``w`` issues one ``mpp.matmul2d`` on the views of its
  ``rm*8 x K`` rows of A, ``K x rn*8`` columns of B and its ``rm*8 x rn*8`` block of C;
  ``mpp.group`` (whole-group scope): all SIMD-groups issue one ``mpp.matmul2d`` on the whole
  ``M x K``, ``K x N`` and ``M x N`` views together;
* every lane reads its lane-FMA registers back from the C buffer.

A *direct* (forwarded) operation stages neither A nor B: the views are the loads' own windows
of the kernel buffers (``mpp_operands`` says which qualify), which the operation reads as
device tensors with the windows' actual extents; nothing writes them (the snapshot
forwarding proof), so no barrier orders those reads.

The descriptor's rules are the planner's (``MPP_DESCRIPTOR``): M and N of each operation
multiples of 8, one of them of 16; a K that is not a multiple of 16 is emitted as a dynamic
K (the descriptor's tail case). Bounded M / N / K tails are the staging's, as for the other
realizations: operands outside their views read 0 and the accumulator leaves through the
ordinary bounded store of its registers.
"""

from __future__ import annotations

import tilec.ir as ir
from tilec.exec.profiles.base import DescriptorRule
from tilec.ir.atoms import MPP_REALIZATIONS, SIMDGROUP_BLOCK, row_pad

from .machine import GroupLowering, Lowered
from .options import LoweringBug

__all__ = ["mpp_mma"]

_B = SIMDGROUP_BLOCK


def _descriptor_error(rule: DescriptorRule, m: int, n: int, k: int) -> str | None:
    """The descriptor rule's reason, with a K that is not a multiple of the static rule's
    step taken as a dynamic K (its tail case)."""
    return rule.check(m, n, k, k_is_static=k % rule.static_k_multiple == 0)


def mpp_mma(g: GroupLowering, op: ir.Operation, c: Lowered, a: ir.Value, b: ir.Value,
            k: int, direct: bool = False) -> Lowered:
    """One execution of an MPP realization (module docstring); ``a`` and ``b`` are the
    staged operand views, or with ``direct`` the loads' windows of the kernel buffers;
    ``c`` is the accumulator in the lane-FMA layout."""
    real = op.attr("realization")
    if real not in MPP_REALIZATIONS or op.attr("distribution") != "rectangle":
        raise LoweringBug(ir.format_located(
            f"internal: {real} with a {op.attr('distribution')} distribution is not an MPP "
            "rectangle", op.loc))
    m, n = (int(e) for e in c.layout.shape)
    acc_t = c.dtype
    rm, rn, gn, gm = op.attr("rm"), op.attr("rn"), op.attr("gn"), op.attr("gm")
    group = real == "mpp.group"
    tm, tn = (m, n) if group else (rm * _B, rn * _B)
    atom = next((x for x in (g.profile.atoms if g.profile is not None else ())
                 if x.id == op.attr("atom")), None)
    if atom is None or atom.descriptor is None:
        raise LoweringBug(ir.format_located(
            f"internal: the profile has no MPP atom {op.attr('atom')!r} with a descriptor rule",
            op.loc))
    why = _descriptor_error(atom.descriptor, tm, tn, k)
    if why is not None:
        raise LoweringBug(ir.format_located(f"internal: the planner chose an illegal MPP "
                                            f"descriptor: {why}", op.loc))
    buf = g.smem.buffer((m, n + row_pad(acc_t.bytes)), acc_t, "C staging")
    c_view = g.view(buf, [], ir.IndexMap.identity(2), (m, n), False)
    g.store_registers(c_view, c)
    if direct:
        g.sync.read(c_view)
    else:
        g.sync.read(a, b, c_view)
    # the operation rewrites C in place: the tracker's barrier orders it after every
    # thread's C stores above (each subgroup's block is its own)
    g.sync.write(c_view)
    if group:
        views = [a, b, c_view]
    else:
        warp = ir.s(0).floordiv(32)
        wm = ir.const(0) if gm == 1 else warp.floordiv(gn) if gn > 1 else warp
        wn = ir.const(0) if gn == 1 else warp.mod(gn)
        row0, col0 = wm * tm, wn * tn

        def part(mem: ir.Value, row: ir.AffineExpr, col: ir.AffineExpr, shape: tuple[int, int]
                 ) -> ir.Value:
            mp = ir.IndexMap(2, [row + ir.d(0), col + ir.d(1)], 1)
            return g.view(mem, [g.tid], mp, shape, False)

        views = [part(a, row0, ir.const(0), (tm, k)), part(b, ir.const(0), col0, (k, tn)),
                 part(c_view, row0, col0, (tm, tn))]
    g.atom("mpp.matmul2d", views, [], m=tm, n=tn, k=k, scope="group" if group else "subgroup",
           subgroups=gm * gn if group else 1)
    g.sync.read(c_view)

    def back(start: int, length: int) -> ir.Value:
        tv = g.thread_view(c_view, c.layout, start, length)
        return g.op("load", [tv], [ir.TileType((length,), acc_t)]).result

    return g.build(c.layout, acc_t, back)
