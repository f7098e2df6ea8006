"""Ring versions released through shared-memory barriers (``release = "mbarrier"``).

A staged ``wgmma`` loop the schedule marks ``release = "mbarrier"``
(``LowerOptions.mbarrier_ring``) keeps the rings of ``machine_pipeline.Staging`` but
replaces the group barrier of every iteration by two barriers per version: ``full[v]``
(count 1: thread 0's ``expect_tx`` with the bytes of the version's tensor copies) and
``empty[v]`` (count: one arrival per warpgroup, by its first thread). With ``j`` the
iteration number, ``v_j = j mod W`` and ``p_j = (j div W) mod 2``:

    prologue:    thread 0 issues iterations 0 .. W-1 into versions 0 .. W-1
    iteration j: every thread waits for full[v_j] with parity p_j
                 the warpgroups issue the iteration's wgmma group and commit it
                 wgmma.wait 1: iteration j-1's group is retired
                 if j >= 1 and j-1+W < n:
                     each warpgroup's first thread arrives on empty[v_{j-1}]
                     every thread waits for empty[v_{j-1}] with parity p_{j-1}
                     thread 0 issues iteration j-1+W into version v_{j-1}

So one instruction group stays in flight across the back edge while the copies stay ``W -
1`` iterations ahead; the group barrier and the ``cp.async`` path are gone from the loop;
``wgmma.wait 0`` after the loop retires the last group. Every thread waits for the release,
not only thread 0, so that the only code on one thread's path is thread 0's copies, which
the CUDA target issues predicated (no branch: ptxas serializes every ``wgmma`` of a kernel
where one thread branches while a group is in flight); with one warpgroup the wait returns
as soon as its own first thread arrived.
Release ``i`` of version ``v`` completes phase ``i div W`` of ``empty[v]``, which is why
the threads wait with the parity they used for ``full`` at iteration ``j - 1``.

Where the loop's groups may not stay in flight (``Staging.lag == 0``: an accumulator that
is not the loop's own carried value, such as attention's scores, or a register A operand),
each group is waited for where it is issued, and iteration ``j`` releases its own version
``v_j`` (parity ``p_j``) and refills it with iteration ``j + W``.

The tensor-map guard of every operand's array is uniform and known before the loop, so
each protocol step is ``if guard { this protocol } else { the ordinary ring with cp.async
copies }`` (``Staging.fallback``) inside one loop (``GuardedRing``): both share the
rings, the loop, its staged values and its warpgroup instructions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import tilec.ir as ir

from .machine import GroupLowering, Staged
from .machine_pipeline import (
    Staging,
    array_extents,
    tma_guard,
    tma_plan,
    window_of,
)

__all__ = ["MbarrierRing", "GuardedRing", "previous_version", "retire"]

_WARPGROUP = 128


class MbarrierRing:
    """The mbarrier-released protocol of one staged loop: its steps (``prologue``,
    ``begin_iteration``, ``release``, ``finish``), which ``GuardedRing`` drives under the
    tensor-map guard."""

    def __init__(self, st: Staging) -> None:
        self.st = st
        """The rings, their loads and the address code (shared with the fallback)."""
        self.g: GroupLowering = st.g
        assert st.barriers is not None and st.tma == set(st.loads), \
            "the schedule's mbarrier ring needs tensor copies for every staged load"
        self.full = st.barriers
        """Per version: the barrier its tensor copies complete."""
        self.empty = self.g.smem.buffer((st.versions,), ir.i64, "ring empty barriers")
        """Per version: the barrier the warpgroups release it on."""
        self.warpgroups = self.g.threads // _WARPGROUP
        """Arrivals per phase of an ``empty`` barrier."""
        self._at: tuple[ir.Value, ir.Value, ir.Value, list[ir.Value]] | None = None
        self._lb: ir.Value | None = None
        self.cluster: Any = None
        """The group's cluster (``machine_cluster.Cluster``; None: none): its shared
        operands' boxes are split between the cluster's producers and multicast."""

    def guard(self) -> ir.Value:
        """Every staged operand's array has a legal tensor map (uniform, before the loop)."""
        g = self.g
        out: ir.Value | None = None
        for ld in self.st.loads:
            ok = tma_guard(g, ld.result.type.dtype, array_extents(g, ld))
            out = ok if out is None else g.arith("and", out, ok)
        assert out is not None
        return out

    # -- barriers ----------------------------------------------------------------------
    def _bar(self, buf: ir.Value, ver: ir.Value) -> ir.Value:
        return self.g.view(buf, [ver], ir.IndexMap(1, [ir.s(0)], 1), (1,), False)

    def _on_all(self, catalog_id: str, counts: tuple[int, int] | None,
                also: Callable[[], None] | None = None) -> None:
        """Thread 0 applies ``catalog_id`` to every barrier (and runs ``also``: a user of the
        ring's own barriers), between two group barriers."""
        g = self.g
        g.sync.barrier()

        def each() -> None:
            for k, buf in enumerate((self.full, self.empty)):
                attrs = {} if counts is None else {"count": counts[k]}
                for v in range(self.st.versions):
                    g.atom(catalog_id, [self._bar(buf, g.index(v))], [ir.token], **attrs)
            if also is not None:
                also()
            if catalog_id == "mbarrier.init":  # visible to the copies' completions
                g.atom("fence.proxy.async", [], [ir.token])

        g.guarded(self.st.thread0(), each)
        g.sync.barrier()

    # -- the protocol --------------------------------------------------------------------
    def prologue(self, lb: ir.Value, ub: ir.Value, step: ir.Value) -> None:
        """Initialize the barriers, then thread 0 fills every version (guarded by the trip
        count)."""
        g = self.g
        self._lb = lb
        self._on_all("mbarrier.init", (1, self.warpgroups))
        for p in range(self.st.versions):
            iv = lb if p == 0 else g.arith("add", lb, g.arith("mul", step, g.index(p)))
            g.guarded(g.arith("and", g.arith("lt", iv, ub), self.st.thread0()),
                      lambda iv=iv, p=p: self._issue(iv, g.index(p), first=p == 0))

    def begin_iteration(self, iv: ir.Value, ub: ir.Value, step: ir.Value,
                        carried: list[ir.Value]) -> None:
        """Wait for this iteration's version and bind the staged values to it."""
        g = self.g
        self._at = (iv, ub, step, carried)
        g.atom("mbarrier.wait", [self._bar(self.full, carried[0]), carried[1]], [])
        for ld in self.st.loads:
            g.bind(ld.result, Staged(self.st.version(ld, carried[0])))

    def next_carried(self, carried: list[ir.Value]) -> list[ir.Value]:
        """The next iteration's version and parity (as ``Staging``'s)."""
        return self.st.next_carried(carried)

    def release(self) -> None:
        """After ``retire``: release the previous iteration's version and refill it (with
        no group in flight, ``Staging.lag == 0``: this iteration's version, refilled ``W``
        iterations later)."""
        g = self.g
        assert self._at is not None and self._lb is not None
        iv, ub, step, (ver, par) = self._at
        w = self.st.versions
        lag = self.st.lag
        ahead = g.arith("add", iv, g.arith("mul", step, g.index(w - 1 + (1 - lag))))
        refill = g.arith("lt", ahead, ub)
        if lag:
            refill = g.arith("and", g.arith("gt", iv, self._lb), refill)

        def release() -> None:
            prev, ppar = previous_version(g, w, ver, par) if lag else (ver, par)
            leader = g.arith("eq", g.arith("rem", g.tid, g.index(_WARPGROUP)), g.index(0))
            g.guarded(leader, lambda: g.atom("mbarrier.arrive", [self._bar(self.empty, prev)],
                                             [ir.token]))

            # every thread waits (not only thread 0, the one that refills): a wait on one
            # thread's path is a branch the CUDA target cannot predicate, and one thread
            # branching while a wgmma group is in flight serializes every wgmma (so does
            # a wait by warp 0 only: ptxas remark C7518)
            g.atom("mbarrier.wait", [self._bar(self.empty, prev), ppar], [])
            g.guarded(self.st.thread0(), lambda: self._issue(ahead, prev))

        g.guarded(refill, release)
        _discard_rings(self.st)

    def finish(self) -> None:
        """Every group has retired (``drain`` ran first) and every issued copy
        was waited for; the last iteration's reads stay pending for the code after."""
        self.g.sync.note_reads(self.st.rings.values())
        self._on_all("mbarrier.inval", None)

    def _issue(self, iv: ir.Value, ver: ir.Value, first: bool | ir.Value = False) -> None:
        """Thread 0: expect the bytes of iteration ``iv``'s copies on ``full[ver]``, then
        issue them into version ``ver`` (the loads copied once only when ``first``, which
        may be a runtime condition: the producer's first iteration of a tile)."""
        g = self.g
        before = g.sync.state()
        bar = self._bar(self.full, ver)
        every = self.st.issued(False)
        once = [ld for ld in self.st.loads if ld in self.st.once]
        total: ir.Value = g.index(_bytes(every) + (_bytes(once) if first is True else 0))
        if isinstance(first, ir.Value) and once:
            total = g.arith("add", total, g.arith("select", first, g.index(_bytes(once)),
                                                  g.index(0)))
        g.atom("mbarrier.expect_tx", [bar, total], [ir.token])
        c = self.cluster

        def copy(loads: list[ir.Operation]) -> None:
            for ld in loads:
                with self.st.at_iteration(ld, iv):
                    _, boxes, _ = tma_plan(g, ld, window_of(g, ld), with_guard=False)
                    shared = c is not None and ld in c.shared
                    boxes(self.st.version(ld, ver), bar,
                          (c.size, c.rank) if shared else None)

        if first is True:
            copy(self.st.issued(True))
        else:
            if isinstance(first, ir.Value) and once:
                g.guarded(first, lambda: copy(once))
            copy(every)
        g.sync.restore(before)


