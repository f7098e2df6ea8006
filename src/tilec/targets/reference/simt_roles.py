"""Role regions of warp-specialized groups, run as co-routines (docs/design/
warp_specialization.md, "In the simulator").

An ``if {roles = ("producer", "consumer")}`` splits the group's threads into two roles whose
regions the GPU runs concurrently, coupled only by shared-memory barriers. Run one after the
other under masks (as an ordinary ``if``), the producer's whole loop would wait for releases
the consumers have not made yet. So each role runs in a co-routine (a Python thread holding
the only baton): a role runs until it reaches a wait that cannot return yet (an
``mbarrier.wait`` on the phase in progress, a ``setmaxnreg.inc`` the register file cannot
grant), then hands the baton to another role that is not finished. A wait is a *hang* (the
waiter's error) when every other unfinished role waits as well with nothing happened since
(``Mbarriers.events`` and the register budgets unchanged). Lock-step time and the race
detector's barrier-arrival orders (``GroupClock.hb``) are shared by the roles, so an access
one role makes is ordered after another role's only through a barrier phase the first role
waited for (or a named barrier both met).

Also here: ``barrier.named`` (the threads of one role meet; they must be exactly the
barrier's ``threads``, and only their accesses are ordered) and ``setmaxnreg`` (per
warpgroup register budgets, all four warps of a warpgroup together; the compute unit's
register file bounds their sum).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import tilec.ir as ir

from .errors import SimulationError
from .simt_atoms import AtomContext, atom_impl, diverged

__all__ = ["RoleScheduler", "run_roles", "REGISTER_FILE", "initial_budget"]

REGISTER_FILE = 65536
"""Registers of one compute unit (sm_90), which a group's warpgroups share."""

_WARPGROUP = 128
_STACK = 256 * 1024 * 1024  # the interpreter recurses through regions


