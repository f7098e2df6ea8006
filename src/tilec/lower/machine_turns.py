"""Consumer warpgroups taking turns at a loop's two warpgroup products
(``LowerOptions.warpgroup_turns``; docs/design/warp_specialization.md, "Warpgroup turns").

Attention's key loop issues two products per iteration: the scores ``S_j`` and then, after
the softmax of ``S_j``, ``O += P_j V_j``. The two consumer warpgroups of a 128-row tile
wait on the same ``full`` barriers and so run in phase: both issue their products at once,
then both compute their softmax while the tensor cores idle. Turns skew them by half an
iteration. Per warpgroup, ``P_{j-1} V_{j-1}`` and ``S_j`` are issued back to back (no
softmax between them); that pair is the warpgroup's *turn*, and the turns alternate
between the two warpgroups, so one's softmax runs beside the other's products. With
``w`` the warpgroup (0 or 1) and turn barrier ``B + w`` its own (named barriers, ``B =
TURN_BARRIER``, 256 threads)::

    if lb < ub:                                  (a tile with no iteration takes no turn)
        if w == 1: bar.arrive B + 0              (warpgroup 0 goes first)
        bar.sync B + w                           (the turn of S_0)
    for j:
        wait full; issue S_j; commit
        bar.arrive B + 1 - w                     (the other warpgroup's turn)
        wait for S_j; softmax
        bar.sync B + w                           (the turn of P_j V_j and S_{j+1})
        issue P_j V_j; commit; wait; release the version
    if lb < ub and w == 0: bar.arrive B + 1      (warpgroup 1's last P V)

Warpgroup ``w`` syncs ``n + 1`` times on ``B + w`` in a tile of ``n`` iterations and the
other arrives on it ``n + 1`` times (warpgroup 1: once before the loop and after each
``S_j``; warpgroup 0: after each ``S_j`` and once after the loop), so every phase
completes and none is left open for the next tile. The ring is untouched: each warpgroup
still waits for every version and releases it, and the producer waits for both releases.
Turns keep the warpgroups at most one iteration apart, so with two or more ring versions
neither waits on a version the producer can only fill after the other's release.
"""

from __future__ import annotations

import tilec.ir as ir

from .machine import GroupLowering
from .options import LoweringBug

__all__ = ["TURN_BARRIER", "WarpgroupTurns"]

TURN_BARRIER = 4
"""Named barrier of warpgroup 0's turn (warpgroup 1's is the next id); ids 1 to 3 are the
role barriers (``machine_sync.ROLE_BARRIER``, the ping-pong consumers')."""

_WARPGROUP = 128


class WarpgroupTurns:
    """The turns of the two consumer warpgroups in one loop's lowering (module docstring):
    ``begin`` before the loop, ``before_product`` and ``after_product`` around each
    warpgroup product of its body (in program order: the first of an iteration passes the
    turn after it, the second takes the turn before it), ``end`` right after the loop,
    before the ring's own end (``machine_control._staged_loop`` calls it)."""

    def __init__(self, g: GroupLowering, loop: ir.Operation, warpgroups: int = 2) -> None:
        """At the insertion point before the loop (``begin`` follows)."""
        assert warpgroups == 2, "turns alternate two warpgroups"
        self.g = g
        self.loop = loop
        """The (scheduled) loop whose products take turns."""
        self.threads = _WARPGROUP * warpgroups
        """Threads of each turn barrier's phase."""
        self._issued = 0
        self._bounds: tuple[ir.Value, ir.Value] | None = None
        # the warpgroup, its turn barrier and the other's: emitted here, before the loop,
        # where they dominate every turn
        self._wg = g.arith("floordiv", g.tid, g.index(_WARPGROUP))
        self._mine = g.arith("add", g.index(TURN_BARRIER), self._wg)
        self._other = g.arith("sub", g.index(TURN_BARRIER + 1), self._wg)

    def _turn(self, action: str, bid: ir.Value) -> None:
        self.g.atom("barrier.turn", [bid], [], action=action, threads=self.threads)

    def begin(self, lb: ir.Value, ub: ir.Value) -> None:
        """Before the loop: warpgroup 1 lets warpgroup 0 go first; each takes its first
        turn (where the loop has an iteration). Product hooks are on until ``end``."""
        g = self.g
        self._issued = 0
        self._bounds = (lb, ub)

        def first() -> None:
            g.guarded(g.arith("eq", self._wg, g.index(1)),
                      lambda: self._turn("arrive", g.index(TURN_BARRIER)))
            self._turn("sync", self._mine)

        g.guarded(g.arith("lt", lb, ub), first)
        g.turns = self

    def before_product(self) -> None:
        """Before a warpgroup product of the loop's body: the second of an iteration takes
        the warpgroup's turn."""
        if self._issued % 2 == 1:
            self._turn("sync", self._mine)

    def after_product(self) -> None:
        """After its commit: the first of an iteration passes the turn to the other."""
        if self._issued % 2 == 0:
            self._turn("arrive", self._other)
        self._issued += 1

    def end(self) -> None:
        """After the loop: warpgroup 0 passes warpgroup 1 the turn of its last product
        (before any meeting of the two: warpgroup 1 reaches it only after that product)."""
        g = self.g
        g.turns = None
        if self._bounds is None or self._issued != 2:
            raise LoweringBug(f"internal: turns alternate two warpgroup products per "
                              f"iteration; the loop's body issued {self._issued}")
        lb, ub = self._bounds
        g.guarded(g.arith("and", g.arith("lt", lb, ub), g.arith("eq", self._wg, g.index(0))),
                  lambda: self._turn("arrive", g.index(TURN_BARRIER + 1)))
