"""Role regions of warp-specialized groups, run as co-routines (docs/design/
warp_specialization.md, "In the simulator").

An ``if {roles = ("producer", "consumer")}`` splits the group's threads into two roles whose
regions the GPU runs concurrently (and inside the consumers' region of a ping-pong group an
``if {roles = ("consumer 1", "consumer 0")}`` splits them again: its roles are spawned as
child tasks of the running one, taking turns with the producer), coupled only by
shared-memory barriers. Run one after the other under masks (as an ordinary ``if``), the
producer's whole loop would wait for releases the consumers have not made yet. So each role
runs in a co-routine (a Python thread holding the only baton): a role runs until it reaches
a wait that cannot return yet (an ``mbarrier.wait`` on the phase in progress, a
``setmaxnreg.inc`` the register file cannot grant), then hands the baton to another role
that is not finished. A wait is a *hang* (the waiter's error) when every other unfinished
role waits as well with nothing happened since (``Mbarriers.events`` and the register
budgets unchanged). Lock-step time and the race detector's barrier-arrival orders
(``GroupClock.hb``) are shared by the roles, so an access one role makes is ordered after
another role's only through a barrier phase the first role waited for (or a named barrier
both met).

The co-routines are tasks of a ``Baton``, which the groups of a cluster share
(``simt_cluster``): there each group runs in a task of the cluster's baton, and its role split
spawns the two roles as child tasks of it (``Baton.spawn_and_join``), so that one group's
producer waiting for a release lets the other group's consumers run; the hang rule and the
progress stamp then cover every group of the cluster.

Also here: ``barrier.named`` (the threads of one role meet; they must be exactly the
barrier's ``threads``, only their accesses are ordered, and an id is met by one set of
threads throughout the group) and ``setmaxnreg`` (per
warpgroup register budgets, all four warps of a warpgroup together; the compute unit's
register file bounds their sum).
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import tilec.ir as ir

from .errors import SimulationError
from .simt_atoms import AtomContext, atom_impl, diverged

__all__ = ["Baton", "RoleScheduler", "run_roles", "REGISTER_FILE", "initial_budget"]

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
class _Task:
    """One co-routine of a ``Baton``."""

    name: str
    run: Callable[[], Any]
    enter: Callable[[], None] | None = None
    """Restores the task's context when it takes the baton (after its parent's)."""
    leave: Callable[[], None] | None = None
    """Saves the task's context when it hands the baton on."""
    parent: _Task | None = None
    """The task that spawned it and waits for it (``Baton.spawn_and_join``)."""
    done: bool = False
    joining: int = 0
    """Children still running (the task is not runnable while this is nonzero)."""
    waiting: tuple[int, ...] | None = None
    """The progress stamp at which the task began to wait (None: not waiting)."""
    result: Any = None

    def resume(self) -> None:
        """Restore the contexts of the task's ancestors, then its own."""
        if self.parent is not None:
            self.parent.resume()
        if self.enter is not None:
            self.enter()


