"""Tensor stores: a warp-specialized group's output tile leaves through shared memory
(``store {tensor_store = 2}``, ``LowerOptions.tensor_store``; docs/design/
warp_specialization.md, "Tensor stores").

In the consumers' region where the tensor maps are legal (``machine_roles``), a marked
``store`` of a ``R x C`` tile of ``E``-byte elements to a plain window of a kernel parameter
becomes, with ``W = 128 / E`` columns per chunk, the tile's ``C / W`` chunks in order, chunk
``c`` through buffer ``b = c mod n`` (``n = store {tensor_store = n}`` swizzled ``R x W``
buffers, 128-byte rows; ``LowerOptions.tensor_store_buffers``, 2 by default)::

    guard = the output array has a legal tensor map
    if guard:
        for each chunk c:
            every thread stores its registers of chunk c into buffer b
            every thread: fence.proxy.async         (its writes, visible to the copy engine)
            thread 0: bulk.wait read n - 2           (chunk c+1-n's store has read its buffer)
            named barrier of the consumers
            thread 0: tma.store buffer b -> the window's box at column c * W; bulk.commit
    else: the ordinary stores from registers

Chunk ``c + 1`` is written while the stores of chunks ``c + 2 - n .. c`` run; the barrier of
chunk ``c`` orders thread 0's wait for chunk ``c + 1 - n`` (of the stores it issued before,
chunks ``.. c - 1``, at most ``n - 2`` still read), whose buffer chunk ``c + 1`` writes,
before every thread's writes. With a chunk count that ``n`` divides, the next tile's chunks
follow the same cycle through the buffers, so the last tile's stores keep running while
the next tile computes; with another count the next tile's chunk 0 may write a buffer a
recent store still reads, so the store begins with thread 0's ``bulk.wait read 0`` and a
barrier. The box clips at the array's edges, so ragged tiles need no guard. After the
consumers' last tile, thread 0 waits for every store (``finish``).

Where the stored tile is a proved scalar epilogue's ``map`` over the accumulator and
reindexed or owned loads (``plan.proofs.scalar_epilogue``: a bias row ``bias[None, :]``,
a residual tile of the output's shape), the map and its loads are not lowered where they
stand (``defer``): each chunk computes its own registers just before writing them, each
load read straight through its window in the accumulator's layout (two rows of a fragment
read one ``bias[j]`` twice, from L1; a residual's owner reads exactly the elements it
stores). Only the accumulators and one part's operands are live then, instead of the
whole tile's loaded operands beside the accumulators (a 128x256 tile's bias row: 128
registers per thread).
"""

from __future__ import annotations

from collections.abc import Callable

import tilec.ir as ir
from tilec.ir import dist_layout as L
from tilec.ir.atoms import SWIZZLE_BYTES
from tilec.plan.proofs.scalar_epilogue import reindexed_load

from .machine import GroupLowering, Lowered
from .machine_bounds import guard_total_access
from .machine_elementwise import scalar_region
from .machine_pipeline import _Window, tma_guard, window_from
from .scheduled_layouts import layout_of
from .staged_windows import column_origin_aligned, store_chunks, store_window

__all__ = ["TensorStores"]


