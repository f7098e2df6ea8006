"""Synchronous staged copies: register loads then ring stores, batched per worker.

A staged load that no asynchronous engine takes (Metal; on CUDA a nonzero fill, a window
that is not a plain one, ``async_copies=False``, or the fallback of a window whose rows
are not 16-byte aligned) is copied by every thread with ordinary loads into registers and
stores into the ring version. ``PlannerOptions.max_copy_batch`` says how those accesses
are ordered (docs/design/lowering.md, "Copy batching"):

* ``None`` (the default, the code before the option): each copy's whole per-thread share
  is loaded (one ``load`` per canonical part), then stored, then the next copy;
* ``B`` in 1..16: the unit is a *chunk*, one innermost register digit of the layout (a
  16-byte vector of a ``blocked`` layout). The chunks of the consecutive synchronous
  copies of one issue are taken in order (a copy's chunks, then the next copy's) in
  batches of ``B``: ``B`` chunk loads, then their ``B`` stores. ``1`` is the reference
  sequence (read one chunk, store it). A batch may span copies: each copy writes its own
  fresh ring buffer, which no copy of the issue reads, so no load of a batch can observe a
  store of it, and the protocol's barriers (not the tracker) order the rings.

Only *full* chunks are batched: a chunk whose registers lie inside the tile for every
thread. A chunk a masked layout leaves partly outside the tile is copied on its own after
the batches (its element guards stay). A replicated layout (stores from owner threads
only, under a condition) is never batched. Nothing else changes: the thread-to-element
map, the views and their guards, the fill, the stage and the barriers are the same.

A batch keeps ``B`` chunks live per thread (``B * 16`` bytes of a blocked layout): at
most 64 32-bit registers at ``B = 16``. The default keeps a whole share live, which may be
more (a 128 x 128 f32 operand over 128 threads: 32 chunks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import tilec.ir as ir
from tilec.ir import dist_layout as L

from .machine import GroupLowering
from .machine_bounded_k import live_steps, physical_k_of_window, tail_axis
from .scheduled_layouts import layout_of

__all__ = ["SyncCopy", "CopyRun", "chunks", "copy_sync", "copy_batch_report"]


@dataclass(frozen=True)
class SyncCopy:
    """One staged load of an issue, copied synchronously into its ring version."""

    ld: ir.Operation
    """The staged load."""
    window: ir.Value
    """The window it reads (lowered for the issue's iteration)."""
    dst: ir.Value
    """The ring version it writes."""

    @property
    def layout(self) -> L.DistLayout:
        """The staged value's distribution."""
        return layout_of(self.ld.result)

    def load(self, g: GroupLowering, start: int, length: int) -> ir.Value:
        """Registers ``[start, start + length)`` of this thread's share, loaded."""
        attrs = {} if self.ld.attr("fill") is None else {"fill": self.ld.attr("fill")}
        tv = g.thread_view(self.window, self.layout, start, length)
        return g.op("load", [tv], [ir.TileType((length,), self.ld.result.type.dtype)],
                    attrs).result


class CopyRun:
    """The consecutive synchronous copies of one issue, copied together by ``flush``;
    without a batch each is copied as it comes (right after its own address code)."""

    def __init__(self, g: GroupLowering) -> None:
        self.g = g
        self.copies: list[SyncCopy] = []
        """The copies not made yet."""

    def add(self, c: SyncCopy) -> None:
        """The next synchronous copy of the issue."""
        self.copies.append(c)
        if self.g.fl.options.planner.max_copy_batch is None:
            self.flush()

    def flush(self) -> None:
        """Make the pending copies (an asynchronous copy or the issue's end follows)."""
        copy_sync(self.g, self.copies)
        self.copies = []


_Chunk = tuple[SyncCopy, int, int]
"""A copy, the chunk's first register and its register count."""


def chunks(layout: L.DistLayout) -> list[tuple[int, int, bool]]:
    """Per chunk of a thread's share: (first register, registers, full). A chunk is one
    innermost register digit within a canonical part (single registers where a part does
    not split evenly); full when every thread's registers of it lie inside the tile."""
    _, valid = layout.table()
    return [(start, w, bool(valid[:, start:start + w].all()))
            for start, w in _spans(layout)]


def _spans(layout: L.DistLayout) -> list[tuple[int, int]]:
    """Per chunk of a thread's share: (first register, registers); no thread table."""
    width = layout.regs[-1]
    out = []
    for off, size in zip(layout.part_offsets, layout.parts):
        w = width if off % width == 0 and size % width == 0 else 1
        out.extend((start, w) for start in range(off, off + size, w))
    return out


def copy_sync(g: GroupLowering, copies: Sequence[SyncCopy]) -> None:
    """Copy ``copies`` (consecutive, independent: distinct ring buffers) into their ring
    versions with ordinary loads and stores, ordered by ``max_copy_batch``."""
    batch = g.fl.options.planner.max_copy_batch
    pending: list[_Chunk] = []
    rest: list[_Chunk] = []
    for c in copies:
        lay = c.layout
        if _bounded_tail(g, c):
            continue  # copied chunk by chunk, the K tail's chunks skipped
        if batch is None or lay.replicated:
            _whole_share(g, c)
            continue
        for start, n, full in chunks(lay):
            (pending if full else rest).append((c, start, n))
    step = batch or 1  # (nothing is pending without a batch)
    for k in range(0, len(pending), step):
        _batch(g, pending[k:k + step])
    for ch in rest:
        _batch(g, [ch])


def _bounded_tail(g: GroupLowering, c: SyncCopy) -> bool:
    """Copy ``c`` without its K tail when it feeds only ``mma``s that skip the tail
    (``machine_bounded_k``): each chunk under ``k0 < cdiv(actual, width) * width``, ``k0``
    its first K column for this thread. False (nothing emitted) when ``c`` does not."""
    lay = c.layout
    tail = tail_axis(c.ld)
    if tail is None or lay.replicated:
        return False
    axis, width = tail
    k = int(c.ld.result.type.shape[axis])
    actual = physical_k_of_window(g, c.window, axis, k)
    if actual is None:
        return False
    read = live_steps(g, actual, width)
    if width > 1:
        read = g.arith("mul", read, g.index(width))
    tm = lay.thread_map()
    for start, n in _spans(lay):
        k0 = g.affine(tm.results[axis].substitute([ir.const(start)]), (), [g.tid])

        def copy(start: int = start, n: int = n) -> None:
            r = c.load(g, start, n)
            g.sync.restore(None)  # the protocol's barriers order these accesses
            g.op("store", [g.thread_view(c.dst, lay, start, n), r], [])

        g.guarded(g.arith("lt", k0, read), copy, {"guard": "bounded K view: a physical "
                                                           "column"})
    _realized(g, 1)
    return True


def _whole_share(g: GroupLowering, c: SyncCopy) -> None:
    """The default sequence: the copy's share loaded part by part, then stored."""
    lay = c.layout
    x = g.build(lay, c.ld.result.type.dtype, lambda start, n: c.load(g, start, n))
    g.sync.restore(None)  # the protocol's barriers order these accesses
    g.store_registers(c.dst, x)
    _realized(g, len(_spans(lay)))  # the report's count only: no thread table


def _batch(g: GroupLowering, batch: Sequence[_Chunk]) -> None:
    """The loads of ``batch``'s chunks, then their stores."""
    regs = [c.load(g, start, n) for c, start, n in batch]
    g.sync.restore(None)  # the protocol's barriers order these accesses
    for (c, start, n), r in zip(batch, regs):
        g.op("store", [g.thread_view(c.dst, c.layout, start, n), r], [])
    _realized(g, len(batch))


def _realized(g: GroupLowering, n: int) -> None:
    g.copy_batch_realized = max(g.copy_batch_realized, n)


def copy_batch_report(g: GroupLowering) -> dict[str, Any] | None:
    """The group's ``copy_batch`` report: the requested batch and the largest number of
    chunks whose loads preceded their stores (0: no synchronous copy); None when nothing
    was requested and no synchronous copy was made."""
    requested = g.fl.options.planner.max_copy_batch
    if requested is None and not g.copy_batch_realized:
        return None
    return {"requested": requested, "realized": g.copy_batch_realized}

