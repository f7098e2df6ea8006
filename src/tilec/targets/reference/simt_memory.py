"""Memory of the SIMT simulator: storage, lane-vectorized views, accesses, cp.async.

Every access is made by all active threads of a group at once: a view's
symbols are per-thread arrays (leading axis ``T``), so locating a view gives
root coordinates of shape ``(T, *view shape)`` plus a validity mask.

Race detection (``simt_races``). Every shared access is checked against
the group's other threads by the allocation's ``RaceTracker`` (epochs cut by
``barrier.group``); every global write by ``ProgramWrites`` against the other
programs of the launch.

cp.async model. ``cp.async.16`` reads its global source when it is issued
and leaves its shared destination *pending*; the shared write happens, and
is checked for races as a write by the issuing thread attributed to the
``cp.async.16`` operation, at the first ``cp.async.wait`` of that thread
that covers its group (``pending = n`` completes every committed group but
the newest ``n``). Reading or writing a pending destination before then is
reported as a race with the copy (on hardware it reads stale data).

TMA copies (``simt_mbarrier``) tag the shared elements they write with a barrier phase
(``Storage.tma``); every access checked here also checks those tags.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.ir.atoms import SWIZZLE_ALIGN
from tilec.targets import numerics as nx
from tilec.targets.view_guards import Guard, compose_view

from .errors import SimulationError, describe_op
from .simt_races import ProgramWrites, RaceTracker

__all__ = ["Storage", "LaneView", "GroupClock", "AsyncCopies", "gather",
           "scatter", "atomic_update",
           "read_at", "write_at", "lane_broadcast", "lane_coords", "value_name"]


# ------------------------------------------------------------------ coordinates


@functools.lru_cache(maxsize=512)
def _grid(shape: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """Row-major coordinates of ``shape``, each of shape ``(1, *shape)`` (the lane axis first)."""
    out = []
    for g in np.indices(shape, dtype=np.int64) if shape else ():
        g = g.reshape((1,) + shape)
        g.setflags(write=False)
        out.append(g)
    return tuple(out)


def lane_broadcast(x: Any, rank: int) -> Any:
    """A per-thread array ``(T,)`` reshaped to ``(T, 1, ..)`` for ``rank`` trailing axes.

    Uniform values (Python or numpy scalars) are returned unchanged.
    """
    a = np.asarray(x)
    if a.ndim == 0:
        return a[()]
    return a.reshape(a.shape + (1,) * rank)


def lane_coords(m: ir.IndexMap, shape: tuple[int, ...], syms: Sequence[Any], lanes: int
                ) -> tuple[np.ndarray, ...]:
    """``m`` at every point of ``shape`` for every thread: arrays of shape ``(T, *shape)``."""
    full = (lanes,) + shape
    coords = m.apply(_grid(shape), [lane_broadcast(v, len(shape)) for v in syms])
    return tuple(np.broadcast_to(np.asarray(c, np.int64), full) for c in coords)


# ------------------------------------------------------------------ storage


class GroupClock:
    """The barrier epoch of one group (advanced by every ``barrier.group``), its lock-step
    time and the orders barrier arrivals made (``hb``)."""

    def __init__(self) -> None:
        self.epoch = 0
        """Barriers passed so far."""
        self.last_barrier: ir.Operation | None = None
        """The barrier that opened the current epoch (None: the group start)."""
        self.now = 0
        """Lock-step time: advanced by every recorded shared access and barrier arrival."""
        self.hb: np.ndarray | None = None
        """Orders made by shared-memory barriers (None until a wait joins an arrival; never
        reset, as time only grows): ``hb[t, u]`` is the time before which thread ``u``'s
        accesses are ordered before thread ``t``'s later ones (``u`` arrived on a phase
        ``t`` waited for; ``simt_mbarrier``)."""
        self.lanes = 0
        """Threads of the group (set when its lane-level body starts)."""
        self.width = 0
        """Threads the detector knows: ``lanes``, and in a cluster ``lanes`` more per other
        group of the cluster (*mirror lanes*: lane ``lanes * j + t`` stands for thread ``t``
        of the ``j``-th other group; ``simt_cluster``)."""
        self.name = ""
        """How messages name the group in a cluster (``program 3``)."""
        self.peers: tuple[str, ...] = ()
        """How messages name the other groups of the cluster, in mirror order."""
        self.floor = 0
        """The epoch at the latest ``barrier.cluster``: a mirror lane's access is checked
        against every access since (a barrier of this group alone does not order it)."""

    def orders(self, lanes: int) -> np.ndarray:
        """``hb``, made (no orders yet) on first use for ``lanes`` threads and the mirror
        lanes."""
        if self.hb is None:
            n = max(lanes, self.width)
            self.hb = np.full((n, n), -1, np.int64)
        return self.hb

    def thread(self, lane: int) -> str:
        """How messages name thread (or mirror lane) ``lane``."""
        if self.lanes and lane >= self.lanes:
            return f"thread {lane % self.lanes} of {self.peers[lane // self.lanes - 1]}"
        return f"thread {lane} of {self.name}" if self.name else f"thread {lane}"

    def tick(self) -> int:
        """The next point of lock-step time."""
        self.now += 1
        return self.now

    def meet(self, who: np.ndarray, lanes: int) -> None:
        """Threads ``who`` meet at a barrier now (a named or subgroup barrier): each one's
        earlier accesses are ordered before the later ones of the others, and so is whatever
        was ordered before any of them (the order is transitive: a thread ordered after a
        barrier's arriver is ordered after the accesses ordered before that arrival)."""
        hb = self.orders(lanes)
        t = self.tick()
        rows = hb[who]
        hb[who] = np.maximum(rows, rows.max(axis=0))
        sub = np.ix_(who, who)
        hb[sub] = np.maximum(hb[sub], t)

    def advance(self, barrier: ir.Operation) -> None:
        """Start a new epoch at ``barrier``."""
        self.epoch += 1
        self.last_barrier = barrier

    def since(self) -> str:
        """Where the current epoch began, for messages."""
        b = self.last_barrier
        return "the start of the group" if b is None else f"the barrier at {b.loc}"


@dataclass(eq=False)
class Storage:
    """One allocation: a kernel argument (global), a group's shared memory or per-thread local."""

    array: np.ndarray
    """The data; for ``local`` storage the leading axis is the thread."""
    space: str
    """``global``, ``shared`` or ``local``."""
    name: str
    """How messages name it (``%As``, ``parameter 0 ('A')``)."""
    op: ir.Operation | None = None
    """The ``memory`` operation that made it (None for kernel arguments)."""
    races: RaceTracker | None = None
    """The race detector (shared storage only)."""
    programs: ProgramWrites | None = None
    """Which program wrote each element in this launch (global storage only)."""
    pending: np.ndarray | None = None
    """Shared storage: per flat element, the number of cp.async writes not yet completed."""
    swizzle: int = 0
    """Shared storage: 128 when the buffer is 128-byte swizzled (``memory {swizzle}``): the
    element at logical flat index ``i`` lives at ``physical(i)``."""
    mma_reads: np.ndarray | None = None
    """Shared storage: per physical flat element, the ``wgmma`` reads not yet retired (set
    when a warpgroup instruction first reads it; ``simt_wgmma``)."""
    mma: Any = None
    """The ``simt_wgmma.InFlightGroups`` that counts ``mma_reads`` (for its reports)."""
    tma: Any = None
    """The ``simt_mbarrier.Mbarriers`` whose ``tma.load`` copies wrote this storage and tag
    its elements with barrier phases (None: no copy did; nothing to check)."""
    generic: np.ndarray | None = None
    """Swizzled shared storage: per physical element, the thread of its latest ordinary
    store (-1: none), for the proxy-fence check of tensor stores (``simt_bulk``)."""
    generic_at: np.ndarray | None = None
    """The lock-step time of each of those stores."""
    bulk_reads: np.ndarray | None = None
    """Shared storage: per physical element, the tensor stores' reads not yet retired by a
    ``bulk.wait`` (set when a ``tma.store`` first reads it)."""
    bulk: Any = None
    """The ``simt_bulk.BulkStores`` that counts ``bulk_reads`` (for its reports)."""

    def physical(self, flat: np.ndarray) -> np.ndarray:
        """Physical flat element indices of logical ones (the identity unless swizzled): byte
        offset ``x`` moves to ``x ^ (((x >> 7) & 7) << 4)``, 16-byte chunks stay whole."""
        if not self.swizzle:
            return flat
        es = self.array.dtype.itemsize
        x = np.asarray(flat, np.int64) * es
        return (x ^ (((x >> 7) & 7) << 4)) // es

    @property
    def per_lane(self) -> bool:
        """True when every thread has its own copy (``local``)."""
        return self.space == "local"

    @property
    def shape(self) -> tuple[int, ...]:
        """The extents one thread sees."""
        return tuple(self.array.shape[1:]) if self.per_lane else tuple(self.array.shape)

    @staticmethod
    def shared(shape: tuple[int, ...], dt: np.dtype, name: str, op: ir.Operation,
               clock: GroupClock) -> Storage:
        """Fresh per-group shared memory, poisoned (NaN for floats, 0 for integers)."""
        arr = np.full(shape, _poison(dt), dt)
        st = Storage(arr, "shared", name, op, swizzle=int(op.attr("swizzle", 0) or 0))
        if st.swizzle and (arr.size * dt.itemsize) % SWIZZLE_ALIGN:
            raise SimulationError(f"swizzled shared memory {name} holds {arr.size * dt.itemsize}"
                                  " bytes, not whole 1024-byte swizzle blocks", "unsupported",
                                  [op])
        st.races = RaceTracker(st, clock)
        st.pending = np.zeros(arr.size, np.int32)
        return st

    @staticmethod
    def local(shape: tuple[int, ...], dt: np.dtype, lanes: int, name: str, op: ir.Operation
              ) -> Storage:
        """Fresh per-thread storage, poisoned."""
        return Storage(np.full((lanes,) + shape, _poison(dt), dt), "local", name, op)


def value_name(v: ir.Value) -> str:
    """How messages name the storage ``v`` allocates: its SSA name, else its opcode."""
    return f"%{v.name_hint}" if v.name_hint else f"(result of '{v.defining_op.name}')"


def _poison(dt: np.dtype) -> Any:
    return np.array(np.nan if nx.is_float_dtype(dt) else 0).astype(dt)[()]


@dataclass(frozen=True, eq=False)
class LaneView:
    """A memory value inside the simulator: a window of a ``Storage`` seen by every thread."""

    storage: Storage
    """The allocation."""
    shape: tuple[int, ...]
    """The window's extents."""
    map: ir.IndexMap | None = None
    """Window coordinates to storage coordinates (None: the identity)."""
    syms: tuple[Any, ...] = ()
    """Symbol values of ``map``."""
    guards: tuple[Guard, ...] = ()
    """Bounds checks, newest view first."""

    @staticmethod
    def of(storage: Storage) -> LaneView:
        """The whole of ``storage``."""
        return LaneView(storage, storage.shape)

    def view(self, m: ir.IndexMap, syms: tuple[Any, ...], shape: tuple[int, ...], total: bool,
             op: ir.Operation | None) -> LaneView:
        """``view[i] = self[m(i, syms)]`` with extents ``shape`` (maps compose as in MemRef)."""
        return LaneView(self.storage, shape, *compose_view(self.map, self.syms, self.guards,
                                                           self.shape, m, syms, total, op))

    def locate(self, active: np.ndarray, access: ir.Operation
               ) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
        """Storage coordinates ``(T, *shape)`` per axis and the mask of elements to access.

        Inactive threads access nothing. An element that a ``total`` view maps
        outside its base (and that no newer ``bounded`` view dropped) is an
        out-of-range ``SimulationError`` naming the access and the view.
        """
        lanes = active.shape[0]
        shape = self.shape
        mask = np.broadcast_to(active.reshape((lanes,) + (1,) * len(shape)),
                               (lanes,) + shape).copy()
        for g in self.guards:
            coords = lane_coords(g.map, shape, g.syms, lanes)
            ok = np.ones_like(mask)
            for c, e in zip(coords, g.extents):
                ok &= (c >= 0) & (c < e)
            if g.total:
                bad = mask & ~ok
                if bad.any():
                    self._out_of_range(bad, coords, g, access)
            mask &= ok
        if self.map is None:
            coords = tuple(np.broadcast_to(c, (lanes,) + shape) for c in _grid(shape))
        else:
            coords = lane_coords(self.map, shape, self.syms, lanes)
        return coords, mask

    def _out_of_range(self, bad: np.ndarray, coords: tuple[np.ndarray, ...], g: Guard,
                      access: ir.Operation) -> None:
        where = tuple(int(x) for x in np.argwhere(bad)[0])
        lane, elem = where[0], where[1:]
        at = tuple(int(c[where]) for c in coords)
        ops = [access] + ([g.view] if g.view is not None and g.view is not access else [])
        via = f" through {describe_op(g.view)}" if g.view is not None else ""
        raise SimulationError(
            f"thread {lane}: element {elem} of a bounds = \"total\" view maps to {at}, outside "
            f"its base of extents {g.extents} ({self.storage.space} memory "
            f"{self.storage.name}); accessed by {describe_op(access)}{via}",
            "out_of_range", ops)


# ------------------------------------------------------------------ accesses


def _flat_hits(view: LaneView, coords: tuple[np.ndarray, ...], mask: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Flat storage indices and threads of the accessed elements (row-major per thread)."""
    st = view.storage
    lanes = np.broadcast_to(np.arange(mask.shape[0]).reshape((-1,) + (1,) * (mask.ndim - 1)),
                            mask.shape)[mask]
    picked = tuple(c[mask] for c in coords)
    if st.per_lane:
        picked = (lanes,) + picked
    flat = np.ravel_multi_index(picked, st.array.shape) if st.array.ndim else \
        np.zeros(lanes.size, np.int64)
    return st.physical(np.asarray(flat, np.int64)), lanes


def note_generic_write(st: Storage, phys: np.ndarray, lanes: np.ndarray, now: int) -> None:
    """Ordinary stores by ``lanes`` to elements ``phys`` of swizzled shared ``st`` (what a
    tensor store reads; ``simt_bulk``) at lock-step time ``now``."""
    if st.generic is None or st.generic_at is None:
        st.generic = np.full(st.array.size, -1, np.int64)
        st.generic_at = np.zeros(st.array.size, np.int64)
    st.generic[phys] = lanes
    st.generic_at[phys] = now


def check_mma_reads(st: Storage, flat: np.ndarray, op: ir.Operation) -> None:
    """A write of ``op`` to ``flat`` must not meet a ``wgmma`` read or a tensor store's read
    still in flight."""
    if st.mma_reads is not None and flat.size and st.mma is not None:
        st.mma.report_write(st, flat, op)
    if st.bulk_reads is not None and flat.size and st.bulk is not None:
        st.bulk.report_write(st, flat, op)


def _check_pending(view: LaneView, flat: np.ndarray, lanes: np.ndarray, op: ir.Operation,
                   copies: AsyncCopies | None, write: bool = False) -> None:
    st = view.storage
    if st.tma is not None:  # elements a tma.load wrote: the thread must have waited for them
        st.tma.check_access(st, flat, lanes, op, write)
    if st.pending is None or flat.size == 0:
        return
    busy = st.pending[flat] > 0
    if busy.any() and copies is not None:
        k = int(np.argmax(busy))
        copies.report_pending(st, int(flat[k]), int(lanes[k]), op)


def gather(view: LaneView, active: np.ndarray, op: ir.Operation, fill: Any, dt: np.dtype,
           copies: AsyncCopies | None = None) -> np.ndarray:
    """``load``: a ``(T, *shape)`` tile; elements that are not accessed read ``fill``."""
    coords, mask = view.locate(active, op)
    return read_at(view, coords, mask, op, fill, dt, copies)


def read_at(view: LaneView, coords: tuple[np.ndarray, ...], mask: np.ndarray,
            op: ir.Operation, fill: Any, dt: np.dtype, copies: AsyncCopies | None = None
            ) -> np.ndarray:
    """The elements at storage coordinates ``coords`` where ``mask`` (both ``(T, *shape)``),
    ``fill`` elsewhere, read through the race detector and the cp.async model."""
    out = np.full(mask.shape, fill, dt)
    flat, lanes = _flat_hits(view, coords, mask)
    _check_pending(view, flat, lanes, op, copies)
    st = view.storage
    if st.races is not None:
        st.races.access("read", flat, lanes, op)
    out[mask] = st.array.reshape(-1)[flat]
    return out


def scatter(view: LaneView, active: np.ndarray, op: ir.Operation, values: np.ndarray,
            copies: AsyncCopies | None = None) -> None:
    """``store``: write the accessed elements of ``values`` ``(T, *shape)``.

    Several elements of one thread mapped to one address keep the last in
    row-major order; two threads writing one shared element is a race.
    """
    coords, mask = view.locate(active, op)
    write_at(view, coords, mask, op, values, None, copies)


def atomic_update(view: LaneView, active: np.ndarray, op: ir.Operation, values: np.ndarray,
                  kind: str, copies: AsyncCopies | None = None,
                  compare: np.ndarray | None = None, fill: Any = None) -> np.ndarray | None:
    """``atomic``: combine ``values`` into memory; repeated addresses apply thread by thread.
    An exchange (``xchg``, ``cas`` with ``compare``) returns the old values ``(T, *shape)``,
    ``fill`` where nothing was accessed; the others return None. The race checks count an
    exchange as an atomic: it meets other atomics freely, plain accesses never."""
    coords, mask = view.locate(active, op)
    return write_at(view, coords, mask, op, values, kind, copies, compare, fill)


def write_at(view: LaneView, coords: tuple[np.ndarray, ...], mask: np.ndarray,
             op: ir.Operation, values: np.ndarray, kind: str | None,
             copies: AsyncCopies | None = None, compare: np.ndarray | None = None,
             fill: Any = None) -> np.ndarray | None:
    """Write ``values`` (broadcast to ``mask``'s ``(T, *shape)``) at storage coordinates
    ``coords`` where ``mask``: a plain write without ``kind`` (an address written twice keeps
    the last in thread-major, row-major order), else an atomic one (``scatter``'s and
    ``atomic_update``'s); the old values of an exchange, None otherwise."""
    flat, lanes = _flat_hits(view, coords, mask)
    st = view.storage
    access = "write" if kind is None else "atomic"
    _check_pending(view, flat, lanes, op, copies, write=True)
    check_mma_reads(st, flat, op)
    if st.races is not None:
        st.races.access(access, flat, lanes, op)
        if st.swizzle and kind is None:
            # what a tensor store may read: its writers must fence (simt_bulk)
            note_generic_write(st, flat, lanes, st.races.clock.now)
    if st.programs is not None:
        st.programs.write(access, flat, op)
    data = np.broadcast_to(values, mask.shape)[mask].astype(st.array.dtype, copy=False)
    mem = st.array.reshape(-1)
    if kind is None:
        mem[flat] = data
        return None
    exchange = kind in ir.EXCHANGE_KINDS
    got = np.empty(flat.size, st.array.dtype)
    cmps = None if compare is None else \
        np.broadcast_to(compare, mask.shape)[mask].astype(st.array.dtype, copy=False)
    remaining = np.arange(flat.size)
    while remaining.size:
        # One round applies the first pending contribution of every distinct address.
        _, first = np.unique(flat[remaining], return_index=True)
        pick = remaining[first]
        if exchange:
            got[pick] = mem[flat[pick]]
            mem[flat[pick]] = nx.exchange(kind, got[pick], data[pick],
                                          None if cmps is None else cmps[pick])
        else:
            mem[flat[pick]] = nx.combine(kind, mem[flat[pick]], data[pick], st.array.dtype)
        remaining = np.setdiff1d(remaining, pick, assume_unique=True)
    if not exchange:
        return None
    out = np.full(mask.shape, fill, st.array.dtype)
    out[mask] = got
    return out


# ------------------------------------------------------------------ cp.async


@dataclass(eq=False)
class _Copy:
    """One issued ``cp.async.16`` of some threads, not yet completed for all of them."""

    op: ir.Operation
    """The ``cp.async.16`` operation."""
    storage: Storage
    """Its shared destination."""
    lanes: np.ndarray
    """Issuing threads ``(k,)``."""
    group: np.ndarray
    """Per issuing thread, the commit-group number the copy belongs to."""
    flat: np.ndarray
    """Destination flat indices ``(k, n)``."""
    data: np.ndarray
    """The bytes to land, as elements ``(k, n)`` (zero-filled past ``valid_bytes``)."""
    done: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    """Per issuing thread, True once its write has landed."""
    hb: np.ndarray | None = None
    """The orders barrier arrivals had made when it was issued (``GroupClock.hb``): the
    write lands at some time after the issue, so only those order it."""


class AsyncCopies:
    """The cp.async state of one group: per-thread commit counters and pending copies."""

    def __init__(self, lanes: int) -> None:
        self.committed = np.zeros(lanes, np.int64)
        """Per thread, the number of commit groups it has closed."""
        self.copies: list[_Copy] = []
        """Issued copies with some thread still pending."""

    def issue(self, op: ir.Operation, dst: LaneView, flat: np.ndarray, lanes: np.ndarray,
              data: np.ndarray) -> None:
        """Queue the copies of ``lanes`` (``flat``/``data`` of shape ``(k, n)``)."""
        st = dst.storage
        if st.pending is None:
            raise SimulationError("cp.async.16 needs a shared-memory destination, got "
                                  f"{st.space} memory {st.name}", "unsupported", [op])
        _check_pending(dst, flat.reshape(-1), np.repeat(lanes, flat.shape[1]), op, self,
                       write=True)
        check_mma_reads(st, flat.reshape(-1), op)
        np.add.at(st.pending, flat.reshape(-1), 1)
        c = _Copy(op, st, lanes, self.committed[lanes].copy(), flat, data)
        if st.races is not None and st.races.clock.hb is not None:
            c.hb = st.races.clock.hb.copy()
        c.done = np.zeros(lanes.size, bool)
        self.copies.append(c)

    def commit(self, active: np.ndarray) -> None:
        """Close the open copy group of every active thread."""
        self.committed[active] += 1

    def wait(self, active: np.ndarray, pending_groups: int) -> None:
        """Land every copy of an active thread whose group is older than the newest ``n``."""
        limit = self.committed - pending_groups  # groups < limit must be complete
        for c in self.copies:
            due = ~c.done & active[c.lanes] & (c.group < limit[c.lanes])
            if not due.any():
                continue
            flat = c.flat[due]
            lanes = np.repeat(c.lanes[due], flat.shape[1])
            np.subtract.at(c.storage.pending, flat.reshape(-1), 1)
            if c.storage.races is not None:
                # the copy landed at some time since its issue: an order an arrival made
                # after the issue does not cover it
                c.storage.races.access("write", flat.reshape(-1), lanes, c.op, hb=c.hb)
            c.storage.array.reshape(-1)[flat.reshape(-1)] = c.data[due].reshape(-1)
            c.done |= due
        self.copies = [c for c in self.copies if not c.done.all()]

    def report_pending(self, st: Storage, flat: int, lane: int, op: ir.Operation) -> None:
        """Raise the race between ``op`` and the copy still pending on element ``flat``."""
        culprit = next((c for c in self.copies if c.storage is st
                        and bool((c.flat[~c.done] == flat).any())), None)
        elem = tuple(int(x) for x in np.unravel_index(flat, st.array.shape))
        ops = [culprit.op, op] if culprit is not None else [op]
        raise SimulationError(
            f"shared memory {st.name} element {elem}: thread {lane} accesses it with "
            f"{describe_op(op)} while a cp.async.16 copy into it is still in flight (no "
            f"cp.async.wait has covered the copy's group)", "race", ops)
