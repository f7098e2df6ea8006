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
               the iteration's wgmma group; commit; wgmma.wait 1 (0 in the last iteration)
               if guard and j >= 1: each consumer warpgroup's first thread arrives on
                                    empty[v_{j-1}] (its reads are retired)
        if guard: named barrier; thread 0 invalidates the barriers; named barrier
        ... the operations after the loop, with named barriers among the consumers ...

Release ``i`` of version ``v`` completes phase ``i`` of ``empty[v]``, the one the producer
waits for at iteration ``j = v + (i + 1) W`` with parity ``i mod 2 = 1 - p_j``. Only thread
``T`` runs the producer's loop, so its last wait comes before its last copies, which the
consumers wait for before they invalidate the barriers. The producer warps never meet a
barrier after the role split: the consumers' barriers are named barrier ``ROLE_BARRIER`` over
their ``T`` threads.
"""

from __future__ import annotations

import tilec.ir as ir

from .machine import GroupLowering
from .machine_control import _guard_step, _layouts, _staged_loop, _value, flatten, unflatten
from .machine_pipeline import Staging
from .machine_ring import GuardedRing, _discard_rings, retire

__all__ = ["roles_loop_of", "lower_roles_body", "PRODUCER_THREADS", "PRODUCER_REGISTERS",
           "CONSUMER_REGISTERS"]

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


class ConsumerRing(GuardedRing):
    """The consumers' side of a warp-specialized ring: ``GuardedRing`` without the copies
    (the producer issues them) and without the wait for the release (the producer waits)."""

    def __init__(self, st: Staging) -> None:
        super().__init__(st)
        self._lb: ir.Value | None = None

    def init_barriers(self) -> None:
        """Before the role split, where the guard holds: thread 0 initializes every barrier
        (then every thread of the group meets, so that no copy completes on a barrier not
        yet initialized)."""
        g, ring = self.g, self.ring

        def each() -> None:
            for k, buf in enumerate((ring.full, ring.empty)):
                for v in range(self.st.versions):
                    g.atom("mbarrier.init", [ring._bar(buf, g.index(v))], [ir.token],
                           count=(1, ring.warpgroups)[k])
            g.atom("fence.proxy.async", [], [ir.token])

        g.guarded(g.arith("and", self.guard, self.st.thread0()), each,
                  {"guard": "array extents legal for a tensor map (warp-specialized ring)"})
        g.sync.barrier()

    def prologue(self, lb: ir.Value, ub: ir.Value, step: ir.Value) -> None:
        """The ordinary ring's prologue where the guard fails (else the producer fills)."""
        self._lb = lb
        self._both(lambda: None, lambda: self.plain.prologue(lb, ub, step))

    def end_iteration(self) -> None:
        """Retire the previous iteration's group, then release its version."""
        assert self._at is not None
        retire(self.g, *self._at)
        self._both(self._release, lambda: None)
        _discard_rings(self.st)

    def _release(self) -> None:
        g, ring = self.g, self.ring
        assert ring._at is not None and self._lb is not None
        iv, _, _, (ver, _) = ring._at
        w = self.st.versions
        first = g.arith("eq", ver, g.index(0))
        prev = g.arith("select", first, g.index(w - 1), g.arith("sub", ver, g.index(1)))
        leader = g.arith("eq", g.arith("rem", g.tid, g.index(PRODUCER_THREADS)), g.index(0))
        g.guarded(g.arith("and", g.arith("gt", iv, self._lb), leader),
                  lambda: g.atom("mbarrier.arrive", [ring._bar(ring.empty, prev)], [ir.token]))

    def produce(self, lb: ir.Value, ub: ir.Value, step: ir.Value) -> None:
        """The producer's loop (one thread runs it): wait for each version's release, then
        issue the iteration's copies into it."""
        g, ring = self.g, self.ring
        body = ir.Block([ir.index, ir.index, ir.index])
        g.op("serial", [lb, ub, step, g.index(0), g.index(0)], [ir.index, ir.index], {},
             [ir.Region([body])])
        with g.scope(ir.Builder(ir.InsertionPoint.at_end(body))):
            iv, ver, par = body.args
            g.atom("mbarrier.wait", [ring._bar(ring.empty, ver),
                                     g.arith("sub", g.index(1), par)], [])
            ring._issue(iv, ver)
            g.op("yield", self.st.next_carried([ver, par]), [])


def lower_roles_body(g: GroupLowering, block: ir.Block, loop: ir.Operation) -> None:
    """Lower grid body ``block`` whose staged loop ``loop`` a producer warpgroup fills: the
    operations before the loop on every thread, then the two roles (module docstring)."""
    ops = [op for op in block.operations if not op.opdef.terminator]
    k = ops.index(loop)
    for op in ops[:k]:
        if op not in g.skip:
            g.lower_op(op)
    outer, g.loc = g.loc, loop.loc
    lb, ub, step = (g.scalar(v) for v in loop.operands[:3])
    _guard_step(g, loop, step)
    ring = ConsumerRing(Staging(g, loop))
    ring.init_barriers()
    consumers = g.threads
    two = consumers // PRODUCER_THREADS >= 2

    def producer() -> None:
        if two:
            g.atom("setmaxnreg", [], [], action="dec", count=PRODUCER_REGISTERS)
        leader = g.arith("eq", g.tid, g.index(consumers))
        g.guarded(g.arith("and", ring.guard, leader), lambda: ring.produce(lb, ub, step),
                  {"guard": "the producer's issuing thread"})

    def consumer() -> None:
        if two:
            g.atom("setmaxnreg", [], [], action="inc", count=CONSUMER_REGISTERS)
        g.role_threads = consumers
        carried = _layouts(loop.results)
        inits = flatten(g, [_value(g, loop, 3 + i) for i in range(len(loop.results))])
        results = _staged_loop(g, loop, ring, lb, ub, step, inits, carried)
        for r, x in zip(loop.results, unflatten(carried, results)):
            g.bind(r, x)
        g.loc = outer
        for op in ops[k + 1:]:
            if op not in g.skip:
                g.lower_op(op)

    is_producer = g.arith("ge", g.tid, g.index(consumers))
    try:
        g.guarded(is_producer, producer, {"roles": ("producer", "consumer")}, consumer)
    finally:
        g.role_threads = None
        g.loc = outer
