"""Clusters of groups in the SIMT simulator (the grid's ``cluster`` attribute; docs/design/
warp_specialization.md, "Clusters").

A grid ``parallel`` with ``cluster = n`` (rank 1) runs its programs in clusters: programs
``n c .. n c + n - 1`` form cluster ``c``, and a group's *rank* in its cluster is its
program number mod ``n``. On the GPU the groups of a cluster run at once and reach into each
other's shared memory; three atoms couple them: ``barrier.cluster``,
``mbarrier.arrive.peer`` and ``tma.load`` with ``multicast = n``. The model:

* **Co-simulation.** The groups of one cluster run together, each in a task of one
  ``simt_roles.Baton`` (exactly one task runs at a time); a group's role split spawns its
  roles as child tasks of the same baton, so the roles of every group of the cluster take
  turns: a producer waiting for its peer's releases lets the peer's consumers run. A wait
  is a hang when every other runnable task of the cluster waits too and nothing progressed
  since (the barrier events and register budgets of every group and the cluster barrier's
  arrivals). Clusters run one after another (``max_groups`` stops before a cluster, not inside one).
* **``barrier.cluster``**: every thread of the group together (a group barrier for the
  group's own detector), then the group waits until every group of the cluster has reached
  the same occurrence (arrivals counted per generation). A group that ends while another
  waits there is a hang. When the last group arrives, every group's epoch advances: the
  accesses of every group before it are ordered before those of every group after it, and
  barrier initializations before it become visible to the other groups. Using another
  group's barrier that it initialized after the latest cluster barrier both passed, or
  reaching into a group's shared memory with no cluster barrier between that access and
  the group's end, is reported (a race: the GPU gives no order).
* **``mbarrier.arrive.peer(bar, rank)``** arrives on the barrier at the same element of the
  same allocation (the same ``memory`` operation) in group ``rank`` (a valid rank, else an
  error; its own rank arrives on its own barrier).
* **``tma.load`` with ``multicast = n``** copies the box into the same elements of the
  destination allocation in every group of the cluster, each copy completing that group's
  barrier at the barrier's element (``Mbarriers.tma_load`` per destination). On a grid
  without clusters it is an error.

Ordering across groups (race detection). Each group's detector (``RaceTracker``, the
arrival orders ``GroupClock.hb``, ``Mbarriers.observed`` and the copies' tags) knows the
group's ``L`` threads and a *mirror lane* ``L j + t`` for thread ``t`` of the ``j``-th other
group of the cluster (``Member.column``). A multicast copy into another group's storage is
checked there as a write by the issuing thread's mirror lane, against every access since the
latest cluster barrier (``GroupClock.floor``) and the tags of earlier copies. A peer
arrival remembers its origin (the arriving group, thread, time and observed phases there);
a thread ``w`` that observes the phase orders, in the *arriving* group's detector, its
mirror lane after the arriver's accesses and lets it observe what the arriver had observed
(``Mbarriers._join``). So a producer refilling its peer's ring with a multicast copy is
ordered after the peer's consumers' reads only through their releases on its own ``empty``
barrier, and after the copy they read only through the phases they had waited for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import tilec.ir as ir

from .errors import SimulationError, describe_op
from .simt_atoms import ATOM_IMPLS, AtomContext, atom_impl
from .simt_mbarrier import barrier_elements
from .simt_memory import GroupClock, Storage
from .simt_roles import Baton

__all__ = ["ClusterRun", "Member", "run_clusters"]


class Member:
    """One group of a running cluster."""

    def __init__(self, cluster: ClusterRun, rank: int, program: int) -> None:
        self.cluster = cluster
        """The cluster."""
        self.rank = rank
        """Its rank in the cluster (``program mod n``)."""
        self.program = program
        """Its program number in the grid."""
        self.runner: Any = None
        """Its ``LaneRunner`` once its lane-level body started."""
        self.storages: dict[ir.Operation, Storage] = {}
        """Its shared allocations by ``memory`` operation."""
        self.reached = 0
        """The cluster barriers it has arrived at."""
        self.ended = False
        """Its group body has finished."""
        self.touched: dict[int, tuple[int, ir.Operation]] = {}
        """Per other group's rank, that group's cluster generation at its latest access to this
        group's shared memory, and the operation (checked at this group's end)."""

    @property
    def name(self) -> str:
        """How messages name the group."""
        return f"program {self.program}"

    @property
    def baton(self) -> Baton:
        """The cluster's baton."""
        return self.cluster.baton

    @property
    def passed(self) -> int:
        """The cluster barriers it has passed (its generation)."""
        return self.cluster.released if self.runner is not None else 0

    def others(self) -> list[Member]:
        """The other groups, in mirror order."""
        return [m for m in self.cluster.members if m is not self]

    def column(self, other: Member) -> int:
        """The mirror lane of ``other``'s thread 0 in this group's detector."""
        return self.runner.lanes * (1 + self.others().index(other))

    # -- the group's start and end -------------------------------------------------------
    def prepare(self, clock: GroupClock, lanes: int) -> None:
        """Before the group's lane-level body: size its detector for the mirror lanes."""
        clock.lanes = lanes
        clock.width = lanes * self.cluster.size
        clock.name = self.name
        clock.peers = tuple(m.name for m in self.others())

    def attach(self, runner: Any, op: ir.Operation) -> None:
        """The group's lane-level body starts with ``runner``."""
        for m in self.others():
            if m.runner is not None and m.runner.lanes != runner.lanes:
                raise SimulationError(f"the groups of a cluster run {m.runner.lanes} and "
                                      f"{runner.lanes} threads; they run one body",
                                      "unsupported", [op])
        self.runner = runner
        runner.cluster = self
        runner.mbarriers.roles = self.baton

    def end(self, grid: ir.Operation) -> None:
        """The group body has finished: no other group may reach its shared memory any more,
        and every access another group made must be ordered before this point."""
        self.ended = True
        for rank, (generation, op) in sorted(self.touched.items()):
            if self.passed <= generation:
                other = self.cluster.members[rank]
                raise SimulationError(
                    f"{describe_op(op)} of {other.name} reaches the shared memory of "
                    f"{self.name}, whose group then ends with no barrier.cluster between the "
                    f"two ({self.name} may exit first: a cluster's groups meet at a cluster "
                    "barrier before they end)", "race", [op, grid])

    # -- reaching another group ----------------------------------------------------------
    def target(self, op: ir.Operation, rank: int, lane: int) -> Member:
        """The group of ``rank`` that thread ``lane`` of this group reaches with ``op``."""
        c = self.cluster
        cid = op.attr("catalog_id")
        if not 0 <= rank < c.size:
            raise SimulationError(f"{cid}: thread {lane} of {self.name} names cluster rank "
                                  f"{rank}; the cluster has ranks 0 to {c.size - 1}",
                                  "unsupported", [op])
        m = c.members[rank]
        if m is not self and m.runner is None:
            raise SimulationError(f"{cid}: thread {lane} of {self.name} reaches the shared "
                                  f"memory of {m.name}, whose threads have not started (no "
                                  "barrier.cluster orders the access after that group's "
                                  "barrier initializations)", "race", [op])
        if m is not self and m.ended:
            raise SimulationError(f"{cid}: thread {lane} of {self.name} reaches the shared "
                                  f"memory of {m.name}, which has already ended (no "
                                  "barrier.cluster orders the access before its end)", "race",
                                  [op])
        return m

    def storage_of(self, op: ir.Operation, st: Storage) -> Storage:
        """This group's storage of the allocation (``memory`` operation) that another
        group's storage ``st`` comes from."""
        found = self.storages.get(st.op) if st.op is not None else None
        if found is None:
            raise SimulationError(f"{op.attr('catalog_id')}: {st.name} is not a shared "
                                  f"allocation of the group body that {self.name} has made",
                                  "unsupported", [op])
        return found

    def barrier(self, op: ir.Operation, st: Storage, flat: int, source: Member) -> Any:
        """The valid barrier at ``flat`` of this group's ``st``, used by ``source`` (which
        ``target`` checked): its initialization must be visible, a cluster barrier later."""
        b = self.runner.mbarriers._valid(op, st, flat)
        if source.passed <= b.generation:
            raise SimulationError(
                f"{op.attr('catalog_id')}: {source.name} uses barrier {b.name} of {self.name} "
                f"with no barrier.cluster between its initialization ({describe_op(b.init)}) "
                "and the use (the initialization need not be visible to the cluster yet)",
                "race", [b.init, op])
        self.touched[source.rank] = (source.passed, op)
        return b

    def arrive(self, op: ir.Operation, st: Storage, flat: int, lane: int, rank: int) -> None:
        """``mbarrier.arrive.peer`` of thread ``lane`` on ``flat`` of ``st`` in group
        ``rank``."""
        m = self.target(op, rank, lane)
        if m is self:
            self.runner.mbarriers.arrive(op, st, flat, lane)
            return
        peer = m.storage_of(op, st)
        m.barrier(op, peer, flat, self)
        m.runner.mbarriers.arrive_from(op, peer, flat, self.runner.mbarriers, self.column(m),
                                       lane)

    def multicast(self, op: ir.Operation, lane: int, dst: Storage, copy: Callable[..., None],
                  bar: Storage, bar_flat: int) -> None:
        """``tma.load`` with ``multicast``: ``copy(mbarriers, lane, dst, bar, copies)`` for
        this group and then every other group of the cluster, with the issuing thread's
        lane there (its mirror lane in another group)."""
        n = op.attr("multicast")
        if n != self.cluster.size:
            raise SimulationError(f"tma.load multicast = {n!r} in a cluster of "
                                  f"{self.cluster.size} groups", "unsupported", [op])
        g = self.runner
        copy(g.mbarriers, lane, dst, bar, g.copies)
        for m in self.others():
            self.target(op, m.rank, lane)
            peer_bar = m.storage_of(op, bar)
            m.barrier(op, peer_bar, bar_flat, self)
            copy(m.runner.mbarriers, m.column(self) + lane, m.storage_of(op, dst), peer_bar,
                 m.runner.copies)


