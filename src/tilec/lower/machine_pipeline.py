"""Double-buffered staging of matrix operands: ring buffers filled one iteration ahead.

A loop the Scheduled form marks ``schedule = "double_buffer"`` (a ``pipeline``
with ``window >= 2``, or a ``serial`` loop) has *staged loads*: loads whose
values only feed ``mma`` operands of the same iteration and whose addresses
read only the iteration counter. Each gets a ring buffer of ``W`` versions in
shared memory (``versions = W``, a leading version axis). The protocol, with
``j`` the iteration number and one copy group committed per iteration:

    prologue:   for p < W-1: issue iteration p into version p; commit
    iteration j: wait until at most W-2 groups are pending (iteration j's copies
                have landed); barrier (they are visible to every thread, and
                every thread has finished iteration j-1's compute)
                if j+W-1 < n: issue iteration j+W-1 into version (j+W-1) mod W,
                the version iteration j-1 read; commit
                compute from version j mod W (the matrix fragments read it)

The version ``j mod W`` is carried by the loop as an extra index value (next:
``select(v + 1 == W, 0, v + 1)``; the one ahead is ``select(v == 0, W - 1,
v - 1)``) rather than computed from the counter in every iteration.

One barrier per iteration: the barrier that publishes iteration ``j``'s
copies also retires the reads of iteration ``j - 1``, so the version they read
can be refilled right after it.

A loop whose warpgroup instructions stay in flight (``in_flight = L``, the
schedule's ``_in_flight_blocker`` proves it legal) ends each iteration with
``wgmma.wait L`` instead of 0: at iteration ``j``'s barrier only the groups up
to ``j - 1 - L`` are known retired, so the refill goes ``L`` iterations later
(iteration ``j + W - 1 - L`` into the version iteration ``j - 1 - L`` read),
``W - 1 - L`` iterations are issued ahead, the copy wait allows ``W - 2 - L``
pending groups, and ``wgmma.wait 0`` right after the loop (``drain``) retires the
last ``L`` groups before anything reads the accumulators. (Every iteration waits with the
same ``L``: a wait of 0 in the last iteration only, on a branch, is a pipeline ptxas cannot
follow, so it injects a full wait into every iteration, remark C7517.) The tracker of
group barriers is told so:
the ring buffers' accesses inside the loop are ordered by this protocol, not
by a barrier at the end of the body.

An issue is ``cp.async.16`` per 16-byte chunk, zero-filling what lies outside
the array (``valid_bytes``), under a specialization guard proving the 16-byte
alignment of every chunk (row length and column origin multiples of the
vector width); otherwise, and for a nonzero fill, ordinary loads and shared
stores into the same version (``machine_copies``, ordered by ``max_copy_batch``).
The copies of iteration ``j`` thus overlap the compute of iteration ``j - W + 1``.
Targets without asynchronous copies (Metal) keep the ring buffers and issue order
with ordinary loads and stores, and no commit/wait atoms.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import tilec.ir as ir
from tilec.ir.atoms import SWIZZLE_BYTES, WGMMA_ATOMS, row_pad, swizzle_cols

from .machine import GroupLowering, Staged
from .machine_copies import CopyRun, SyncCopy, copy_sync
from .options import LoweringBug
from .schedule import invariant_loads, staged_loads
from .scheduled_layouts import layout_of
from .staged_windows import (
    TMA_ALIGN,
    async_eligible,
    column_origin_aligned,
    nan_filled,
    plain_window,
    tma_eligible,
)

__all__ = ["Staging", "swizzled_map", "tma_guard", "tma_plan", "array_extents", "address_cone",
           "window_of"]


class Staging:
    """The ring buffers and issue logic of one double-buffered loop."""

    def __init__(self, g: GroupLowering, loop: ir.Operation, copy_once: bool = True) -> None:
        self.g = g
        self.loop = loop
        self.versions = int(loop.attr("versions"))
        """Ring-buffer versions ``W``."""
        self.lag = int(loop.attr("in_flight") or 0)
        """Warpgroup instruction groups left in flight per iteration (``L``)."""
        self.ahead = self.versions - 1 - self.lag
        """Iterations issued ahead of the one computing (``W - 1 - L``)."""
        uses = staged_loads(loop)
        self.loads = list(uses)
        """The staged loads, in program order."""
        self.rings: dict[ir.Operation, ir.Value] = {}
        self.swizzled: set[ir.Operation] = {
            ld for ld, mmas in uses.items()
            if any(m.attr("realization") in WGMMA_ATOMS for m, _ in mmas)}
        """Loads read by warpgroup matrix instructions: their rings use the swizzled
        canonical layout (``swizzled_map``) instead of padded rows."""
        self.once: set[ir.Operation] = invariant_loads(loop, self.loads) if copy_once \
            else set()
        """Staged loads whose tile is the same every iteration: one version, copied with
        the first iteration's (``copy_once`` False: every load is copied each
        iteration)."""
        for k, ld in enumerate(self.loads):
            rows, cols = (int(e) for e in ld.result.type.shape)
            dt = ld.result.type.dtype
            versions = 1 if ld in self.once else self.versions
            if ld in self.swizzled:
                self.rings[ld] = g.smem.buffer((rows * cols,), dt, f"stage {k} ring",
                                               versions, swizzle=SWIZZLE_BYTES)
                continue
            self.rings[ld] = g.smem.buffer((rows, cols + row_pad(dt.bytes)), dt,
                                           f"stage {k} ring", versions)
        self.tma: set[ir.Operation] = {ld for ld in self.swizzled
                                       if g.tma and tma_eligible(ld, layout_of(ld.result))}
        """Swizzled loads filled by ``tma.load`` where their in-kernel guard holds
        (docs/design/hopper.md)."""
        self.barriers: ir.Value | None = None
        """With tensor copies: one ``mbarrier`` per ring version (an ``i64`` buffer)."""
        if self.tma:
            self.barriers = g.smem.buffer((self.versions,), ir.i64, "stage barriers")
        self.skip = self._address_only_views()
        g.skip.update(self.loads)
        g.skip.update(self.skip)

    def _address_only_views(self) -> set[ir.Operation]:
        """Views whose every use is a staged load (or such a view): not lowered in the body."""
        out: set[ir.Operation] = set()
        changed = True
        staged = set(self.loads)
        while changed:
            changed = False
            for region in self.loop.regions:
                for op in region.entry.operations:
                    if op.name != "view" or op in out:
                        continue
                    users = [u.owner for u in op.result.uses]
                    if users and all(u in staged or u in out for u in users):
                        out.add(op)
                        changed = True
        return out

    def fallback(self) -> Staging:
        """The same rings and loads with ``cp.async`` copies only (no tensor copies, no
        barriers): the loop an mbarrier ring runs when the tensor-map guard fails."""
        other = copy.copy(self)
        other.tma = set()
        other.barriers = None
        return other

    # -- protocol ------------------------------------------------------------------
    @property
    def carried(self) -> int:
        """Index values the loop carries for the protocol: the version this iteration
        reads, and with tensor copies the parity of its barrier's phase."""
        return 2 if self.barriers is not None else 1

    def _barrier(self, ver: ir.Value) -> ir.Value:
        """The barrier of ring version ``ver`` (a one-element view)."""
        assert self.barriers is not None
        return self.g.view(self.barriers, [ver], ir.IndexMap(1, [ir.s(0)], 1), (1,), False)

    def _on_barriers(self, catalog_id: str, **attrs: Any) -> None:
        """Thread 0 applies ``catalog_id`` to every version's barrier, between two group
        barriers (no thread still uses a barrier being initialized or invalidated)."""
        g = self.g
        g.sync.barrier()

        def each() -> None:
            for v in range(self.versions):
                g.atom(catalog_id, [self._barrier(g.index(v))], [ir.token], **attrs)
            if catalog_id == "mbarrier.init":  # visible to the copies' completions
                g.atom("fence.proxy.async", [], [ir.token])

        g.guarded(self.thread0(), each)
        g.sync.barrier()

    def prologue(self, lb: ir.Value, ub: ir.Value, step: ir.Value) -> None:
        """Issue the first ``W - 1 - L`` iterations (each guarded by the trip count); with
        tensor copies, initialize the ring's barriers first."""
        g = self.g
        if self.barriers is not None:
            self._on_barriers("mbarrier.init", count=1)
        for p in range(self.ahead):
            iv = lb if p == 0 else g.arith("add", lb, g.arith("mul", step, g.index(p)))
            g.guarded(g.arith("lt", iv, ub),
                      lambda iv=iv, p=p: self.issue(iv, g.index(p), first=p == 0))
            if g.async_copies:
                g.atom("cp.async.commit", [], [ir.token])

    def begin_iteration(self, iv: ir.Value, ub: ir.Value, step: ir.Value,
                        carried: list[ir.Value]) -> None:
        """Issue ahead, wait for this iteration's copies, and bind the staged values.

        ``carried`` holds the version this iteration reads (``j mod W``), carried by the
        loop (``next_carried``) rather than computed from the counter: a 64-bit remainder
        by a non-power-of-two costs more than the select; with tensor copies, then the
        parity ``(j div W) mod 2`` of the phase its barrier completes."""
        g = self.g
        w, ahead = self.versions, self.ahead
        ver = carried[0]
        if g.async_copies:
            g.atom("cp.async.wait", [], [], pending=ahead - 1)
        if self.barriers is not None:
            g.atom("mbarrier.wait", [self._barrier(ver), carried[1]], [])
        if self.swizzled:
            # the copies this thread saw land are read next by wgmma (the async proxy)
            g.atom("fence.proxy.async", [], [ir.token])
        g.sync.barrier()
        it_ahead = g.arith("add", iv, g.arith("mul", step, g.index(ahead)))
        # (j + W - 1 - L) mod W: the version iteration j - 1 - L read
        back = w - ahead
        if back == 1:
            ver_ahead = g.arith("select", g.arith("eq", ver, g.index(0)), g.index(w - 1),
                                g.arith("sub", ver, g.index(1)))
        else:
            ver_ahead = g.arith("select", g.arith("lt", ver, g.index(back)),
                                g.arith("add", ver, g.index(ahead)),
                                g.arith("sub", ver, g.index(back)))
        g.guarded(g.arith("lt", it_ahead, ub), lambda: self.issue(it_ahead, ver_ahead))
        if g.async_copies:
            g.atom("cp.async.commit", [], [ir.token])
        for ld in self.loads:
            g.bind(ld.result, Staged(self.version(ld, ver)))

    def next_carried(self, carried: list[ir.Value]) -> list[ir.Value]:
        """``(ver + 1) mod W``, the version the next iteration reads, and with tensor copies
        its phase parity (flipped when the version wraps to 0)."""
        g = self.g
        nxt = g.arith("add", carried[0], g.index(1))
        wrap = g.arith("eq", nxt, g.index(self.versions))
        out = [g.arith("select", wrap, g.index(0), nxt)]
        if self.barriers is not None:
            out.append(g.arith("select", wrap, g.arith("sub", g.index(1), carried[1]),
                               carried[1]))
        return out

    def end_iteration(self) -> None:
        """The ring buffers' accesses of this iteration need no barrier at the end of the
        body: the next iteration's leading barrier orders them (see the protocol). With
        groups in flight, this iteration's warpgroup instructions are waited for here,
        ``L`` groups staying pending (``drain`` retires them after the loop)."""
        if self.lag:
            self.g.atom("wgmma.wait", [], [], pending=self.lag)
        self.g.sync.forget(self.rings.values())

    def drain(self) -> None:
        """Right after the loop, on every path: retire the groups the last iterations left
        in flight (none on the path that skipped the loop)."""
        if self.lag:
            self.g.atom("wgmma.wait", [], [], pending=0)

    def finish(self) -> None:
        """No copy group outlives the loop (nor a warpgroup instruction group: ``drain``
        ran first); the last iteration's reads of the ring buffers
        stay pending for the code after the loop (no trailing barrier retired them)."""
        if self.g.async_copies:
            self.g.atom("cp.async.wait", [], [], pending=0)
        self.g.sync.note_reads(self.rings.values())
        if self.barriers is not None:
            self._on_barriers("mbarrier.inval")

    # -- one issue -------------------------------------------------------------------
    def version(self, ld: ir.Operation, ver: ir.Value) -> ir.Value:
        """The ``rows x cols`` view of ``ld``'s ring version ``ver`` (its one version when
        it is copied once)."""
        rows, cols = (int(e) for e in ld.result.type.shape)
        block = swizzle_cols(ld.result.type.dtype)
        inner = list(swizzled_map(rows, cols, block).results) if ld in self.swizzled \
            else [ir.d(0), ir.d(1)]
        if ld in self.once:  # no version axis
            return self.g.view(self.rings[ld], [], ir.IndexMap(2, inner), (rows, cols), False)
        return self.g.view(self.rings[ld], [ver], ir.IndexMap(2, [ir.s(0), *inner], 1),
                           (rows, cols), False)

    @contextmanager
    def at_iteration(self, ld: ir.Operation, iv: ir.Value) -> Iterator[None]:
        """A scope in which staged load ``ld``'s window for iteration ``iv`` is lowered (its
        address code, ahead of program order: nothing there may fail; the iteration's own
        copy of that code checks its divisions when it runs)."""
        g = self.g
        stage = ld.parent
        with g.scope(g.b):
            g.bind(stage.args[0], iv)
            outer, g.speculative = g.speculative, True
            try:
                for op in address_cone(ld, stage):
                    g.lower_op(op)
            finally:
                g.speculative = outer
            yield

    def issued(self, first: bool) -> list[ir.Operation]:
        """The loads an issue copies: all of them for the first iteration, else those not
        copied once."""
        return [ld for ld in self.loads if first or ld not in self.once]

    def issue(self, iv: ir.Value, ver: ir.Value, first: bool = False) -> None:
        """Copy every staged load of iteration ``iv`` into version ``ver`` (the loads copied
        once only when ``first``)."""
        g = self.g
        before = g.sync.state()
        tx: ir.Value | None = None
        bar = self._barrier(ver) if self.barriers is not None else None
        run = CopyRun(g)
        for ld in self.issued(first):
            with self.at_iteration(ld, iv):
                window = g.lookup(ld.operand_named("memory"))
                dst = self.version(ld, ver)
                if not (g.async_copies and async_eligible(ld, layout_of(ld.result))):
                    run.add(SyncCopy(ld, window, dst))
                    continue
                run.flush()
                win = window_of(g, ld)
                plan = _async_plan(g, ld, win)
                if ld in self.tma:
                    assert bar is not None
                    got = self._tensor_copy(ld, window, dst, bar, plan, tma_plan(g, ld, win))
                    tx = got if tx is None else g.arith("add", tx, got)
                else:
                    self._cp_async_any(ld, window, dst, *plan)
        run.flush()
        if bar is not None:
            # thread 0 arrives with the bytes it issued (zero when every guard failed)
            g.guarded(self.thread0(),
                      lambda: g.atom("mbarrier.expect_tx", [bar, tx if tx is not None
                                                            else g.index(0)], [ir.token]))
        g.sync.restore(before)  # the protocol's barriers order the ring buffers' copies

    def _tensor_copy(self, ld: ir.Operation, window: ir.Value, dst: ir.Value, bar: ir.Value,
                     plan: Any, tplan: Any) -> ir.Value:
        """Thread 0's tensor copies of one staged load where its guard holds, else every
        thread's ``cp.async`` copies; returns the bytes thread 0 issued."""
        g = self.g
        tguard, issue_tma, nbytes = tplan
        g.guarded(tguard, lambda: g.guarded(self.thread0(), lambda: issue_tma(dst, bar)),
                  {"guard": "array extents legal for a tensor map (tma.load)"},
                  lambda: self._cp_async_any(ld, window, dst, *plan))
        return g.arith("select", tguard, g.index(nbytes), g.index(0))

    def thread0(self) -> ir.Value:
        """``tid == 0`` (``GroupLowering.thread0``)."""
        return self.g.thread0()

    def _cp_async_any(self, ld: ir.Operation, window: ir.Value, dst: ir.Value,
                      guard: ir.Value, interior: ir.Value,
                      chunks: Callable[[], list[tuple[int, int | None, ir.Value]]]) -> None:
        """``cp.async`` copies of one staged load: whole chunks for an interior window,
        guarded chunks on an edge, ordinary copies when the alignment guard fails."""
        g = self.g

        def edge() -> None:
            if nan_filled(ld):  # partial chunks would fill zeros, not the NaN outside
                copy_sync(g, [SyncCopy(ld, window, dst)])
                return
            g.guarded(guard, lambda: self._copy_async(ld, window, dst, chunks()),
                      {"guard": "16-byte aligned rows and column origin (cp.async)"},
                      lambda: copy_sync(g, [SyncCopy(ld, window, dst)]))

        # Interior windows (the common case) copy whole chunks with no per-chunk bounds
        # arithmetic; windows on an edge keep the guarded copies.
        g.guarded(g.arith("and", guard, interior),
                  lambda: self._copy_async(ld, window, dst, _whole_chunks(g, ld)),
                  {"guard": "aligned window inside the array (whole cp.async chunks)"}, edge)

    def _copy_async(self, ld: ir.Operation, window: ir.Value, dst: ir.Value,
                    chunks: list[tuple[int, int | None, ir.Value]]) -> None:
        g = self.g
        lay = layout_of(ld.result)
        v = lay.param("v") or 1
        for start, limit, valid in chunks:
            def copy(start: int = start, valid: ir.Value = valid) -> None:
                d = g.thread_view(dst, lay, start, v)
                s = g.thread_view(window, lay, start, v, bounded=True)
                g.atom("cp.async.16", [d, s, valid], [ir.token])

            if limit is None:
                copy()
            else:
                g.guarded(g.arith("lt", g.tid, g.index(limit)), copy)


