"""Shared-memory barriers (mbarrier) and the tensor-memory-accelerator copies they complete.

The model of one group (docs/design/hopper.md), executed in lock-step like the rest of
the simulator:

* a barrier is one element of an ``i64`` shared buffer, named by its storage and flat
  index; ``mbarrier.init`` makes it valid for ``count`` arrivals per phase, phase 0 in
  progress; ``mbarrier.inval`` makes it invalid (then only ``init`` may use it again; each
  initialization is a new *incarnation* with its own phases);
* a phase completes when all ``count`` arrivals have come and the transaction count (signed
  bytes) is back to zero: ``mbarrier.expect_tx`` adds its bytes and arrives, every
  ``tma.load`` subtracts the bytes it copies; the barrier counts its completed phases ``n``
  (the phase in progress is ``n``, of parity ``n mod 2``);
* ``tma.load`` reads its box of the global array when it is issued (zero outside the
  array), writes the destination at once and *tags* every destination element with
  (barrier, phase in progress at issue). The write is checked by the race detector as a
  write by the issuing thread against the accesses of the current barrier epoch (a refill
  of a buffer other threads read since the last ``barrier.group`` is a race) but not
  recorded there: an access after it is ordered by the tag instead, so a thread that waited
  for the phase may read the data without a group barrier, as on the GPU;
* ``mbarrier.wait`` with parity ``q`` returns when the phase of parity ``q`` has completed,
  that is when ``q != n mod 2``; the thread has then observed every phase ``< n``. A wait on
  the phase in progress can never return while the group's threads run in lock-step
  (nothing runs while they wait): it is reported as a hang naming the barrier's state.
  Inside a role split (``simt_roles``) the other roles run first, and the wait is a hang
  only when none of them can make progress either;
* a thread accessing a tagged element before it observed the tag's phase is a race (on the
  GPU it may see the element before the copy lands); a plain write by a thread that did
  observe it replaces the copied data and drops the tag;
* ``mbarrier.arrive`` arrives once with no bytes. Each arrival (``expect_tx``'s too: both
  release) remembers the arriving thread and the lock-step time; a thread whose wait
  observes that phase is then ordered after every shared access the arriving thread made
  before it (``GroupClock.hb``): the race detector does not report such a pair although
  no ``barrier.group`` lies between them (an access of a thread that did not arrive, or
  an arrival before the access, still races). The waiter has also observed every phase
  the arriving thread had observed when it arrived (of any barrier), so a thread that
  refills a buffer after its readers released it is ordered after the copy they read.
  ``wgmma`` reads are recorded under the warpgroup's first thread, so that thread's arrival
  after its ``wgmma.wait`` orders the warpgroup's retired reads;
* a barrier invalidated, or left at the group's end, with a transaction count other than
  zero is a hang (bytes expected that never came, or copied bytes nobody expected).

In a cluster (``simt_cluster``) a barrier may also receive arrivals from the other groups'
threads (``arrive_from``) and copies they multicast (``tma_load`` with a mirror lane): an
arrival's order, with what the arriver was ordered after, reaches the arriving group's
detector, where the waiting thread is a mirror lane (``_join``); ``observed`` has a column
per mirror lane.

Nothing is tagged until a ``tma.load`` runs: storage that no copy wrote has ``tma = None``
and the memory accesses of ``simt_memory`` pay one attribute test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.ir.atoms import SWIZZLE_ALIGN, SWIZZLE_BYTES

from .errors import SimulationError, describe_op
from .simt_memory import AsyncCopies, GroupClock, LaneView, Storage, check_mma_reads

__all__ = ["Mbarriers", "barrier_elements", "TMA_MAX_BOX"]

TMA_MAX_BOX = 256
"""The largest extent of a tensor-memory-accelerator box along any axis."""


def _elem(st: Storage, flat: int) -> tuple[int, ...]:
    return tuple(int(x) for x in np.unravel_index(flat, st.array.shape))


@dataclass(eq=False)
class _Barrier:
    """One incarnation of a barrier (from its ``mbarrier.init`` to its ``mbarrier.inval``)."""

    storage: Storage
    """The shared ``i64`` buffer holding it."""
    flat: int
    """Its flat element index there."""
    number: int
    """The incarnation's number in its group (its row of ``Mbarriers.observed``)."""
    count: int
    """Arrivals per phase."""
    init: ir.Operation
    """The ``mbarrier.init`` that made it."""
    pending: int
    """Arrivals still missing in the phase in progress."""
    tx: int = 0
    """The transaction count of the phase in progress (bytes expected minus bytes copied)."""
    phases: int = 0
    """Completed phases (``n``); the phase in progress is ``n``."""
    inval: ir.Operation | None = None
    """The ``mbarrier.inval`` that ended it (None: still valid)."""
    last_load: ir.Operation | None = None
    """The latest ``tma.load`` completing on it (for messages)."""
    arrivals: list[tuple[int, int, int, np.ndarray, Any, np.ndarray]] = \
        field(default_factory=list)
    """(phase, thread, lock-step time, the phases of every barrier the thread had observed,
    origin) of every arrival whose order a wait has not yet passed on to every thread. The
    origin is None for this group's threads; for a thread of another group of the cluster
    (``mbarrier.arrive.peer``) it is that group's ``Mbarriers`` and the column of this
    group's thread 0 among its mirror lanes, and the thread, time and phases are that
    group's. Last, the arriver's row of ``GroupClock.hb`` when it arrived (in its own group's
    detector), which a wait passes on (the order is transitive)."""
    generation: int = 0
    """The cluster barriers its group had passed when it was initialized (another group
    may use it only after one more: ``simt_cluster``)."""

    @property
    def name(self) -> str:
        """How messages name it."""
        return f"{self.storage.name}{list(_elem(self.storage, self.flat))}"

    def state(self) -> str:
        """The phase in progress, for messages."""
        return (f"phase {self.phases} in progress: {self.pending} of {self.count} arrivals "
                f"missing, transaction count {self.tx} bytes")


