"""Group barrier placement of the Machine lowering.

``BarrierTracker`` decides where a group's threads must meet: between conflicting accesses
of shared memory (or of a kernel argument) by different threads, with or without
dependence-aware coalescing (``PlannerOptions.coalesce_group_barriers``); see
docs/design/lowering.md, "Barriers". ``GroupLowering`` owns one and calls ``read`` /
``write`` before every access it emits.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import tilec.ir as ir

__all__ = ["BarrierTracker", "ROLE_BARRIER", "root_of", "weaken_independent_fences"]


def root_of(v: ir.Value) -> ir.Value:
    """The memory a chain of views starts from."""
    while True:
        d = v.defining_op
        if d is None or d.name != "view":
            return v
        v = d.operand(0)


ROLE_BARRIER = 1
"""The named barrier id of the consumers of a warp-specialized group (0 is the group's)."""


class _Ledger:
    """The accesses since the last barrier under one placement rule, and the barrier sites
    that rule has placed so far."""

    def __init__(self, per_root: bool) -> None:
        self.per_root = per_root
        """True: accesses conflict only through the same memory root (dependence-aware
        coalescing); False: every root is one alias class (the reference sequence)."""
        self.writes: set[ir.Value] = set()
        """Roots written since the last barrier."""
        self.reads: set[ir.Value] = set()
        """Roots read since the last barrier."""
        self.sites = 0
        """Static barrier sites placed (not dynamic executions)."""

    def conflicts(self, root: ir.Value, write: bool) -> bool:
        """Whether an access to ``root`` must wait for a barrier first."""
        if self.per_root:
            return root in self.writes or (write and root in self.reads)
        return bool(self.writes) or (write and bool(self.reads))

    def record(self, root: ir.Value, write: bool) -> None:
        """Note an access to ``root``."""
        (self.writes if write else self.reads).add(root)

    def clear(self) -> None:
        """A barrier: nothing is pending."""
        self.writes.clear()
        self.reads.clear()


class BarrierTracker:
    """Places group barriers between conflicting accesses of different threads.

    It tracks, per memory root, whether the group wrote or read it since the last barrier
    in the current straight-line code; a read after a write, or a write after any access,
    to the same root first emits ``barrier.group`` (``PlannerOptions.coalesce_group_barriers``,
    the default). The set of accesses since the last barrier grows until one is placed, so
    ``write A; access B; read A`` keeps its barrier. Memory roots are the compiler's own
    shared buffers and the kernel's parameters; parameters count as distinct roots because
    every launcher refuses a written argument that overlaps another
    (``targets.interop_checks.check_aliasing``). Loop bodies end with a barrier when anything
    is pending (the next iteration is a new segment); branches merge conservatively, and an
    explicit ``sync`` is always a barrier.

    Without coalescing (or without the planner) every root is one alias class: any read
    after a write, or any write after an access, waits for a barrier (the reference
    sequence). With coalescing, a second ledger follows the reference rule over the same
    accesses without emitting anything, so ``sites`` reports both counts.
    """

    def __init__(self, g: Any, coalesce: bool = True) -> None:
        self.g = g
        self.active = _Ledger(per_root=coalesce)
        """The rule whose barriers are emitted."""
        self.reference: _Ledger | None = _Ledger(per_root=False) if coalesce else None
        """The reference rule, counted but not emitted (None: it is the active rule)."""
        self.fences: list[Any] = []
        """The ``barrier.group`` operations this tracker placed for a conflict or at a
        segment's end (its own fences, by identity: what
        ``plan/proofs/independent_subgroups.py`` may weaken; an explicit or protocol
        barrier is not one)."""

    @property
    def _ledgers(self) -> list[_Ledger]:
        return [self.active] if self.reference is None else [self.active, self.reference]

    def _emit(self, fence: bool = False) -> None:
        if self.g.role_threads is not None:
            self.g.atom("barrier.named", [], [], id=self.g.role_barrier,
                        threads=self.g.role_threads)
        else:
            op = self.g.atom("barrier.group", [], [])
            if fence:
                self.fences.append(op)
        self.active.sites += 1
        self.active.clear()

    def barrier(self) -> None:
        """Emit a group barrier (inside a role region, the role's named barrier) that both
        rules have; nothing is pending afterwards."""
        self._emit()
        if self.reference is not None:
            self.reference.sites += 1
            self.reference.clear()

    def cluster_barrier(self) -> None:
        """Emit ``barrier.cluster`` (every thread of every group of the cluster meets; a
        group barrier too): nothing is pending afterwards."""
        self.g.atom("barrier.cluster", [], [])
        for ledger in self._ledgers:
            ledger.sites += 1
            ledger.clear()

    def _access(self, mems: tuple[ir.Value, ...], write: bool) -> None:
        roots = [root_of(m) for m in mems]
        ref = self.reference
        if ref is not None:
            if any(ref.conflicts(r, write) for r in roots):
                ref.sites += 1
                ref.clear()
            for r in roots:
                ref.record(r, write)
        if any(self.active.conflicts(r, write) for r in roots):
            self._emit(fence=True)
        for r in roots:
            self.active.record(r, write)

    def read(self, *mems: ir.Value) -> None:
        """Before reading through each of ``mems`` (views of tracked roots). Declare
        together the reads that all come after this point: a barrier one of them needs must
        not clear the record of another that has not happened yet."""
        self._access(mems, write=False)

    def write(self, *mems: ir.Value) -> None:
        """Before writing through each of ``mems`` (declared together, as for ``read``)."""
        self._access(mems, write=True)

    def end_segment(self) -> None:
        """The end of a loop body: a barrier when anything is pending (the next iteration
        is a new segment), under each rule."""
        ref = self.reference
        if ref is not None and (ref.writes or ref.reads):
            ref.sites += 1
            ref.clear()
        if self.pending:
            self._emit(fence=True)

    def forget(self, roots: Iterable[ir.Value]) -> None:
        """Accesses to ``roots`` are ordered by a protocol (a ring's barriers), not by group
        barriers: they are no longer pending."""
        for led in self._ledgers:
            for r in roots:
                led.reads.discard(r)
                led.writes.discard(r)

    def note_reads(self, roots: Iterable[ir.Value]) -> None:
        """Make reads of ``roots`` pending (a protocol's last reads, for the code after)."""
        for led in self._ledgers:
            led.reads.update(roots)

    def state(self) -> tuple[tuple[set[ir.Value], set[ir.Value]], ...]:
        """A copy of what is pending under each rule."""
        return tuple((set(led.writes), set(led.reads)) for led in self._ledgers)

    def restore(self, st: tuple[tuple[set[ir.Value], set[ir.Value]], ...] | None) -> None:
        """Make ``st`` pending (None: nothing, where a protocol orders what came before)."""
        for k, led in enumerate(self._ledgers):
            led.writes, led.reads = (set(), set()) if st is None else \
                (set(st[k][0]), set(st[k][1]))

    def merge(self, *states: tuple[tuple[set[ir.Value], set[ir.Value]], ...]) -> None:
        """Pending = the union of ``states`` (after a branch)."""
        for k, led in enumerate(self._ledgers):
            led.writes = set().union(*(s[k][0] for s in states))
            led.reads = set().union(*(s[k][1] for s in states))

    @property
    def pending(self) -> bool:
        """True when an access since the last emitted barrier is recorded."""
        return bool(self.active.writes or self.active.reads)

    @property
    def sites(self) -> tuple[int, int]:
        """Static group barrier sites: (under the reference rule, emitted)."""
        ref = self.reference if self.reference is not None else self.active
        return ref.sites, self.active.sites


def weaken_independent_fences(tracker: BarrierTracker, lane_block: ir.Block, threads: int,
                              width: int) -> Any:
    """Apply ``plan.proofs.independent_subgroups`` to ``tracker``'s own fences in the SIMT
    region ``lane_block``: a fence that needs a subgroup barrier becomes ``barrier.subgroup``
    (of ``width`` threads), one that needs none is removed. Returns the proof's fact (the
    group report's ``independent_subgroups``)."""
    from tilec.plan.proofs.independent_subgroups import NONE, SUBGROUP, prove

    fact = prove(lane_block, [f for f in tracker.fences if f is not None], threads, width)
    for site in fact.sites:
        op = site.op
        if site.needs == SUBGROUP:
            new = ir.Operation("atom.call", [], [], {"catalog_id": "barrier.subgroup",
                                                     "width": width}, loc=op.loc)
            op.parent.insert_op(new, op)
            op.erase()
            site.op = new
        elif site.needs == NONE:
            op.erase()
    return fact
