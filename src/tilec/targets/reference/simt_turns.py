"""Warpgroups of one role taking turns (``barrier.turn``; docs/design/warp_specialization.md,
"Warpgroup turns").

The simulator runs a role's warpgroups in lock step, so it cannot run the skewed schedule
that a turn protocol makes on the GPU. The turns order no memory access (the race detector
checks the data without them), so the lock-step run computes what any schedule computes.
What can go wrong is the protocol itself: a ``sync`` that no arrival ever completes (a
hang on the GPU), or arrivals left on a barrier when the group ends (the next phase of the
id, the next tile's turns, would complete early). So from the first turn on, every
``barrier.turn`` and every named barrier the warpgroups meet is logged per warpgroup, in
that warpgroup's program order, and at the end of the group the logs are replayed as the
hardware counts them: a phase of barrier ``id`` completes once ``threads`` threads have
reached it (a warpgroup's sync or arrival brings its 128), a ``sync`` waits for the phase
it reached to complete, an ``arrive`` goes on. Each warpgroup runs until a ``sync`` whose
phase is open; a replay where every unfinished warpgroup waits is a hang, a barrier holding
arrivals at the end is unbalanced.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import tilec.ir as ir

from .errors import SimulationError
from .simt_atoms import AtomContext, atom_impl, diverged

__all__ = ["TurnLedger"]

_WARPGROUP = 128


@dataclass(frozen=True)
class _Event:
    """One warpgroup reaching a named barrier."""

    action: str
    """``sync`` (waits for the phase) or ``arrive``."""
    bid: int
    """The barrier id."""
    threads: int
    """The phase's thread count."""
    op: ir.Operation
    """The operation that reached it."""


class TurnLedger:
    """The group's named-barrier events per warpgroup, from its first ``barrier.turn`` on."""

    def __init__(self) -> None:
        self.logs: dict[int, list[_Event]] | None = None
        """Per warpgroup, its events in program order (None: no turn taken yet)."""
        self.ids: set[int] = set()
        """The ids turns were taken on."""

    def turn(self, ctx: AtomContext, op: ir.Operation, ids: Any, active: np.ndarray) -> None:
        """``barrier.turn`` ``op`` by the active (whole) warpgroups, ``ids`` per thread."""
        threads = int(op.attr("threads"))
        ids = np.broadcast_to(np.asarray(ids, np.int64), (ctx.lanes,))
        if self.logs is None:
            self.logs = {}
        for k in _whole_warpgroups(ctx, op, active):
            mine = ids[k * _WARPGROUP:(k + 1) * _WARPGROUP]
            lo, hi = int(mine.min()), int(mine.max())
            if lo != hi:
                raise diverged(ctx, op, f"the barrier id of a turn differs across warpgroup {k} "
                                        f"({lo} and {hi}); a warpgroup takes one turn")
            if not 1 <= lo <= 15:
                raise SimulationError(f"a turn on named barrier {lo}: ids are 1..15 (0 is the "
                                      "group barrier)", "unsupported", [op])
            if lo in getattr(ctx, "named_barriers", {}):
                raise SimulationError(f"named barrier {lo} is both a turn and a role's barrier: "
                                      "the hardware counts arrivals per id, so each would "
                                      "complete the other's phases", "unsupported", [op])
            self.ids.add(lo)
            self.logs.setdefault(k, []).append(_Event(op.attr("action"), lo, threads, op))

    def meet(self, ctx: AtomContext, op: ir.Operation, bid: int, threads: int,
             active: np.ndarray) -> None:
        """A named barrier met by the active warpgroups (logged once turns are taken)."""
        if self.logs is None:
            return
        if bid in self.ids:
            raise SimulationError(f"named barrier {bid} is both a turn and a role's barrier: "
                                  "the hardware counts arrivals per id, so each would complete "
                                  "the other's phases", "unsupported", [op])
        for k in _whole_warpgroups(ctx, op, active):
            self.logs.setdefault(k, []).append(_Event("sync", bid, threads, op))

    def finish(self) -> None:
        """Replay the logs (module docstring): a hang or an unbalanced barrier is an error."""
        if self.logs is None:
            return
        logs = self.logs
        pos = dict.fromkeys(logs, 0)
        arrived: dict[int, int] = {}     # per id, threads in its open phase
        completed: dict[int, int] = {}   # per id, phases completed
        count: dict[int, tuple[int, ir.Operation]] = {}
        waits: dict[int, tuple[int, int, _Event]] = {}  # warpgroup -> (id, phase, event)
        moved = True
        while moved:
            moved = False
            for k, log in logs.items():
                while True:
                    if k in waits:
                        bid, phase, _ = waits[k]
                        if completed.get(bid, 0) <= phase:
                            break
                        del waits[k]
                    if pos[k] == len(log):
                        break
                    e = log[pos[k]]
                    pos[k] += 1
                    moved = True
                    first = count.setdefault(e.bid, (e.threads, e.op))
                    if first[0] != e.threads:
                        raise SimulationError(
                            f"named barrier {e.bid} is reached for {e.threads} threads here and "
                            f"for {first[0]} elsewhere (one count per id)", "unsupported",
                            [e.op, first[1]])
                    phase = completed.get(e.bid, 0)
                    arrived[e.bid] = arrived.get(e.bid, 0) + _WARPGROUP
                    if arrived[e.bid] >= e.threads:
                        arrived[e.bid] = 0
                        completed[e.bid] = phase + 1
                    elif e.action == "sync":
                        waits[k] = (e.bid, phase, e)
        if waits:
            what = "; ".join(f"warpgroup {k} waits on named barrier {bid} (phase {ph}, "
                             f"{arrived.get(bid, 0)} of {ev.threads} threads)"
                             for k, (bid, ph, ev) in sorted(waits.items()))
            raise SimulationError(f"warpgroup turns never complete: {what}; no other "
                                  "warpgroup arrives on them any more", "hang",
                                  [ev.op for _, _, ev in waits.values()])
        left = {b: n for b, n in arrived.items() if n}
        if left:
            b, n = min(left.items())
            raise SimulationError(
                f"named barrier {b} ends the group with {n} of {count[b][0]} threads arrived: "
                "a turn passed that no warpgroup takes (its next phase would complete early)",
                "hang", [count[b][1]])


def _whole_warpgroups(ctx: AtomContext, op: ir.Operation, active: np.ndarray) -> list[int]:
    """The warpgroups of ``active``, each wholly active."""
    wg = active.reshape(-1, _WARPGROUP) if ctx.lanes % _WARPGROUP == 0 else None
    if wg is None or (wg.any(axis=1) & ~wg.all(axis=1)).any():
        raise diverged(ctx, op, f"{op.attr('catalog_id')} is reached by part of a warpgroup; "
                                "every thread of a warpgroup reaches it together")
    return [int(k) for k in np.flatnonzero(wg.all(axis=1))]


@atom_impl("barrier.turn")
def _barrier_turn(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
                  ) -> Sequence[Any]:
    ctx.turns.turn(ctx, op, args[0], active)
    return [None] * len(op.results)
