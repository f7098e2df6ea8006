"""Machine lowering of ``mma``: matrix atoms, lane FMAs and the checked scalar reference.

Every realization but a forwarded one (below) stages A (``M x K``) and B (``K x N``) in
shared memory (rows padded by 16 bytes so fragment reads of consecutive rows fall in
different banks), then walks K:

* atom realizations (``mma.m16n8k16.bf16`` ...): per K step each subgroup
  loads the A fragments of its ``rm`` atom rows and the B fragments of its
  ``rn`` atom columns from shared memory through the catalog's fragment
  layouts and issues ``rm * rn`` ``atom.call``s, each updating one
  accumulator array in place; the one-atom reference issues one atom per job
  (jobs past the atom grid are skipped by a subgroup-uniform guard);
* ``ffma``: each lane owns an ``rm x rn`` micro-tile of its subgroup's atoms
  (rows ``am`` apart, columns ``an`` apart); per K step it reads its ``rm`` A
  values and ``rn`` B values and updates every accumulator with one FMA
  (two roundings, in K order, under ``strict_fold``);
* ``simdgroup`` (metal:m1): MSL ``simdgroup_matrix`` instructions on opaque fragments,
  the accumulator crossing into them through group memory (``machine_simdgroup``);
* ``mpp`` / ``mpp.group`` (metal:m1): one MPP ``matmul2d`` tensor operation per SIMD-group
  or per group on the staged operands, the accumulator crossing through group memory
  (``machine_mpp``);
* ``reference``: one thread per output element in the blocked layout, a
  serial K loop with separately rounded products and sums (bit-identical to
  the reference interpreter's strict order).

A *forwarded* atom rectangle (``forwarded``: the planner's candidate where the snapshot
forwarding proof holds, ``plan/proofs/snapshot_forwarding.py``) stages nothing: per K step
each lane loads its A and B fragment elements from global memory through the operands'
source views (``machine.Forwarded``), with the loads' fill outside a ``bounded`` window,
and issues the same atoms. A forwarded MPP operation passes the source views themselves
(device tensors, ``machine_mpp``).

The accumulator arrives in the realization's layout (the Scheduled form's
repartition records convert it wherever it is produced in another: a
non-resident plan, another realization's result or loop seeding it) and
leaves in it; direct output is the store of these registers.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import tilec.ir as ir
from tilec.ir.atoms import (
    LANE_ATOMS,
    MMA_ATOMS,
    MPP_REALIZATIONS,
    SWIZZLE_BYTES,
    WGMMA_ATOMS,
    WGMMA_ROWS,
    WgmmaAtom,
    row_pad,
    swizzle_cols,
)
from tilec.ir.dataflow import transposed_a_staged

from .machine import Forwarded, GroupLowering, Lowered, Staged, rule
from .machine_bounded_k import k_step, live_steps, physical_k_at_mma, signed_zero_tail
from .machine_bounded_mn import (
    GUARD,
    Edge,
    both,
    guarded_value,
    job_inside,
    lane_inside,
    part_inside,
    rect_edge,
    valid_extents,
)
from .machine_mpp import mpp_mma, resident_run
from .machine_pipeline import swizzled_map
from .machine_simdgroup import Fragments, resident_mma, simdgroup_mma
from .options import LoweringBug
from .scheduled_layouts import layout_of

__all__ = ["mac_region"]


def mac_region(acc_t: ir.ScalarType, in_t: ir.ScalarType, fused: bool,
               precision: str = "exact") -> ir.Region:
    """``^(acc, a, b): yield(acc + a * b)`` in the accumulator's arithmetic.

    Narrow floats compute in f32 (bf16/f16 products are exact there) and a narrow
    accumulator is rounded after every step; integers wrap in the accumulator type.
    ``fused`` uses one ``fma`` (allowed by ``unordered_tree``). Under ``precision =
    "tf32"`` f32 operands are rounded to TF32 first, as the policy defines the product
    whatever realizes it (a lane FMA or the scalar loop, not only the TF32 atom)."""
    blk = ir.Block([acc_t, in_t, in_t])
    b = ir.Builder(ir.InsertionPoint.at_end(blk))
    acc, x, y = blk.args
    if precision == "tf32" and in_t is ir.f32:
        x, y = (b.value("arith", [v], ir.f32, {"fn": "round_tf32"}) for v in (x, y))
    if acc_t.is_float:
        wide = ir.f64 if ir.f64 in (acc_t, in_t) else ir.f32
    else:
        wide = acc_t

    def to(v: ir.Value, t: ir.ScalarType) -> ir.Value:
        return v if v.type is t else b.value("arith", [v], t, {"fn": "cast"})

    xa, ya, acc_w = to(x, wide), to(y, wide), to(acc, wide)
    if fused and wide.is_float:
        s = b.value("arith", [xa, ya, acc_w], wide, {"fn": "fma"})
    else:
        p = b.value("arith", [xa, ya], wide, {"fn": "mul"})
        s = b.value("arith", [acc_w, p], wide, {"fn": "add"})
    b.create("yield", [to(s, acc_t)])
    return ir.Region([blk])


@rule("mma")
def _mma(g: GroupLowering, op: ir.Operation) -> None:
    real = op.attr("realization")
    # a loop-carried accumulator kept in simdgroup fragments (machine_control's loop rule)
    resident = g.lookup(op.operand(2)) if (real == "simdgroup" or real in MPP_REALIZATIONS) \
        and isinstance(op.operand(2), ir.BlockArgument) else None
    c = resident if isinstance(resident, Fragments) else g.canonical(g.operand(op, 2))
    if isinstance(c, Lowered) and c.layout is not layout_of(op.result):
        # every realization updates C in place, so D is produced in the layout C arrives in
        raise LoweringBug(ir.format_located(
            f"internal: the {real} mma's accumulator arrives as {c.layout} but its result is "
            f"scheduled as {layout_of(op.result)} (the Scheduled form lacks the repartition "
            "of C)", op.loc))
    a_t, b_t = op.operand_named("a").type, op.operand_named("b").type
    m, k = (int(e) for e in a_t.shape)
    n = int(b_t.shape[1])
    swizzle = real in WGMMA_ATOMS
    fwd = [g.lookup(op.operand(j)) for j in range(2)]
    if op.attr("forwarded"):
        if not all(isinstance(x, Forwarded) for x in fwd) \
                or not (real in MMA_ATOMS or real in MPP_REALIZATIONS) \
                or op.attr("distribution") != "rectangle":
            raise LoweringBug(ir.format_located(
                f"internal: a forwarded {real} mma whose operands are not both forwarded "
                "snapshots of an atom rectangle (schedule_mma.mark_forwarded)", op.loc))
        fa, fb = fwd
        if real in MPP_REALIZATIONS:  # matmul2d reads device tensors over the windows
            g.bind(op.result, mpp_mma(g, op, c, fa.view, fb.view, k, direct=True))
            return
        # no barrier bookkeeping: the proof says no operation of the function writes either
        # source, so no thread's access can conflict with these reads
        g.bind(op.result, _atoms(g, op, c, fa.view, fb.view, k, fills=(fa.fill, fb.fill)))
        return
    if any(isinstance(x, Forwarded) for x in fwd):
        raise LoweringBug(ir.format_located(
            f"internal: the {real} mma reads a forwarded snapshot but is not forwarded",
            op.loc))
    tf32 = swizzle and WGMMA_ATOMS[real].precision == "tf32"
    a_regs = _register_a(g, op, m, k) if swizzle and not tf32 else None
    a_view = _stage(g, op, 0, m, k, real != "reference", swizzle) if a_regs is None else None
    b_view = _stage(g, op, 1, k, n, real != "reference", swizzle, start=m * k)
    staged = [g.lookup(op.operand(j)) for j in range(2)]
    if isinstance(staged[0], Staged) and staged[0].transposed and not transposed_a_staged(op):
        raise LoweringBug(ir.format_located(
            "internal: a staged A operand read transposed (the schedule stages transposes "
            "for B, and for an f32 A under tf32 only)", op.loc))
    # B staged as x.T: its K x N view runs along the buffer's rows (K-major)
    k_major = isinstance(staged[1], Staged) and staged[1].transposed
    if tf32:
        if not k_major:
            raise LoweringBug(ir.format_located(
                "internal: a TF32 warpgroup instruction with an N-major B (the planner's "
                "wgmma rule requires x.T of a staged load)", op.loc))
        # A's fragments from its staged tile (rounded to TF32 as the instruction issues);
        # B is read by the hardware, which truncates a shared TF32 operand (the policy
        # allows either reduction: WgmmaAtom.precision)
        assert a_view is not None
        g.sync.read(a_view)
        a_regs = _fragments_from(g, a_view, WGMMA_ATOMS[real], k)
        a_view = None
    if a_view is None:
        g.sync.read(b_view)
    else:
        g.sync.read(a_view, b_view)
    # bounded K views (machine_bounded_k): steps past the physical K are skipped
    actual = physical_k_at_mma(g, op) if op.attr("physical_k") else None
    live = None if actual is None else live_steps(g, actual, k_step(op))
    # bounded M/N views (machine_bounded_mn): rectangles outside the arrays are skipped
    edge = valid_extents(g, op)
    if real == "reference":
        out = _reference(g, op, c, a_view, b_view, k, live, edge)
    elif swizzle:
        out = _wgmma(g, op, c, a_view, b_view, k, k_major, a_regs)
    elif real == "ffma":
        out = _lane(g, op, c, a_view, b_view, k, live, edge)
    elif isinstance(c, Fragments) and real in MPP_REALIZATIONS:
        out = resident_run(g, op, c, a_view, b_view, k, k_major)
    elif isinstance(c, Fragments):
        out = resident_mma(g, op, c, a_view, b_view, k)
    elif real == "simdgroup":
        out = simdgroup_mma(g, op, c, a_view, b_view, k)
    elif real in MPP_REALIZATIONS:
        out = mpp_mma(g, op, c, a_view, b_view, k)
    else:
        out = _atoms(g, op, c, a_view, b_view, k, k_major, live, edge)
    if actual is not None:
        out = Lowered(out.layout, signed_zero_tail(g, list(out.parts), actual, k))
    g.bind(op.result, out)


def _stage(g: GroupLowering, op: ir.Operation, k: int, rows: int, cols: int,
           dedicated: bool, swizzle: bool = False, start: int = 0) -> ir.Value:
    """Operand ``k`` written to shared memory; returns its ``rows x cols`` view (for a
    warpgroup instruction: the swizzled canonical layout). Without a dedicated buffer
    the operand goes to the scratch pool from element ``start`` on: B follows the whole
    of A there (A and B differ in size, so equal slots would overlap)."""
    staged = g.lookup(op.operand(k))
    if isinstance(staged, Staged):
        return staged.view  # a double-buffered loop already put this iteration's tile there
    x = g.tile(op.operand(k))
    dt = x.dtype
    if swizzle:
        buf = g.smem.buffer((rows * cols,), dt, f"{'AB'[k]} staging", swizzle=SWIZZLE_BYTES)
        view = g.view(buf, [], swizzled_map(rows, cols, swizzle_cols(dt)), (rows, cols),
                      False)
    elif dedicated:
        buf = g.smem.buffer((rows, cols + row_pad(dt.bytes)), dt, f"{'AB'[k]} staging")
        view = g.view(buf, [], ir.IndexMap.identity(2), (rows, cols), False)
    else:
        from .machine_reduce import pool_view

        view = pool_view(g, (rows, cols), dt, start)
    g.store_registers(view, x)
    if swizzle:  # wgmma reads shared memory through the async proxy: publish these stores
        g.atom("fence.proxy.async", [], [ir.token])
    return view


def _k_loop(g: GroupLowering, trips: int, carried: list[ir.Value],
            body: Callable[[ir.Value, list[ir.Value]], list[ir.Value]],
            live: ir.Value | None = None) -> list[ir.Value]:
    """``serial(0, trips)`` carrying ``carried``; ``body(iv, values) -> next values``, under
    ``iv < live`` when ``live`` (the steps a bounded K view reads) is given."""
    blk = ir.Block([ir.index, *(v.type for v in carried)])
    loop = g.op("serial", [g.index(0), g.index(trips), g.index(1), *carried],
                [v.type for v in carried], {"unroll": trips}, [ir.Region([blk])])
    with g.scope(ir.Builder(ir.InsertionPoint.at_end(blk))):
        nxt = _live_step(g, blk.args[0], list(blk.args[1:]), body, live)
        g.op("yield", nxt, [])
    return list(loop.results)


def _live_step(g: GroupLowering, iv: ir.Value, accs: list[ir.Value],
               body: Callable[[ir.Value, list[ir.Value]], list[ir.Value]],
               live: ir.Value | None) -> list[ir.Value]:
    """``body(iv, accs)``, under ``iv < live`` when given (a group-uniform guard: the
    physical K depends on program and loop coordinates only)."""
    if live is None:
        return body(iv, accs)
    return _branch(g, g.arith("lt", iv, live), lambda: body(iv, accs), accs)


def _load(g: GroupLowering, mem: ir.Value, syms: list[ir.Value], m: ir.IndexMap, n: int,
          fill: object = None) -> ir.Value:
    v = g.view(mem, syms, m, (n,), False)
    attrs = {} if fill is None else {"fill": fill}
    return g.op("load", [v], [ir.TileType((n,), mem.type.dtype)], attrs).result


# --------------------------------------------------------------------- reference


def _reference(g: GroupLowering, op: ir.Operation, c: Lowered, a: ir.Value, b: ir.Value,
               k: int, live: ir.Value | None = None, edge: Edge | None = None) -> Lowered:
    lay = c.layout
    inside = [part_inside(g, edge, lay, off, size) for off, size in zip(c.offsets, c.sizes)]
    in_t = a.type.dtype
    pre_a = ir.IndexMap(2, [ir.d(0), ir.s(0)], 1)
    pre_b = ir.IndexMap(2, [ir.s(0), ir.d(1)], 1)
    fused = False  # separately rounded: the strict order, one permitted tree order too
    precision = op.attr("policy").precision

    def body(iv: ir.Value, accs: list[ir.Value]) -> list[ir.Value]:
        out = []
        for off, size, acc, ok in zip(c.offsets, c.sizes, accs, inside):
            def part(off: int = off, size: int = size, acc: ir.Value = acc) -> list[ir.Value]:
                av = g.op("load", [g.thread_view(a, lay, off, size, pre_a, [iv])],
                          [ir.TileType((size,), in_t)]).result
                bv = g.op("load", [g.thread_view(b, lay, off, size, pre_b, [iv])],
                          [ir.TileType((size,), in_t)]).result
                return [g.op("map", [acc, av, bv], [acc.type],
                             {"shape": ir.IndexSet([size])},
                             [mac_region(acc.type.dtype, in_t, fused, precision)]).result]

            out.extend(_branch(g, ok, part, [acc]))
        return out

    return Lowered(lay, _k_loop_plain(g, k, c.parts, body, live))


def _k_loop_plain(g: GroupLowering, trips: int, carried: list[ir.Value],
                  body: Callable[[ir.Value, list[ir.Value]], list[ir.Value]],
                  live: ir.Value | None = None) -> list[ir.Value]:
    """A K loop the emitter keeps rolled (the reference is not unrolled)."""
    blk = ir.Block([ir.index, *(v.type for v in carried)])
    loop = g.op("serial", [g.index(0), g.index(trips), g.index(1), *carried],
                [v.type for v in carried], {}, [ir.Region([blk])])
    with g.scope(ir.Builder(ir.InsertionPoint.at_end(blk))):
        g.op("yield", _live_step(g, blk.args[0], list(blk.args[1:]), body, live), [])
    return list(loop.results)


# ------------------------------------------------------------------ shared helpers


def _ids() -> tuple[ir.AffineExpr, ir.AffineExpr]:
    """(lane, subgroup) of the thread id symbol ``s1`` (``s0`` is the K counter)."""
    tid = ir.s(1)
    return tid.mod(32), tid.floordiv(32)


def _origin(op: ir.Operation, warp: ir.AffineExpr, am: int, an: int
            ) -> tuple[ir.AffineExpr, ir.AffineExpr]:
    """Row and column where the subgroup's rectangle starts."""
    gn, rm, rn = op.attr("gn"), op.attr("rm"), op.attr("rn")
    gm = op.attr("gm")
    wm = ir.const(0) if gm == 1 else warp.floordiv(gn) if gn > 1 else warp
    wn = ir.const(0) if gn == 1 else warp.mod(gn)
    return wm * (rm * am), wn * (rn * an)