@dataclass(eq=False)
class _Tags:
    """Per physical element of one shared storage: the ``tma.load`` write it still holds."""

    barrier: np.ndarray
    """The barrier incarnation number (-1: no copied data)."""
    phase: np.ndarray
    """The phase of that barrier the copy completes."""
    op: np.ndarray
    """The copy's operation, as its index in ``Mbarriers.loads``."""


def barrier_elements(op: ir.Operation, view: Any, active: np.ndarray
                     ) -> tuple[Storage, np.ndarray]:
    """The barrier each active thread names with ``view``: its storage and, per thread, the
    flat element (-1 for inactive threads)."""
    cid = op.attr("catalog_id")
    if not isinstance(view, LaneView) or math.prod(view.shape) != 1:
        got = view.shape if isinstance(view, LaneView) else type(view).__name__
        raise SimulationError(f"{cid} takes a one-element view of an i64 shared buffer (the "
                              f"barrier), got {got}", "unsupported", [op])
    st = view.storage
    if st.space != "shared" or st.array.dtype != np.int64:
        raise SimulationError(f"{cid}: a barrier lives in an i64 shared buffer; {st.name} is "
                              f"{st.space} memory of {st.array.dtype}", "unsupported", [op])
    lanes = active.shape[0]
    flat = np.full(lanes, -1, np.int64)
    idx = np.flatnonzero(active)
    if idx.size == 0:
        return st, flat
    coords, mask = view.locate(active, op)
    ok = mask.reshape(lanes, -1)[idx, 0]
    if not ok.all():
        k = int(idx[np.argmax(~ok)])
        raise SimulationError(f"{cid}: the barrier element of thread {k} lies outside its view",
                              "out_of_range", [op])
    if st.array.ndim:
        picked = tuple(np.asarray(c).reshape(lanes, -1)[idx, 0] for c in coords)
        flat[idx] = st.physical(np.ravel_multi_index(picked, st.array.shape))
    else:
        flat[idx] = 0
    return st, flat


