"""The race detectors of the SIMT simulator: shared memory within a group, global
memory across the programs of a launch.

Every shared access and every global write that ``simt_memory`` and the atoms
make is checked and recorded here: ``Storage.races`` holds a shared allocation's
``RaceTracker``, ``Storage.programs`` a global argument's ``ProgramWrites``.
They are separate from ``simt_memory`` because they hold only per-element
bookkeeping of who accessed what and when, never the data, views or masks.

Race model (shared memory only). Time inside one group is cut into *epochs*
by ``barrier.group``. For every element of a shared allocation the detector
remembers, per access class (plain read, plain write, atomic), the epoch of
the latest accesses and up to two distinct threads that made them, with the
operation each used. An access by thread ``t`` in epoch ``E`` races when
another thread ``u != t`` accessed the same element in epoch ``E`` and at
least one of the two accesses writes: read/write, write/read and write/write
pairs, also between two threads of one operation (two threads storing to one
element); atomics do not race with atomics. Keeping two distinct threads is
enough to find *another* thread whatever ``t`` is, so the check is exact,
not sampled. A thread re-reading or overwriting its own write never races
(per-thread program order holds). Within a program, global memory is not
race-checked: the only grid-wide ordering is the kernel boundary.

Programs model (global memory). Programs (grid instances) of one launch are
unordered, so two of them writing one global element is outside the contract
whatever order the simulator runs them in: ``ProgramWrites`` remembers, per
element of a written argument, the first program that wrote it (and whether
with a plain store) and a second program whose atomic met it; a write by
another program is reported unless both are atomics. Only elements actually
written count: a bounded store's dropped elements and inactive threads write
nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

import tilec.ir as ir

from .errors import SimulationError, describe_op

if TYPE_CHECKING:  # simt_memory makes the detectors; they only name its classes
    from .simt_memory import GroupClock, Storage

__all__ = ["RaceTracker", "GridClock", "ProgramWrites"]


# ------------------------------------------------------------------ races


class _Seen:
    """Per element: the epoch of the latest accesses of one class and two distinct threads."""

    def __init__(self, size: int) -> None:
        self.epoch = np.full(size, -1, np.int64)
        self.lane1 = np.full(size, -1, np.int64)
        self.op1 = np.full(size, -1, np.int64)
        self.lane2 = np.full(size, -1, np.int64)
        self.op2 = np.full(size, -1, np.int64)
        self.time1 = np.zeros(size, np.int64)
        """The time of ``lane1``'s latest access this epoch."""
        self.time2 = np.zeros(size, np.int64)
        """The time of ``lane2``'s latest access this epoch."""
        self.many = np.zeros(size, bool)
        """Whether threads other than ``lane1`` and ``lane2`` may have accessed the element
        this epoch (then ``lane1``'s and ``lane2``'s times do not cover its accesses)."""
        self.latest = np.zeros(size, np.int64)
        """The time of the element's latest access this epoch (by any thread)."""
        self.latest_lane = np.full(size, -1, np.int64)
        """The thread that made that access (-1: several threads in one operation)."""
        self.before = np.full(size, -1, np.int64)
        """The time of the latest access this epoch by a thread other than ``latest_lane``
        (-1: none): what a thread that made the latest access itself must be ordered after
        (its own accesses never race)."""
        self.threads: np.ndarray = np.zeros(0, bool)
        """Per thread: whether it made an access of this class to the allocation this epoch
        (``threads_epoch``); with ``latest`` the bound for elements with ``many`` threads."""
        self.threads_epoch = -1
        """The epoch ``threads`` describes."""

    def other(self, flat: np.ndarray, lanes: np.ndarray, epoch: int,
              hb: np.ndarray | None = None, floor: int | None = None
              ) -> tuple[int, int, int] | None:
        """The first access ``k`` whose element another thread touched this epoch (with
        ``floor``: in any epoch from ``floor`` on), with no barrier arrival ordering that
        access before it (``hb``, ``GroupClock.hb``): (k, lane, op)."""
        cur = self.epoch[flat] == epoch if floor is None else self.epoch[flat] >= floor
        l1, l2 = self.lane1[flat], self.lane2[flat]
        c1 = cur & (l1 != lanes)
        c2 = cur & (l2 >= 0) & (l2 != lanes)
        if hb is not None and (c1.any() or c2.any()):
            # ordered when the recorded threads' own accesses are ordered (two at most), or
            # when every thread that accessed the allocation this epoch arrived after the
            # element's latest access on a phase the accessing thread waited for
            alone = ~self.many[flat]
            others = np.where(self.latest_lane[flat] == lanes, self.before[flat],
                              self.latest[flat])
            every = others < self._all_ordered(lanes, hb, epoch)
            if floor is not None:  # ``threads`` describes the current epoch only
                every &= self.epoch[flat] == epoch
            c1 &= ~((alone & (self.time1[flat] < hb[lanes, np.maximum(l1, 0)])) | every)
            c2 &= ~((alone & (self.time2[flat] < hb[lanes, np.maximum(l2, 0)])) | every)
        hit = c1 | c2
        if not hit.any():
            return None
        k = int(np.argmax(hit))
        if c1[k]:
            return k, int(l1[k]), int(self.op1[flat[k]])
        return k, int(l2[k]), int(self.op2[flat[k]])

    def _all_ordered(self, lanes: np.ndarray, hb: np.ndarray, epoch: int) -> np.ndarray:
        """Per access ``k``: the time before which the accesses of every other thread that
        accessed the allocation this epoch are ordered before thread ``lanes[k]``."""
        if self.threads_epoch != epoch or not self.threads.any():
            return np.full(lanes.shape, np.iinfo(np.int64).max, np.int64)
        who = np.flatnonzero(self.threads)
        uniq, inv = np.unique(lanes, return_inverse=True)
        rows = hb[np.ix_(uniq, who)]
        rows = np.where(who[None, :] == uniq[:, None], np.iinfo(np.int64).max, rows)
        return rows.min(axis=1)[inv].reshape(lanes.shape)

    def add(self, flat: np.ndarray, lanes: np.ndarray, epoch: int, op_id: int,
            now: int = 0) -> None:
        """Record that ``lanes[k]`` accessed ``flat[k]`` in ``epoch`` with operation ``op_id``
        at time ``now``."""
        if flat.size == 0:
            return
        elems, lo, hi, count = _lane_range(flat, lanes, counts=True)
        stale = self.epoch[elems] != epoch
        self.epoch[elems] = epoch
        self.lane1[elems[stale]] = -1
        self.lane2[elems[stale]] = -1
        self.many[elems[stale]] = False
        l1 = self.lane1[elems]
        fresh = l1 < 0
        self.lane1[elems[fresh]] = lo[fresh]
        self.op1[elems[fresh]] = op_id
        l1 = self.lane1[elems]
        cand = np.where(hi != l1, hi, lo)
        take = (self.lane2[elems] < 0) & (cand != l1)
        self.lane2[elems[take]] = cand[take]
        self.op2[elems[take]] = op_id
        l2 = self.lane2[elems]
        self.time1[elems[(l1 == lo) | (l1 == hi)]] = now
        self.time2[elems[(l2 >= 0) & ((l2 == lo) | (l2 == hi))]] = now
        # more than two accesses to one element in one operation, or a lane that is
        # neither recorded thread: not every accessing thread is known any more
        third = (count > 2) | ((lo != l1) & (lo != l2)) | ((hi != l1) & (hi != l2))
        self.many[elems[third]] = True
        self.before[elems[stale]] = -1
        one = lo == hi  # one thread accessed the element in this operation
        moved = one & (self.latest_lane[elems] != lo)
        self.before[elems[moved & ~stale]] = self.latest[elems[moved & ~stale]]
        self.before[elems[~one]] = now
        self.latest_lane[elems] = np.where(one, lo, -1)
        self.latest[elems] = now
        if self.threads_epoch != epoch:
            self.threads[:] = False
            self.threads_epoch = epoch
        top = int(lanes.max()) + 1
        if top > self.threads.size:
            self.threads = np.concatenate([self.threads, np.zeros(top - self.threads.size, bool)])
        self.threads[lanes] = True


