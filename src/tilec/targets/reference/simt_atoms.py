"""Atom implementations of the SIMT simulator, one per ``atom.call`` catalog id.

Each implementation gets every thread's operands at once (leading axis
``T``) and the mask of active threads. Matrix atoms go through the fragment
layouts of ``tilec.ir.atoms``: each warp's A, B and C are *gathered* from
its 32 lanes' registers through the catalog's ``(lane, register) -> (row,
col)`` maps, multiplied with the reference numerics, and D is scattered back
the same way, so a program whose registers do not follow the layout gets a
wrong answer, as on hardware.

Participation rules (what a GPU leaves undefined, the simulator reports):

* ``barrier.group`` and ``vote.any``: every thread of the group, at uniform
  control flow; ``barrier.subgroup``: every thread of a subgroup or none of it (it orders
  accesses within each subgroup only: ``GroupClock.hb``);
* warp atoms (``mma.*``, ``ldmatrix.x4``, ``ldmatrix.x4.trans``): all 32 lanes of a
  warp or none; an ``ldmatrix`` row is 16 contiguous, 16-byte aligned bytes;
* ``shfl.xor``: an active lane may only read an active lane of its warp;
* ``mbarrier.*`` and ``tma.load``: any active lanes, one after another in thread order
  (the barrier and copy model is ``simt_mbarrier``; ``barrier.cluster``,
  ``mbarrier.arrive.peer`` and multicast copies are ``simt_cluster``'s).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

import tilec.ir as ir
from tilec.ir.atoms import MMA_ATOMS, TMA_ALIGN, WGMMA_ATOMS, FragmentLayout, MmaAtom, WgmmaAtom
from tilec.targets import numerics as nx

from .errors import SimulationError, describe_op
from .simt_mbarrier import Mbarriers, barrier_elements
from .simt_memory import AsyncCopies, GroupClock, LaneView, gather
from .simt_wgmma import InFlightGroups

__all__ = ["AtomContext", "ATOM_IMPLS", "atom_impl", "run_atom", "diverged", "WARP"]

WARP = 32
"""Lanes per warp."""


class AtomContext(Protocol):
    """What an atom implementation may ask of the running group."""

    lanes: int
    """Threads in the group (``T``)."""
    clock: GroupClock
    """The barrier epoch."""
    copies: AsyncCopies
    """cp.async state."""
    wgmma: InFlightGroups
    """Warpgroup instruction groups not yet retired."""
    mbarriers: Mbarriers
    """Shared-memory barriers and the ``tma.load`` copies completing on them."""
    registers: Any
    """Register budgets per warpgroup (``simt_roles.Registers``)."""
    named_barriers: dict[int, np.ndarray]
    """Per named barrier id, the threads that meet at it (a mask)."""
    turns: Any
    """The warpgroups' turns (``simt_turns.TurnLedger``)."""
    roles: Any
    """The running role split's baton (``simt_roles.Baton``), or None."""
    cluster: Any
    """The group in its running cluster (``simt_cluster.Member``), or None."""
    bulk: Any
    """Tensor stores in flight and proxy fences (``simt_bulk.BulkStores``)."""

    def divergence_cause(self) -> ir.Operation | None:
        """The innermost enclosing operation that made some threads inactive, if any."""
        ...


def pending_of(op: ir.Operation) -> int:
    """A wait atom's ``pending`` count (groups left in flight), checked."""
    n = op.attr("pending", 0)
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise SimulationError(f"{op.attr('catalog_id')} needs an integer pending >= 0, got "
                              f"{n!r}", "unsupported", [op])
    return n


def diverged(ctx: AtomContext, op: ir.Operation, message: str) -> SimulationError:
    """A divergence error at ``op``; it names the ``if`` that made threads inactive too."""
    cause = ctx.divergence_cause()
    return SimulationError(message, "divergence", [op] + ([cause] if cause is not None else []))


AtomImpl = Callable[[AtomContext, ir.Operation, list[Any], np.ndarray], Sequence[Any]]
"""``(group, op, operands with a leading thread axis, active mask) -> results``."""

ATOM_IMPLS: dict[str, AtomImpl] = {}
"""Catalog id to implementation."""


def atom_impl(*ids: str) -> Callable[[AtomImpl], AtomImpl]:
    """Register the decorated function as the implementation of catalog ``ids``."""

    def deco(fn: AtomImpl) -> AtomImpl:
        for i in ids:
            ATOM_IMPLS[i] = fn
        return fn

    return deco