def check_swizzle(op: ir.Operation, dst: Storage, flat: np.ndarray, box: tuple[int, ...],
                  swizzle: Any) -> None:
    """A tensor copy's shared view ``flat`` (logical flat elements of ``dst``) is one whole
    block of the 128-byte swizzle: consecutive elements from a 1024-byte boundary, rows of
    at most 128 bytes."""
    es = dst.array.dtype.itemsize
    cid = op.attr("catalog_id") or "tma.load"
    moves = "reads" if cid == "tma.store" else "writes"
    what = "source" if cid == "tma.store" else "destination"
    if swizzle != SWIZZLE_BYTES or dst.swizzle != SWIZZLE_BYTES:
        raise SimulationError(f"{cid} {moves} {SWIZZLE_BYTES}-byte swizzled rows: its "
                              f"swizzle is {swizzle!r} and the {what} {dst.name} has "
                              f"swizzle {dst.swizzle} (both must be {SWIZZLE_BYTES})",
                              "unsupported", [op])
    if box[-1] * es > SWIZZLE_BYTES:
        raise SimulationError(f"{cid}: the box's inner extent {box[-1]} is "
                              f"{box[-1] * es} bytes, more than the {SWIZZLE_BYTES}-byte "
                              "swizzle row", "unsupported", [op])
    if (flat != flat[0] + np.arange(flat.size)).any():
        raise SimulationError(f"{cid}: the {what} is not a contiguous block of "
                              f"{dst.name} (its elements are not consecutive in row-major "
                              "order)", "unsupported", [op])
    start = int(flat[0]) * es
    if start % SWIZZLE_ALIGN:
        raise SimulationError(f"{cid}: the {what} starts at byte {start} of "
                              f"{dst.name}, not on a {SWIZZLE_ALIGN}-byte boundary (the "
                              "swizzle's period)", "unsupported", [op])


def box_points(box: tuple[int, ...], origin: Sequence[int], shape: tuple[int, ...]
               ) -> tuple[np.ndarray, np.ndarray]:
    """The array coordinates of a tensor copy's box at ``origin`` (one row per axis, box
    elements in row-major order) and which of them lie inside an array of ``shape``."""
    idx = np.indices(box, dtype=np.int64).reshape(len(box), -1) \
        + np.asarray(origin, np.int64).reshape(-1, 1)
    inside = np.ones(idx.shape[1], bool)
    for c, e in zip(idx, shape):
        inside &= (c >= 0) & (c < e)
    return idx, inside


