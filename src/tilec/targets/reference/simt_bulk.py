"""Tensor stores in the simulator: ``tma.store``, ``bulk.commit``, ``bulk.wait`` and the
proxy fence they need (``fence.proxy.async``).

A ``tma.store`` by thread ``t`` copies its swizzled shared source into the box of the
global array at once (the box clipped at the array's edges) and checks, for every element
it reads:

* the element's last ordinary (generic-proxy) writer ran ``fence.proxy.async`` after the
  write (else the copy engine may read stale bytes: reported as a race);
* the race detector orders every earlier write before ``t``'s read (a barrier between
  the writers and ``t``).

The read stays *in flight* (``Storage.bulk_reads``) until ``t``'s ``bulk.wait`` retires the
bulk group that holds it; a write to an element in flight is a race naming the store, and
the wait records the read again at its own time, so another thread's later write must be
ordered after the wait (a barrier), as on the hardware, where the copy engine reads the
source at some point before the wait returns. Copying at the issue is then exact: a
program in which the source could change before the read completes is reported instead.
A group that ends with a store's read in flight is an error too (its shared memory goes
away).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import tilec.ir as ir

from .errors import SimulationError, describe_op
from .simt_atoms import AtomContext, _tokens, atom_impl, pending_of, tensor_copy_args
from .simt_mbarrier import box_points, check_swizzle
from .simt_memory import GroupClock, Storage

__all__ = ["BulkStores"]


@dataclass
class _Read:
    """One tensor store's read of shared memory."""

    op: ir.Operation
    """The ``tma.store``."""
    storage: Storage
    """Its source allocation."""
    phys: np.ndarray
    """The physical flat elements it reads."""


class BulkStores:
    """The group's tensor stores in flight, per issuing thread, and its proxy fences."""

    def __init__(self, lanes: int, clock: GroupClock) -> None:
        self.clock = clock
        """The group's lock-step time (fences and writes are compared on it)."""
        self.fenced = np.full(max(lanes, 1), -1, np.int64)
        """Per thread: the time of its latest ``fence.proxy.async`` (-1: none)."""
        self.open: dict[int, list[_Read]] = {}
        """Per thread: the reads of its stores since its last ``bulk.commit``."""
        self.groups: dict[int, list[list[_Read]]] = {}
        """Per thread: its committed bulk groups not yet retired, oldest first."""

    # -- the proxy fence -----------------------------------------------------------------
    def fence(self, lanes: np.ndarray) -> None:
        """``fence.proxy.async`` by ``lanes``: their generic writes so far are visible."""
        self.fenced[lanes] = self.clock.tick()

    # -- the copies ----------------------------------------------------------------------
    def read(self, op: ir.Operation, lane: int, st: Storage, phys: np.ndarray) -> np.ndarray:
        """Thread ``lane``'s store ``op`` reads ``phys`` of ``st`` (checked, recorded in its
        open group); the values read."""
        if st.pending is not None and (st.pending[phys] > 0).any():
            e = int(phys[np.argmax(st.pending[phys] > 0)])
            raise SimulationError(f"{describe_op(op)} reads element {_elem(st, e)} of {st.name} "
                                  "while a cp.async copy into it is in flight", "race", [op])
        if st.generic is not None:
            assert st.generic_at is not None
            w = st.generic[phys]
            stale = (w >= 0) & (self.fenced[np.maximum(w, 0)] < st.generic_at[phys])
            if stale.any():
                k = int(np.argmax(stale))
                raise SimulationError(
                    f"{describe_op(op)} by {self.clock.thread(lane)} reads element "
                    f"{_elem(st, int(phys[k]))} of {st.name}, which "
                    f"{self.clock.thread(int(w[k]))} wrote with an ordinary store and did "
                    "not make visible to the copy engine (no fence.proxy.async after the "
                    "write)", "race", [op])
        if st.races is not None:
            st.races.access("read", phys, np.full(phys.size, lane, np.int64), op)
        if st.bulk_reads is None:
            st.bulk_reads = np.zeros(st.array.size, np.int32)
            st.bulk = self
        st.bulk_reads[phys] += 1
        self.open.setdefault(lane, []).append(_Read(op, st, phys))
        return st.array.reshape(-1)[phys]

    def commit(self, lane: int) -> None:
        """``bulk.commit`` by ``lane``: its open group joins its committed ones."""
        self.groups.setdefault(lane, []).append(self.open.pop(lane, []))

    def wait(self, op: ir.Operation, lane: int, pending: int) -> None:
        """``bulk.wait`` by ``lane``: retire all but its ``pending`` newest groups, each
        read recorded again now (its end)."""
        groups = self.groups.get(lane, [])
        while len(groups) > pending:
            for r in groups.pop(0):
                assert r.storage.bulk_reads is not None
                r.storage.bulk_reads[r.phys] -= 1
                if r.storage.races is not None:
                    r.storage.races.access("read", r.phys,
                                           np.full(r.phys.size, lane, np.int64), op)

    def report_write(self, st: Storage, flat: np.ndarray, op: ir.Operation) -> None:
        """A write of ``op`` to ``flat`` of ``st`` must not meet a store's read in flight."""
        assert st.bulk_reads is not None
        busy = st.bulk_reads[flat] > 0
        if not busy.any():
            return
        e = int(flat[np.argmax(busy)])
        culprit = next((r.op for rs in [*self.open.values(),
                                        *(r for gs in self.groups.values() for r in gs)]
                        for r in rs if r.storage is st and bool((r.phys == e).any())), None)
        raise SimulationError(
            f"shared memory {st.name} element {_elem(st, e)}: {describe_op(op)} writes it "
            f"while {describe_op(culprit) if culprit is not None else 'a tensor store'} may "
            "still read it (no bulk.wait of the issuing thread has retired its group)",
            "race", [x for x in (culprit, op) if x is not None])

    def finish(self) -> None:
        """The end of the group's body: no store may still read its shared memory."""
        for lane in sorted(set(self.open) | set(self.groups)):
            reads = [*(r for g in self.groups.get(lane, []) for r in g),
                     *self.open.get(lane, [])]
            if reads:
                raise SimulationError(
                    f"{describe_op(reads[0].op)} of {self.clock.thread(lane)} may still read "
                    "shared memory when the group ends: no bulk.wait retires its group",
                    "race", [reads[0].op])