def _lane_range(flat: np.ndarray, lanes: np.ndarray, counts: bool = False
                ) -> Any:
    """Unique elements of ``flat`` with the smallest and largest thread that touched each
    (and with ``counts``, how many accesses each had)."""
    elems, inv = np.unique(flat, return_inverse=True)
    lo = np.full(elems.size, np.iinfo(np.int64).max, np.int64)
    hi = np.full(elems.size, -1, np.int64)
    np.minimum.at(lo, inv, lanes)
    np.maximum.at(hi, inv, lanes)
    if counts:
        return elems, lo, hi, np.bincount(inv, minlength=elems.size)
    return elems, lo, hi


class _OpNumbers:
    """Small numbers for the operations a detector records, so that per-element state names
    an operation in an int64 array (O(1) both ways)."""

    def __init__(self) -> None:
        self._ops: list[ir.Operation] = []
        self._ids: dict[int, int] = {}

    def number(self, op: ir.Operation) -> int:
        """``op``'s number (a new one the first time)."""
        k = self._ids.get(op.id)
        if k is None:
            k = self._ids[op.id] = len(self._ops)
            self._ops.append(op)
        return k

    def __getitem__(self, k: int) -> ir.Operation:
        return self._ops[k]


class RaceTracker:
    """The race detector of one shared allocation (see the module docstring)."""

    def __init__(self, storage: Storage, clock: GroupClock) -> None:
        size = storage.array.size
        self.storage = storage
        """The allocation it watches."""
        self.clock = clock
        """The group's barrier epoch."""
        self.reads = _Seen(size)
        """Plain reads."""
        self.writes = _Seen(size)
        """Plain writes (cp.async completions included)."""
        self.atomics = _Seen(size)
        """Atomic read-modify-writes."""
        self._ops = _OpNumbers()

    def access(self, kind: str, flat: np.ndarray, lanes: np.ndarray, op: ir.Operation,
               hb: Any = "now") -> None:
        """Check and record accesses ``(flat[k], lanes[k])`` of ``kind`` (read/write/atomic);
        ``hb``: the barrier-arrival orders that apply (``GroupClock.hb`` at some earlier
        time, None for none; by default the current ones)."""
        if flat.size == 0:
            return
        self.check(kind, flat, lanes, op, hb)
        own = {"read": self.reads, "write": self.writes, "atomic": self.atomics}[kind]
        own.add(flat, lanes, self.clock.epoch, self._ops.number(op), self.clock.tick())

    def check(self, kind: str, flat: np.ndarray, lanes: np.ndarray, op: ir.Operation,
              hb: Any = "now", floor: int | None = None) -> None:
        """Check accesses ``(flat[k], lanes[k])`` of ``kind`` against this epoch's accesses
        (with ``floor``: those of every epoch from ``floor`` on) without recording them
        (``access`` does both)."""
        if flat.size == 0:
            return
        epoch = self.clock.epoch
        against = {"read": (("write", self.writes), ("atomic", self.atomics)),
                   "write": (("write", self.writes), ("read", self.reads),
                             ("atomic", self.atomics)),
                   "atomic": (("write", self.writes), ("read", self.reads))}[kind]
        if isinstance(hb, str):
            hb = self.clock.hb
        for earlier_kind, seen in against:
            hit = seen.other(flat, lanes, epoch, hb, floor)
            if hit is not None:
                k, lane, op_id = hit
                self._report(int(flat[k]), earlier_kind, lane, self._ops[op_id], kind,
                             int(lanes[k]), op)
        if kind == "write":
            elems, lo, hi = _lane_range(flat, lanes)
            two = lo != hi
            if two.any():
                k = int(np.argmax(two))
                self._report(int(elems[k]), "write", int(lo[k]), op, "write", int(hi[k]), op)

    def _report(self, flat: int, kind1: str, lane1: int, op1: ir.Operation, kind2: str,
                lane2: int, op2: ir.Operation) -> None:
        st = self.storage
        elem = tuple(int(x) for x in np.unravel_index(flat, st.array.shape))
        c = self.clock
        between = "barrier.group" if not c.lanes or max(lane1, lane2) < c.lanes else \
            "barrier.cluster nor a barrier phase of the other group's releases"
        raise SimulationError(
            f"shared memory {st.name} element {elem}: {kind1} by {c.thread(lane1)} "
            f"({describe_op(op1)}) and {kind2} by {c.thread(lane2)} ({describe_op(op2)}) with "
            f"no {between} between them (both after {c.since()})",
            "race", [op1, op2] if op1 is not op2 else [op1])


