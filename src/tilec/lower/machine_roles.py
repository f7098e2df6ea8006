"""Warp-specialized groups: a producer warpgroup fills the mbarrier ring of a staged loop
(``release = "producer"``, ``LowerOptions.warp_specialized``; docs/design/
warp_specialization.md).

The group keeps its ``T`` threads (the *consumers*, ``C = T / 128`` warpgroups, which
compute exactly as in the mbarrier ring of ``machine_ring``) and gets 128 more, the
*producer* warpgroup. With ``j`` the iteration number, ``v_j = j mod W`` and
``p_j = (j div W) mod 2``, the grid body becomes::

    ... the operations before the loop (constants and index arithmetic) ...
    guard = every staged operand's array has a legal tensor map
    if guard and tid == 0: initialize full[v] (count 1) and empty[v] (count C)
    barrier.group                                        (all T + 128 threads)
    if tid >= T {roles = ("producer", "consumer")}:      (the producer's region)
        setmaxnreg.dec 40                               (two consumer warpgroups)
        if guard and tid == T:
            for j: wait empty[v_j] with parity 1 - p_j  (the first pass returns at once)
                   expect_tx(full[v_j], bytes); the tensor copies of iteration j
    else:                                                (the consumers' region)
        setmaxnreg.inc 232                              (two consumer warpgroups)
        for j: if guard: wait full[v_j] with parity p_j
               else:     the ordinary ring (cp.async, named barriers among the consumers)
               the iteration's wgmma group; commit; wgmma.wait 1
               if guard and j >= 1: each consumer warpgroup's first thread arrives on
                                    empty[v_{j-1}] (its reads are retired)
        if guard: named barrier; thread 0 invalidates the barriers; named barrier
        ... the operations after the loop, with named barriers among the consumers ...

A persistent group (the loop's ``persistent`` attribute, ``LowerOptions.persistent``) is
launched as ``P = min(tiles, persistent)`` programs on one grid axis. The operations before
the loop that do not depend on the coordinates run once, before the role split; then each
role walks the tiles ``t = program, program + P, ...`` (``TileWalk``: the coordinates of
``t`` in the grid's traversal order) and runs the rest of its body per tile, both carrying
``(v, p)`` from tile to tile, so iteration ``j`` above counts the iterations of every tile
the program ran. The consumers release the last version of each tile after its loop (and
the ``wgmma.wait 0`` after it), so the producer fills the next tile's first
versions while the consumers store this tile's output; where the guard fails, each tile
runs the ordinary ring from version 0 and the consumers meet before the next tile's
copies. The barriers are invalidated once, after the walk.

Release ``i`` of version ``v`` completes phase ``i`` of ``empty[v]``, the one the producer
waits for at iteration ``j = v + (i + 1) W`` with parity ``i mod 2 = 1 - p_j``. Only thread
``T`` runs the producer's loop, so its last wait comes before its last copies, which the
consumers wait for before they invalidate the barriers. The producer warps never meet a
barrier after the role split: the consumers' barriers are named barrier ``ROLE_BARRIER`` over
their ``T`` threads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import tilec.ir as ir

from .machine import GroupLowering
from .machine_cluster import Cluster, pair_extents
from .machine_control import _guard_step, _layouts, _staged_loop, _value, flatten, unflatten
from .machine_epilogue import TensorStores
from .machine_pingpong import PingPong
from .machine_pipeline import Staging
from .machine_ring import GuardedRing, _discard_rings, previous_version, retire
from .machine_turns import WarpgroupTurns
from .schedule import coordinate_dependent

__all__ = ["roles_loop_of", "consumer_sets", "lower_roles_body", "TileWalk", "PRODUCER_THREADS",
           "PRODUCER_REGISTERS", "CONSUMER_REGISTERS"]

PRODUCER_THREADS = 128
"""The producer warpgroup."""
PRODUCER_REGISTERS = 40
"""The producer's register budget after ``setmaxnreg.dec`` (index arithmetic and copies)."""
CONSUMER_REGISTERS = 232
"""Each consumer's budget after ``setmaxnreg.inc``: with two consumer warpgroups,
``128 * 40 + 256 * 232 = 64512`` of the compute unit's 65536 registers."""


def roles_loop_of(group: ir.Operation) -> ir.Operation | None:
    """The loop of Scheduled group ``group`` that a producer warpgroup fills (None: the group
    is not warp-specialized)."""
    for op in group.regions[0].entry.operations:
        if op.attr("release") == "producer":
            return op
    return None