def run_atom(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
             ) -> Sequence[Any]:
    """Execute one ``atom.call`` for the active threads."""
    cid = op.attr("catalog_id")
    impl = ATOM_IMPLS.get(cid)
    if impl is None:
        raise SimulationError(f"the simulator has no implementation of atom {cid!r} "
                              f"(it knows {', '.join(sorted(ATOM_IMPLS))})", "unsupported", [op])
    return impl(ctx, op, args, active)


def _tokens(op: ir.Operation) -> list[Any]:
    return [None] * len(op.results)


def _lane_list(mask: np.ndarray, limit: int = 8) -> str:
    idx = np.flatnonzero(mask)
    text = ", ".join(str(int(i)) for i in idx[:limit])
    return text + (", ..." if idx.size > limit else "")


# ------------------------------------------------------------------ barrier


@atom_impl("barrier.group")
def _barrier(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
             ) -> Sequence[Any]:
    if not active.all():
        cause = ctx.divergence_cause()
        ops = [op] + ([cause] if cause is not None else [])
        why = f", because of {describe_op(cause)}" if cause is not None else ""
        name = op.attr("catalog_id") if op.name == "atom.call" else "barrier.group"
        raise SimulationError(
            f"{name} is reached by {int(active.sum())} of the group's {ctx.lanes} "
            f"threads (threads {_lane_list(~active)} do not arrive{why}); a group barrier "
            f"must be at control flow that is uniform across the group", "divergence", ops)
    ctx.clock.advance(op)
    return _tokens(op)