def initial_budget(lanes: int) -> int:
    """Registers per thread a group of ``lanes`` threads starts with: the register file
    shared evenly, in multiples of 8, at most 255 (what ``ptxas`` gives a kernel whose
    launch bounds name the group size)."""
    return min(248, (REGISTER_FILE // lanes) // 8 * 8)


class _Abort(BaseException):
    """Unwinds a role whose group failed in another role."""


@dataclass(eq=False)
class _Role:
    name: str
    run: Callable[[], Any]
    stack: list[ir.Operation] = field(default_factory=list)
    """The role's own ``if`` nesting (``LaneRunner._diverged`` while it runs)."""
    done: bool = False
    waiting: tuple[int, ...] | None = None
    """The progress stamp at which the role began to wait (None: not waiting)."""
    result: Any = None


class RoleScheduler:
    """The roles of one ``roles`` ``if``: which one holds the baton, and waits."""

    def __init__(self, g: Any, stamp: Callable[[], tuple[int, ...]]) -> None:
        self.g = g
        self._stamp = stamp
        self._cv = threading.Condition()
        self._roles: list[_Role] = []
        self._turn: _Role | None = None
        self._error: BaseException | None = None

    # -- running ------------------------------------------------------------------------
    def run(self, roles: Sequence[tuple[str, Callable[[], Any]]]) -> list[Any]:
        """Run every role to its end; returns their results (the first error is raised)."""
        outer_stack = self.g._diverged
        self._roles = [_Role(n, f, list(outer_stack)) for n, f in roles]
        old = threading.stack_size()
        threading.stack_size(_STACK)
        try:
            threads = [threading.Thread(target=self._body, args=(r,), daemon=True)
                       for r in self._roles]
            for t in threads:
                t.start()
        finally:
            threading.stack_size(old)
        with self._cv:
            self._hand(self._roles[0])
            try:
                while not all(r.done for r in self._roles) and self._error is None:
                    self._cv.wait()
            except BaseException as e:  # a time limit interrupts the run: stop the roles
                self._error = e         # at their next wait
                self._turn = None
                self._cv.notify_all()
                raise
            if self._error is not None:
                self._turn = None
                self._cv.notify_all()
        for t in threads:
            t.join()
        self.g._diverged = outer_stack
        if self._error is not None:
            raise self._error
        return [r.result for r in self._roles]

    def _body(self, role: _Role) -> None:
        with self._cv:
            while self._turn is not role:
                if self._error is not None:
                    return
                self._cv.wait()
            self.g._diverged = role.stack
        try:
            role.result = role.run()
        except _Abort:
            return
        except BaseException as e:  # the group's failure, whichever role met it
            with self._cv:
                if self._error is None:
                    self._error = e
                role.done = True
                self._cv.notify_all()
            return
        with self._cv:
            role.done = True
            nxt = next((r for r in self._roles if not r.done), None)
            if nxt is not None:
                self._hand(nxt)
            self._cv.notify_all()

    def _hand(self, role: _Role) -> None:
        """Give the baton to ``role`` (the caller holds the condition)."""
        self._turn = role
        self._cv.notify_all()

    # -- waiting ------------------------------------------------------------------------
    def wait(self, ready: Callable[[], bool]) -> bool:
        """Called by the running role at a wait that cannot return yet: run the other roles
        until ``ready()``; False when no other role can make progress (a hang, which the
        caller reports)."""
        with self._cv:
            me = self._turn
            assert me is not None and threading.current_thread() is not threading.main_thread()
            while not ready():
                now = self._stamp()
                others = [r for r in self._roles if r is not me and not r.done]
                if not others or all(r.waiting == now for r in others):
                    return False
                me.waiting = now
                me.stack = self.g._diverged
                # the next unfinished role after this one
                k = self._roles.index(me)
                order = self._roles[k + 1:] + self._roles[:k]
                self._hand(next(r for r in order if not r.done))
                while self._turn is not me:
                    if self._error is not None:
                        raise _Abort()
                    self._cv.wait()
                self.g._diverged = me.stack
                me.waiting = None
            return True


def run_roles(g: Any, op: ir.Operation, masks: tuple[np.ndarray, np.ndarray],
              active: np.ndarray) -> list[Any]:
    """The two regions of a ``roles`` ``if`` (no results) as co-routines."""
    if op.results:
        raise SimulationError("a role split yields no values (each role ends on its own)",
                              "unsupported", [op])
    if getattr(g, "roles", None) is not None:
        raise SimulationError("a role split inside a role region", "unsupported", [op])
    names = tuple(op.attr("roles"))
    for name, m in zip(names, masks):
        wg = m.reshape(-1, _WARPGROUP) if m.size % _WARPGROUP == 0 else None
        if wg is None or not (wg.all(axis=1) | ~wg.any(axis=1)).all():
            raise diverged(g, op, f"the {name} role is not a set of whole warpgroups (its "
                                  "condition must be uniform across each warpgroup)")
    mb = g.mbarriers
    sched = RoleScheduler(g, lambda: (mb.events, *g.registers.budget))
    roles = [(name, (lambda r=region, m=m: g.run_branch(op, r, [], m, active) if m.any()
                     else None)) for name, region, m in zip(names, op.regions, masks)]
    g.roles = mb.roles = sched
    try:
        sched.run(roles)
    finally:
        g.roles = mb.roles = None
    return []


# -------------------------------------------------------------------- registers


class Registers:
    """Per warpgroup of one group, its threads' register budget (``setmaxnreg``)."""

    def __init__(self, lanes: int) -> None:
        self.lanes = lanes
        groups = max(1, lanes // _WARPGROUP)
        self.budget = [initial_budget(lanes)] * groups
        """Registers per thread, per warpgroup."""

    def total(self) -> int:
        """Registers the group holds."""
        return sum(b * min(_WARPGROUP, self.lanes) for b in self.budget)


def _warpgroups(ctx: AtomContext, op: ir.Operation, active: np.ndarray) -> list[int]:
    """The warpgroups executing ``op``: each wholly active (``.sync.aligned``)."""
    if ctx.lanes % _WARPGROUP:
        raise SimulationError(f"{op.attr('catalog_id')} needs whole warpgroups; the group has "
                              f"{ctx.lanes} threads", "unsupported", [op])
    wg = active.reshape(-1, _WARPGROUP)
    partial = wg.any(axis=1) & ~wg.all(axis=1)
    if partial.any():
        k = int(np.argmax(partial))
        raise diverged(ctx, op, f"{op.attr('catalog_id')} is executed by "
                                f"{int(wg[k].sum())} of the 128 threads of warpgroup {k}; "
                                "every thread of a warpgroup executes it together")
    return [int(k) for k in np.flatnonzero(wg.all(axis=1))]


@atom_impl("setmaxnreg")
def _setmaxnreg(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
                ) -> Sequence[Any]:
    regs: Registers = ctx.registers
    count, action = int(op.attr("count")), op.attr("action")
    for k in _warpgroups(ctx, op, active):
        have = regs.budget[k]
        if action == "dec" and count > have:
            raise SimulationError(f"setmaxnreg.dec to {count} registers in warpgroup {k}, which "
                                  f"holds {have} per thread (a decrease must not grow it)",
                                  "unsupported", [op])
        if action == "inc" and count < have:
            raise SimulationError(f"setmaxnreg.inc to {count} registers in warpgroup {k}, which "
                                  f"holds {have} per thread (an increase must not shrink it)",
                                  "unsupported", [op])

        def fits(k: int = k) -> bool:
            return regs.total() - regs.budget[k] * _WARPGROUP + count * _WARPGROUP \
                <= REGISTER_FILE

        if action == "inc" and not fits():
            roles = getattr(ctx, "roles", None)
            if roles is None or not roles.wait(fits):
                raise SimulationError(
                    f"setmaxnreg.inc to {count} registers in warpgroup {k} never returns: the "
                    f"group holds {regs.total()} of the compute unit's {REGISTER_FILE} "
                    f"registers (budgets per thread by warpgroup: {regs.budget}) and no other "
                    "warpgroup releases enough (setmaxnreg.dec first)", "hang", [op])
        regs.budget[k] = count
    return [None] * len(op.results)


# -------------------------------------------------------------------- named barriers


@atom_impl("barrier.named")
def _barrier_named(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
                   ) -> Sequence[Any]:
    want, bid = int(op.attr("threads")), op.attr("id")
    n = int(active.sum())
    if n != want:
        raise diverged(ctx, op, f"named barrier {bid} for {want} threads is reached by {n} "
                                "threads at once; its threads must all reach it together (a "
                                "role's barrier over exactly the role's threads)")
    who = np.flatnonzero(active)
    clock = ctx.clock
    if clock.hb is None:
        clock.hb = np.full((ctx.lanes, ctx.lanes), -1, np.int64)
    t = clock.tick()
    sub = np.ix_(who, who)
    clock.hb[sub] = np.maximum(clock.hb[sub], t)
    return [None] * len(op.results)