def consumer_sets(loop: ir.Operation) -> int:
    """Consumer warpgroup sets of the warp-specialized group of ``loop`` (2: ping-pong,
    ``machine_pingpong``; else 1)."""
    return int(loop.attr("pingpong", 1) or 1)


@dataclass
class TileWalk:
    """The output tiles one program of a persistent group walks."""

    group: ir.Operation
    """The Scheduled group ``parallel`` (its operands are the tile grid's extents)."""
    program: ir.Value
    """The Machine grid's coordinate: the program's number."""
    cap: int
    """Programs launched at most (``P = min(tiles, cap)``)."""
    traversal: tuple[str, int] | None
    """The order of the tiles (``ir.traversal``; None: row-major)."""
    cluster: Cluster | None = None
    """The programs' clusters (``machine_cluster``; None: none): the walk then goes over
    pair tiles, the cluster's groups taking neighbouring tiles of the cluster's axis."""
    extents: list[ir.Value] = field(default_factory=list)
    """The tile grid's extents in the SIMT region (``start``)."""
    walked: list[ir.Value] = field(default_factory=list)
    """The extents of the grid the walk numbers (``extents``, or the pair-tile grid)."""
    tiles: ir.Value | None = None
    """The product of ``walked`` (``start``)."""
    programs: ir.Value | None = None
    """``min(tiles, cap)``: the walkers launched (programs, or clusters), the walk's stride
    (``start``)."""
    first: ir.Value | None = None
    """The walk's first tile: the program's number (or its cluster's)."""
    in_range: ir.Value | None = None
    """In a cluster's walk, while a tile's body is lowered: the tile lies inside the grid
    (the second tile of the last pair tile may not)."""
    tile: ir.Value | None = None
    """While a tile's body is lowered: the tile's number in the walk."""

    def start(self, g: GroupLowering) -> None:
        """Compute the grid's extents, tile count and program count once, before the role
        split (both roles' walks read them)."""
        rank = self.group.attr("rank")
        self.extents = [g.scalar(v) for v in self.group.operands[:rank]]
        c = self.cluster
        self.walked = self.extents if c is None else \
            pair_extents(self.extents, c, lambda e, n: g.arith("cdiv", e, g.index(n)))
        tiles = self.walked[0]
        for e in self.walked[1:]:
            tiles = g.arith("mul", tiles, e)
        self.tiles = tiles
        cap, self.first = self.cap, self.program
        if c is not None:
            c.bind(g, self.program)
            cap //= c.size
            self.first = g.arith("floordiv", self.program, g.index(c.size))
        self.programs = g.arith("min", tiles, g.index(cap))

    def walk(self, g: GroupLowering, state: list[ir.Value],
             body: Callable[[list[ir.Value]], list[ir.Value]], meet: bool = True,
             offset: int = 0, every: int = 1) -> list[ir.Value]:
        """A loop over this program's tiles carrying ``state``: ``body`` runs per tile with
        the group's coordinates bound (and ``tile``, the tile's number) and returns the next
        state. ``meet``: the role's threads meet at the end of a tile that leaves shared
        accesses pending (False for a role of one thread, which never does). ``offset``,
        ``every``: only the program's tiles ``offset, offset + every, ...`` in walk order (a
        ping-pong consumer's)."""
        assert self.tiles is not None and self.programs is not None, "start() first"
        blk = ir.Block([ir.index, *(v.type for v in state)])
        first, stride = self.first, self.programs
        if offset:
            first = g.arith("add", first, g.arith("mul", self.programs, g.index(offset)))
        if every != 1:
            stride = g.arith("mul", self.programs, g.index(every))
        loop = g.op("serial", [first, self.tiles, stride, *state],
                    [v.type for v in state], {}, [ir.Region([blk])])
        self.tile = blk.args[0]
        before = g.sync.state()
        with g.scope(ir.Builder(ir.InsertionPoint.at_end(blk))):
            coords = self._coordinates(g, blk.args[0], self.walked)
            c = self.cluster
            if c is not None:  # the group's own tile of the pair tile
                a = c.axis
                coords[a] = g.arith("add", g.arith("mul", coords[a], g.index(c.size)), c.rank)
                self.in_range = g.arith("lt", coords[a], self.extents[a])
            for a, c in zip(self.group.regions[0].entry.args, coords):
                g.bind(a, c)
            out = body(list(blk.args[1:]))
            assert meet or not g.sync.pending, "a one-thread role left shared accesses pending"
            g.sync.end_segment()
            g.op("yield", out, [])
        g.sync.merge(before, g.sync.state())
        return list(loop.results)

    def _coordinates(self, g: GroupLowering, t: ir.Value, extents: list[ir.Value]
                     ) -> list[ir.Value]:
        """The grid point of tile number ``t`` (``ir.traversal_points``' formula)."""
        if self.traversal is None or len(extents) < 2:
            return _row_major(g, t, extents)
        rows, cols = extents[-2], extents[-1]
        inner = g.arith("mul", rows, cols)
        lin = g.arith("rem", t, inner)
        per_group = g.arith("mul", g.index(self.traversal[1]), cols)
        first = g.arith("mul", g.arith("floordiv", lin, per_group),
                        g.index(self.traversal[1]))
        in_group = g.arith("min", g.arith("sub", rows, first), g.index(self.traversal[1]))
        r = g.arith("rem", lin, per_group)
        last = [g.arith("add", first, g.arith("rem", r, in_group)),
                g.arith("floordiv", r, in_group)]
        if len(extents) == 2:
            return last
        return [*_row_major(g, g.arith("floordiv", t, inner), extents[:-2]), *last]