def _elem(st: Storage, e: int) -> tuple[int, ...]:
    return tuple(int(x) for x in np.unravel_index(e, st.array.shape))


@atom_impl("fence.proxy.async")
def _fence_proxy(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
                 ) -> Sequence[Any]:
    ctx.bulk.fence(np.flatnonzero(active))
    return _tokens(op)


@atom_impl("bulk.commit")
def _bulk_commit(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
                 ) -> Sequence[Any]:
    for t in np.flatnonzero(active):
        ctx.bulk.commit(int(t))
    return _tokens(op)


@atom_impl("bulk.wait")
def _bulk_wait(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
               ) -> Sequence[Any]:
    n = pending_of(op)
    for t in np.flatnonzero(active):
        ctx.bulk.wait(op, int(t), n)
    return _tokens(op)


@atom_impl("tma.store")
def _tma_store(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
               ) -> Sequence[Any]:
    if len(args) < 2:
        raise SimulationError("tma.store takes the global array, a shared source view and one "
                              "coordinate per array axis", "unsupported", [op])
    dst, src = args[0], args[1]
    got = tensor_copy_args(ctx, op, src, dst, args[2:], active)
    if got is None:
        return _tokens(op)
    lanes, flat, origin = got
    box = tuple(int(x) for x in op.attr("box"))
    if flat.shape[1] != math.prod(box):
        raise SimulationError(f"tma.store: the box {box} has {math.prod(box)} elements, the "
                              f"source view {flat.shape[1]}", "unsupported", [op])
    st, arr = src.storage, dst.storage.array
    for k, t in enumerate(lanes):
        check_swizzle(op, st, flat[k], box, op.attr("swizzle"))
        data = ctx.bulk.read(op, int(t), st, st.physical(flat[k]))
        at, inside = box_points(box, [int(c[t]) for c in origin], arr.shape)
        where = tuple(c[inside] for c in at)
        if dst.storage.programs is not None and inside.any():
            dst.storage.programs.write("write", np.ravel_multi_index(where, arr.shape), op)
        arr[where] = data[inside]
    return _tokens(op)