def _job(r: int, subgroups: int, v: int, am: int, an: int, warp: ir.AffineExpr
         ) -> tuple[ir.AffineExpr, ir.AffineExpr]:
    """Row and column where one-atom job ``r`` of the subgroup starts."""
    atom = warp + r * subgroups
    return atom.floordiv(v) * am if v > 1 else atom * am, atom.mod(v) * an


def _job_guard(g: GroupLowering, r: int, subgroups: int, atoms: int) -> ir.Value | None:
    """``r*G + warp < atoms`` when some subgroup has no job ``r`` (subgroup-uniform)."""
    if (r + 1) * subgroups <= atoms:
        return None
    base = g.arith("add", g.warp(), g.index(r * subgroups))
    return g.arith("lt", base, g.index(atoms))


def _branch(g: GroupLowering, cond: ir.Value | None, then: Callable[[], list[ir.Value]],
            keep: list[ir.Value], guard: str | None = None) -> list[ir.Value]:
    """``then()`` under ``cond`` (else ``keep``), or unconditionally when ``cond`` is None;
    ``guard`` names the condition on the ``if``."""
    if cond is None:
        return then()
    t_blk, e_blk = ir.Block(), ir.Block()
    with g.scope(ir.Builder(ir.InsertionPoint.at_end(t_blk))):
        vals = then()
        g.op("yield", vals, [])
    ir.Builder(ir.InsertionPoint.at_end(e_blk)).create("yield", keep)
    op = g.op("if", [cond], [v.type for v in keep], {} if guard is None else {"guard": guard},
              [ir.Region([t_blk]), ir.Region([e_blk])])
    return list(op.results)