def _row_major(g: GroupLowering, t: ir.Value, extents: list[ir.Value]) -> list[ir.Value]:
    out = []
    for k, e in enumerate(reversed(extents)):
        if k == len(extents) - 1:
            out.append(t)  # the leading coordinate: t < the product of the extents
            break
        out.append(g.arith("rem", t, e))
        t = g.arith("floordiv", t, e)
    return out[::-1]


class ConsumerRing(GuardedRing):
    """The consumers' side of a warp-specialized ring: ``GuardedRing`` without the copies
    (the producer issues them) and without the wait for the release (the producer waits)."""

    def __init__(self, st: Staging, walking: bool = False, cluster: Cluster | None = None,
                 sets: int = 1) -> None:
        super().__init__(st)
        self._lb: ir.Value | None = None
        self.walking = walking
        """The group is persistent: the ring's state carries from tile to tile."""
        self.cluster = cluster
        """The group's cluster (None: none): both groups' consumers release every version,
        and the shared operands' copies are multicast (``machine_cluster``)."""
        self.ring.cluster = cluster
        self.sets = sets
        """Consumer sets taking alternate tiles (2: ping-pong, module docstring)."""
        self.turns = self.g.smem.buffer((sets,), ir.i64, "turn barriers") if sets > 1 \
            else None
        """Ping-pong: per consumer, the barrier the other arrives on once its K loop has
        passed every ``full`` wait of its tile (count 1)."""

    def init_barriers(self) -> None:
        """Before the role split, where the guard holds: thread 0 initializes every barrier
        (then every thread of the group meets, so that no copy completes on a barrier not
        yet initialized)."""
        g, ring = self.g, self.ring

        groups = 1 if self.cluster is None else self.cluster.size

        def each() -> None:
            for k, buf in enumerate((ring.full, ring.empty)):
                for v in range(self.st.versions):
                    g.atom("mbarrier.init", [ring._bar(buf, g.index(v))], [ir.token],
                           count=(1, ring.warpgroups * groups)[k])
            if self.turns is not None:
                for r in range(self.sets):
                    g.atom("mbarrier.init", [ring._bar(self.turns, g.index(r))], [ir.token],
                           count=1)
            g.atom("fence.proxy.async", [], [ir.token])

        g.guarded(g.arith("and", self.guard, self.st.thread0()), each,
                  {"guard": "array extents legal for a tensor map (warp-specialized ring)"})
        if self.cluster is None:
            g.sync.barrier()
        else:  # the peer's arrivals and copies find the barriers initialized
            g.sync.cluster_barrier()

    def prologue(self, lb: ir.Value, ub: ir.Value, step: ir.Value) -> None:
        """The ordinary ring's prologue where the guard fails (else the producer fills)."""
        self._lb = lb
        self._both(lambda: None, lambda: self.plain.prologue(lb, ub, step))

    def finish(self) -> None:
        """After the loop: without a walk, each protocol's end; in a persistent walk the
        barriers stay (``finish_walk`` invalidates them) and where the guard fails the
        consumers meet before the next tile's copies refill the ring."""
        if not self.walking:
            super().finish()
            return

        def plain() -> None:
            self.plain.finish()
            self.g.sync.barrier()

        self._both(lambda: None, plain)

    def release_last(self, lb: ir.Value, ub: ir.Value, state: list[ir.Value]) -> None:
        """In a persistent walk, after a tile's loop: release the version its last
        iteration read (that iteration waited for every group), ``state`` being the loop's
        final (next) version and parity. (With no group in flight every iteration
        released its own.)"""
        if not self.st.lag:
            return
        when = self.guarded_by(self.g.arith("lt", lb, ub))
        if when is not False:
            self._release_before(state[0], when)

    def finish_walk(self) -> None:
        """After the walk, where the guard holds: the consumers meet, thread 0 invalidates
        every barrier, they meet again. (In a cluster the peer may still arrive on them:
        they stay valid until the groups end, after the closing ``barrier.cluster``.)"""
        if self.cluster is None:
            self._both(self._invalidate, lambda: None)

    def _invalidate(self) -> None:
        g, turns = self.g, self.turns

        def also() -> None:  # the turn barriers, between the same meetings
            for r in range(self.sets):
                g.atom("mbarrier.inval", [self.ring._bar(turns, g.index(r))], [ir.token])

        self.ring._on_all("mbarrier.inval", None, also if turns is not None else None)

    def take_turn(self, r: int, ordinal: ir.Value) -> None:
        """Ping-pong consumer ``r`` before the K loop of its tile number ``ordinal`` (0, 1,
        ... in its walk): wait until the other consumer's loop before it has passed its
        ``full`` waits (consumer 0's first tile waits for none). So the two loops take
        turns, and neither waits on a ``full`` barrier more than one phase ahead of the
        phase in progress, which its parity could not tell apart."""
        g = self.g
        assert self.turns is not None
        n = ordinal if r else g.arith("sub", ordinal, g.index(1))
        bar = self.ring._bar(self.turns, g.index(r))

        def wait() -> None:
            g.atom("mbarrier.wait", [bar, g.arith("rem", n, g.index(2))], [])

        if r:
            wait()
        else:
            g.guarded(g.arith("ge", ordinal, g.index(1)), wait)

    def pass_turn(self, r: int, when: ir.Value) -> None:
        """Ping-pong consumer ``r`` after its tile's K loop: its first thread (which waited
        on every ``full`` barrier of the tile) lets the other consumer's next loop start,
        where ``when`` holds (the other has a next tile)."""
        g = self.g
        assert self.turns is not None
        bar = self.ring._bar(self.turns, g.index(1 - r))
        g.guarded(g.arith("and", when, g.thread0()),
                  lambda: g.atom("mbarrier.arrive", [bar], [ir.token]))

    def end_iteration(self) -> None:
        """Retire the previous iteration's group, then release its version."""
        assert self._at is not None
        # the ordinary ring of an unswitched fallback retires each group at once: ptxas
        # serializes every wgmma of the kernel where that copy's copies run beside a group
        # in flight (its address registers displace the accumulators'); it runs only
        # where a tensor map is illegal
        if self.st.lag:  # else every group was waited for where it was issued
            retire(self.g, 0 if self.known is False else 1)
        self._both(self._release, lambda: None)
        _discard_rings(self.st)

    def _release(self) -> None:
        g = self.g
        assert self.ring._at is not None and self._lb is not None
        iv, _, _, (ver, _) = self.ring._at
        if self.st.lag:
            self._release_before(ver, g.arith("gt", iv, self._lb))
        else:  # this iteration's groups have retired: release its own version
            self._arrive(ver, None)

    def _release_before(self, ver: ir.Value, when: ir.Value) -> None:
        """Where ``when`` holds, each consumer warpgroup's first thread arrives on the
        ``empty`` barrier of the version before ``ver`` (the ring's order)."""
        prev, _ = previous_version(self.g, self.st.versions, ver, None)
        self._arrive(prev, when)

    def _arrive(self, ver: ir.Value, when: ir.Value | None) -> None:
        """Each consumer warpgroup's first thread arrives on ``empty[ver]`` (where
        ``when`` holds)."""
        g, ring = self.g, self.ring
        leader = g.arith("eq", g.arith("rem", g.tid, g.index(PRODUCER_THREADS)), g.index(0))
        c = self.cluster

        def arrive() -> None:
            bar = ring._bar(ring.empty, ver)
            g.atom("mbarrier.arrive", [bar], [ir.token])
            if c is not None:  # the peer's producer refills this group's ring too
                assert c.peer is not None
                g.atom("mbarrier.arrive.peer", [bar, c.peer], [ir.token])

        g.guarded(leader if when is None else g.arith("and", when, leader), arrive)

    def produce(self, lb: ir.Value, ub: ir.Value, step: ir.Value,
                state: list[ir.Value] | None = None) -> list[ir.Value]:
        """The producer's loop (one thread runs it): wait for each version's release, then
        issue the iteration's copies into it. ``state``: the version and parity of the
        first iteration (default 0, 0); returns those after the last.

        The loads copied once (``Staging.once``: attention's query tile) go with the first
        iteration's copies, into their one buffer, on the same ``full`` barrier. In a
        persistent walk that buffer still holds the previous tile's tile until the
        consumers are done with it: they are once they released the version of that
        tile's last iteration (releases come in order), which the producer waits for
        first (on a fresh barrier, the first tile's wait returns at once)."""
        g, ring = self.g, self.ring
        body = ir.Block([ir.index, ir.index, ir.index])
        init = state if state is not None else [g.index(0), g.index(0)]
        once = bool(self.st.once)
        if once and state is not None:
            last, parity = previous_version(g, self.st.versions, init[0], init[1])
            g.guarded(g.arith("lt", lb, ub), lambda: g.atom(
                "mbarrier.wait", [ring._bar(ring.empty, last), parity], []))
        loop = g.op("serial", [lb, ub, step, *init], [ir.index, ir.index], {},
                    [ir.Region([body])])
        with g.scope(ir.Builder(ir.InsertionPoint.at_end(body))):
            iv, ver, par = body.args
            g.atom("mbarrier.wait", [ring._bar(ring.empty, ver),
                                     g.arith("sub", g.index(1), par)], [])
            ring._issue(iv, ver, g.arith("eq", iv, lb) if once else False)
            g.op("yield", self.st.next_carried([ver, par]), [])
        return list(loop.results)


