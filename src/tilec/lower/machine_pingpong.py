"""Ping-pong consumers of a persistent warp-specialized group (``pingpong = 2`` on its loop,
``LowerOptions.pingpong``; docs/design/warp_specialization.md, "Ping-pong consumers").

The group's tile is one warpgroup's (``T = 128`` threads) and its lane nest has ``2T + 128``
threads: consumer 0 (``[0, T)``), consumer 1 (``[T, 2T)``) and the producer, which walks the
program's tiles exactly as for one consumer set (``machine_roles``), so iteration ``j`` of
the ring counts the iterations of every tile in walk order. Consumer ``r`` takes the
program's tiles ``r, r + 2, ...`` of that order. Lowered once per consumer, each numbers its
threads from 0 (``GroupLowering.rebase_tid``), meets at its own named barrier
(``ROLE_BARRIER + 1 + r``) and has its own scratch pools and tensor-store buffers; the
ring's ``(version, parity)`` it carries skips the other's tiles (``n`` iterations each: the
K loop's trip count, the same for every tile of a persistent group)::

    consumers' region (2T threads), where the tensor-map guard holds:
        if tid >= T {roles = ("consumer 1", "consumer 0")}:
            tid' = tid - T; state = advance((0, 0), n)
            for t = first + P, first + 3P, ... < tiles (its i-th tile):
                wait turns[1] with parity i mod 2
                the K loop from state, then release its last version
                if t + P < tiles: thread 0 arrives on turns[0]
                the epilogue (its own tensor-store buffers)
                state = advance(state after the loop, n)
        else:  consumer 0 likewise, tiles first, first + 2P, ...; it waits on turns[0] with
               parity (i - 1) mod 2 from its second tile on, and arrives on turns[1]
        the consumers meet; thread 0 invalidates every barrier
    where the guard fails: consumer 0 alone walks every tile with the ordinary ring.

The turns make the two K loops alternate, which is what the GPU wants (one consumer's
epilogue runs while the other computes) and what the ring's parities need: a consumer
starts waiting on ``full[v]`` for phase ``q`` only after the other consumer's loop passed
every ``full`` wait of the tile before, so the producer has filled the iteration ``W``
before, and phase ``q - 1`` of ``full[v]`` has completed. Without the turn, a consumer could
wait while phase ``q - 2`` is the last completed one, and its parity wait would return on
phase ``q - 1``, reading a version still being filled (the simulator reports the race).
Releases stay in ring order: a consumer reads iteration ``j`` only after the producer filled
it, which waited for the release of ``j - W``.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import TYPE_CHECKING

import tilec.ir as ir

from .machine import GroupLowering
from .machine_epilogue import TensorStores
from .machine_sync import ROLE_BARRIER

if TYPE_CHECKING:
    from .machine_roles import ConsumerRing, TileWalk

__all__ = ["PingPong", "CONSUMER_ROLES"]

CONSUMER_ROLES = ("consumer 1", "consumer 0")
"""The ``roles`` of the consumers' split (then: consumer 1, else: consumer 0)."""


class PingPong:
    """The consumers' region of a ping-pong group (module docstring)."""

    def __init__(self, g: GroupLowering, ring: ConsumerRing, walk: TileWalk, lb: ir.Value,
                 ub: ir.Value, step: ir.Value,
                 consume_tile: Callable[..., list[ir.Value]],
                 epilogue: list[ir.Operation]) -> None:
        self.g = g
        self.ring = ring
        self.walk = walk
        self.consume_tile = consume_tile
        """One tile's K loop and epilogue (``machine_roles.lower_roles_body``'s): takes the
        carried ring state and the hooks to run before and after the loop; returns the
        state after it."""
        self.epilogue = epilogue
        """The group body's operations after the loop (their marked stores go through each
        consumer's tensor stores)."""
        self.threads = g.threads
        """Threads of one consumer (the group's tile)."""
        self.trips = g.arith("cdiv", g.arith("max", g.arith("sub", ub, lb), g.index(0)), step)
        """Iterations of the K loop per tile."""

    def both(self) -> None:
        """Where the tensor maps are legal: the two consumers, then their meeting and the
        barriers' invalidation."""
        g = self.g
        g.branches(g.arith("ge", g.tid, g.index(self.threads)), lambda: self._consumer(1),
                   lambda: self._consumer(0), {"roles": CONSUMER_ROLES})
        self.ring.finish_walk()

    def first_alone(self) -> None:
        """Where they are not: consumer 0 walks every tile with the ordinary ring (the ring's
        buffers are filled by the consumers themselves, so one set uses them)."""
        g = self.g
        g.guarded(g.arith("lt", g.tid, g.index(self.threads)),
                  lambda: self._consumer(0, alone=True))

    def advance(self, state: list[ir.Value], n: ir.Value) -> list[ir.Value]:
        """The ring's version and parity ``n`` iterations after ``state``."""
        g = self.g
        w = g.index(self.ring.st.versions)
        total = g.arith("add", state[0], n)
        flips = g.arith("floordiv", total, w)
        return [g.arith("rem", total, w),
                g.arith("rem", g.arith("add", state[1], flips), g.index(2))]

    def _consumer(self, r: int, alone: bool = False) -> None:
        g, walk = self.g, self.walk
        saved = g.tid, g.role_threads, g.role_barrier
        with g.smem.own_pools() if r else nullcontext():
            if r:
                g.rebase_tid(g.arith("sub", g.tid, g.index(self.threads)))
            g.role_threads, g.role_barrier = self.threads, ROLE_BARRIER + 1 + r
            stores = TensorStores(g, not alone)
            stores.defer(self.epilogue)
            g.tensor_stores = stores
            try:
                if alone:
                    walk.walk(g, [g.index(0), g.index(0)], self.consume_tile)
                else:
                    self._walk(r)
            finally:
                g.tensor_stores = None
            stores.finish()
            g.tid, g.role_threads, g.role_barrier = saved

    def _walk(self, r: int) -> None:
        g, walk, ring = self.g, self.walk, self.ring
        assert walk.programs is not None and walk.first is not None and walk.tiles is not None
        start = [g.index(0), g.index(0)]
        if r:
            start = self.advance(start, self.trips)

        def tile(state: list[ir.Value]) -> list[ir.Value]:
            t = walk.tile
            assert t is not None
            # the i-th tile of consumer r is the program's (2i + r)-th
            ordinal = g.arith("floordiv", g.arith("floordiv", g.arith("sub", t, walk.first),
                                                  walk.programs), g.index(2))
            other_next = g.arith("lt", g.arith("add", t, walk.programs), walk.tiles)
            after = self.consume_tile(state, (lambda: ring.take_turn(r, ordinal),
                                              lambda: ring.pass_turn(r, other_next)))
            return self.advance(after, self.trips)

        walk.walk(g, start, tile, offset=r, every=2)