class TensorStores:
    """The tensor stores of one warp-specialized group's consumers."""

    def __init__(self, g: GroupLowering, tensor: bool = True) -> None:
        self.g = g
        self.tensor = tensor
        """Stores go through shared memory and tensor stores (False: in the consumers' copy
        where the operands have no tensor maps, marked stores are stored from registers,
        a deferred epilogue part by part)."""
        self.buffers: dict[ir.Operation, ir.Value] = {}
        """Per marked ``store``: its chunk buffers (``n x R x W``, swizzled)."""
        self.issued = False
        """Some store was lowered (``finish`` then waits for them)."""
        self.deferred: dict[ir.Operation, ir.Operation] = {}
        """Per marked ``store`` whose tile a scalar epilogue computes: that ``map``."""
        self.skipped: list[ir.Operation] = []
        """The Scheduled operations ``defer`` added to the group's skip set."""

    def defer(self, ops: list[ir.Operation]) -> None:
        """Of the operations ``ops`` (a group body's, after the loop), leave each marked
        store's scalar epilogue (the ``map`` and its reindexed and owned loads) to the
        store's chunks: they join the group's skip set until ``finish``."""
        for st in ops:
            if st.name != "store" or not st.attr("tensor_store"):
                continue
            m = _epilogue_map(st)
            if m is None:
                continue
            self.deferred[st] = m
            for _, r, ld in _epilogue_loads(m):
                self.skipped += [ld] if r is None else [r, ld]
            self.skipped.append(m)
        for op in self.skipped:
            self.g.skip.add(op)

    def store(self, op: ir.Operation) -> None:
        """Lower ``store {tensor_store}`` ``op`` (module docstring)."""
        g = self.g
        t = op.operand(1).type
        m = self.deferred.get(op)
        x = None if m is not None else g.canonical(g.operand(op, 1))
        lay = x.layout if x is not None else layout_of(op.operand(1))
        part = _part_of(x) if x is not None else self._computed(m)  # type: ignore[arg-type]

        def plain() -> None:
            guard_total_access(g, op)
            mem = g.scalar(op.operand_named("memory"))
            if x is not None:
                g.store_registers(mem, x)
            else:  # part by part, each computed where it is stored
                g.sync.write(mem)
                for k in range(len(lay.parts)):
                    tv = g.thread_view(mem, lay, lay.part_offsets[k], lay.parts[k])
                    g.op("store", [tv, part(k)], [])

        if not self.tensor:
            plain()
            return
        rows, cols = (int(e) for e in t.shape)
        width = SWIZZLE_BYTES // t.dtype.bytes
        chunks = store_chunks(lay, width)
        got = store_window(op)
        assert chunks is not None and got is not None, "the schedule checked the store"
        win = window_from(g, *got)
        n = int(op.attr("tensor_store"))
        buf = self.buffers.get(op)
        if buf is None:
            buf = self.buffers[op] = g.smem.buffer((n, rows, width), t.dtype, "tensor store",
                                                   swizzle=SWIZZLE_BYTES)

        def staged() -> None:
            if len(chunks) % n:  # the last tile's recent stores may read buffer 0 (docstring)
                self._wait_read(0)
                g.sync.barrier()
            for c, parts in enumerate(chunks):
                self._chunk(lay, part, parts, buf, win, c, rows, width, n)

        column = None if column_origin_aligned(got[0], t.dtype) else win.origin[-1]
        g.branches(tma_guard(g, t.dtype, win.extents, column), staged, plain,
                   {"guard": "the output array has a legal tensor map and the window's "
                             "rows start 16-byte aligned (tensor stores)"})
        self.issued = True

    def _computed(self, m: ir.Operation) -> Callable[[int], ir.Value]:
        """Canonical part ``k`` of scalar epilogue ``m``'s result, computed where it is asked
        for: the accumulator's registers of the part, each load's elements of the part read
        through its window, one machine ``map``."""
        g = self.g
        lay = layout_of(m.results[0])
        acc = g.canonical(g.operand(m, 0))
        loads = {}
        for o, r, ld in _epilogue_loads(m):
            guard_total_access(g, ld)
            mem = g.scalar(ld.operand_named("memory"))
            g.sync.read(mem)
            rmap = r.attr("map") if r is not None else None
            loads[o] = (mem, rmap, ld.attr("fill"), ld.result.type.dtype)
        result_t = m.results[0].type.dtype

        def part(k: int) -> ir.Value:
            off, n = lay.part_offsets[k], lay.parts[k]
            args: list[ir.Value] = []
            for j, o in enumerate(m.operands):
                if j == 0:
                    args.append(acc.parts[acc.offsets.index(off)])
                elif o in loads:
                    mem, rmap, fill, dt = loads[o]  # rmap None: an owned load
                    tv = g.thread_view(mem, lay, off, n, rmap, (), True)
                    attrs = {} if fill is None else {"fill": fill}
                    args.append(g.op("load", [tv], [ir.TileType((n,), dt)], attrs).result)
                else:
                    args.append(g.scalar(o))
            return g.op("map", args, [ir.TileType((n,), result_t)],
                        {"shape": ir.IndexSet([n])}, [scalar_region(g, m.regions[0])]).result

        return part

    def _chunk(self, lay: L.DistLayout, part: Callable[[int], ir.Value], parts: list[int],
               buf: ir.Value, win: _Window, c: int, rows: int, width: int, n: int) -> None:
        g = self.g
        b = c % n
        into = ir.IndexMap(2, [ir.const(b), ir.d(0), ir.d(1) + (-c * width)])
        for k in parts:
            tv = g.thread_view(buf, lay, lay.part_offsets[k], lay.parts[k], into)
            g.op("store", [tv, part(k)], [])
        g.atom("fence.proxy.async", [], [ir.token])
        self._wait_read(n - 2)
        g.sync.barrier()
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

        g.guarded(g.thread0(), issue)

    def _wait_read(self, pending: int) -> None:
        """Thread 0 waits until all but its last ``pending`` stores have read their
        sources."""
        g = self.g
        g.guarded(g.thread0(),
                  lambda: g.atom("bulk.wait", [], [ir.token], pending=pending, read=True))

    def finish(self) -> None:
        """After the consumers' last tile: thread 0 waits until every store has written;
        the deferred epilogues leave the skip set."""
        for op in self.skipped:
            self.g.skip.discard(op)
        self.skipped = []
        if not self.issued:
            return
        g = self.g
        g.guarded(g.thread0(),
                  lambda: g.atom("bulk.wait", [], [ir.token], pending=0, read=False))


def _part_of(x: Lowered) -> Callable[[int], ir.Value]:
    """Canonical part ``k`` of lowered tile ``x`` (in its canonical parts)."""
    return lambda k: x.parts[k]


def _epilogue_loads(m: ir.Operation
                    ) -> list[tuple[ir.Value, ir.Operation | None, ir.Operation]]:
    """``(operand, reindex, load)`` of each reindexed load scalar epilogue ``m`` reads, the
    reindex None for an owned load (``_epilogue_map`` checked their form)."""
    out: list[tuple[ir.Value, ir.Operation | None, ir.Operation]] = []
    for o in m.operands[1:]:
        if isinstance(o.type, ir.TileType):
            d = o.defining_op
            assert d is not None, "a checked epilogue's load"
            if d.name == "load":
                out.append((o, None, d))
                continue
            ld = d.operand(0).defining_op
            assert ld is not None, "a checked epilogue's reindexed load"
            out.append((o, d, ld))
    return out


def _epilogue_map(st: ir.Operation) -> ir.Operation | None:
    """The ``map`` that computes the tile store ``st`` writes from an accumulator (its first
    operand) and reindexed or owned loads (``plan.proofs.scalar_epilogue``), used by the
    store alone; None otherwise."""
    v = st.operand(1)
    m = v.defining_op
    if m is None or m.name != "map" or v.num_uses != 1 or len(m.results) != 1:
        return None
    if not m.operands or not isinstance(m.operand(0).type, ir.TileType):
        return None
    for o in m.operands[1:]:
        if isinstance(o.type, ir.TileType) and (o is m.operand(0) or reindexed_load(o)):
            return None
    return m
