"""Warpgroup instruction groups in flight: what an issued ``wgmma`` still reads and writes.

On the GPU a ``wgmma.mma_async`` reads its shared operands and writes its
accumulator registers at any time until a ``wgmma.wait_group`` retires its
group. The simulator computes the product when the instruction issues, which
is the hardware's result exactly when nothing disturbs the instruction while it
is in flight. This module checks that condition instead of assuming it:

* per warpgroup, issued instructions join the open group; ``wgmma.commit``
  closes it, ``wgmma.wait N`` retires all but the newest ``N`` closed groups;
* a write to a shared element that an unretired group reads (a store, an
  atomic, a ``cp.async`` issue) is reported as a race naming both operations;
* an operation other than a ``wgmma`` reading accumulator registers an
  unretired group still writes is reported (the registers are not yet the sum);
* a group never retired when the group's body ends is reported (a missing wait).

Retiring a group also orders: the warpgroup's threads issued its instructions together
(the instruction runs once all four warps issued it), so each of them is ordered after
every thread's accesses before that issue once the group retires (``GroupClock.hb``):
the register A operands a warpgroup loads from shared memory just before its
instructions are read before a release that follows the wait.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

import tilec.ir as ir

from .errors import SimulationError, describe_op
from .simt_memory import Storage

__all__ = ["InFlightGroups"]


@dataclass(eq=False)
class _Group:
    """The instructions one warpgroup committed (or is collecting) as one group."""

    warpgroup: int
    """The issuing warpgroup."""
    number: int
    """Its commit number (the open group has the next number)."""
    ops: list[ir.Operation] = field(default_factory=list)
    """The instructions, in issue order."""
    reads: list[tuple[Storage, np.ndarray, ir.Operation]] = field(default_factory=list)
    """Shared storage, physical flat elements read, and the reading instruction."""
    results: list[np.ndarray] = field(default_factory=list)
    """The accumulator arrays the instructions produced (by identity)."""
    issued_at: int = -1
    """The lock-step time of its latest instruction's issue (-1: none yet)."""


class InFlightGroups:
    """The ``wgmma`` groups of one group's threads that have not been retired."""

    def __init__(self, warpgroups: int, clock: Any = None) -> None:
        self.committed = np.zeros(max(warpgroups, 1), np.int64)
        """Per warpgroup, the number of groups it has committed."""
        self.groups: list[_Group] = []
        """Open and committed, unretired groups."""
        self._live: dict[int, tuple[np.ndarray, _Group]] = {}
        """``id(array)`` of an unretired result -> (the array, its group)."""
        self.clock = clock
        """The group's ``GroupClock`` (None: retiring orders nothing)."""

    def _open(self, w: int) -> _Group:
        for g in self.groups:
            if g.warpgroup == w and g.number == self.committed[w]:
                return g
        g = _Group(w, int(self.committed[w]))
        self.groups.append(g)
        return g

    # -- the instructions -------------------------------------------------------------
    def issue(self, w: int, op: ir.Operation,
              reads: list[tuple[Storage, np.ndarray]], results: list[np.ndarray]) -> None:
        """Warpgroup ``w`` issued ``op``, which reads ``reads`` and writes ``results``."""
        g = self._open(w)
        g.ops.append(op)
        if self.clock is not None:
            g.issued_at = self.clock.tick()
        for st, flat in reads:
            if st.mma_reads is None:
                st.mma_reads = np.zeros(st.array.size, np.int32)
            st.mma = self
            f = np.asarray(flat, np.int64).reshape(-1)
            np.add.at(st.mma_reads, f, 1)
            g.reads.append((st, f, op))
        for r in results:
            g.results.append(r)
            self._live[id(r)] = (r, g)

    def commit(self, warpgroups: np.ndarray) -> None:
        """Close the open group of each warpgroup in ``warpgroups``."""
        self.committed[warpgroups] += 1

    def wait(self, warpgroups: np.ndarray, pending: int) -> None:
        """Retire every closed group of ``warpgroups`` older than the newest ``pending``."""
        keep: list[_Group] = []
        chosen = set(int(w) for w in warpgroups)
        for g in self.groups:
            if g.warpgroup in chosen and g.number < self.committed[g.warpgroup] - pending:
                self._retire(g)
            else:
                keep.append(g)
        self.groups = keep

    def _retire(self, g: _Group) -> None:
        if self.clock is not None and g.issued_at >= 0:
            who = np.arange(g.warpgroup * 128, (g.warpgroup + 1) * 128)
            hb = self.clock.orders(self.committed.size * 128)
            sub = np.ix_(who, who)
            hb[sub] = np.maximum(hb[sub], g.issued_at)
        for st, f, _ in g.reads:
            np.subtract.at(st.mma_reads, f, 1)
        for r in g.results:
            live = self._live.get(id(r))
            if live is not None and live[1] is g:
                del self._live[id(r)]

    # -- the checks -------------------------------------------------------------------
    def check_operands(self, op: ir.Operation, args: list[Any]) -> None:
        """``op`` reads ``args``: none may be an accumulator still being written (a ``wgmma``
        chaining its own accumulator is ordered by the hardware and is not checked here)."""
        if not self._live:
            return
        for a in args:
            live = self._live.get(id(a))
            if live is not None and live[0] is a:
                g = live[1]
                raise SimulationError(
                    f"{describe_op(op)} reads accumulator registers that {describe_op(g.ops[-1])}"
                    f" of warpgroup {g.warpgroup} is still writing (no wgmma.wait has retired "
                    "its group)", "race", [g.ops[-1], op])

    def report_write(self, st: Storage, flat: np.ndarray, op: ir.Operation) -> None:
        """Raise if ``op`` writes an element of ``st`` an unretired group still reads."""
        f = np.asarray(flat, np.int64).reshape(-1)
        busy = st.mma_reads[f] > 0
        if not busy.any():
            return
        e = int(f[np.argmax(busy)])
        culprit = next((r for g in self.groups for s, rf, r in g.reads
                        if s is st and bool((rf == e).any())), None)
        elem = tuple(int(x) for x in np.unravel_index(e, st.array.shape))
        raise SimulationError(
            f"shared memory {st.name} element {elem}: {describe_op(op)} writes it while "
            f"{describe_op(culprit) if culprit is not None else 'a wgmma'} may still read it "
            "(no wgmma.wait has retired that instruction's group)", "race",
            [x for x in (culprit, op) if x is not None])

    def finish(self) -> None:
        """The end of the group's body: every issued group must have been retired."""
        for g in self.groups:
            if g.ops:
                raise SimulationError(
                    f"{describe_op(g.ops[0])} of warpgroup {g.warpgroup} is never retired: no "
                    "wgmma.wait covers its group before the threads finish (its accumulators "
                    "and shared reads are undefined)", "hang", [g.ops[0]])
