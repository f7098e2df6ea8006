"""The SIMT simulator's MPP ``matmul2d`` tensor operation (``mpp.matmul2d``,
docs/design/metal.md).

One operation computes ``C += A @ B`` over three views in memory that name the same
elements on every lane of its scope (C in group memory; A and B staged there, or, for a
direct operation, windows of kernel buffers read as device tensors, whose elements outside
the windows' bounds read +0.0 as a bounded tensor's do): a SIMD-group (``scope =
"subgroup"``: each issues its own) or the whole group (``scope = "group"``: all
``subgroups`` SIMD-groups together, one operation). The simulator checks what the MPP
headers require of a call (every thread of the scope enters it, the views are uniform
across the scope, the staged elements lie inside their views, f32 operands) and computes
the product in the reference interpreter's strict order (one allowed order: the operation's
is unspecified). Its cooperative destination tensor never leaves the operation, so no lane
layout of it is modelled.

A *resident* destination (``mpp.dest.load`` / ``mpp.run`` / ``mpp.dest.store``: the
accumulator kept in the cooperative tensor across a K loop) is a ``tile<cap x f32>`` per
lane. Its element assignment is implementation-defined, so each launch draws a random one
per destination shape and scope size (``destination_slots``): slot ``i`` of the scope's
lane ``l`` holds element ``p[l * cap + i]`` of the row-major ``m x n`` block, or nothing
(NaN) when that is past the block. A program that read the registers through any fixed
layout would get wrong values. ``TILEC_SIMDGROUP_LAYOUT_SEED`` fixes the draw too.
``mpp.dest.capacity`` and ``mpp.dest.element`` (an epilogue on the destination's elements)
answer from the same draw: slot ``i`` of a lane holds the element the draw put there, with
its row and column, so an epilogue that used any other coordinates would store wrong
elements.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.targets import numerics as nx

from .errors import SimulationError
from .simt_atoms import WARP, AtomContext, _warps, atom_impl
from .simt_memory import LaneView, gather, scatter
from .simt_simdgroup import SEED_VARIABLE

__all__: list[str] = []


def _uniform(op: ir.Operation, view: Any, role: str, shape: tuple[int, int],
             active: np.ndarray, lanes: np.ndarray) -> tuple[np.ndarray, ...]:
    """Checks ``view`` (``shape``, the same elements on every lane of ``lanes``, all inside
    their view) and returns the storage coordinates of the first lane."""
    if not isinstance(view, LaneView) or view.shape != shape:
        got = view.shape if isinstance(view, LaneView) else type(view).__name__
        raise SimulationError(f"mpp.matmul2d: operand {role} must be a {shape} view, got {got}",
                              "unsupported", [op])
    if view.storage.array.dtype != np.float32:
        raise SimulationError(f"mpp.matmul2d reads f32 tensors; operand {role} holds "
                              f"{view.storage.array.dtype}", "unsupported", [op])
    coords, mask = view.locate(active, op)
    for c in coords:
        c = np.asarray(np.broadcast_to(c, mask.shape))[lanes]
        if not (c == c[0]).all():
            raise SimulationError(f"mpp.matmul2d: the lanes of one scope name different "
                                  f"{role} tensors (the views must be uniform across it)",
                                  "unsupported", [op])
    if view.storage.space == "global" and role != "C":
        return coords  # a bounded device tensor: elements outside its extents read +0.0
    if not mask[lanes].all():
        raise SimulationError(f"mpp.matmul2d: operand {role} lies partly outside its view "
                              "(the staged tensors have no bounds)", "out_of_range", [op])
    return coords


@atom_impl("mpp.matmul2d")
def _matmul2d(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
              ) -> Sequence[Any]:
    m, n, k = (int(op.attr(x)) for x in "mnk")
    scope = op.attr("scope")
    warps = _warps(ctx, op, active)
    if scope == "group":
        want = int(op.attr("subgroups"))
        if len(warps) != want or ctx.lanes != want * WARP:
            raise SimulationError(f"mpp.matmul2d of group scope needs all {want} SIMD-groups "
                                  f"of the group; {len(warps)} of {ctx.lanes // WARP} enter it",
                                  "unsupported", [op])
        scopes = [np.arange(ctx.lanes)]
    elif scope == "subgroup":
        scopes = [np.arange(w * WARP, (w + 1) * WARP) for w in warps]
    else:
        raise SimulationError(f"mpp.matmul2d: unknown scope {scope!r}", "unsupported", [op])
    a_v, b_v, c_v = args
    for role, v, shape in (("A", a_v, (m, k)), ("B", b_v, (k, n)), ("C", c_v, (m, n))):
        for lanes in scopes:
            _uniform(op, v, role, shape, active, lanes)
    # the scope reads and writes each element once, as one operation: its first lane
    # carries the tensors (so the race detector sees one access per element, not a race
    # between the lanes of one collective call)
    writer = _leaders(ctx, scopes)
    f32 = np.dtype(np.float32)
    a, b, c = (gather(v, writer, op, np.float32(0), f32, ctx.copies) for v in (a_v, b_v, c_v))
    values = np.zeros((ctx.lanes, m, n), np.float32)
    for lanes in scopes:
        first = lanes[0]
        values[first] = np.asarray(nx.matmul(a[first], b[first], c[first], "exact"), np.float32)
    scatter(c_v, writer, op, values, ctx.copies)
    return []


def _leaders(ctx: AtomContext, scopes: list[np.ndarray]) -> np.ndarray:
    """The lane mask of each scope's first lane (the one that reads or writes memory for
    the scope)."""
    mask = np.zeros(ctx.lanes, bool)
    mask[[lanes[0] for lanes in scopes]] = True
    return mask


def _scopes(ctx: AtomContext, op: ir.Operation, active: np.ndarray) -> list[np.ndarray]:
    """The lanes of each scope that issues ``op`` (every thread of a scope must enter it)."""
    cid = op.attr("catalog_id")
    warps = _warps(ctx, op, active)
    scope = op.attr("scope")
    if scope == "group":
        want = int(op.attr("subgroups"))
        if len(warps) != want or ctx.lanes != want * WARP:
            raise SimulationError(f"{cid} of group scope needs all {want} SIMD-groups of the "
                                  f"group; {len(warps)} of {ctx.lanes // WARP} enter it",
                                  "unsupported", [op])
        return [np.arange(ctx.lanes)]
    if scope != "subgroup":
        raise SimulationError(f"{cid}: unknown scope {scope!r}", "unsupported", [op])
    return [np.arange(w * WARP, (w + 1) * WARP) for w in warps]


def destination_slots(ctx: AtomContext, m: int, n: int, lanes: int) -> np.ndarray:
    """This launch's assignment of an ``m x n`` destination to ``lanes`` lanes: ``lanes *
    cap`` slot numbers, each an element index (row-major) or ``-1`` (no element)."""
    host = getattr(ctx, "host", ctx)
    table = getattr(host, "_mpp_destination_slots", None)
    if table is None:
        table = host._mpp_destination_slots = {}
    key = (m, n, lanes)
    if key not in table:
        seed = os.environ.get(SEED_VARIABLE)
        rng = np.random.default_rng(int(seed) + m * 65536 + n * 256 + lanes if seed else None)
        cap = -(-m * n // lanes)
        perm = rng.permutation(lanes * cap)
        table[key] = np.where(perm < m * n, perm, -1)
    return table[key]


def _dest(op: ir.Operation, x: Any, lanes: int, cap: int) -> np.ndarray:
    x = np.asarray(x)
    if x.shape != (lanes, cap) or x.dtype != np.float32:
        raise SimulationError(f"{op.attr('catalog_id')}: the destination must be an f32 "
                              f"cooperative tensor of {cap} registers per lane, got {x.dtype} "
                              f"{x.shape[1:]}", "unsupported", [op])
    return x


def _cap(op: ir.Operation, scope_lanes: int) -> tuple[int, int, int]:
    m, n = int(op.attr("m")), int(op.attr("n"))
    return m, n, -(-m * n // scope_lanes)


def _assemble(slots: np.ndarray, regs: np.ndarray, m: int, n: int) -> np.ndarray:
    """A scope's ``m x n`` block from its lanes' registers."""
    flat = np.zeros(m * n, np.float32)
    live = slots >= 0
    flat[slots[live]] = regs.reshape(-1)[live]
    return flat.reshape(m, n)


def _spread(slots: np.ndarray, block: np.ndarray, lanes: int) -> np.ndarray:
    """An ``m x n`` block as its scope's registers (NaN in slots with no element)."""
    out = np.full(slots.shape, np.nan, np.float32)
    live = slots >= 0
    out[live] = block.reshape(-1)[slots[live]]
    return out.reshape(lanes, -1)