def swizzled_map(rows: int, cols: int, block: int = 64) -> ir.IndexMap:
    """The canonical layout of a ``rows x cols`` warpgroup operand whose contiguous axis is
    ``cols`` (K for A, N for B): column blocks of ``block`` elements (128 bytes:
    ``swizzle_cols``, 64 of a 16-bit type, 32 of f32), each a ``rows x block`` row-major
    block: ``(r, c) -> (c div block) * rows * block + r * block + c mod block``. The
    buffer's 128-byte swizzle then permutes the 16-byte chunks of every row."""
    if cols % block:
        raise LoweringBug(f"internal: a swizzled warpgroup operand needs whole {block}-element "
                          f"column blocks, not {cols} columns (the planner's wgmma rule)")
    r, c = ir.d(0), ir.d(1)
    if cols == block:
        return ir.IndexMap(2, [r * block + c])
    return ir.IndexMap(2, [c.floordiv(block) * (rows * block) + r * block + c.mod(block)])


def address_cone(ld: ir.Operation, stage: ir.Block) -> list[ir.Operation]:
    """The operations of ``stage`` the load's address depends on, in block order."""
    need: set[ir.Operation] = set()
    stack = [ld.operand_named("memory")]
    while stack:
        v = stack.pop()
        d = v.defining_op
        if d is None or d.parent is not stage or d in need:
            continue
        need.add(d)
        stack.extend(d.operands)
    return [op for op in stage.operations if op in need]


