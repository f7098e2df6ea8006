"""The split-K atoms in the SIMT simulator: the launch's partials and arrival counters.

``SplitWorkspace`` is what the CUDA launcher allocates for a split-K kernel, per launch:
the partials (``threads x regs`` f32 values per split and output tile) and one arrival
counter per tile, zero at the start. Programs run one after another here, so the last
program of a tile to arrive is the one with the highest split index; on the GPU any of
them may be, which is why ``split.combine`` adds in split order, never in arrival order.
What the simulator reports instead of leaving undefined:

* a ``split.*`` atom under divergent control flow (every thread of the group takes part);
* a partial stored twice in one launch, or by a program of another split or tile than the
  coordinates it names (two programs writing one partial);
* ``split.combine`` in a program that did not arrive last, or before a register of some
  split's partial was stored (a wrong count or a missing store: on the GPU it would read
  another launch's values or garbage) -- a ``hang`` kind, as for a barrier that never
  completes;
* more arrivals on a tile than it has splits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import tilec.ir as ir

from .errors import SimulationError
from .simt_atoms import AtomContext, atom_impl, diverged

__all__ = ["SplitWorkspace"]


class SplitWorkspace:
    """The partials and counters of one launch (``_Host.split``, new at every grid)."""

    def __init__(self) -> None:
        self.partials: dict[tuple[int, int], np.ndarray] = {}
        """``(tile, split)`` -> the ``threads x regs`` f32 partial (NaN where unstored)."""
        self.stored: dict[tuple[int, int], np.ndarray] = {}
        """``(tile, split)`` -> which of its registers were stored."""
        self.owner: dict[tuple[int, int], int] = {}
        """``(tile, split)`` -> the program that stores that partial."""
        self.count: dict[int, int] = {}
        """Arrivals per tile (a tile whose last program combined is removed: zero again)."""
        self.combiner: dict[int, int] = {}
        """Tile -> the program that arrived last on it (it alone may combine)."""


def _uniform(ctx: AtomContext, op: ir.Operation, x: Any, active: np.ndarray, what: str) -> int:
    if not active.all():
        raise diverged(ctx, op, f"{op.attr('catalog_id')} needs every thread of the group "
                                "(it ran under a branch some threads did not take)")
    a = np.asarray(x).reshape(-1)
    if a.size == 0 or (a != a[0]).any():
        raise SimulationError(f"{op.attr('catalog_id')}: the {what} differs between threads",
                              "divergence", [op])
    return int(a[0])


def _state(ctx: AtomContext) -> tuple[SplitWorkspace, int]:
    host = ctx.host  # type: ignore[attr-defined]
    return host.split, int(host.grid.program)


@atom_impl("split.store")
def _store(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
           ) -> Sequence[Any]:
    ws, program = _state(ctx)
    s = _uniform(ctx, op, args[0], active, "split coordinate")
    tile = _uniform(ctx, op, args[1], active, "tile index")
    splits, regs, off = op.attr("splits"), op.attr("regs"), op.attr("offset")
    if not 0 <= s < splits:
        raise SimulationError(f"split.store: split {s} outside [0, {splits})", "out_of_range",
                              [op])
    key = (tile, s)
    part = np.asarray(args[2], np.float32).reshape(ctx.lanes, -1)
    if key not in ws.partials:
        ws.partials[key] = np.full((ctx.lanes, regs), np.nan, np.float32)
        ws.stored[key] = np.zeros((ctx.lanes, regs), bool)
    owner = ws.owner.setdefault(key, program)
    if owner != program:
        raise SimulationError(f"split.store: programs {owner} and {program} both store split "
                              f"{s} of tile {tile}", "race", [op])
    sl = slice(off, off + part.shape[1])
    if ws.stored[key][:, sl].any():
        raise SimulationError(f"split.store: registers {off}..{off + part.shape[1]} of split "
                              f"{s} of tile {tile} are stored twice in one launch", "race",
                              [op])
    ws.partials[key][:, sl] = part
    ws.stored[key][:, sl] = True
    return [None]


@atom_impl("split.arrive")
def _arrive(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
            ) -> Sequence[Any]:
    ws, program = _state(ctx)
    tile = _uniform(ctx, op, args[0], active, "tile index")
    splits = op.attr("splits")
    n = ws.count.get(tile, 0) + 1
    if n > splits:
        raise SimulationError(f"split.arrive: {n} arrivals on tile {tile}, which has {splits} "
                              "splits", "hang", [op])
    last = n == splits
    if last:
        ws.count.pop(tile, None)  # the combining program sets the counter back to zero
        ws.combiner[tile] = program
    else:
        ws.count[tile] = n
    return [np.full(ctx.lanes, last, bool)]


@atom_impl("split.combine")
def _combine(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
             ) -> Sequence[Any]:
    ws, program = _state(ctx)
    tile = _uniform(ctx, op, args[0], active, "tile index")
    splits, off = op.attr("splits"), op.attr("offset")
    if ws.combiner.get(tile) != program:
        raise SimulationError(f"split.combine of tile {tile} in a program that did not arrive "
                              "last on it (its partials may not all be stored)", "hang", [op])
    p = int(op.results[0].type.shape[0])
    sl = slice(off, off + p)
    acc: np.ndarray | None = None
    for s in range(splits):  # split order, whatever order the programs arrived in
        key = (tile, s)
        if key not in ws.stored or not ws.stored[key][:, sl].all():
            raise SimulationError(f"split.combine of tile {tile} reads registers {off}..{off + p}"
                                  f" of split {s}, which no program stored", "hang", [op])
        part = ws.partials[key][:, sl]
        acc = part.copy() if acc is None else (acc + part).astype(np.float32)
    assert acc is not None
    return [acc]