class Baton:
    """Co-routines (Python threads) of which exactly one runs at a time: the roles of one
    ``roles`` ``if``, or the groups of one cluster and their roles (``simt_cluster``). A
    running task keeps the baton until it finishes, spawns tasks and joins them
    (``spawn_and_join``) or reaches a wait that cannot return yet (``wait``)."""

    def __init__(self, stamp: Callable[[], tuple[int, ...]]) -> None:
        self._stamp = stamp
        self._cv = threading.Condition()
        self._tasks: list[_Task] = []
        self._threads: list[threading.Thread] = []
        self._turn: _Task | None = None
        self._error: BaseException | None = None

    # -- running ------------------------------------------------------------------------
    def run(self, tasks: Sequence[tuple[str, Callable[[], Any]]],
            enter: Sequence[Callable[[], None] | None] = (),
            leave: Sequence[Callable[[], None] | None] = ()) -> list[Any]:
        """From a thread outside the baton: run every task to its end; returns their results
        (the first error is raised). ``enter[k]`` restores task ``k``'s context whenever it
        takes the baton, ``leave[k]`` saves it whenever it waits."""
        mine = self._add(tasks, None, enter, leave)
        threads = self._start(mine)
        with self._cv:
            self._hand(mine[0])
            try:
                while not all(t.done for t in mine) and self._error is None:
                    self._cv.wait()
            except BaseException as e:  # a time limit interrupts the run: stop the tasks
                self._error = e         # at their next wait
                self._turn = None
                self._cv.notify_all()
                raise
            if self._error is not None:
                self._turn = None
                self._cv.notify_all()
        for t in threads + self._threads:
            t.join()
        if self._error is not None:
            raise self._error
        return [t.result for t in mine]

    def spawn_and_join(self, tasks: Sequence[tuple[str, Callable[[], Any]]],
                       enter: Sequence[Callable[[], None] | None] = (),
                       leave: Sequence[Callable[[], None] | None] = ()) -> list[Any]:
        """From the running task: run ``tasks`` as its children (they take turns with every
        other task of the baton) and return their results once all have finished."""
        with self._cv:
            me = self._turn
            assert me is not None and threading.current_thread() is not threading.main_thread()
            kids = self._add(tasks, me, enter, leave)
            me.joining = len(kids)
            if me.leave is not None:
                me.leave()
        threads = self._start(kids)
        self._threads.extend(threads)
        with self._cv:
            self._hand(kids[0])
            self._await(me)
        return [k.result for k in kids]

    def _add(self, tasks: Sequence[tuple[str, Callable[[], Any]]], parent: _Task | None,
             enter: Sequence[Callable[[], None] | None] = (),
             leave: Sequence[Callable[[], None] | None] = ()) -> list[_Task]:
        enter, leave = list(enter), list(leave)
        out = [_Task(n, f, enter[k] if k < len(enter) else None,
                     leave[k] if k < len(leave) else None, parent)
               for k, (n, f) in enumerate(tasks)]
        self._tasks.extend(out)
        return out

    def _start(self, tasks: list[_Task]) -> list[threading.Thread]:
        old = threading.stack_size()
        threading.stack_size(_STACK)
        try:  # each thread in a copy of the spawner's context (numpy's error state)
            threads = [threading.Thread(target=contextvars.copy_context().run,
                                        args=(self._body, t), daemon=True) for t in tasks]
            for t in threads:
                t.start()
        finally:
            threading.stack_size(old)
        return threads

    def _body(self, task: _Task) -> None:
        with self._cv:
            while self._turn is not task:
                if self._error is not None:
                    return
                self._cv.wait()
            task.resume()
        try:
            task.result = task.run()
        except _Abort:
            return
        except BaseException as e:  # the run's failure, whichever task met it
            with self._cv:
                if self._error is None:
                    self._error = e
                task.done = True
                self._cv.notify_all()
            return
        with self._cv:
            task.done = True
            p = task.parent
            if p is not None:
                p.joining -= 1
            if p is not None and not p.joining:  # the parent goes on
                self._hand(p)
            else:
                nxt = self._after(task)
                if nxt is not None:
                    self._hand(nxt)
            self._cv.notify_all()

    def _hand(self, task: _Task) -> None:
        """Give the baton to ``task`` (the caller holds the condition)."""
        self._turn = task
        self._cv.notify_all()

    def _await(self, me: _Task) -> None:
        """Until the baton comes back to ``me`` (the caller holds the condition)."""
        while self._turn is not me:
            if self._error is not None:
                raise _Abort()
            self._cv.wait()
        me.resume()

    @staticmethod
    def _runnable(t: _Task) -> bool:
        return not t.done and not t.joining

    def _after(self, me: _Task) -> _Task | None:
        """The next runnable task after ``me`` in the order they were added."""
        k = self._tasks.index(me)
        order = self._tasks[k + 1:] + self._tasks[:k]
        return next((t for t in order if self._runnable(t)), None)

    # -- waiting ------------------------------------------------------------------------
    def wait(self, ready: Callable[[], bool]) -> bool:
        """Called by the running task at a wait that cannot return yet: run the other tasks
        until ``ready()``; False when no other task can make progress (a hang, which the
        caller reports)."""
        with self._cv:
            me = self._turn
            assert me is not None and threading.current_thread() is not threading.main_thread()
            while not ready():
                now = self._stamp()
                others = [t for t in self._tasks if t is not me and self._runnable(t)]
                if not others or all(t.waiting == now for t in others):
                    return False
                me.waiting = now
                if me.leave is not None:
                    me.leave()
                nxt = self._after(me)
                assert nxt is not None
                self._hand(nxt)
                self._await(me)
                me.waiting = None
            return True