def _chunk_slots(g: GroupLowering, lay: Any) -> list[tuple[int, int | None]]:
    """Per 16-byte chunk a thread copies: (first register, thread limit or None)."""
    v = lay.param("v") or 1
    chunks_total = lay.size // v
    out: list[tuple[int, int | None]] = []
    for s in range(lay.regs[0]):
        first = s * g.threads
        if first >= chunks_total:
            break
        out.append((s * v, None if first + g.threads <= chunks_total
                    else chunks_total - first))
    return out


def _whole_chunks(g: GroupLowering, ld: ir.Operation) -> list[tuple[int, int | None, ir.Value]]:
    """Per 16-byte chunk of a thread: (first register, thread limit or None, 16 bytes)."""
    full = g.index(16)
    return [(reg, limit, full) for reg, limit in _chunk_slots(g, layout_of(ld.result))]


@dataclass
class _Window:
    """A plain window's values in one issue (built once, read by both copy engines)."""

    array: ir.Value
    """The kernel parameter's array."""
    axes: list[int]
    """The array axes of the window's rows and columns."""
    origin: list[ir.Value]
    """Per array axis, the window's first coordinate."""
    extents: list[ir.Value]
    """Per array axis, the array's extent."""


def window_of(g: GroupLowering, ld: ir.Operation) -> _Window:
    """The values of a plain window (``plain_window`` holds)."""
    got = plain_window(ld)
    assert got is not None
    return window_from(g, *got)