def _bytes(loads: list[ir.Operation]) -> int:
    """Bytes the tensor copies of ``loads`` bring."""
    return sum(math.prod(int(e) for e in ld.result.type.shape) * ld.result.type.dtype.bytes
               for ld in loads)


def previous_version(g: GroupLowering, versions: int, ver: ir.Value, par: ir.Value | None
                     ) -> tuple[ir.Value, ir.Value | None]:
    """The version and phase parity of the iteration before the one at ``ver``, ``par``
    (``Staging.next_carried`` read backwards; no parity where ``par`` is None)."""
    first = g.arith("eq", ver, g.index(0))
    prev = g.arith("select", first, g.index(versions - 1), g.arith("sub", ver, g.index(1)))
    if par is None:
        return prev, None
    return prev, g.arith("select", first, g.arith("sub", g.index(1), par), par)


def retire(g: GroupLowering, pending: int = 1) -> None:
    """``wgmma.wait 1`` in every iteration: the previous iteration's group is retired (the
    last one's by ``drain`` after the loop). ``pending=0`` retires this iteration's too."""
    g.atom("wgmma.wait", [], [], pending=pending)


def _discard_rings(st: Staging) -> None:
    """The ring buffers' accesses are ordered by the protocol, not by group barriers."""
    st.g.sync.forget(st.rings.values())


