"""The SIMT simulator's data-dependent accesses: ``load_scalar``, ``gather``, ``scatter``.

Machine ``load_scalar`` reads a rank-0 view in every active thread; ``gather`` and
``scatter`` address register ``i`` of a thread's part at the tile coordinates
``map(i, tid)`` (registers outside ``shape`` are masked, not accessed) with the
coordinate along ``axis`` replaced by the register's index (``lower.machine_indexed``).
An element is accessed only where those coordinates lie inside the view and every view
on the way: ``total`` views bound a data-dependent address like ``bounded`` ones (as
the reference interpreter's ``MemRef.locate_at`` does). Reads and writes go through
the race detector and the cp.async model like every other access.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.targets import numerics as nx

from .simt_memory import LaneView, lane_broadcast, lane_coords, read_at, write_at

__all__ = ["load_scalar", "gather_op", "scatter_op"]


def _locate_at(view: LaneView, coords: Sequence[np.ndarray], active: np.ndarray,
               mask: np.ndarray | None = None) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """Storage coordinates of view coordinates ``coords`` (arrays ``(T, *shape)``; with no
    axis, ``shape`` is ``()``) and the mask of elements to access."""
    lanes = active.shape[0]
    shape = tuple(np.shape(coords[0])) if coords else (lanes,)
    extra = len(shape) - 1
    ok = np.broadcast_to(active.reshape((lanes,) + (1,) * extra), shape).copy()
    if mask is not None:
        ok &= mask
    for c, e in zip(coords, view.shape):
        ok &= (c >= 0) & (c < e)
    for g in view.guards:
        syms = [lane_broadcast(s, extra) for s in g.syms]
        for c, e in zip(g.map.apply(list(coords), syms), g.extents):
            ok &= (np.asarray(c) >= 0) & (np.asarray(c) < e)
    if view.map is None:
        root = tuple(np.broadcast_to(np.asarray(c, np.int64), shape) for c in coords)
    else:
        syms = [lane_broadcast(s, extra) for s in view.syms]
        root = tuple(np.broadcast_to(np.asarray(c, np.int64), shape)
                     for c in view.map.apply(list(coords), syms))
    return root, ok


def _register_coords(op: ir.Operation, idx: np.ndarray, tid: Any, lanes: int
                     ) -> tuple[list[np.ndarray], np.ndarray]:
    """Memory coordinates ``(T, P)`` of each register and the mask of registers inside the
    tile (a masked distribution's others are not accessed)."""
    idx = np.asarray(idx)
    n = idx.shape[-1]
    coords = list(lane_coords(op.attr("map"), (n,), [tid], lanes))
    inside = np.ones((lanes, n), bool)
    for c, e in zip(coords, op.attr("shape")):
        inside &= (c >= 0) & (c < e)
    coords[op.attr("axis")] = np.broadcast_to(idx.astype(np.int64), (lanes, n))
    return coords, inside


def load_scalar(g: Any, op: ir.Operation, args: list[Any], active: np.ndarray
                ) -> Sequence[Any]:
    """Every active thread reads the one element of a rank-0 view (``fill`` if invalid)."""
    view = g.host.lane_view(args[0])
    dt = nx.np_dtype(op.result.type)
    root, ok = _locate_at(view, [], active)
    return [read_at(view, root, ok, op, nx.from_python(op.attr("fill"), dt), dt, g.copies)]


def gather_op(g: Any, op: ir.Operation, args: list[Any], active: np.ndarray
              ) -> Sequence[Any]:
    """Each register of each thread reads its own computed address."""
    view = g.host.lane_view(args[0])
    dt = nx.np_dtype(op.result.type.dtype)
    coords, inside = _register_coords(op, args[1], args[2], g.lanes)
    root, ok = _locate_at(view, coords, active, inside)
    return [read_at(view, root, ok, op, nx.from_python(op.attr("fill"), dt), dt, g.copies)]


def scatter_op(g: Any, op: ir.Operation, args: list[Any], active: np.ndarray
               ) -> Sequence[Any]:
    """Each register writes (or atomically combines) its value at its computed address;
    one thread's registers apply in order, several threads on one element of shared memory
    without ``kind`` are a race."""
    view = g.host.lane_view(args[0])
    coords, inside = _register_coords(op, args[1], args[3], g.lanes)
    root, ok = _locate_at(view, coords, active, inside)
    write_at(view, root, ok, op, np.asarray(args[2]), op.attr("kind"), g.copies)
    return []