def window_from(g: GroupLowering, view: ir.Operation, axes: list[int]) -> _Window:
    """The values of the plain window ``view`` of a kernel parameter whose rows and columns
    are array axes ``axes`` (``staged_windows.plain_window``, ``store_window``)."""
    base = view.operand(0)
    m: ir.IndexMap = view.attr("map")
    syms = [g.scalar(x) for x in view.operands[1:]]
    extents = [g.extent(d) for d in base.type.shape]
    origin = [g.affine(e - ir.d(axes.index(a)) if a in axes else e, [], syms)
              for a, e in enumerate(m.results)]
    return _Window(g.scalar(base), axes, origin, extents)


def _async_plan(g: GroupLowering, ld: ir.Operation, win: _Window
                ) -> tuple[ir.Value, ir.Value,
                           Callable[[], list[tuple[int, int | None, ir.Value]]]]:
    """The alignment guard, the interior predicate (the whole window lies inside the
    array), and a builder of, per 16-byte chunk of a thread, (first register, thread limit
    or None, valid bytes) of a load ``async_eligible`` accepts."""
    lay = layout_of(ld.result)
    esize = ld.result.type.dtype.bytes
    v = lay.param("v") or 1
    axes = win.axes
    extents = [win.extents[a] for a in axes]
    off = [win.origin[a] for a in axes]
    c0 = g.index(0)
    vv = g.index(v)
    guard = g.arith("and", g.arith("eq", g.arith("rem", extents[1], vv), c0),
                    g.arith("and", g.arith("eq", g.arith("rem", off[1], vv), c0),
                            g.arith("ge", off[1], c0)))
    for a, (o, ext) in enumerate(zip(win.origin, win.extents)):
        if a not in axes:  # a unit axis (a batch index) outside the array: copied as fill
            guard = g.arith("and", guard, g.arith("and", g.arith("ge", o, c0),
                                                  g.arith("lt", o, ext)))
    rows, cols = (int(e) for e in ld.result.type.shape)
    interior = g.arith("and", g.arith("and", g.arith("ge", off[0], c0),
                                      g.arith("le", g.arith("add", off[0], g.index(rows)),
                                              extents[0])),
                       g.arith("le", g.arith("add", off[1], g.index(cols)), extents[1]))
    return guard, interior, lambda: _edge_chunks(g, lay, v, esize, off, extents)


