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

**Resident destination.** When a ``serial`` loop carries the accumulator of one MPP ``mma``
and nothing else sees it inside the loop (``machine_simdgroup.resident_accumulators``, the
same conditions as for simdgroup fragments, with staged operands), the cooperative
destination itself is carried: ``mpp.dest.load`` fills it from the C staging once before the
loop (``enter_destination``), every execution issues ``mpp.run`` on it (``resident_run``:
no C crossing), and ``mpp.dest.store`` writes it back to the C staging once after the loop,
where every lane reads its lane-FMA registers (``leave_destination``). Its element
assignment is never observed: only these three atoms touch it.

**Epilogue on the destination's elements.** Where the resident destination's loop result
reaches a global ``store`` through a proved scalar epilogue (``plan.proofs.scalar_epilogue``:
a ``map`` of the accumulator, uniform scalars and reindexed loads such as a bias row) and
``PlannerOptions.fuse_matrix_epilogues`` is on, the destination does not leave through the
C staging: the map, its reindexed loads and the store are lowered where the store stands
(``store_epilogue``), as one loop over the lane's destination slots (``mpp.dest.capacity``):
each valid slot's coordinates (``mpp.dest.element``, offset by the scope's block) read the
reindexed loads' elements through their windows, the map's body computes the stored
element, and it is stored through the output window (bounded at the edges). Element
``(i, j)`` of the stored tile depends only on element ``(i, j)`` of the accumulator and on
what its owner can read for itself: the epilogue proof's same-element ownership, with the
destination's implementation-defined owner in place of a register layout.

The descriptor's rules are the planner's (``MPP_DESCRIPTOR``): M and N of each operation
multiples of 8, one of them of 16; a K that is not a multiple of 16 is emitted as a dynamic
K (the descriptor's tail case). Bounded M / N / K tails are the staging's, as for the other
realizations: operands outside their views read 0 and the accumulator leaves through the
ordinary bounded store of its registers.
"""

from __future__ import annotations

from typing import Any

import tilec.ir as ir
from tilec.exec.profiles.base import DescriptorRule
from tilec.ir.atoms import MPP_REALIZATIONS, SIMDGROUP_BLOCK, row_pad
from tilec.plan.proofs.scalar_epilogue import ScalarEpilogue, epilogue_of

from .machine import GroupLowering, Lowered
from .machine_bounds import guard_total_access
from .machine_divisions import may_divide_by_zero
from .machine_elementwise import scalar_region
from .machine_simdgroup import Fragments, FragmentSlot
from .options import LoweringBug

__all__ = ["mpp_mma", "enter_destination", "resident_run", "leave_destination",
           "defer_epilogue", "pending_epilogue", "store_epilogue"]

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
    gn, gm = op.attr("gn"), op.attr("gm")
    group = real == "mpp.group"
    tm, tn = _checked_tile(g, op, m, n, k)
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
    views = [_scope_part(g, op, a, "A", tm, tn, k), _scope_part(g, op, b, "B", tm, tn, k),
             _scope_part(g, op, c_view, "C", tm, tn, k)]
    g.atom("mpp.matmul2d", views, [], m=tm, n=tn, k=k, scope="group" if group else "subgroup",
           subgroups=gm * gn if group else 1)
    g.sync.read(c_view)

    def back(start: int, length: int) -> ir.Value:
        tv = g.thread_view(c_view, c.layout, start, length)
        return g.op("load", [tv], [ir.TileType((length,), acc_t)]).result

    return g.build(c.layout, acc_t, back)


def _checked_tile(g: GroupLowering, op: ir.Operation, m: int, n: int, k: int
                  ) -> tuple[int, int]:
    """The ``tm x tn`` destination of one operation of ``op``'s scope, its descriptor
    checked against the profile's rule (the planner's choice: a failure is internal)."""
    if op.attr("realization") == "mpp.group":
        tm, tn = m, n
    else:
        tm, tn = op.attr("rm") * _B, op.attr("rn") * _B
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
    return tm, tn


def _scope_part(g: GroupLowering, op: ir.Operation, mem: ir.Value, role: str, tm: int,
                tn: int, k: int) -> ir.Value:
    """The view of ``mem`` (the whole A, B or C view) one operation of ``op``'s scope reads:
    the whole view for the group scope, SIMD-group ``w``'s rows / columns otherwise."""
    if op.attr("realization") == "mpp.group":
        return mem
    gn, gm = op.attr("gn"), op.attr("gm")
    warp = ir.s(0).floordiv(32)
    wm = ir.const(0) if gm == 1 else warp.floordiv(gn) if gn > 1 else warp
    wn = ir.const(0) if gn == 1 else warp.mod(gn)
    row, col, shape = {"A": (wm * tm, ir.const(0), (tm, k)),
                       "B": (ir.const(0), wn * tn, (k, tn)),
                       "C": (wm * tm, wn * tn, (tm, tn))}[role]
    mp = ir.IndexMap(2, [row + ir.d(0), col + ir.d(1)], 1)
    return g.view(mem, [g.tid], mp, shape, False)