@atom_impl("barrier.subgroup")
def _subgroup_barrier(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
                      ) -> Sequence[Any]:
    # The threads of each subgroup meet: every thread's earlier accesses are ordered before
    # the later ones of the threads of its own subgroup only (``GroupClock.hb``, as a named
    # barrier over each subgroup's threads); the epoch does not advance, so an access of
    # another subgroup's thread still races.
    width = int(op.attr("width"))
    lanes = np.arange(ctx.lanes)
    for w in range(-(-ctx.lanes // width)):
        mine = (lanes // width) == w
        if active[mine].any() and not active[mine].all():
            missing = lanes[mine & ~active]
            cause = ctx.divergence_cause()
            why = f", because of {describe_op(cause)}" if cause is not None else ""
            raise SimulationError(
                f"barrier.subgroup is reached by {int(active[mine].sum())} of the "
                f"{int(mine.sum())} threads of subgroup {w} (threads "
                f"{', '.join(str(int(t)) for t in missing[:8])} do not arrive{why}); every "
                "thread of a subgroup must reach its barrier", "divergence",
                [op] + ([cause] if cause is not None else []))
    for w in range(-(-ctx.lanes // width)):
        who = np.flatnonzero(((lanes // width) == w) & active)
        if who.size:
            ctx.clock.meet(who, ctx.lanes)
    return _tokens(op)


@atom_impl("vote.any")
def _vote_any(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
              ) -> Sequence[Any]:
    # A barrier first (its participation rule and its ordering of shared memory), then the
    # group-wide or of every register.
    _barrier(ctx, op, [], active)
    seen = any(bool(np.asarray(x).reshape(ctx.lanes, -1)[active].any()) for x in args)
    return [np.full(ctx.lanes, seen, bool)]


# ------------------------------------------------------------------ shuffles


@atom_impl("shfl.xor")
def _shfl_xor(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
              ) -> Sequence[Any]:
    value, mask = np.asarray(args[0]), np.asarray(args[1], np.int64)
    t = np.arange(ctx.lanes)
    bad = active & ((mask < 0) | (mask >= WARP))
    if bad.any():
        k = int(np.argmax(bad))
        raise SimulationError(f"shfl.xor: thread {k} passes lane mask {int(mask[k])}, outside "
                              f"[0, {WARP}) (width = {WARP})", "unsupported", [op])
    src = (t & ~(WARP - 1)) | ((t & (WARP - 1)) ^ np.where(active, mask, 0))
    missing = active & (src >= ctx.lanes)
    if missing.any():
        k = int(np.argmax(missing))
        raise SimulationError(f"shfl.xor: thread {k} reads lane {int(src[k])}, which does not "
                              f"exist in a group of {ctx.lanes} threads", "divergence", [op])
    src = np.minimum(src, ctx.lanes - 1)
    idle = active & ~active[src]
    if idle.any():
        k = int(np.argmax(idle))
        raise diverged(ctx, op, f"shfl.xor: thread {k} reads thread {int(src[k])}, which is "
                                f"inactive here (threads {_lane_list(idle)} read inactive lanes)")
    return [value[src]]


# ------------------------------------------------------------------ warp-wide atoms


def _warps(ctx: AtomContext, op: ir.Operation, active: np.ndarray) -> np.ndarray:
    """The warps that execute a warp-wide atom (all lanes active); partial warps are errors."""
    n_full = ctx.lanes // WARP
    if ctx.lanes % WARP and active[n_full * WARP:].any():
        raise SimulationError(f"{op.attr('catalog_id')} is a warp-wide atom, but the group's "
                              f"last warp has only {ctx.lanes % WARP} threads",
                              "unsupported", [op])
    per_warp = active[:n_full * WARP].reshape(n_full, WARP)
    full, some = per_warp.all(axis=1), per_warp.any(axis=1)
    partial = some & ~full
    if partial.any():
        w = int(np.argmax(partial))
        raise diverged(ctx, op, f"{op.attr('catalog_id')} needs all 32 lanes of a warp, but "
                                f"warp {w} runs it with lanes {_lane_list(per_warp[w])} only")
    return np.flatnonzero(full)


@functools.lru_cache(maxsize=64)
def _layout_index(layout: FragmentLayout) -> tuple[np.ndarray, np.ndarray]:
    """Row and column of every ``(lane, register)`` of a fragment layout, arrays ``(32, regs)``."""
    lane, reg = np.meshgrid(np.arange(WARP), np.arange(layout.regs), indexing="ij")
    r, c = layout.map.apply((lane, reg))
    rows = np.broadcast_to(np.asarray(r, np.int64), lane.shape)
    cols = np.broadcast_to(np.asarray(c, np.int64), lane.shape)
    return rows, cols


def _operand(layout: FragmentLayout, regs: np.ndarray) -> np.ndarray:
    """Assemble one warp's ``rows x cols`` operand from its lanes' registers ``(32, regs)``."""
    rows, cols = _layout_index(layout)
    out = np.empty((layout.rows, layout.cols), regs.dtype)
    out[rows, cols] = regs
    return out


def _check_regs(op: ir.Operation, role: str, x: np.ndarray, lanes: int, layout: FragmentLayout,
                dt: np.dtype) -> None:
    if x.shape != (lanes, layout.regs):
        raise SimulationError(f"{op.attr('catalog_id')}: operand {role} holds "
                              f"{x.shape[1:]} registers per thread, the atom takes "
                              f"{layout.regs}", "unsupported", [op])
    if x.dtype != dt:
        raise SimulationError(f"{op.attr('catalog_id')}: operand {role} is {x.dtype}, the "
                              f"atom takes {dt}", "unsupported", [op])


@atom_impl(*MMA_ATOMS)
def _mma(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
         ) -> Sequence[Any]:
    atom: MmaAtom = MMA_ATOMS[op.attr("catalog_id")]
    a, b, c = (np.asarray(x) for x in args)
    in_dt, acc_dt = nx.np_dtype(atom.in_dtype), nx.np_dtype(atom.acc_dtype)
    for role, x, layout, dt in (("a", a, atom.a, in_dt), ("b", b, atom.b, in_dt),
                                ("c", c, atom.c, acc_dt)):
        _check_regs(op, role, x, ctx.lanes, layout, dt)
    precision = "tf32" if atom.precision == "tf32" else "exact"
    out = c.copy()
    rows, cols = _layout_index(atom.c)
    for w in _warps(ctx, op, active):
        lanes = slice(w * WARP, (w + 1) * WARP)
        d = nx.matmul(_operand(atom.a, a[lanes]), _operand(atom.b, b[lanes]),
                      _operand(atom.c, c[lanes]), precision)
        out[lanes] = d[rows, cols]
    return [out]


def _ldmatrix_sources(trans: bool) -> tuple[np.ndarray, np.ndarray]:
    """For ``ldmatrix.x4`` (``.trans``): the lane and row element that lane ``l``'s register
    ``i`` comes from, arrays ``(32, 8)``.

    Lane ``8*j + r`` supplies row ``r`` of matrix ``j`` (8 elements); register ``2*j + c``
    of lane ``l`` holds element ``(l // 4, 2*(l % 4) + c)`` of matrix ``j``, or with
    ``.trans`` element ``(2*(l % 4) + c, l // 4)``: the matrix is delivered transposed.
    """
    lane = np.arange(WARP)[:, None]
    reg = np.arange(8)[None, :]
    j, c = reg // 2, reg % 2
    if trans:
        return np.broadcast_to(8 * j + 2 * (lane % 4) + c, (WARP, 8)), \
            np.broadcast_to(lane // 4, (WARP, 8))
    return np.broadcast_to(8 * j + lane // 4, (WARP, 8)), \
        np.broadcast_to(2 * (lane % 4) + c, (WARP, 8))


@atom_impl("ldmatrix.x4", "ldmatrix.x4.trans")
def _ldmatrix_x4(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
                 ) -> Sequence[Any]:
    cid = op.attr("catalog_id")
    view: LaneView = args[0]
    if not isinstance(view, LaneView) or view.shape != (8,) \
            or view.storage.space != "shared":
        shape = view.shape if isinstance(view, LaneView) else type(view).__name__
        raise SimulationError(f"{cid} takes one 8-element row of shared memory per lane, got "
                              f"{shape}", "unsupported", [op])
    warps = _warps(ctx, op, active)
    dt = view.storage.array.dtype
    if dt.itemsize != 2:
        raise SimulationError(f"{cid} moves 16-bit elements; the shared buffer holds {dt}",
                              "unsupported", [op])
    rows = gather(view, active, op, nx.from_python(0, dt), dt, ctx.copies)
    lanes = np.flatnonzero(active)
    if lanes.size:
        coords, mask = view.locate(active, op)
        if not mask[lanes].all():
            k = int(lanes[np.argmax(~mask[lanes].all(axis=1))])
            raise SimulationError(f"{cid}: the row of thread {k} lies partly outside its view; "
                                  f"each lane supplies a whole 16-byte row", "out_of_range",
                                  [op])
        _check_vector(op, "row", _flat(view, coords)[lanes], dt.itemsize,
                      np.ones(lanes.size, bool))
    src_lane, src_col = _ldmatrix_sources(cid.endswith(".trans"))
    out = np.zeros((ctx.lanes, 8), dt)
    for w in warps:
        base = w * WARP
        out[base:base + WARP] = rows[base + src_lane, src_col]
    return [out]


# ------------------------------------------------------------------ warpgroups

WARPGROUP = 128
"""Threads of a warpgroup."""


def _warpgroups(ctx: AtomContext, op: ir.Operation, active: np.ndarray) -> np.ndarray:
    """Indices of the warpgroups that run a warpgroup atom (all 128 threads or none)."""
    cid = op.attr("catalog_id")
    if ctx.lanes % WARPGROUP:
        raise SimulationError(f"{cid} is a warpgroup atom, but the group has {ctx.lanes} "
                              "threads (not whole warpgroups of 128)", "unsupported", [op])
    per = active.reshape(-1, WARPGROUP)
    partial = per.any(axis=1) & ~per.all(axis=1)
    if partial.any():
        w = int(np.argmax(partial))
        raise diverged(ctx, op, f"{cid} needs all 128 threads of a warpgroup, but warpgroup {w} "
                                f"runs it with threads {_lane_list(per[w])} only")
    return np.flatnonzero(per.all(axis=1))


@atom_impl("wgmma.fence", "wgmma.commit", "wgmma.wait")
def _wgmma_sync(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
                ) -> Sequence[Any]:
    # the product is computed at issue; commit and wait track what is still in flight
    # (simt_wgmma), so that a disturbed instruction is reported instead of trusted
    wgs = _warpgroups(ctx, op, active)
    cid = op.attr("catalog_id")
    if cid == "wgmma.commit":
        ctx.wgmma.commit(wgs)
    elif cid == "wgmma.wait":
        ctx.wgmma.wait(wgs, pending_of(op))
    return _tokens(op)


def _descriptor_read(ctx: AtomContext, op: ir.Operation, view: LaneView, t0: int,
                     shape: tuple[int, int], mn_major: bool, lbo: int, sbo: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """What a warpgroup instruction reads for an operand: the values and physical flat indices
    of ``shape``, addressed the way the matrix descriptor does (not through the view map): the
    start is the view's element (0, 0); element ``(i, j)`` is at logical byte offset
    ``(i div 8) * sbo + (i mod 8) * 128 + 2j`` (K-major, ``j`` along K inside one 128-byte row)
    or ``(j div 64) * lbo + (i div 8) * sbo + (i mod 8) * 128 + 2 (j mod 64)`` (N-major), then
    the 128-byte swizzle. A staged layout that differs from the descriptor reads wrong values,
    as on hardware."""
    cid = op.attr("catalog_id")
    st = view.storage
    if st.space != "shared" or st.swizzle != 128:
        raise SimulationError(f"{cid} reads 128-byte swizzled shared memory; operand "
                              f"{st.name} is {st.space} with swizzle {st.swizzle}",
                              "unsupported", [op])
    es = st.array.dtype.itemsize
    one = np.zeros(ctx.lanes, bool)
    one[t0:t0 + WARPGROUP] = True
    coords, _ = view.locate(one, op)
    starts = np.ravel_multi_index(tuple(np.asarray(c[t0:t0 + WARPGROUP]).reshape(
        WARPGROUP, -1)[:, 0] for c in coords), st.array.shape)
    start = int(starts[0]) * es
    if (starts != starts[0]).any():
        raise SimulationError(f"{cid}: the threads of warpgroup {t0 // WARPGROUP} name "
                              "different operand addresses; a descriptor is warpgroup-uniform",
                              "unsupported", [op])
    if start % 16:
        raise SimulationError(f"{cid}: operand start byte {start} is not 16-byte aligned",
                              "unsupported", [op])
    if not all(0 < x < (1 << 18) and x % 16 == 0 for x in (lbo, sbo)):
        raise SimulationError(f"{cid}: descriptor strides {lbo}, {sbo} do not fit the 14-bit "
                              "fields (16-byte units below 256 KB)", "unsupported", [op])
    i = np.arange(shape[0])[:, None]
    j = np.arange(shape[1])[None, :]
    if mn_major:
        block = 128 // es  # elements of one 128-byte row
        off = (j // block) * lbo + (i // 8) * sbo + (i % 8) * 128 + (j % block) * es
    else:
        off = (i // 8) * sbo + (i % 8) * 128 + j * es
    x = start + off
    if ((start % 128) + (0 if mn_major else shape[1] * es)) > 128:
        raise SimulationError(f"{cid}: a K-major operand row crosses its 128-byte swizzle row",
                              "unsupported", [op])
    phys = (x ^ (((x >> 7) & 7) << 4)) // es
    if (phys >= st.array.size).any() or (phys < 0).any():
        raise SimulationError(f"{cid}: the descriptor of operand {st.name} reaches past the "
                              "buffer", "out_of_range", [op])
    return st.array.reshape(-1)[phys], phys


@atom_impl(*WGMMA_ATOMS)
def _wgmma(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
           ) -> Sequence[Any]:
    atom: WgmmaAtom = WGMMA_ATOMS[op.attr("catalog_id")]
    n = int(op.attr("n"))
    a_regs = bool(op.attr("a_regs"))
    a_view, b_view = args[0], args[1]
    accs = [np.asarray(x) for x in args[2:2 + n // 8]]
    in_dt, acc_dt = nx.np_dtype(atom.in_dtype), nx.np_dtype(atom.acc_dtype)
    a_lanes = None
    if a_regs:  # A's fragment: the first operand's 4 registers, then the last operand's
        a_lanes = np.concatenate([np.asarray(args[0]), np.asarray(args[-1])], axis=1)
        _check_regs(op, "a", a_lanes, ctx.lanes, atom.a, in_dt)
    if not ((a_regs or isinstance(a_view, LaneView)) and isinstance(b_view, LaneView)) \
            or len(accs) != n // 8 or len(args) != 2 + n // 8 + a_regs:
        raise SimulationError(f"{atom.catalog_id} takes two shared views (or A's registers, "
                              f"a_regs) and {n // 8} accumulator fragments", "unsupported",
                              [op])
    for k, x in enumerate(accs):
        _check_regs(op, f"c{k}", x, ctx.lanes, atom.c, acc_dt)
    for v in (b_view,) if a_regs else (a_view, b_view):
        if v.storage.array.dtype != in_dt:
            raise SimulationError(f"{atom.catalog_id} takes {in_dt} operands, got "
                                  f"{v.storage.array.dtype}", "unsupported", [op])
    out = [x.copy() for x in accs]
    rows, cols = _layout_index(atom.c)
    for w in _warpgroups(ctx, op, active):
        t0 = w * WARPGROUP
        kk = atom.k
        if a_lanes is not None:
            a = np.concatenate([_operand(atom.a, a_lanes[t0 + 32 * q:t0 + 32 * q + 32])
                                for q in range(4)])
            if atom.precision == "tf32":  # registers are rounded when the instruction issues
                a = nx.tf32_round(a)
        else:
            a, a_flat = _descriptor_read(ctx, op, a_view, t0, (64, kk), False, 16,
                                         int(op.attr("a_sbo")))
            if atom.precision == "tf32":
                a = nx.tf32_truncate(a)
        if op.attr("b_major") == "k":  # B's N rows of K elements, read like A
            b, b_flat = (x.T for x in _descriptor_read(
                ctx, op, b_view, t0, (n, kk), False, int(op.attr("b_lbo")),
                int(op.attr("b_sbo"))))
        else:
            b, b_flat = _descriptor_read(ctx, op, b_view, t0, (kk, n), True,
                                         int(op.attr("b_lbo")), int(op.attr("b_sbo")))
        if atom.precision == "tf32":
            b = nx.tf32_truncate(b)
        shared = [(b_view, b_flat)] if a_lanes is not None else [(a_view, a_flat),
                                                                 (b_view, b_flat)]
        for view, flat in shared:
            st = view.storage
            f = flat.reshape(-1)
            if st.pending is not None and (st.pending[f] > 0).any():
                ctx.copies.report_pending(st, int(f[np.argmax(st.pending[f] > 0)]), t0, op)
            if st.tma is not None:
                ctx.mbarriers.check_warpgroup(st, f, t0, WARPGROUP, op)
            if st.races is not None:
                st.races.access("read", f, np.full(f.size, t0), op)
        c = np.empty((64, n), acc_dt)
        for q in range(4):
            warp = slice(t0 + 32 * q, t0 + 32 * q + 32)
            for j in range(n // 8):
                c[16 * q + rows, 8 * j + cols] = accs[j][warp]
        d = nx.matmul(a, b, c, "exact")
        for q in range(4):
            warp = slice(t0 + 32 * q, t0 + 32 * q + 32)
            for j in range(n // 8):
                out[j][warp] = d[16 * q + rows, 8 * j + cols]
        ctx.wgmma.issue(int(w), op, [(v.storage, f) for v, f in shared], out)
    return out


# ------------------------------------------------------------------ asynchronous copies


@atom_impl("cp.async.16")
def _cp_async(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
              ) -> Sequence[Any]:
    dst, src = args[0], args[1]
    valid_bytes = np.broadcast_to(np.asarray(args[2], np.int64), (ctx.lanes,))
    if not (isinstance(dst, LaneView) and isinstance(src, LaneView)
            and dst.storage.space == "shared" and src.storage.space == "global"):
        raise SimulationError("cp.async.16 takes a shared destination view and a global "
                              "source view", "unsupported", [op])
    dt = dst.storage.array.dtype
    n = int(np.prod(dst.shape))
    if dst.shape != src.shape or n * dt.itemsize != 16 or src.storage.array.dtype != dt:
        raise SimulationError(f"cp.async.16 copies 16 bytes between views of one shape and "
                              f"dtype; got {dst.shape} {dt} <- {src.shape} "
                              f"{src.storage.array.dtype}", "unsupported", [op])
    lanes = np.flatnonzero(active)
    if lanes.size == 0:
        return _tokens(op)
    dcoords, dmask = dst.locate(active, op)
    if not dmask[lanes].all():
        raise SimulationError("cp.async.16: some destination bytes of an active thread fall "
                              "outside the shared view", "out_of_range", [op])
    elem = np.arange(n).reshape((1,) + dst.shape)
    wanted = active.reshape((-1,) + (1,) * len(dst.shape)) \
        & (elem * dt.itemsize < valid_bytes.reshape((-1,) + (1,) * len(dst.shape)))
    scoords, smask = src.locate(active & (valid_bytes > 0), op)
    missing = wanted & ~smask
    if missing.any():
        k = tuple(int(x) for x in np.argwhere(missing)[0])
        raise SimulationError(f"cp.async.16: thread {k[0]} reads element {k[1:]} of its "
                              f"source ({int(valid_bytes[k[0]])} valid bytes), which lies "
                              f"outside the source view", "out_of_range", [op])
    sflat = _flat(src, scoords)[lanes].reshape(lanes.size, n)
    dflat = _flat(dst, dcoords)[lanes].reshape(lanes.size, n)
    _check_vector(op, "destination", dflat, dt.itemsize, np.ones(lanes.size, bool))
    _check_vector(op, "source", sflat, dt.itemsize, valid_bytes[lanes] >= 16)
    data = np.zeros((lanes.size, n), dt)
    take = wanted[lanes].reshape(lanes.size, n)
    data[take] = src.storage.array.reshape(-1)[sflat[take]]
    ctx.copies.issue(op, dst, dflat, lanes, data)
    return _tokens(op)


def _flat(view: LaneView, coords: tuple[np.ndarray, ...]) -> np.ndarray:
    st = view.storage
    shape = st.array.shape
    clipped = tuple(np.clip(c, 0, max(e - 1, 0)) for c, e in zip(coords, shape))
    flat = np.ravel_multi_index(clipped, shape) if shape else np.zeros(coords[0].shape, np.int64)
    return st.physical(flat)


def _check_vector(op: ir.Operation, role: str, flat: np.ndarray, itemsize: int,
                  rows: np.ndarray) -> None:
    """A 16-byte copy (and an ``ldmatrix`` row) needs 16 contiguous, 16-byte aligned bytes."""
    f = flat[rows]
    if f.size == 0:
        return
    contiguous = (f == f[:, :1] + np.arange(f.shape[1])).all(axis=1)
    aligned = (f[:, 0] * itemsize) % 16 == 0
    bad = ~(contiguous & aligned)
    if bad.any():
        k = int(np.argmax(bad))
        raise SimulationError(f"{op.attr('catalog_id')}: the {role} of one thread is not 16 "
                              f"contiguous, 16-byte aligned bytes (flat elements "
                              f"{f[k].tolist()})",
                              "unsupported", [op])


@atom_impl("cp.async.commit")
def _cp_commit(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
               ) -> Sequence[Any]:
    ctx.copies.commit(active)
    return _tokens(op)


@atom_impl("cp.async.wait")
def _cp_wait(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
             ) -> Sequence[Any]:
    ctx.copies.wait(active, pending_of(op))
    return _tokens(op)


# ------------------------------------------------------------------ mbarriers and TMA copies


def _per_lane(x: Any, lanes: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(x, np.int64), (lanes,))


@atom_impl("mbarrier.init", "mbarrier.inval")
def _mbarrier_init_inval(ctx: AtomContext, op: ir.Operation, args: list[Any],
                         active: np.ndarray) -> Sequence[Any]:
    st, flat = barrier_elements(op, args[0], active)
    init = op.attr("catalog_id") == "mbarrier.init"
    for t in np.flatnonzero(active):
        if init:
            ctx.mbarriers.init(op, st, int(flat[t]), op.attr("count"))
        else:
            ctx.mbarriers.inval(op, st, int(flat[t]))
    return _tokens(op)


@atom_impl("mbarrier.expect_tx")
def _mbarrier_expect_tx(ctx: AtomContext, op: ir.Operation, args: list[Any],
                        active: np.ndarray) -> Sequence[Any]:
    st, flat = barrier_elements(op, args[0], active)
    nbytes = _per_lane(args[1], ctx.lanes)
    for t in np.flatnonzero(active):
        ctx.mbarriers.expect_tx(op, st, int(flat[t]), int(nbytes[t]), int(t))
    return _tokens(op)


@atom_impl("mbarrier.arrive")
def _mbarrier_arrive(ctx: AtomContext, op: ir.Operation, args: list[Any],
                     active: np.ndarray) -> Sequence[Any]:
    st, flat = barrier_elements(op, args[0], active)
    for t in np.flatnonzero(active):
        ctx.mbarriers.arrive(op, st, int(flat[t]), int(t))
    return _tokens(op)


@atom_impl("mbarrier.wait")
def _mbarrier_wait(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
                   ) -> Sequence[Any]:
    st, flat = barrier_elements(op, args[0], active)
    lanes = np.flatnonzero(active)
    if lanes.size:
        ctx.mbarriers.wait(op, st, flat[lanes], lanes, _per_lane(args[1], ctx.lanes)[lanes])
    return _tokens(op)


def tensor_copy_args(ctx: AtomContext, op: ir.Operation, shared: Any, array: Any,
                     coords: Sequence[Any], active: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]] | None:
    """The checked operands of a tensor copy (``tma.load`` and ``tma.store``) between the
    shared view ``shared`` and the whole global array ``array``: the active threads, the
    shared view's logical flat elements per active thread (row-major order) and each
    coordinate per thread; None when no thread is active."""
    cid = op.attr("catalog_id")
    load = cid == "tma.load"
    if not (isinstance(shared, LaneView) and isinstance(array, LaneView)
            and shared.storage.space == "shared" and array.storage.space == "global"):
        what = "a shared destination view and a global array" if load else \
            "a global array and a shared source view"
        raise SimulationError(f"{cid} takes {what}", "unsupported", [op])
    if array.map is not None or array.guards or array.shape != array.storage.array.shape:
        raise SimulationError(f"{cid} {'reads' if load else 'writes'} the whole array "
                              f"{array.storage.name} through its tensor map (a kernel "
                              "parameter), not a view of it", "unsupported", [op])
    box = op.attr("box")
    if not isinstance(box, (tuple, list)) or len(coords) != len(box) \
            or len(box) != len(array.shape):
        raise SimulationError(f"{cid} on {array.storage.name} (rank {len(array.shape)}) needs "
                              f"a box and coordinates per axis; got box {box!r} and "
                              f"{len(coords)} coordinates", "unsupported", [op])
    lanes = np.flatnonzero(active)
    if lanes.size == 0:
        return None
    scoords, smask = shared.locate(active, op)
    if not smask[lanes].all():
        side = "destination" if load else "source"
        raise SimulationError(f"{cid}: some {side} elements of an active thread fall outside "
                              "the shared view", "out_of_range", [op])
    st = shared.storage
    n = int(np.prod(shared.shape))
    picked = tuple(np.asarray(c).reshape(ctx.lanes, n)[lanes] for c in scoords)
    flat = np.ravel_multi_index(picked, st.array.shape) if st.array.ndim \
        else np.zeros((lanes.size, n), np.int64)
    per_lane = [_per_lane(c, ctx.lanes) for c in coords]
    size = array.storage.array.dtype.itemsize
    off = np.asarray(per_lane[-1])[lanes] * size % TMA_ALIGN
    if off.any():
        t = int(lanes[np.flatnonzero(off)[0]])
        col = int(np.asarray(per_lane[-1])[t])
        raise SimulationError(f"{cid} on {array.storage.name}: thread {t}'s box starts at "
                              f"innermost coordinate {col} ({col * size} bytes), not a "
                              f"multiple of {TMA_ALIGN} bytes; the GPU faults (an illegal "
                              "instruction) on such a copy", "unsupported", [op])
    return lanes, flat, per_lane


@atom_impl("tma.load")
def _tma_load(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
              ) -> Sequence[Any]:
    if len(args) < 3:
        raise SimulationError("tma.load takes a shared destination view, the global array, the "
                              "barrier view and one coordinate per array axis", "unsupported",
                              [op])
    dst, src = args[0], args[1]
    got = tensor_copy_args(ctx, op, dst, src, args[3:], active)
    bar, bar_flat = barrier_elements(op, args[2], active)
    if got is None:
        return _tokens(op)
    lanes, dflat, origin = got
    st = dst.storage
    box = op.attr("box")
    cluster = getattr(ctx, "cluster", None)
    if op.attr("multicast") is not None and cluster is None:
        raise SimulationError(f"tma.load with multicast = {op.attr('multicast')!r} on a grid "
                              "without clusters (its parallel has no cluster attribute)",
                              "unsupported", [op])
    for k, t in enumerate(lanes):
        at = tuple(int(c[t]) for c in origin)

        def copy(mb: Mbarriers, lane: int, dst: Any, bar: Any, copies: AsyncCopies,
                 k: int = k, t: int = int(t), at: tuple[int, ...] = at) -> None:
            mb.tma_load(op, lane, dst, dflat[k], src.storage, at, tuple(box), bar,
                        int(bar_flat[t]), op.attr("swizzle"), copies,
                        nan_outside=op.attr("oob") == "nan")

        if op.attr("multicast") is None:
            copy(ctx.mbarriers, int(t), st, bar, ctx.copies)
        else:  # into every group of the cluster (simt_cluster)
            cluster.multicast(op, int(t), st, copy, bar, int(bar_flat[t]))
    return _tokens(op)
