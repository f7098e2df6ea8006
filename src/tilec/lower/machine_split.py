"""Machine lowering of a split K loop (``split_k`` on a Scheduled loop; docs/design/split_k.md).

The group's grid gets a leading axis ``split`` of extent ``S``; the other axes number the
output tiles as before (``tile`` is their row-major linear index). Program ``(split,
tile)`` runs K steps ``[lb + split * T * step, min(ub, lb + (split + 1) * T * step))``
with ``T = cdiv(max(cdiv(ub - lb, step), 0), S)`` (an empty range leaves the zero
accumulator), then::

    split.store(split, tile, part)   per canonical register part of every accumulator
    last = split.arrive(tile)        group-collective: fence, count, broadcast
    if last {
        part' = split.combine(tile)  the S partials added in split order
        ... everything after the loop, on the combined accumulators ...
    }

Each thread stores and reloads its own registers (the accumulator's distribution is the
same in every program of the group), so no layout is involved: the partial of a tile is
``threads x regs`` f32 values, register-major so that a warp's stores are contiguous.
"""

from __future__ import annotations

from dataclasses import dataclass

import tilec.ir as ir

from .machine import GroupLowering, Lowered

__all__ = ["SplitK", "split_op_of", "lower_split_body"]


@dataclass
class SplitK:
    """The split loop of one group and its grid coordinate."""

    loop: ir.Operation
    """The Scheduled K loop (``split_k`` attribute)."""
    splits: int
    """Programs per output tile (``S``)."""
    coord: ir.Value
    """The grid's leading coordinate (``split``)."""

    def k_range(self, g: GroupLowering, lb: ir.Value, ub: ir.Value, step: ir.Value
                ) -> tuple[ir.Value, ir.Value]:
        """This program's share ``[lo, hi)`` of the loop's range (the step is positive:
        the loop's step check runs first)."""
        n = g.arith("max", g.arith("cdiv", g.arith("sub", ub, lb), step), g.index(0))
        per = g.arith("mul", g.arith("cdiv", n, g.index(self.splits)), step)
        lo = g.arith("add", lb, g.arith("mul", self.coord, per))
        hi = g.arith("min", ub, g.arith("add", lo, per))
        return lo, hi


def split_op_of(group: ir.Operation) -> ir.Operation | None:
    """The loop of Scheduled group ``group`` that carries ``split_k`` (None: no split)."""
    for op in group.regions[0].entry.operations:
        if op.attr("split_k") is not None:
            return op
    return None


def _tile_index(g: GroupLowering, coords: list[ir.Value]) -> ir.Value:
    """The row-major linear index of the output tile (the grid point without ``split``)."""
    extents = [g.scalar(v) for v in g.group.operands[:g.group.attr("rank")]]
    acc = coords[0]
    for c, e in zip(coords[1:], extents[1:]):
        acc = g.arith("add", g.arith("mul", acc, e), c)
    return acc


def lower_split_body(g: GroupLowering, block: ir.Block, split: SplitK,
                     coords: list[ir.Value]) -> None:
    """Lower the grid body ``block`` whose K loop ``split.loop`` runs split: the operations
    up to the loop as usual, the partials' protocol after it, the rest in the combining
    program."""
    ops = [op for op in block.operations if not op.opdef.terminator]
    k = ops.index(split.loop)
    for op in ops[:k + 1]:  # skipped: realized elsewhere (lower_block's rule, checked late)
        if op not in g.skip:
            g.lower_op(op)
    outer, g.loc = g.loc, split.loop.loc
    tile = _tile_index(g, coords)
    accs = [g.canonical(g.tile(r)) for r in split.loop.results]
    regs = sum(sum(x.sizes) for x in accs)
    attrs = {"splits": split.splits, "regs": regs, "threads": g.threads}
    offset = 0
    for x in accs:
        for part in x.parts:
            g.atom("split.store", [split.coord, tile, part], [ir.token], offset=offset, **attrs)
            offset += int(part.type.shape[0])
    last = g.atom("split.arrive", [tile], [ir.i1], splits=split.splits).result

    def combining() -> None:
        off = 0
        for r, x in zip(split.loop.results, accs):
            parts = []
            for part in x.parts:
                parts.append(g.atom("split.combine", [tile], [part.type], offset=off,
                                    **attrs).result)
                off += int(part.type.shape[0])
            g.bind(r, Lowered(x.layout, parts))
        for op in ops[k + 1:]:
            if op not in g.skip:
                g.lower_op(op)

    g.loc = outer
    g.guarded(last, combining, {"guard": "split-K: the program that combines the tile"})