def _dest_attrs(g: GroupLowering, slot: FragmentSlot, k: int, transpose_b: bool
                ) -> dict[str, Any]:
    """The attributes that fix a resident destination's descriptor and scope (the same on
    its three atoms, so each prints the same ``matmul2d`` type)."""
    op = slot.mma
    m, n = (int(e) for e in slot.layout.shape)
    tm, tn = _checked_tile(g, op, m, n, k)
    group = op.attr("realization") == "mpp.group"
    return {"m": tm, "n": tn, "k": k, "scope": "group" if group else "subgroup",
            "subgroups": op.attr("gm") * op.attr("gn") if group else 1,
            "transpose_b": transpose_b}


def _dest_type(g: GroupLowering, attrs: dict[str, Any]) -> ir.TileType:
    """``tile<cap x f32>``: the destination's registers per lane of its scope."""
    lanes = 32 * int(attrs["subgroups"])
    cap = -(-int(attrs["m"]) * int(attrs["n"]) // lanes)
    return ir.TileType((cap,), ir.f32)


def _slot_k(slot: FragmentSlot) -> int:
    return int(slot.mma.operand_named("a").type.shape[1])


def _c_staging(g: GroupLowering, slot: FragmentSlot) -> ir.Value:
    """The whole ``m x n`` view of the slot's C staging (one buffer in and out)."""
    m, n = (int(e) for e in slot.layout.shape)
    if slot.buffer is None:
        slot.buffer = g.smem.buffer((m, n + row_pad(ir.f32.bytes)), ir.f32, "C staging")
    return g.view(slot.buffer, [], ir.IndexMap.identity(2), (m, n), False)


def enter_destination(g: GroupLowering, slot: FragmentSlot, c: Lowered) -> Fragments:
    """The accumulator ``c`` (lane-FMA layout) into its scope's cooperative destination,
    through the C staging (before the loop)."""
    k = _slot_k(slot)
    attrs = _dest_attrs(g, slot, k, False)  # resident_run settles transpose_b
    c_view = _c_staging(g, slot)
    g.store_registers(c_view, g.canonical(c))
    g.sync.read(c_view)
    part = _scope_part(g, slot.mma, c_view, "C", int(attrs["m"]), int(attrs["n"]), k)
    slot.entry = g.atom("mpp.dest.load", [part], [_dest_type(g, attrs)], **attrs)
    return Fragments(slot, (slot.entry.result,))


def resident_run(g: GroupLowering, op: ir.Operation, c: Fragments, a: ir.Value, b: ir.Value,
                 k: int, k_major: bool) -> Fragments:
    """One execution on the resident destination: ``mpp.run`` on the staged views."""
    slot = c.slot
    if op is not slot.mma or k != _slot_k(slot) or slot.entry is None:
        raise LoweringBug(ir.format_located(
            "internal: a resident MPP destination reached an mma it was not planned for",
            op.loc))
    # the loop's one run fixes the descriptor's B layout for the destination's three atoms
    # (lowered before anything is printed)
    slot.entry.attributes["transpose_b"] = k_major
    attrs = _dest_attrs(g, slot, k, k_major)
    tm, tn = int(attrs["m"]), int(attrs["n"])
    views = [_scope_part(g, op, a, "A", tm, tn, k), _scope_part(g, op, b, "B", tm, tn, k),
             c.values[0]]
    dest = g.atom("mpp.run", views, [c.values[0].type], **attrs).result
    return Fragments(slot, (dest,))


def leave_destination(g: GroupLowering, x: Fragments) -> Lowered:
    """The destination stored once through the C staging and read back in the lane-FMA
    layout (after the loop)."""
    slot = x.slot
    k = _slot_k(slot)
    if slot.entry is None:
        raise LoweringBug("internal: a resident MPP destination left a loop it never entered")
    attrs = _dest_attrs(g, slot, k, bool(slot.entry.attr("transpose_b")))
    c_view = _c_staging(g, slot)
    g.sync.write(c_view)
    part = _scope_part(g, slot.mma, c_view, "C", int(attrs["m"]), int(attrs["n"]), k)
    g.atom("mpp.dest.store", [part, x.values[0]], [], **attrs)
    g.sync.read(c_view)

    def back(start: int, length: int) -> ir.Value:
        tv = g.thread_view(c_view, slot.layout, start, length)
        return g.op("load", [tv], [ir.TileType((length,), ir.f32)]).result

    return g.build(slot.layout, ir.f32, back)


# ------------------------------------------------------- epilogue on the destination


def _destination_epilogue(g: GroupLowering, v: ir.Value) -> ScalarEpilogue | None:
    """The proved scalar epilogue through which loop result ``v`` (a resident destination)
    reaches a global store of the group, or None (the destination then leaves through the
    C staging): ``fuse_matrix_epilogues`` on, ``epilogue_of`` proved, the store global, no
    reindex with a fill of its own and no division the lowering would guard."""
    if not g.fl.options.planner.fuse_matrix_epilogues:
        return None
    epi, _ = epilogue_of(v)
    if epi is None or not g.group.is_ancestor_of(epi.store):
        return None
    dst = epi.store.operand(0).type
    if not isinstance(dst, ir.MemoryType) or dst.space != "global":
        return None
    for _, r, ld in _epilogue_loads(epi.map):
        if r.attr("fill") is not None or not _reads_at_the_store(ld, epi.store):
            return None
    if any(may_divide_by_zero(g, d) for d in epi.map.regions[0].walk()):
        return None
    return epi


_WRITES = ("write", "read_write", "sync", "unknown")
"""Effect classes that may change memory a deferred load reads (or order it)."""


def _reads_at_the_store(ld: ir.Operation, st: ir.Operation) -> bool:
    """True when ``ld`` may be read where ``st`` stands instead: both in one block, ``ld``
    first, and nothing between them writes memory (a write there could change what the
    load saw)."""
    if ld.parent is not st.parent:
        return False
    ops = list(st.parent.operations)
    i, j = ops.index(ld), ops.index(st)
    if i > j:
        return False
    for op in ops[i + 1:j]:
        if any(x.opdef.effect in _WRITES for x in op.walk()):
            return False
    return True


def _epilogue_loads(m: ir.Operation) -> list[tuple[ir.Value, ir.Operation, ir.Operation]]:
    """``(operand, reindex, load)`` of each reindexed load of proved epilogue ``m``."""
    out = []
    for o in m.operands[1:]:
        if isinstance(o.type, ir.TileType):
            r = o.defining_op
            ld = r.operand(0).defining_op if r is not None else None
            if r is None or ld is None:
                raise LoweringBug(ir.format_located(
                    "internal: a proved epilogue's tile operand is not a reindexed load",
                    m.loc))
            out.append((o, r, ld))
    return out


_PENDING = "mpp.epilogue"
"""Scope key prefix of a store whose epilogue runs on a destination's elements."""


def defer_epilogue(g: GroupLowering, r: ir.Value, x: Fragments) -> bool:
    """When loop result ``r`` (resident destination ``x``) reaches its store through a
    proved scalar epilogue (module docstring), leave the map and its reindexed loads to the
    store (``store_epilogue``) and return True; else False (the caller leaves the
    destination through the C staging)."""
    epi = _destination_epilogue(g, r)
    if epi is None:
        return False
    g.bind(r, x)  # read by nothing but the deferred map
    for _, ri, ld in _epilogue_loads(epi.map):
        g.skip.update((ri, ld))
    g.skip.add(epi.map)
    g.bind((_PENDING, epi.store), (epi, x))  # type: ignore[arg-type]
    return True


def pending_epilogue(g: GroupLowering, st: ir.Operation
                     ) -> tuple[ScalarEpilogue, Fragments] | None:
    """The deferred epilogue ``store`` ``st`` realizes, if any (``defer_epilogue``)."""
    for s in reversed(g.scopes):
        got = s.get((_PENDING, st))
        if got is not None:
            return got  # type: ignore[no-any-return]
    return None


def store_epilogue(g: GroupLowering, st: ir.Operation, epi: ScalarEpilogue,
                   x: Fragments) -> None:
    """The stored tile computed on the destination's elements (module docstring): for each
    slot of this lane's share, when it holds element ``(i, j)`` of the scope's block, the
    map of it and of the reindexed loads' elements at the tile coordinates, stored there."""
    slot = x.slot
    k = _slot_k(slot)
    if slot.entry is None:
        raise LoweringBug("internal: an epilogue on a destination that was never entered")
    attrs = _dest_attrs(g, slot, k, bool(slot.entry.attr("transpose_b")))
    tm, tn = int(attrs["m"]), int(attrs["n"])
    m = epi.map
    guard_total_access(g, st)
    out = g.scalar(st.operand_named("memory"))
    g.sync.write(out)
    loads: dict[ir.Value, tuple[ir.Value, ir.IndexMap, Any, ir.ScalarType]] = {}
    for o, r, ld in _epilogue_loads(m):
        guard_total_access(g, ld)
        mem = g.scalar(ld.operand_named("memory"))
        g.sync.read(mem)
        loads[o] = (mem, r.attr("map"), ld.attr("fill"), ld.result.type.dtype)
    scalars = {o: g.scalar(o) for o in m.operands[1:] if not isinstance(o.type, ir.TileType)}
    result_t = m.results[0].type.dtype
    # the scope's block origin in the tile, from the thread id (symbol 0)
    row0, col0 = _scope_origin(slot.mma, tm, tn)
    at = ir.IndexMap(1, [row0 + ir.s(1), col0 + ir.s(2)], 3)
    dest = x.values[0]
    cap = g.atom("mpp.dest.capacity", [dest], [ir.index], **attrs).result
    body = ir.Block([ir.index])
    g.op("serial", [g.index(0), cap, g.index(1)], [], {}, [ir.Region([body])])
    with g.scope(ir.Builder(ir.InsertionPoint.at_end(body))):
        el = g.atom("mpp.dest.element", [dest, body.args[0]],
                    [ir.i1, ir.index, ir.index, ir.TileType((1,), ir.f32)], **attrs)
        ok, row, col, value = el.results

        def element() -> None:
            syms = [g.tid, row, col]
            args: list[ir.Value] = [value]
            for o in m.operands[1:]:
                if o in loads:
                    mem, rmap, fill, dt = loads[o]
                    tv = g.view(mem, syms, rmap.compose(at), (1,), True)
                    a = {} if fill is None else {"fill": fill}
                    args.append(g.op("load", [tv], [ir.TileType((1,), dt)], a).result)
                else:
                    args.append(scalars[o])
            y = g.op("map", args, [ir.TileType((1,), result_t)], {"shape": ir.IndexSet([1])},
                     [scalar_region(g, m.regions[0])]).result
            g.op("store", [g.view(out, syms, at, (1,), False), y], [])

        g.guarded(ok, element)
        g.op("yield", [], [])


def _scope_origin(op: ir.Operation, tm: int, tn: int) -> tuple[ir.AffineExpr, ir.AffineExpr]:
    """The first row and column of the block one operation of ``op``'s scope covers, in the
    thread id (symbol 0): SIMD-group ``w``'s for the subgroup scope (``_scope_part``)."""
    if op.attr("realization") == "mpp.group":
        return ir.const(0), ir.const(0)
    gn, gm = op.attr("gn"), op.attr("gm")
    warp = ir.s(0).floordiv(32)
    wm = ir.const(0) if gm == 1 else warp.floordiv(gn) if gn > 1 else warp
    wn = ir.const(0) if gn == 1 else warp.mod(gn)
    return wm * tm, wn * tn