def _unswitched(ring: ConsumerRing, fast: Callable[[], None], slow: Callable[[], None]
                ) -> None:
    """``if guard { body with the tensor-map protocol } else { body with the ordinary
    ring }``: the consumers' whole region lowered twice, each copy knowing the guard
    (``GuardedRing.known``), so the hot loop carries no fallback code between its
    instructions. Each copy ends its accumulators' lives inside its branch (the epilogue
    stores them), so no accumulator joins after the ``if``; the second copy reuses the
    first's shared buffers (``SharedAllocator.alternatives``)."""
    def copy(known: bool, body: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            ring.known = known
            try:
                body()
            finally:
                ring.known = None
        return run

    first, second = ring.g.smem.alternatives(fast, slow)  # one copy runs: share buffers
    ring.g.branches(ring.guard, copy(True, first), copy(False, second),
                    {"guard": "array extents legal for a tensor map (warp-specialized "
                              "consumers)"})


def lower_roles_body(g: GroupLowering, block: ir.Block, loop: ir.Operation,
                     walk: TileWalk | None = None) -> None:
    """Lower grid body ``block`` whose staged loop ``loop`` a producer warpgroup fills: the
    operations before the loop on every thread, then the two roles (module docstring).
    ``walk``: the group is persistent, each role walks the program's tiles."""
    ops = [op for op in block.operations if not op.opdef.terminator]
    k = ops.index(loop)
    early, per_tile = ops[:k], []
    if walk is not None:  # what depends on the coordinates runs per tile
        varying = coordinate_dependent(block, ops[:k])
        early = [op for op in ops[:k] if op not in varying]
        per_tile = [op for op in ops[:k] if op in varying]
    for op in early:
        if op not in g.skip:
            g.lower_op(op)
    outer, g.loc = g.loc, loop.loc
    lb, ub, step = (g.scalar(v) for v in loop.operands[:3])
    _guard_step(g, loop, step)
    cluster = walk.cluster if walk is not None else None
    if walk is not None:
        walk.start(g)
    sets = consumer_sets(loop)
    # a cluster's producers split and multicast every operand's copies each iteration; a
    # tile's once-copied buffer would be shared by both ping-pong consumers
    ring = ConsumerRing(Staging(g, loop, copy_once=cluster is None and sets == 1),
                        walking=walk is not None, cluster=cluster, sets=sets)
    ring.init_barriers()
    consumers = g.threads  # of one consumer set
    two = consumers * sets // PRODUCER_THREADS >= 2

    def lower_all(seq: list[ir.Operation]) -> None:
        for op in seq:
            if op not in g.skip:
                g.lower_op(op)

    def produce_tile(state: list[ir.Value]) -> list[ir.Value]:
        lower_all(per_tile)
        g.loc = loop.loc
        return ring.produce(lb, ub, step, state)

    def producer() -> None:
        if two:
            g.atom("setmaxnreg", [], [], action="dec", count=PRODUCER_REGISTERS)
        leader = g.arith("eq", g.tid, g.index(consumers * sets))
        if walk is None:
            run = lambda: ring.produce(lb, ub, step)  # noqa: E731
        else:
            run = lambda: walk.walk(g, [g.index(0), g.index(0)], produce_tile,  # noqa: E731
                                    meet=False)
        g.guarded(g.arith("and", ring.guard, leader), run,
                  {"guard": "the producer's issuing thread"})

    def consume_tile(state: list[ir.Value] | None,
                     around: tuple[Callable[[], None], Callable[[], None]] | None = None
                     ) -> list[ir.Value]:
        """One tile's K loop and epilogue (``around``: what runs before and after the
        loop)."""
        lower_all(per_tile)
        g.loc = loop.loc
        if around is not None:
            around[0]()
        carried = _layouts(loop.results)
        inits = flatten(g, [_value(g, loop, 3 + i) for i in range(len(loop.results))])
        if state is not None:  # the ordinary ring of a failed guard starts at version 0
            if ring.known is None:
                state = [g.arith("select", ring.guard, x, g.index(0)) for x in state]
            elif not ring.known:
                state = [g.index(0) for _ in state]
        # turns only where the tensor maps are legal: the ordinary ring's consumers meet at
        # every iteration, which a warpgroup a turn behind would never reach in time
        if loop.attr("turns") and ring.known:  # _staged_loop ends them after the loop
            WarpgroupTurns(g, loop).begin(lb, ub)
        results = _staged_loop(g, loop, ring, lb, ub, step, inits, carried, state)
        after: list[ir.Value] = []
        if state is not None:
            n = len(results) - GuardedRing.carried
            results, after = results[:n], results[n:]
            ring.release_last(lb, ub, after)
        if around is not None:
            around[1]()
        for r, x in zip(loop.results, unflatten(carried, results)):
            g.bind(r, x)
        g.loc = outer
        if cluster is None:
            lower_all(ops[k + 1:])
        else:  # a tile outside the grid (the pair's second, odd extent) stores nothing
            assert walk is not None and walk.in_range is not None
            before = g.sync.state()
            g.guarded(walk.in_range, lambda: lower_all(ops[k + 1:]),
                      {"guard": "the cluster's tile lies inside the grid"})
            g.sync.merge(before, g.sync.state())
        return after

    def consume() -> None:
        if walk is None:
            consume_tile(None)
            return
        walk.walk(g, [g.index(0), g.index(0)], consume_tile)
        g.loc = loop.loc
        ring.finish_walk()
        g.loc = outer

    def consume_with(tensor: bool) -> Callable[[], None]:
        def run() -> None:  # the marked stores go through tensor stores (or registers)
            stores = TensorStores(g, tensor)
            stores.defer(ops[k + 1:])
            g.tensor_stores = stores
            try:
                consume()
            finally:
                g.tensor_stores = None
            stores.finish()
        return run

    def consumer() -> None:
        if two:
            g.atom("setmaxnreg", [], [], action="inc", count=CONSUMER_REGISTERS)
        g.role_threads = consumers * sets
        if sets == 1:
            _unswitched(ring, consume_with(True), consume_with(False))
            return
        assert walk is not None, "ping-pong consumers walk a persistent group's tiles"
        pp = PingPong(g, ring, walk, lb, ub, step, consume_tile, ops[k + 1:])
        _unswitched(ring, pp.both, pp.first_alone)

    is_producer = g.arith("ge", g.tid, g.index(consumers * sets))
    try:
        g.guarded(is_producer, producer, {"roles": ("producer", "consumer")}, consumer)
    finally:
        g.role_threads = None
        g.loc = outer
    if cluster is not None:  # no group ends while its peer may still arrive on its barriers
        g.loc = loop.loc
        g.sync.cluster_barrier()
        g.loc = outer