RoleScheduler = Baton
"""The former name of ``Baton`` (the roles of one group)."""


def run_roles(g: Any, op: ir.Operation, masks: tuple[np.ndarray, np.ndarray],
              active: np.ndarray) -> list[Any]:
    """The two regions of a ``roles`` ``if`` (no results) as co-routines."""
    if op.results:
        raise SimulationError("a role split yields no values (each role ends on its own)",
                              "unsupported", [op])
    names = tuple(op.attr("roles"))
    running = getattr(g, "roles", None)  # a split inside a role region (ping-pong consumers)
    for name, m in zip(names, masks):
        wg = m.reshape(-1, _WARPGROUP) if m.size % _WARPGROUP == 0 else None
        if wg is None or not (wg.all(axis=1) | ~wg.any(axis=1)).all():
            raise diverged(g, op, f"the {name} role is not a set of whole warpgroups (its "
                                  "condition must be uniform across each warpgroup)")
    mb = g.mbarriers
    outer = g._diverged
    stacks = [list(outer) for _ in names]  # each role's own ``if`` nesting
    enter = [lambda k=k: setattr(g, "_diverged", stacks[k]) for k in range(len(names))]
    leave = [lambda k=k: stacks.__setitem__(k, g._diverged) for k in range(len(names))]
    roles = [(name, (lambda r=region, m=m: g.run_branch(op, r, [], m, active) if m.any()
                     else None)) for name, region, m in zip(names, op.regions, masks)]
    member = getattr(g, "cluster", None)
    if running is not None:  # the inner roles take turns with every task of the split
        try:
            running.spawn_and_join(roles, enter, leave)
        finally:
            g._diverged = outer
        return []
    try:
        if member is None:  # the roles alone take turns
            g.roles = mb.roles = Baton(lambda: (mb.events, *g.registers.budget))
            g.roles.run(roles, enter, leave)
        else:  # with the other groups of the cluster and their roles (simt_cluster)
            g.roles = member.baton
            member.baton.spawn_and_join(roles, enter, leave)
    finally:
        g.roles = None
        if member is None:
            mb.roles = None
        g._diverged = outer
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
    owners = getattr(ctx, "named_barriers", None)
    if owners is not None:  # one thread set per id: two would count each other's arrivals
        first = owners.setdefault(int(bid), active.copy())
        if not np.array_equal(first, active):
            raise diverged(ctx, op, f"named barrier {bid} is met by threads "
                                    f"{_span(np.flatnonzero(active))} here and by threads "
                                    f"{_span(np.flatnonzero(first))} elsewhere: the hardware "
                                    "counts arrivals per id, so two thread sets on one id can "
                                    "complete each other's barrier (give each its own id)")
    turns = getattr(ctx, "turns", None)
    if turns is not None:  # the turns' replay counts this meeting too
        turns.meet(ctx, op, int(bid), want, active)
    ctx.clock.meet(np.flatnonzero(active), ctx.lanes)
    return [None] * len(op.results)


def _span(threads: np.ndarray) -> str:
    """``a..b`` for a contiguous run of thread numbers, else the count and the ends."""
    lo, hi = int(threads[0]), int(threads[-1])
    whole = hi - lo + 1 == threads.size
    return f"{lo}..{hi}" if whole else f"{threads.size} of {lo}..{hi}"