def tma_guard(g: GroupLowering, dt: ir.ScalarType, extents: list[ir.Value],
              column: ir.Value | None = None) -> ir.Value:
    """The in-kernel guard that an array of ``dt`` with ``extents`` has a legal tensor map:
    every extent positive and below 2^31, rows of whole 16-byte units (the launch builds
    the map under the same rule); with ``column``, also that a box whose innermost
    coordinate is ``column`` starts on a ``TMA_ALIGN``-byte boundary (the GPU faults on
    one that does not)."""
    c0 = g.index(0)
    unit = g.index(TMA_ALIGN // dt.bytes)
    guard = g.arith("eq", g.arith("rem", extents[-1], unit), c0)
    if column is not None:
        guard = g.arith("and", guard, g.arith("eq", g.arith("rem", column, unit), c0))
    for ext in extents:
        guard = g.arith("and", guard, g.arith("and", g.arith("gt", ext, c0),
                                              g.arith("lt", ext, g.index(2**31))))
    return guard


def array_extents(g: GroupLowering, ld: ir.Operation) -> list[ir.Value]:
    """The extents of the kernel parameter a plain staged window reads (function-level
    values: available before the loop)."""
    got = plain_window(ld)
    assert got is not None
    return [g.extent(d) for d in got[0].operand(0).type.shape]


def tma_plan(g: GroupLowering, ld: ir.Operation, win: _Window, with_guard: bool = True
             ) -> tuple[Any, Callable[[ir.Value, ir.Value], None], int]:
    """For a tensor-copy load: the in-kernel guard that its array has a legal tensor map
    and that its box starts on a ``TMA_ALIGN``-byte boundary where that is not proved
    (``tma_guard``; None without ``with_guard``: the caller checked it), the issue of its
    boxes into a destination version with a barrier, and the bytes they deliver."""
    dt = ld.result.type.dtype
    view = plain_window(ld)
    assert view is not None
    column = None if column_origin_aligned(view[0], dt) else win.origin[-1]
    if column is not None and not with_guard:
        raise LoweringBug(f"internal: the tensor copies of the load at {ld.loc} are issued "
                          "unguarded, but its column origin is not proved aligned (the "
                          "schedule's ring rule)")
    guard = tma_guard(g, dt, win.extents, column) if with_guard else None
    rows, cols = (int(e) for e in ld.result.type.shape)
    oob = {"oob": "nan"} if nan_filled(ld) else {}
    rows_at, cols_at = win.axes
    width = swizzle_cols(dt)  # one 128-byte box row
    box = tuple(rows if a == rows_at else width if a == cols_at else 1
                for a in range(len(win.extents)))

    def issue(dst: ir.Value, bar: ir.Value,
              multicast: tuple[int, ir.Value] | None = None) -> None:
        """The boxes into ``dst`` completing on ``bar``; ``multicast = (n, rank)``: only the
        boxes ``b`` with ``b mod n == rank``, each into every group of the cluster."""
        for blk in range(cols // width):
            part = g.view(dst, [], ir.IndexMap(2, [ir.d(0), ir.d(1) + blk * width]),
                          (rows, width), False)
            coords = list(win.origin)
            if blk:
                coords[cols_at] = g.arith("add", win.origin[cols_at], g.index(blk * width))
            if multicast is None:
                g.atom("tma.load", [part, win.array, bar, *coords], [ir.token], box=box,
                       swizzle=SWIZZLE_BYTES, **oob)
                continue
            n, rank = multicast
            g.guarded(g.arith("eq", rank, g.index(blk % n)),
                      lambda part=part, coords=coords, n=n: g.atom(
                          "tma.load", [part, win.array, bar, *coords], [ir.token], box=box,
                          swizzle=SWIZZLE_BYTES, multicast=n, **oob))

    return guard, issue, rows * cols * dt.bytes


def _edge_chunks(g: GroupLowering, lay: Any, v: int, esize: int, off: list[ir.Value],
                 extents: list[ir.Value]) -> list[tuple[int, int | None, ir.Value]]:
    """Per 16-byte chunk of a thread: (first register, thread limit or None, the valid
    bytes of a window that may cross the array's edge)."""
    c0 = g.index(0)
    vv = g.index(v)
    out = []
    for reg, limit in _chunk_slots(g, lay):
        coords = [e.substitute([ir.d(0), ir.const(reg)]) for e in lay.map.results]
        c = [g.affine(e, [g.tid]) for e in coords]
        glob = [g.arith("add", ci, oi) for ci, oi in zip(c, off)]
        left = g.arith("sub", extents[1], glob[1])
        count = g.arith("max", g.arith("min", left, vv), c0)
        row_ok = g.arith("and", g.arith("ge", glob[0], c0), g.arith("lt", glob[0], extents[0]))
        count = g.arith("select", row_ok, count, c0)
        out.append((reg, limit, g.arith("mul", count, g.index(esize))))
    return out