# ----------------------------------------------------------------------- atoms


def _atom_attrs(atom: object) -> dict[str, object]:
    a = atom  # MmaAtom
    return {"a_layout": a.a.map, "b_layout": a.b.map, "c_layout": a.c.map,  # type: ignore
            "shape": (a.am, a.an, a.ak), "participants": "subgroup"}  # type: ignore


def _atoms(g: GroupLowering, op: ir.Operation, c: Lowered, a: ir.Value, b: ir.Value,
           k: int, k_major: bool = False, live: ir.Value | None = None,
           edge: Edge | None = None, fills: tuple[object, object] = (None, None)
           ) -> Lowered:
    """The atom realizations; ``a`` and ``b`` are shared-memory views, or for a forwarded
    mma global ones (read with ``fills``, element by element: ``ldmatrix`` reads shared
    memory only); ``live``: the K steps past it are skipped (bounded K); ``edge``: the
    atom rows and columns outside the arrays are skipped (bounded M/N)."""
    atom = MMA_ATOMS[op.attr("realization")]
    am, an, ak = atom.am, atom.an, atom.ak
    lane, warp = _ids()
    attrs = _atom_attrs(atom)

    def frag_a(row0: ir.AffineExpr) -> ir.IndexMap:
        r, cc = (e.substitute([lane, ir.d(0)]) for e in atom.a.map.results)
        return ir.IndexMap(1, [row0 + r, ir.s(0) * ak + cc], 2)

    def frag_b(col0: ir.AffineExpr) -> ir.IndexMap:
        r, cc = (e.substitute([lane, ir.d(0)]) for e in atom.b.map.results)
        return ir.IndexMap(1, [ir.s(0) * ak + r, col0 + cc], 2)

    def issue(fa: ir.Value, fb: ir.Value, acc: ir.Value) -> ir.Value:
        return g.atom(atom.catalog_id, [fa, fb, acc], [acc.type], **attrs).result

    in_t = a.type.dtype
    ldmatrix = in_t.bits == 16 and atom.am == 16 and atom.ak == 16 \
        and a.type.space == "shared" and b.type.space == "shared"
    fill_a, fill_b = fills

    def load_a(syms: list[ir.Value], row0: ir.AffineExpr) -> ir.Value:
        """An A fragment: ``ldmatrix.x4`` for 16-bit operands (lane 8j + r supplies row r
        of 8x8 matrix j; matrix j is rows 8*(j%2), columns 8*(j//2) of the 16x16 tile,
        which is exactly the atom's A layout), else element loads through the layout."""
        if not ldmatrix:
            return _load(g, a, syms, frag_a(row0), atom.a.regs, fill_a)
        row = row0 + lane.floordiv(8).mod(2) * 8 + lane.mod(8)
        col = ir.s(0) * ak + lane.floordiv(16) * 8 + ir.d(0)
        v = g.view(a, syms, ir.IndexMap(1, [row, col], 2), (8,), False)
        return g.atom("ldmatrix.x4", [v], [ir.TileType((8,), in_t)]).result

    steps = k // ak
    if op.attr("distribution") == "rectangle":
        rm, rn = op.attr("rm"), op.attr("rn")
        row0, col0 = _origin(op, warp, am, an)
        # bounded M/N views: the rectangle's guards (subgroup-uniform), before its K loop
        rect = rect_edge(g, edge, row0, col0, rm, rn, am, an) if edge is not None else None

        def col_ok(fn: int) -> ir.Value | None:
            return None if rect is None else rect.cols[fn]

        def load_b(syms: list[ir.Value]) -> list[ir.Value]:
            """The subgroup's ``rn`` B fragments: pairs of 8-column blocks by
            ``ldmatrix.x4.trans`` when enabled (16-bit), element loads otherwise. A K-major
            B (``k_major``: its K axis contiguous) takes ``ldmatrix.x4`` instead: lane
            ``8j + r`` supplies column ``8*(j // 2) + r`` from K row ``8*(j % 2)`` on, 8
            contiguous elements, and the matrices arrive in the same register order."""
            out: list[ir.Value] = []
            fn = 0
            while fn < rn:
                if ldmatrix and (k_major or g.ldmatrix_trans) and fn + 1 < rn:
                    # the row a lane supplies, and the 8 contiguous elements along it
                    k = ir.s(0) * ak + lane.floordiv(8).mod(2) * 8
                    n = col0 + fn * an + lane.floordiv(16) * 8
                    k, n = (k + ir.d(0), n + lane.mod(8)) if k_major \
                        else (k + lane.mod(8), n + ir.d(0))
                    cid = "ldmatrix.x4" if k_major else "ldmatrix.x4.trans"
                    pair = guarded_value(g, col_ok(fn), lambda k=k, n=n, cid=cid: g.atom(
                        cid, [g.view(b, syms, ir.IndexMap(1, [k, n], 2), (8,), False)],
                        [ir.TileType((8,), in_t)]).result, 8, in_t)
                    out += [g.slice(pair, 0, 4), g.slice(pair, 4, 4)]
                    fn += 2
                else:
                    out.append(guarded_value(g, col_ok(fn), lambda fn=fn: _load(
                        g, b, syms, frag_b(col0 + fn * an), atom.b.regs, fill_b),
                        atom.b.regs, in_t))
                    fn += 1
            return out

        if rect is not None:  # atom (fm, fn) is computed when its row and column start inside
            issue_ok = [both(g, rect.rows[f // rn], rect.cols[f % rn]) for f in range(rm * rn)]
        else:
            issue_ok = [None] * (rm * rn)

        def body(iv: ir.Value, accs: list[ir.Value]) -> list[ir.Value]:
            syms = [iv, g.tid]
            fa = [guarded_value(g, None if rect is None else rect.rows[fm],
                                lambda fm=fm: load_a(syms, row0 + fm * am),
                                8 if ldmatrix else atom.a.regs, in_t) for fm in range(rm)]
            fb = load_b(syms)
            return [_branch(g, issue_ok[f], lambda f=f, acc=acc: [
                issue(fa[f // rn], fb[f % rn], acc)], [acc])[0] for f, acc in enumerate(accs)]

        parts = list(c.parts)
        return Lowered(c.layout, _branch(g, None if rect is None else rect.inside,
                                         lambda: _k_loop(g, steps, parts, body, live), parts,
                                         GUARD))
    # one-atom reference: job r of subgroup w is atom r*G + w
    def job(row0: ir.AffineExpr, col0: ir.AffineExpr, acc: ir.Value) -> list[ir.Value]:
        def body(iv: ir.Value, accs: list[ir.Value]) -> list[ir.Value]:
            syms = [iv, g.tid]
            fa = load_a(syms, row0)
            fb = _load(g, b, syms, frag_b(col0), atom.b.regs, fill_b)
            return [issue(fa, fb, accs[0])]

        return _k_loop(g, steps, [acc], body, live)

    return _atom_jobs(g, c, am, an, warp, job, edge)


# ------------------------------------------------------------------- warpgroups


def _register_a(g: GroupLowering, op: ir.Operation, m: int, k: int) -> list[ir.Value] | None:
    """A's registers, one array per 8 K columns, when they already hold the warpgroup
    instruction's register A fragments (``WgmmaAtom.a``) so that no staging is needed;
    None otherwise. That is the layout of a warpgroup accumulator of the same M x K shape
    (the C fragments of two adjacent 8-column blocks are one step's A fragment), e.g.
    attention's probabilities cast in the scores' registers. Checked on every thread and
    register of the layout's table; not in a loop that keeps groups in flight (a register
    operand must not change before its group retires, and the loop's next iteration writes
    it)."""
    atom = WGMMA_ATOMS[op.attr("realization")]
    v = op.operand(0)
    loop = op.parent_op
    if isinstance(g.lookup(v), Staged) or (loop is not None and loop.attr("in_flight")):
        return None
    x = g.tile(v)
    lay = x.layout
    if tuple(lay.shape) != (m, k) or k % atom.k or x.sizes != [4] * (k // 8) \
            or lay.replicated or lay.masked or g.threads != lay.threads \
            or g.threads != 2 * m:
        return None
    (rows, cols), valid = lay.table()
    if not bool(np.all(valid)):
        return None
    t = np.arange(g.threads)[:, None]
    lane, e = t % 32, np.arange(8)[None, :]
    ar, ac = (np.broadcast_to(np.asarray(r, np.int64), (g.threads, 8))
              for r in atom.a.map.apply((lane, e)))
    want_r = ar + 16 * (t // 32)  # warp q of warpgroup w: rows 64w + 16(q mod 4) ..
    for ks in range(k // atom.k):
        # parts 2ks and 2ks + 1 (4 registers each) are registers 8ks .. 8ks + 7
        regs = slice(8 * ks, 8 * ks + 8)
        if not (np.array_equal(rows[:, regs], want_r)
                and np.array_equal(cols[:, regs], ac + 16 * ks)):
            return None
    return list(x.parts)


def _wgmma(g: GroupLowering, op: ir.Operation, c: Lowered, a: ir.Value | None, b: ir.Value,
           k: int, k_major: bool = False, a_regs: list[ir.Value] | None = None) -> Lowered:
    """Warpgroup ``w`` (threads ``128w ..``) owns accumulator rows ``64w ..`` of the tile (the
    rectangle layout with ``gn = 1``, ``rm = 1``: warp ``q`` rows ``16q ..``, its ``rn``
    fragments the column blocks). Per 16-wide K step one instruction reads the warpgroup's
    64 x 16 slice of A and the 16 x n slice of B straight from the staged (swizzled) shared
    tiles; the steps form one committed group, waited for before the accumulators are used
    (and before the next iteration's barrier lets the ring version be refilled). In a loop
    scheduled with ``in_flight = L`` the loop waits instead, leaving ``L`` groups pending: the
    next iteration's instructions issue while this one's retire (see ``machine_pipeline``).
    A ``k_major`` B (a staged ``x.T``: the buffer holds B's N x K rows in the canonical
    layout) is described like A and read untransposed (``b_major = "k"``). With ``a_regs``
    (``_register_a``) A comes from registers: each step's two 4-register arrays are the
    call's first operand and its last (``a_regs = True``)."""
    atom = WGMMA_ATOMS[op.attr("realization")]
    rn = op.attr("rn")
    if op.attr("gn") != 1 or op.attr("rm") != 1:
        raise LoweringBug(ir.format_located(
            f"internal: a {op.attr('gm')}x{op.attr('gn')}/{op.attr('rm')}x{rn} rectangle is "
            "not a warpgroup shape (the planner's wgmma rule needs gn = rm = 1)", op.loc))
    n = rn * 8
    wg = g.arith("floordiv", g.tid, g.index(128))
    accs = list(c.parts)
    # descriptor strides of the swizzled canonical layouts (``swizzled_map``), in bytes: 8-row
    # groups 1024 apart in both operands; B's 64-column blocks are k rows of 128 bytes apart
    # (a K-major B is laid out like A: the leading stride is unused inside a 64-wide block)
    descriptor = {"a_sbo": 8 * SWIZZLE_BYTES, "b_sbo": 8 * SWIZZLE_BYTES,
                  "b_lbo": 16 if k_major else k * SWIZZLE_BYTES,
                  "b_major": "k" if k_major else "n"}
    kk = atom.k
    if g.turns is not None:  # the warpgroup's turn at the tensor cores (machine_turns)
        g.turns.before_product()
    g.atom("wgmma.fence", [], [ir.token])
    for ks in range(k // kk):
        bv = g.view(b, [], ir.IndexMap(2, [ir.d(0) + ks * kk, ir.d(1)]), (kk, n), False)
        if a_regs is not None:
            accs = list(g.atom(atom.catalog_id, [a_regs[2 * ks], bv, *accs,
                                                 a_regs[2 * ks + 1]],
                               [x.type for x in accs], n=n, a_regs=True,
                               **descriptor).results)
            continue
        assert a is not None
        av = g.view(a, [wg], ir.IndexMap(2, [ir.s(0) * WGMMA_ROWS + ir.d(0),
                                             ir.d(1) + ks * kk], 1),
                    (WGMMA_ROWS, kk), False)
        accs = list(g.atom(atom.catalog_id, [av, bv, *accs], [x.type for x in accs],
                           n=n, **descriptor).results)
    g.atom("wgmma.commit", [], [ir.token])
    if g.turns is not None:
        g.turns.after_product()
    loop = op.parent_op
    if loop is None or not loop.attr("in_flight"):  # else Staging.end_iteration waits
        if _carried_only(g, op):
            g.deferred_retire = True  # retired before the loop's yield (machine_control)
        else:
            g.atom("wgmma.wait", [], [], pending=0)
    return Lowered(c.layout, accs)


def _carried_only(g: GroupLowering, op: ir.Operation) -> bool:
    """Whether the group of ``op`` may stay in flight to the end of its loop's iteration:
    ``op`` lies in the body of the staged loop being lowered (``g.retire_block``, which
    retires every group before its yield) and its result is read only by that yield (a
    product for the next iteration, as a software-pipelined attention's next scores). The
    rest of the iteration then runs beside it: the group reads its own ring version, which
    is released after the yield's wait."""
    blk = g.retire_block
    if blk is None or op.parent is not blk:
        return False
    term = blk.terminator
    return all(u.owner is term for u in op.result.uses)


def _fragments_from(g: GroupLowering, a: ir.Value, atom: WgmmaAtom, k: int
                    ) -> list[ir.Value]:
    """A's register fragments (``WgmmaAtom.a``), two halves per K step, loaded element by
    element from the ``M x K`` view ``a`` (a staged tile read as it is or transposed, or a
    staging buffer): warp ``q`` of warpgroup ``w`` holds rows ``64w + 16q ..`` of it. The
    instruction rounds them to TF32 as it issues (``WgmmaAtom.precision``)."""
    tid = ir.s(0)
    row0 = tid.floordiv(128) * WGMMA_ROWS + tid.floordiv(32).mod(4) * 16
    r, c = (e.substitute([tid.mod(32), ir.d(0)]) for e in atom.a.map.results)
    out: list[ir.Value] = []
    for ks in range(k // atom.k):
        frag = _load(g, a, [g.tid], ir.IndexMap(1, [row0 + r, c + ks * atom.k], 1),
                     atom.a.regs)
        out += [g.slice(frag, 0, atom.a_half), g.slice(frag, atom.a_half, atom.a_half)]
    return out


# ------------------------------------------------------------------------ lanes


def _lane(g: GroupLowering, op: ir.Operation, c: Lowered, a: ir.Value, b: ir.Value,
          k: int, live: ir.Value | None = None, edge: Edge | None = None) -> Lowered:
    atom = LANE_ATOMS[op.attr("atom")]
    am, an, cr = atom.am, atom.an, atom.c.regs
    lane, warp = _ids()
    lrow = atom.c.map.results[0].substitute([lane, ir.const(0)])
    fused = op.attr("policy").order != "strict_fold"
    precision = op.attr("policy").precision
    in_t = a.type.dtype

    def col(e: ir.AffineExpr) -> ir.AffineExpr:
        return atom.c.map.results[1].substitute([lane, e])

    def micro(row0: ir.AffineExpr, col0: ir.AffineExpr, rm: int, rn: int, acc: ir.Value,
              iv: ir.Value) -> ir.Value:
        syms = [iv, g.tid]
        av = _load(g, a, syms, ir.IndexMap(1, [row0 + ir.d(0) * am + lrow, ir.s(0)], 2), rm)
        e = ir.d(0).mod(cr) if cr > 1 else ir.const(0)
        f = ir.d(0).floordiv(cr) if cr > 1 else ir.d(0)
        bv = _load(g, b, syms, ir.IndexMap(1, [ir.s(0), col0 + f * an + col(e)], 2), rn * cr)
        size = rm * rn * cr
        ab = av if rn * cr == 1 else g.op(
            "reindex", [av], [ir.TileType((size,), in_t)],
            {"map": ir.IndexMap(1, [ir.d(0).floordiv(rn * cr)])}).result
        bb = bv if rm == 1 else g.op(
            "reindex", [bv], [ir.TileType((size,), in_t)],
            {"map": ir.IndexMap(1, [ir.d(0).mod(rn * cr)])}).result
        return g.op("map", [acc, ab, bb], [acc.type], {"shape": ir.IndexSet([size])},
                    [mac_region(acc.type.dtype, in_t, fused, precision)]).result

    if op.attr("distribution") == "rectangle":
        rm, rn = op.attr("rm"), op.attr("rn")
        row0, col0 = _origin(op, warp, am, an)
        if len(c.parts) != 1:
            raise LoweringBug(ir.format_located(
                f"internal: the lane micro-tile accumulator is one register array, not "
                f"{len(c.parts)} parts of {c.layout}", op.loc))
        unroll = next(x for x in (4, 2, 1) if k % x == 0)  # machine_bounded_k.k_step
        # bounded M/N views: a lane whose micro-tile starts outside skips its K loop (its
        # rows are row0 + fm*am + fr, its columns col0 + fc0*rn + j: the first is the least)
        fr, fc0 = (e.substitute([lane, ir.const(0)]) for e in atom.c.map.results)
        inside = lane_inside(g, edge, row0 + fr, col0 + fc0 * rn)
        parts = list(c.parts)
        out = _branch(g, inside, lambda: _k_loop(
            g, k // unroll, parts,
            lambda iv, accs: [_lane_tile_step(g, a, b, atom, row0, col0, rm, rn, unroll,
                                              accs[0], iv, fused, precision)], live),
            parts, GUARD)
        return Lowered(c.layout, out)
    return _atom_jobs(g, c, am, an, warp, lambda row0, col0, acc: _k_loop(
        g, k, [acc], lambda iv, accs: [micro(row0, col0, 1, 1, accs[0], iv)], live), edge)


def _atom_jobs(g: GroupLowering, c: Lowered, am: int, an: int, warp: ir.AffineExpr,
               run: Callable[[ir.AffineExpr, ir.AffineExpr, ir.Value], list[ir.Value]],
               edge: Edge | None = None) -> Lowered:
    """The one-atom reference distribution: accumulator part ``r`` of subgroup ``w`` is atom
    ``r*G + w`` (``_job``), computed by ``run(row0, col0, acc)`` under its job guard (and,
    with bounded M/N views, when the atom starts inside the arrays)."""
    subgroups = g.threads // 32
    u, v = int(c.layout.shape[0]) // am, int(c.layout.shape[1]) // an
    parts = []
    for r, acc in enumerate(c.parts):
        row0, col0 = _job(r, subgroups, v, am, an, warp)
        parts.extend(_branch(g, both(g, _job_guard(g, r, subgroups, u * v),
                                     job_inside(g, edge, row0, col0)),
                             lambda row0=row0, col0=col0, acc=acc: run(row0, col0, acc),
                             [acc]))
    return Lowered(c.layout, parts)


def _lane_tile_step(g: GroupLowering, a: ir.Value, b: ir.Value, atom: object,
                    row0: ir.AffineExpr, col0: ir.AffineExpr, rm: int, rn: int, unroll: int,
                    acc: ir.Value, step: ir.Value, fused: bool, precision: str) -> ir.Value:
    """``unroll`` K steps of the lane micro-tile (``layouts.lane_tile``): the lane's A values
    (``unroll`` consecutive K per row: one vector per row) and B values (its consecutive
    columns for each K), then one FMA per accumulator per K step, in K order."""
    lay = atom.c  # type: ignore[attr-defined]
    am, cr = atom.am, lay.regs  # type: ignore[attr-defined]
    lane = ir.s(1).mod(32)
    fr = lay.map.results[0].substitute([lane, ir.const(0)])
    fc0 = lay.map.results[1].substitute([lane, ir.const(0)])
    in_t = a.type.dtype
    syms = [step, g.tid]
    kk = ir.d(0).mod(unroll) if unroll > 1 else ir.const(0)
    fm = ir.d(0).floordiv(unroll) if unroll > 1 else ir.d(0)
    av = _load(g, a, syms, ir.IndexMap(1, [row0 + fm * am + fr, ir.s(0) * unroll + kk], 2),
               rm * unroll)
    width = cr * rn
    j = ir.d(0).mod(width) if width > 1 else ir.const(0)
    kb = ir.d(0).floordiv(width) if width > 1 else ir.d(0)
    bv = _load(g, b, syms, ir.IndexMap(1, [ir.s(0) * unroll + kb, col0 + fc0 * rn + j], 2),
               unroll * width)
    size = rm * width
    for x in range(unroll):
        ab = g.op("reindex", [av], [ir.TileType((size,), in_t)],
                  {"map": ir.IndexMap(1, [ir.d(0).floordiv(width) * unroll + x])}).result
        bb = g.op("reindex", [bv], [ir.TileType((size,), in_t)],
                  {"map": ir.IndexMap(1, [ir.d(0).mod(width) + x * width])}).result
        acc = g.op("map", [acc, ab, bb], [acc.type], {"shape": ir.IndexSet([size])},
                   [mac_region(acc.type.dtype, in_t, fused, precision)]).result
    return acc