# ------------------------------------------------------------------ programs


class GridClock:
    """The launch and the program (grid instance) the simulator is running."""

    def __init__(self) -> None:
        self.launch = 0
        """Grid-level parallels started so far (each one is a launch)."""
        self.extents: tuple[int, ...] = ()
        """The running launch's grid extents."""
        self.program = -1
        """The running program, as its row-major index in the grid."""

    def start(self, extents: tuple[int, ...]) -> None:
        """A new launch over ``extents``."""
        self.launch += 1
        self.extents = extents
        self.program = -1

    def coords(self, program: int) -> tuple[int, ...]:
        """The grid coordinates of a program index."""
        return tuple(int(c) for c in np.unravel_index(program, self.extents))


class ProgramWrites:
    """The cross-program write check of one global argument (see the module docstring)."""

    def __init__(self, storage: Storage, clock: GridClock) -> None:
        self.storage = storage
        """The argument it watches."""
        self.clock = clock
        """The launch and program being run."""
        self._launch = -1
        self._ops = _OpNumbers()

    def _reset(self) -> None:
        """Fresh per-element state for a new launch (made on the first write)."""
        size = self.storage.array.size
        self._launch = self.clock.launch
        self.first = np.full(size, -1, np.int64)
        """The first program that wrote each element (-1: none yet)."""
        self.first_op = np.full(size, -1, np.int64)
        """The operation of that write."""
        self.plain = np.zeros(size, bool)
        """True once the first program wrote the element with a plain store."""
        self.second = np.full(size, -1, np.int64)
        """Another program whose atomic met the first program's atomics (-1: none)."""
        self.second_op = np.full(size, -1, np.int64)
        """The operation of that atomic."""

    def write(self, kind: str, flat: np.ndarray, op: ir.Operation) -> None:
        """Check and record that the running program writes ``flat`` (``write``/``atomic``)."""
        if flat.size == 0:
            return
        if self._launch != self.clock.launch:
            self._reset()
        p, plain = self.clock.program, kind == "write"
        first = self.first[flat]
        fresh, mine = first < 0, first == p
        other = ~fresh & ~mine
        clash = other & (plain | self.plain[flat])  # a plain store meets another program's
        # this program's plain store meets an atomic of another program on its own element
        clash |= mine & plain & (self.second[flat] >= 0)
        if clash.any():
            k = int(np.argmax(clash))
            e = int(flat[k])
            if other[k]:
                q, q_op = int(self.first[e]), int(self.first_op[e])
            else:
                q, q_op = int(self.second[e]), int(self.second_op[e])
            self._report(e, q, self._ops[q_op], p, op, kind)
        me = self._ops.number(op)
        new = flat[fresh]
        self.first[new] = p
        self.first_op[new] = me
        self.plain[flat[fresh | mine]] |= plain
        met = flat[other & (self.second[flat] < 0)]
        self.second[met] = p
        self.second_op[met] = me

    def _report(self, flat: int, q: int, q_op: ir.Operation, p: int, op: ir.Operation,
                kind: str) -> None:
        st = self.storage
        elem = tuple(int(x) for x in np.unravel_index(flat, st.array.shape))
        c = self.clock
        what = "an atomic" if kind == "atomic" else "a store"
        raise SimulationError(
            f"global memory {st.name} element {elem} is written by program {c.coords(q)} "
            f"({describe_op(q_op)}) and by program {c.coords(p)} with {what} "
            f"({describe_op(op)}) in one launch (grid {c.extents}); programs may run in any "
            "order, so they must write disjoint elements (only atomics may meet)", "race",
            [q_op, op] if q_op is not op else [op])
