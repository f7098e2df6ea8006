"""Tensor stores: a warp-specialized group's output tile leaves through shared memory
(``store {tensor_store = 2}``, ``LowerOptions.tensor_store``; docs/design/
warp_specialization.md, "Tensor stores").

In the consumers' region where the tensor maps are legal (``machine_roles``), a marked
``store`` of a ``R x C`` tile of ``E``-byte elements to a plain window of a kernel parameter
becomes, with ``W = 128 / E`` columns per chunk, the tile's ``C / W`` chunks in order, chunk
``c`` through buffer ``b = c mod 2`` (two swizzled ``R x W`` buffers, 128-byte rows)::

    guard = the output array has a legal tensor map
    if guard:
        for each chunk c:
            every thread stores its registers of chunk c into buffer b
            every thread: fence.proxy.async         (its writes, visible to the copy engine)
            thread 0: bulk.wait read 0               (chunk c-1's store has read buffer 1-b)
            named barrier of the consumers
            thread 0: tma.store buffer b -> the window's box at column c * W; bulk.commit
    else: the ordinary stores from registers

Chunk ``c + 1`` is written while chunk ``c`` is stored; the barrier of chunk ``c`` orders
thread 0's wait for chunk ``c - 1``, whose buffer chunk ``c + 1`` writes, before every
thread's writes. With an even chunk count each tile starts at buffer 0 after the last
tile's chunks used buffer 1 and then 0's store was retired, so the last tile's stores keep
running while the next tile computes; with an odd one the previous tile's last chunk used
buffer 0, so the store begins with thread 0's ``bulk.wait read 0`` and a barrier. The box
clips at the array's edges, so ragged tiles need no guard. After the consumers' last
tile, thread 0 waits for every store (``finish``).
"""

from __future__ import annotations

import tilec.ir as ir
from tilec.ir.atoms import SWIZZLE_BYTES

from .machine import GroupLowering, Lowered
from .machine_bounds import guard_total_access
from .machine_pipeline import _Window, tma_guard, window_from
from .staged_windows import store_chunks, store_window

__all__ = ["TensorStores"]


class TensorStores:
    """The tensor stores of one warp-specialized group's consumers."""

    def __init__(self, g: GroupLowering) -> None:
        self.g = g
        self.buffers: dict[ir.Operation, ir.Value] = {}
        """Per marked ``store``: its two chunk buffers (``2 x R x W``, swizzled)."""
        self.issued = False
        """Some store was lowered (``finish`` then waits for them)."""

    def store(self, op: ir.Operation) -> None:
        """Lower ``store {tensor_store}`` ``op`` (module docstring)."""
        g = self.g
        x = g.canonical(g.operand(op, 1))
        t = op.operand(1).type
        rows, cols = (int(e) for e in t.shape)
        width = SWIZZLE_BYTES // t.dtype.bytes
        chunks = store_chunks(x.layout, width)
        got = store_window(op)
        assert chunks is not None and got is not None, "the schedule checked the store"
        win = window_from(g, *got)
        buf = self.buffers.get(op)
        if buf is None:
            buf = self.buffers[op] = g.smem.buffer((2, rows, width), t.dtype, "tensor store",
                                                   swizzle=SWIZZLE_BYTES)
        before = g.sync.state()
        ends = []

        def staged() -> None:
            if len(chunks) % 2:  # the last tile's last chunk used buffer 0 (docstring)
                self._wait_read()
                g.sync.barrier()
            for c, parts in enumerate(chunks):
                self._chunk(x, parts, buf, win, c, rows, width)
            ends.append(g.sync.state())

        def plain() -> None:
            g.sync.restore(before)
            guard_total_access(g, op)
            g.store_registers(g.scalar(op.operand_named("memory")), x)
            ends.append(g.sync.state())

        g.guarded(tma_guard(g, t.dtype, win.extents), staged,
                  {"guard": "the output array has a legal tensor map (tensor stores)"}, plain)
        g.sync.merge(*ends)
        self.issued = True

    def _chunk(self, x: Lowered, parts: list[int], buf: ir.Value, win: _Window, c: int,
               rows: int, width: int) -> None:
        g = self.g
        b = c % 2
        into = ir.IndexMap(2, [ir.const(b), ir.d(0), ir.d(1) + (-c * width)])
        for k in parts:
            tv = g.thread_view(buf, x.layout, x.offsets[k], x.sizes[k], into)
            g.op("store", [tv, x.parts[k]], [])
        g.atom("fence.proxy.async", [], [ir.token])
        self._wait_read()
        g.sync.barrier()
        first = g.arith("eq", g.tid, g.index(0))
        rows_at, cols_at = win.axes
        box = tuple(rows if a == rows_at else width if a == cols_at else 1
                    for a in range(len(win.extents)))

        def issue() -> None:
            src = g.view(buf, [], ir.IndexMap(2, [ir.const(b), ir.d(0), ir.d(1)]),
                         (rows, width), False)
            coords = list(win.origin)
            if c:
                coords[cols_at] = g.arith("add", coords[cols_at], g.index(c * width))
            g.atom("tma.store", [win.array, src, *coords], [ir.token], box=box,
                   swizzle=SWIZZLE_BYTES)
            g.atom("bulk.commit", [], [ir.token])

        g.guarded(first, issue)

    def _wait_read(self) -> None:
        """Thread 0 waits until its stores have read their sources."""
        g = self.g
        g.guarded(g.arith("eq", g.tid, g.index(0)),
                  lambda: g.atom("bulk.wait", [], [ir.token], pending=0, read=True))

    def finish(self) -> None:
        """After the consumers' last tile: thread 0 waits until every store has written."""
        if not self.issued:
            return
        g = self.g
        g.guarded(g.arith("eq", g.tid, g.index(0)),
                  lambda: g.atom("bulk.wait", [], [ir.token], pending=0, read=False))