class GuardedRing:
    """One loop for both protocols of a ``release = "mbarrier"`` loop: each protocol step is
    ``if guard { MbarrierRing } else { the ordinary ring }`` on the uniform tensor-map guard,
    while the loop, its staged values and its warpgroup instructions are shared. (Two loops
    under the guard would join their accumulators after it, and ptxas serializes every
    wgmma of a kernel whose accumulators are moved while a group may be in flight.)"""

    carried = 2
    """The version this iteration reads and its parity (the ordinary ring reads the first)."""

    def __init__(self, st: Staging) -> None:
        self.st = st
        """The rings both protocols fill."""
        self.g = st.g
        self.ring = MbarrierRing(st)
        """The protocol where every operand's array has a legal tensor map."""
        self.plain = st.fallback()
        """The ordinary ring with ``cp.async`` copies (in flight one group as well)."""
        self.guard = self.ring.guard()
        """Every operand's array has a legal tensor map (computed before the prologue)."""
        self.known: bool | None = None
        """The guard's value where the code being lowered already sits under it (a region
        unswitched on the guard, ``machine_roles``): each step then lowers one protocol
        and no ``if``. None: not known, both protocols under an ``if``."""
        self._at: tuple[ir.Value, ir.Value, ir.Value] | None = None

    def guarded_by(self, cond: ir.Value) -> ir.Value | bool:
        """``guard and cond`` (False, or ``cond`` itself, where the guard is known)."""
        if self.known is None:
            return self.g.arith("and", self.guard, cond)
        return cond if self.known else False

    def _both(self, ring: Callable[[], None], plain: Callable[[], None]) -> None:
        if self.known is not None:
            (ring if self.known else plain)()
            return
        self.g.branches(self.guard, ring, plain,
                        {"guard": "array extents legal for a tensor map (mbarrier ring)"})

    def prologue(self, lb: ir.Value, ub: ir.Value, step: ir.Value) -> None:
        """Each protocol's prologue under the guard."""
        self._both(lambda: self.ring.prologue(lb, ub, step),
                   lambda: self.plain.prologue(lb, ub, step))

    def begin_iteration(self, iv: ir.Value, ub: ir.Value, step: ir.Value,
                        carried: list[ir.Value]) -> None:
        """Each protocol's wait (and the ordinary ring's refill) under the guard; the staged
        values are bound to the version both read."""
        self._at = (iv, ub, step)
        self._both(lambda: self.ring.begin_iteration(iv, ub, step, carried),
                   lambda: self.plain.begin_iteration(iv, ub, step, carried[:1]))
        for ld in self.st.loads:
            self.g.bind(ld.result, Staged(self.st.version(ld, carried[0])))

    def next_carried(self, carried: list[ir.Value]) -> list[ir.Value]:
        """The next version and parity."""
        return self.ring.next_carried(carried)

    def end_iteration(self) -> None:
        """The shared ``retire``, then the mbarrier ring's release (the ordinary ring
        refills at the start of an iteration)."""
        assert self._at is not None
        if self.st.lag:
            retire(self.g)
        self._both(self.ring.release, lambda: None)
        _discard_rings(self.st)

    def drain(self) -> None:
        """``wgmma.wait 0`` right after the loop, on every path (outside the tensor-map
        guard): the last iteration's group is retired before the accumulators are read."""
        self.g.atom("wgmma.wait", [], [], pending=0)

    def finish(self) -> None:
        """Each protocol's end under the guard."""
        self._both(self.ring.finish, self.plain.finish)