class Mbarriers:
    """The barriers of one group, the threads' observed phases and the copies' tags."""

    def __init__(self, lanes: int, clock: GroupClock | None = None,
                 columns: int | None = None) -> None:
        self.lanes = lanes
        """Threads in the group."""
        self.columns = lanes if columns is None else columns
        """Columns of ``observed``: the threads, then in a cluster the mirror lanes of the
        other groups' threads (``GroupClock.width``)."""
        self.clock = clock if clock is not None else GroupClock()
        """The group's lock-step time and barrier-made orders (``GroupClock.hb``)."""
        self.barriers: list[_Barrier] = []
        """Every incarnation so far, by number."""
        self.observed = np.zeros((0, self.columns), np.int64)
        """Per incarnation and thread (or mirror lane), the phases the thread has observed
        complete."""
        self.loads: list[ir.Operation] = []
        """The ``tma.load`` operations that tags name."""
        self.events = 0
        """Barrier state changes so far (inits, arrivals, copied bytes): a role that waits
        with this count unchanged since another role began waiting made no progress."""
        self.roles: Any = None
        """The running role split's baton (``simt_roles.Baton``; in a cluster the cluster's,
        always): a wait that cannot return yet lets the other tasks run first."""
        self.generation = 0
        """Cluster barriers the group has passed (``simt_cluster``)."""
        self._current: dict[tuple[Storage, int], _Barrier] = {}
        self._load_ids: dict[int, int] = {}
        self._tags: dict[Storage, _Tags] = {}

    # -- barriers -----------------------------------------------------------------------
    def lookup(self, st: Storage, flat: int) -> _Barrier | None:
        """The latest incarnation of the barrier at ``flat`` of ``st`` (valid or not)."""
        return self._current.get((st, flat))

    def _valid(self, op: ir.Operation, st: Storage, flat: int) -> _Barrier:
        b = self._current.get((st, flat))
        if b is not None and b.inval is None:
            return b
        name = f"{st.name}{list(_elem(st, flat))}"
        cid = op.attr("catalog_id")
        if b is None:
            raise SimulationError(f"{cid}: barrier {name} is not initialized (no mbarrier.init "
                                  "before it)", "unsupported", [op])
        assert b.inval is not None
        raise SimulationError(f"{cid}: barrier {name} was invalidated by "
                              f"{describe_op(b.inval)} (initialize it again first)",
                              "unsupported", [b.inval, op])

    def init(self, op: ir.Operation, st: Storage, flat: int, count: Any) -> None:
        """``mbarrier.init`` of the barrier at ``flat`` for ``count`` arrivals per phase."""
        if st.space != "shared":
            raise SimulationError(f"mbarrier.init: a barrier lives in shared memory; {st.name} "
                                  f"is {st.space} memory", "unsupported", [op])
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
            raise SimulationError(f"mbarrier.init needs an integer count >= 1, got {count!r}",
                                  "unsupported", [op])
        old = self._current.get((st, flat))
        if old is not None and old.inval is None:
            raise SimulationError(f"mbarrier.init: barrier {old.name} is already initialized "
                                  f"(by {describe_op(old.init)}); invalidate it with "
                                  "mbarrier.inval before initializing it again", "unsupported",
                                  [old.init, op])
        b = _Barrier(st, flat, len(self.barriers), int(count), op, int(count),
                     generation=self.generation)
        self.barriers.append(b)
        self.events += 1
        self._current[(st, flat)] = b
        self.observed = np.concatenate([self.observed, np.zeros((1, self.columns), np.int64)])

    def arrive(self, op: ir.Operation, st: Storage, flat: int, lane: int) -> None:
        """``mbarrier.arrive`` by thread ``lane``: one arrival, no bytes."""
        self._arrive(op, self._valid(op, st, flat), lane)

    def arrive_from(self, op: ir.Operation, st: Storage, flat: int, origin: Mbarriers,
                    column: int, lane: int) -> None:
        """``mbarrier.arrive.peer`` by thread ``lane`` of another group of the cluster (whose
        barriers are ``origin``; this group's threads are its mirror lanes from ``column``):
        one arrival, no bytes, with the arriving thread's time and observed phases there."""
        self._arrive(op, self._valid(op, st, flat), lane, (origin, column))

    def _arrive(self, op: ir.Operation, b: _Barrier, lane: int,
                origin: tuple[Mbarriers, int] | None = None) -> None:
        self.events += 1
        src = self if origin is None else origin[0]
        # the arriver's orders travel with its arrival (release semantics: what was ordered
        # before the arrival is ordered before the waiter's later accesses). A peer group's
        # orders live in that group's detector, where the waiters are mirror lanes, and
        # ``_join`` applies them there: a consumer warpgroup's generic loads of a multicast
        # version (TF32's A fragments), ordered before its first thread's release by the
        # retired wgmma group, are then ordered before the peer producer's refill too
        known = src.clock.orders(src.lanes)[lane].copy()
        b.arrivals.append((b.phases, lane, src.clock.tick(), src.observed[:, lane].copy(),
                           origin, known))
        if b.pending == 0:
            who = f"thread {lane}" + (f" of {src.clock.name}" if origin is not None else "")
            raise SimulationError(f"{op.attr('catalog_id')}: {who} arrives on barrier "
                                  f"{b.name} more than its count of {b.count} times in phase "
                                  f"{b.phases} (transaction count {b.tx} bytes)", "unsupported",
                                  [op])
        b.pending -= 1
        self._complete(b)

    @staticmethod
    def _complete(b: _Barrier) -> None:
        if b.pending == 0 and b.tx == 0:
            b.phases += 1
            b.pending = b.count

    def expect_tx(self, op: ir.Operation, st: Storage, flat: int, nbytes: int, lane: int
                  ) -> None:
        """``mbarrier.expect_tx`` by thread ``lane``: add ``nbytes``, then arrive once."""
        b = self._valid(op, st, flat)
        if nbytes < 0:
            raise SimulationError(f"mbarrier.expect_tx: thread {lane} expects {nbytes} bytes on "
                                  f"barrier {b.name}; the count must be >= 0", "unsupported",
                                  [op])
        b.tx += int(nbytes)
        self._arrive(op, b, lane)

    def wait(self, op: ir.Operation, st: Storage, flat: np.ndarray, lanes: np.ndarray,
             parity: np.ndarray) -> None:
        """``mbarrier.wait`` of threads ``lanes`` on barriers ``flat[k]`` with ``parity[k]``."""
        flat = np.asarray(flat, np.int64)
        parity = np.asarray(parity, np.int64)
        bad = (parity != 0) & (parity != 1)
        if bad.any():
            k = int(np.argmax(bad))
            raise SimulationError(f"mbarrier.wait: thread {int(lanes[k])} waits for parity "
                                  f"{int(parity[k])}; a parity is 0 or 1", "unsupported", [op])
        for f in np.unique(flat):
            sel = flat == f
            b = self._valid(op, st, int(f))
            who, par = lanes[sel], parity[sel]
            hang = par == b.phases % 2
            if hang.any() and self.roles is not None \
                    and self.roles.wait(lambda b=b, par=par: not (par == b.phases % 2).any()):
                hang = par == b.phases % 2
            if hang.any():
                k = int(np.argmax(hang))
                ops = [op] + ([b.last_load] if b.last_load is not None else [])
                raise SimulationError(
                    f"mbarrier.wait: {self.clock.thread(int(who[k]))} waits on barrier {b.name} "
                    f"for the phase of parity {int(par[k])}, which is the phase in progress "
                    f"({b.state()}, {b.phases} phases completed); nothing can complete it while "
                    "the threads wait, so the wait never returns", "hang", ops)
            row = self.observed[b.number]
            self._join(b, who, row[who])
            row[who] = np.maximum(row[who], b.phases)

    def _join(self, b: _Barrier, who: np.ndarray, seen: np.ndarray) -> None:
        """Threads ``who``, which had observed ``seen`` phases of ``b``, now observe all its
        completed phases: each is ordered after the accesses of that phases' arrivers. An
        arriver of another group of the cluster orders them in that group's detector, where
        they are mirror lanes: that group's storage is what its accesses touched."""
        if not b.arrivals:
            return
        for phase, lane, t, saw, origin, known in b.arrivals:
            if phase < b.phases:
                new = who[seen <= phase]
                src, cols = (self, new) if origin is None else (origin[0], origin[1] + new)
                hb = src.clock.orders(src.lanes)
                hb[cols] = np.maximum(hb[cols], known[None, :])
                hb[cols, lane] = np.maximum(hb[cols, lane], t)
                # what the arriver had observed, the waiter has now observed too (a
                # producer refilling a version orders after the copy its consumers waited for)
                rows = src.observed[:saw.size]
                rows[:, cols] = np.maximum(rows[:, cols], saw[:, None])
        low = int(self.observed[b.number, :self.lanes].min())
        b.arrivals = [a for a in b.arrivals if a[0] >= low]

    def inval(self, op: ir.Operation, st: Storage, flat: int) -> None:
        """``mbarrier.inval``: the barrier is no longer valid."""
        b = self._valid(op, st, flat)
        if b.tx != 0:
            raise self._unbalanced(b, f"is invalidated by {describe_op(op)}", [op])
        b.inval = op

    def finish(self) -> None:
        """The end of the group's body: every valid barrier's transaction count is zero."""
        for b in self._current.values():
            if b.inval is None and b.tx != 0:
                raise self._unbalanced(b, "is still valid when the threads finish", [])

    @staticmethod
    def _unbalanced(b: _Barrier, when: str, ops: list[ir.Operation]) -> SimulationError:
        why = "bytes are expected that no tma.load copies" if b.tx > 0 else \
            "tma.load copies bytes that no mbarrier.expect_tx expects"
        more = [x for x in (b.last_load,) if x is not None and x not in ops]
        return SimulationError(
            f"barrier {b.name} {when} with transaction count {b.tx} bytes ({why}; {b.state()}); "
            "its phase can never complete", "hang", more + ops)

    # -- copies -------------------------------------------------------------------------
    def tma_load(self, op: ir.Operation, lane: int, dst: Storage, dst_flat: np.ndarray,
                 src: Storage, origin: tuple[int, ...], box: tuple[int, ...],
                 bar: Storage, bar_flat: int, swizzle: Any,
                 copies: AsyncCopies | None = None, nan_outside: bool = False) -> None:
        """``tma.load`` by thread ``lane``: copy the ``box`` of ``src`` at ``origin`` onto the
        destination elements ``dst_flat`` (logical flat indices of ``dst``, in the view's
        row-major order), completing ``swizzle``-byte swizzled rows on barrier ``bar``;
        elements outside ``src`` read as zero, or NaN with ``nan_outside``."""
        b = self._valid(op, bar, bar_flat)
        arr = src.array
        box = tuple(int(x) for x in box)
        if len(box) != arr.ndim or len(origin) != arr.ndim:
            raise SimulationError(f"tma.load: the box {box} and the coordinates {origin} need "
                                  f"one entry per axis of {src.name} (rank {arr.ndim})",
                                  "unsupported", [op])
        if not all(1 <= x <= TMA_MAX_BOX for x in box):
            raise SimulationError(f"tma.load: box {box} has an extent outside [1, "
                                  f"{TMA_MAX_BOX}]", "unsupported", [op])
        if dst.space != "shared" or src.space != "global":
            raise SimulationError(f"tma.load copies global memory into shared memory; got "
                                  f"{src.space} {src.name} -> {dst.space} {dst.name}",
                                  "unsupported", [op])
        dt = dst.array.dtype
        if arr.dtype != dt:
            raise SimulationError(f"tma.load: {src.name} holds {arr.dtype}, the destination "
                                  f"{dst.name} {dt}", "unsupported", [op])
        n = math.prod(box)
        flat = np.asarray(dst_flat, np.int64).reshape(-1)
        if flat.size != n:
            raise SimulationError(f"tma.load: the box {box} has {n} elements, the destination "
                                  f"view {flat.size}", "unsupported", [op])
        check_swizzle(op, dst, flat, box, swizzle)
        # the box, zero (or NaN) outside the array (negative coordinates included)
        idx, inside = box_points(box, origin, arr.shape)
        data = np.full(n, np.nan, dt) if nan_outside else np.zeros(n, dt)
        data[inside] = arr[tuple(c[inside] for c in idx)]
        # the write, with the hazards of any other shared write
        phys = dst.physical(flat)
        who = np.full(n, lane, np.int64)
        if dst.pending is not None:
            busy = dst.pending[phys] > 0
            if busy.any():
                e = int(phys[np.argmax(busy)])
                if copies is not None:
                    copies.report_pending(dst, e, lane, op)
                raise SimulationError(f"tma.load: {self.clock.thread(lane)} copies into element "
                                      f"{_elem(dst, e)} of {dst.name} while a cp.async copy "
                                      "into it is still in flight", "race", [op])
        check_mma_reads(dst, phys, op)
        self.check_access(dst, phys, who, op, True)
        if dst.races is not None:  # a write by the issuing thread, meeting this epoch's
            # accesses (a mirror lane's: every access since the cluster barrier); later
            # ones meet the tags
            floor = self.clock.floor if lane >= self.lanes else None
            dst.races.check("write", phys, who, op, floor=floor)
        dst.array.reshape(-1)[phys] = data
        tags = self._tags_of(dst)
        tags.barrier[phys] = b.number
        tags.phase[phys] = b.phases
        tags.op[phys] = self._load_number(op)
        b.last_load = op
        self.events += 1
        b.tx -= n * dt.itemsize
        self._complete(b)

    def _load_number(self, op: ir.Operation) -> int:
        k = self._load_ids.get(op.id)
        if k is None:
            k = self._load_ids[op.id] = len(self.loads)
            self.loads.append(op)
        return k

    def _tags_of(self, st: Storage) -> _Tags:
        tags = self._tags.get(st)
        if tags is None:
            size = st.array.size
            tags = self._tags[st] = _Tags(np.full(size, -1, np.int32),
                                          np.zeros(size, np.int64), np.zeros(size, np.int32))
            st.tma = self
        return tags

    # -- the checks ---------------------------------------------------------------------
    def check_access(self, st: Storage, flat: np.ndarray, lanes: np.ndarray, op: ir.Operation,
                     write: bool) -> None:
        """Threads ``lanes[k]`` access physical elements ``flat[k]`` of ``st``: each must have
        observed the phase of the copy that wrote a tagged element. A write drops the tags."""
        got = self._tagged(st, flat)
        if got is None:
            return
        tags, flat, t, idx = got
        lanes = np.broadcast_to(np.asarray(lanes, np.int64).reshape(-1), flat.shape)
        phase = tags.phase[flat[idx]]
        seen = self.observed[t[idx], lanes[idx]]
        bad = seen <= phase
        if bad.any():
            k = int(idx[np.argmax(bad)])
            self._report(st, tags, int(flat[k]), int(lanes[k]), op,
                         "writes" if write else "reads")
        if write:
            tags.barrier[flat[idx]] = -1

    def check_warpgroup(self, st: Storage, flat: np.ndarray, t0: int, width: int,
                        op: ir.Operation) -> None:
        """Threads ``t0 .. t0 + width - 1`` read physical elements ``flat`` of ``st`` together
        (a warpgroup instruction): every one of them must have observed their copies' phases."""
        got = self._tagged(st, flat)
        if got is None:
            return
        tags, flat, t, idx = got
        seen = self.observed[t[idx], t0:t0 + width]
        bad = seen.min(axis=1) <= tags.phase[flat[idx]]
        if bad.any():
            j = int(np.argmax(bad))
            k = int(idx[j])
            lane = t0 + int(np.argmin(seen[j]))
            self._report(st, tags, int(flat[k]), lane, op, "reads")

    def _tagged(self, st: Storage, flat: np.ndarray
                ) -> tuple[_Tags, np.ndarray, np.ndarray, np.ndarray] | None:
        """For accessed elements ``flat`` of ``st``: its tags, ``flat`` as one flat int64
        array, each element's tagging barrier (-1: none) and the positions of the tagged
        ones; None when no element is tagged."""
        tags = self._tags.get(st)
        if tags is None or flat.size == 0:
            return None
        flat = np.asarray(flat, np.int64).reshape(-1)
        t = tags.barrier[flat]
        idx = np.flatnonzero(t >= 0)
        return None if idx.size == 0 else (tags, flat, t, idx)

    def _report(self, st: Storage, tags: _Tags, flat: int, lane: int, op: ir.Operation,
                verb: str) -> None:
        b = self.barriers[int(tags.barrier[flat])]
        p = int(tags.phase[flat])
        load = self.loads[int(tags.op[flat])]
        logical = int(st.physical(np.asarray([flat], np.int64))[0])  # the swizzle is its own
        seen = int(self.observed[b.number, lane])                     # inverse
        raise SimulationError(
            f"{self.clock.thread(lane)} {verb} element {_elem(st, logical)} of shared memory "
            f"{st.name} with {describe_op(op)}, written by tma.load (barrier {b.name}, phase "
            f"{p}), before waiting for that phase (mbarrier.wait; the thread has observed "
            f"{seen} completed phases of the barrier)", "race", [load, op])