class ClusterRun:
    """The groups of one cluster, co-simulated under one baton."""

    def __init__(self, host: Any, programs: list[int]) -> None:
        self.host = host
        """The host interpreter (``simt._Host``)."""
        self.size = len(programs)
        """Groups per cluster."""
        self.members = [Member(self, r, p) for r, p in enumerate(programs)]
        """Its groups by rank."""
        self.arrived: list[int] = []
        """Per cluster barrier generation, the groups that have arrived."""
        self.released = 0
        """Cluster barriers every group has passed."""
        self.baton = Baton(self.stamp)
        """The cluster's co-routines (its groups, then their roles)."""

    def stamp(self) -> tuple[int, ...]:
        """Progress of every group (unchanged while nothing can make progress)."""
        out = [sum(self.arrived)]
        for m in self.members:
            g = m.runner
            if g is not None:
                out += [g.mbarriers.events, *g.registers.budget]
        return tuple(out)

    def run(self, grid: ir.Operation, block: ir.Block, env: dict[ir.Value, Any]) -> None:
        """Run every group of the cluster to its end."""
        tasks, enter = [], []
        for m in self.members:
            local = dict(env)
            local[block.args[0]] = np.int64(m.program)
            tasks.append((m.name, lambda m=m, local=local:
                          self.host._run_group(grid, block, local, m)))
            enter.append(lambda m=m: setattr(self.host.grid, "program", m.program))
        self.baton.run(tasks, enter)

    def arrive(self, m: Member, op: ir.Operation) -> int:
        """Group ``m`` arrives at its next cluster barrier; returns its generation. The last
        group to arrive releases it: every group's epoch advances."""
        k = m.reached
        m.reached += 1
        while len(self.arrived) <= k:
            self.arrived.append(0)
        self.arrived[k] += 1
        if self.arrived[k] == self.size:
            self.released = k + 1
            for x in self.members:
                clock = x.runner.clock
                clock.advance(op)
                clock.floor = clock.epoch
                x.runner.mbarriers.generation = self.released
        return k