@atom_impl("mpp.dest.load")
def _dest_load(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
               ) -> Sequence[Any]:
    scopes = _scopes(ctx, op, active)
    m, n, cap = _cap(op, len(scopes[0]))
    view = args[0]
    for lanes in scopes:
        _uniform(op, view, "C", (m, n), active, lanes)
    writer = _leaders(ctx, scopes)
    c = gather(view, writer, op, np.float32(0), np.dtype(np.float32), ctx.copies)
    out = np.full((ctx.lanes, cap), np.nan, np.float32)
    for lanes in scopes:
        slots = destination_slots(ctx, m, n, len(lanes))
        out[lanes] = _spread(slots, np.asarray(c[lanes[0]], np.float32), len(lanes))
    return [out]


@atom_impl("mpp.run")
def _run(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
         ) -> Sequence[Any]:
    scopes = _scopes(ctx, op, active)
    m, n, cap = _cap(op, len(scopes[0]))
    k = int(op.attr("k"))
    a_v, b_v, d = args
    d = _dest(op, d, ctx.lanes, cap)
    for role, v, shape in (("A", a_v, (m, k)), ("B", b_v, (k, n))):
        for lanes in scopes:
            _uniform(op, v, role, shape, active, lanes)
    writer = _leaders(ctx, scopes)
    f32 = np.dtype(np.float32)
    a, b = (gather(v, writer, op, np.float32(0), f32, ctx.copies) for v in (a_v, b_v))
    out = d.copy()
    for lanes in scopes:
        slots = destination_slots(ctx, m, n, len(lanes))
        c = _assemble(slots, d[lanes], m, n)
        res = np.asarray(nx.matmul(a[lanes[0]], b[lanes[0]], c, "exact"), np.float32)
        out[lanes] = _spread(slots, res, len(lanes))
    return [out]


