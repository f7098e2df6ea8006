"""Clusters of persistent warp-specialized groups (``LowerOptions.cluster``; docs/design/
warp_specialization.md, "Clusters").

A loop the schedule marks ``cluster = (n, axis)`` belongs to a persistent group whose
programs run in clusters of ``n = 2`` groups: consecutive programs ``2c`` and ``2c + 1``
(the grid's ``cluster`` attribute; on the GPU one cluster of two thread blocks, which the
hardware places on one GPC). The pair walks *pair tiles*: the tile grid with the extent of
``axis`` halved (rounded up); group ``r = program mod 2`` takes tile ``2 i + r`` along
``axis``. Staged operands whose window does not depend on that axis (B for neighbouring
row tiles) are the same for both groups, so each group's producer copies every other box
of them (box ``b`` by group ``b mod 2``) with a multicast tensor copy that lands in both
groups' rings at the same offset and completes each group's ``full`` barrier there. Each
group's ``full[v]`` still expects every byte of version ``v`` (its own boxes and its
peer's), and its ``empty[v]`` counts the releases of both groups' consumer warpgroups: a
version may be refilled only when both groups are done with it, since either producer
writes into both. So each consumer warpgroup's first thread arrives on ``empty`` of its own
group and of its peer (``mbarrier.arrive.peer``).

Where the halved extent was odd, the last pair tile's second tile lies outside the grid: its
group still runs the ring (its own copies read outside the arrays, which fills zeros, and its
peer needs its releases) but skips the work after the loop (the tile's stores).

Every thread of both groups meets at ``barrier.cluster`` after the barriers are initialized
(so that no peer arrives or copies into a barrier not yet initialized) and again before the
groups end (so that no group exits while its peer may still arrive on its barriers).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import tilec.ir as ir

from .schedule import multicast_loads

__all__ = ["Cluster", "cluster_of", "pair_extents"]


@dataclass
class Cluster:
    """The cluster of a persistent group, in the lowering of its SIMT region."""

    size: int
    """Groups per cluster (2)."""
    axis: int
    """The grid axis along which a cluster's groups take neighbouring tiles."""
    shared: frozenset[ir.Operation]
    """The staged loads (Scheduled ``load``s) whose window does not depend on ``axis``:
    copied once per cluster, multicast into every group's ring."""
    rank: ir.Value | None = None
    """This group's rank in its cluster (``program mod size``; set by ``TileWalk.start``)."""
    peer: ir.Value | None = None
    """The other group's rank."""

    def bind(self, g: Any, program: ir.Value) -> None:
        """Compute the rank and the peer's rank from the program's number."""
        self.rank = g.arith("rem", program, g.index(self.size))
        self.peer = g.arith("sub", g.index(self.size - 1), self.rank)


def cluster_of(loop: ir.Operation, body: ir.Block) -> Cluster | None:
    """The cluster of the Scheduled loop ``loop`` of grid body ``body`` (None: none)."""
    c = loop.attr("cluster")
    if not c:
        return None
    n, axis = (int(x) for x in c)
    return Cluster(n, axis, frozenset(multicast_loads(loop, body.args[axis])))


def pair_extents(extents: list[ir.Value], cluster: Cluster,
                 cdiv: Callable[[ir.Value, int], ir.Value]) -> list[ir.Value]:
    """The extents of the pair-tile grid: ``extents`` with the cluster's axis divided by the
    cluster size, rounded up (``cdiv(value, n)`` builds the division)."""
    out = list(extents)
    out[cluster.axis] = cdiv(out[cluster.axis], cluster.size)
    return out