def run_clusters(host: Any, grid: ir.Operation, block: ir.Block, env: dict[ir.Value, Any],
                 extents: list[int], shown: Any) -> None:
    """The programs of a grid with ``cluster = n``, cluster after cluster."""
    n = int(grid.attr("cluster"))
    if len(extents) != 1 or grid.attr("traversal") is not None:
        raise SimulationError("a grid of clusters has one axis and no traversal (the cluster's "
                              "groups are consecutive programs)", "unsupported", [grid])
    if extents[0] % n:
        raise SimulationError(f"a grid of {extents[0]} programs is not whole clusters of {n} "
                              "groups (the launch would fail)", "unsupported", [grid])
    for c in range(extents[0] // n):
        if host.max_groups is not None and host.groups_run >= host.max_groups:
            return
        ClusterRun(host, list(range(c * n, c * n + n))).run(grid, block, env)
        host.groups_run += n
        shown.advance(n)


# ------------------------------------------------------------------ atoms


def _member(ctx: AtomContext, op: ir.Operation) -> Member:
    m = getattr(ctx, "cluster", None)
    if m is None:
        raise SimulationError(f"{op.attr('catalog_id')} on a grid without clusters (its "
                              "parallel has no cluster attribute)", "unsupported", [op])
    return m


@atom_impl("barrier.cluster")
def _barrier_cluster(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
                     ) -> list[Any]:
    m = _member(ctx, op)
    ATOM_IMPLS["barrier.group"](ctx, op, [], active)  # every thread of the group together
    c = m.cluster
    k = c.arrive(m, op)
    if c.released > k or m.baton.wait(lambda: c.released > k):
        return [None] * len(op.results)
    late = [x for x in m.others() if x.reached <= k]
    why = "; ".join(f"{x.name} " + ("has ended" if x.ended else "waits elsewhere") +
                    f" after {x.reached} cluster barrier(s)" for x in late)
    raise SimulationError(f"barrier.cluster: {m.name} waits at its cluster barrier number "
                          f"{k + 1} for the other groups of its cluster, which never arrive "
                          f"({why})", "hang", [op])


@atom_impl("mbarrier.arrive.peer")
def _mbarrier_arrive_peer(ctx: AtomContext, op: ir.Operation, args: list[Any],
                          active: np.ndarray) -> list[Any]:
    m = _member(ctx, op)
    st, flat = barrier_elements(op, args[0], active)
    rank = np.broadcast_to(np.asarray(args[1], np.int64), (ctx.lanes,))
    for t in np.flatnonzero(active):
        m.arrive(op, st, int(flat[t]), int(t), int(rank[t]))
    return [None] * len(op.results)