@atom_impl("mpp.dest.store")
def _dest_store(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
                ) -> Sequence[Any]:
    scopes = _scopes(ctx, op, active)
    m, n, cap = _cap(op, len(scopes[0]))
    view, d = args
    d = _dest(op, d, ctx.lanes, cap)
    for lanes in scopes:
        _uniform(op, view, "C", (m, n), active, lanes)
    writer = _leaders(ctx, scopes)
    values = np.zeros((ctx.lanes, m, n), np.float32)
    for lanes in scopes:
        values[lanes[0]] = _assemble(destination_slots(ctx, m, n, len(lanes)), d[lanes], m, n)
    scatter(view, writer, op, values, ctx.copies)
    return []


@atom_impl("mpp.dest.capacity")
def _dest_capacity(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
                   ) -> Sequence[Any]:
    scopes = _scopes(ctx, op, active)
    _, _, cap = _cap(op, len(scopes[0]))
    _dest(op, args[0], ctx.lanes, cap)
    return [np.full(ctx.lanes, cap, np.int64)]


@atom_impl("mpp.dest.element")
def _dest_element(ctx: AtomContext, op: ir.Operation, args: list[Any], active: np.ndarray
                  ) -> Sequence[Any]:
    """Slot ``i`` of each lane's share: the element this launch's assignment put there
    (``destination_slots``), its coordinates in the scope's block and its value."""
    scopes = _scopes(ctx, op, active)
    m, n, cap = _cap(op, len(scopes[0]))
    d = _dest(op, args[0], ctx.lanes, cap)
    i = np.asarray(np.broadcast_to(args[1], (ctx.lanes,)), np.int64)
    bad = active & ((i < 0) | (i >= cap))
    if bad.any():
        t = int(np.argmax(bad))
        raise SimulationError(f"mpp.dest.element: thread {t} reads slot {int(i[t])} of a "
                              f"destination of capacity {cap}", "out_of_range", [op])
    valid = np.zeros(ctx.lanes, bool)
    row = np.zeros(ctx.lanes, np.int64)
    col = np.zeros(ctx.lanes, np.int64)
    value = np.zeros((ctx.lanes, 1), np.float32)
    for lanes in scopes:
        slots = destination_slots(ctx, m, n, len(lanes)).reshape(len(lanes), cap)
        pos = np.arange(len(lanes))
        e = slots[pos, np.clip(i[lanes], 0, cap - 1)]
        live = e >= 0
        valid[lanes] = live
        row[lanes] = np.where(live, e // n, 0)
        col[lanes] = np.where(live, e % n, 0)
        value[lanes, 0] = np.where(live, d[lanes, np.clip(i[lanes], 0, cap - 1)], 0)
    return [valid, row, col, value]
