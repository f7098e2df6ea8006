"""The SIMT simulator's affine memory operations: ``memory``, ``view``, ``load``, ``store``,
``atomic`` in the lane-level body.

Each runs for every active thread at once through ``simt_memory``'s model (lane views,
storage, the race detectors and the cp.async model); ``simt.py`` registers them as
lane operations beside ``simt_indexed``'s data-dependent accesses. Shared memory is
allocated at group level (``simt._Host``), so a ``memory`` here is a thread's own
``local`` or ``fragment`` storage. They are separate from ``simt.py``, which runs the
grid, the groups and the lane-level control flow, because they only forward to the
memory model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

import tilec.ir as ir
from tilec.targets import numerics as nx

from .errors import SimulationError, describe_op
from .interpreter import poison_value
from .simt_memory import LaneView, Storage, atomic_update, gather, scatter, value_name

if TYPE_CHECKING:
    from .simt import LaneRunner

__all__ = ["memory_op", "view_op", "load_op", "store_op", "atomic_op"]


def _dtype(t: ir.Type) -> np.dtype:
    return nx.np_dtype(t.dtype if isinstance(t, (ir.TileType, ir.MemoryType)) else t)


def memory_op(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
              ) -> Sequence[Any]:
    """A per-thread ``local``/``fragment`` allocation, poisoned (shared memory is the group's)."""
    t = op.result.type
    if t.space not in ("local", "fragment"):
        raise SimulationError(f"{describe_op(op)}: memory in space {t.space!r} inside the "
                              "lane-level body (shared memory is allocated at group level)",
                              "unsupported", [op])
    st = Storage.local(g.host.shape_of(t), _dtype(t), g.lanes, value_name(op.result), op)
    return [LaneView.of(st)]


def view_op(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
            ) -> Sequence[Any]:
    """A window of a per-thread view (its symbols are per-thread arrays)."""
    base: LaneView = args[0]
    total = op.attr("bounds", "total") == "total"
    return [base.view(op.attr("map"), tuple(args[1:]), g.host.shape_of(op.result.type), total,
                      op)]


def load_op(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
            ) -> Sequence[Any]:
    """Every active thread reads its window (``fill``, else poison, where it is invalid)."""
    dt = _dtype(op.result.type)
    fill = op.attr("fill")
    value = poison_value(dt) if fill is None else nx.from_python(fill, dt)
    return [gather(args[0], active, op, value, dt, g.copies)]


def store_op(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
             ) -> Sequence[Any]:
    """Every active thread writes its tile through its window."""
    scatter(args[0], active, op, np.asarray(args[1]), g.copies)
    return []


def atomic_op(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
              ) -> Sequence[Any]:
    """Every active thread combines its tile into memory; ``xchg``/``cas`` return the old
    tile."""
    kind = op.attr("kind")
    if kind not in ir.EXCHANGE_KINDS:
        atomic_update(args[0], active, op, np.asarray(args[1]), kind, g.copies)
        return []
    dt = _dtype(op.result.type)
    fill = op.attr("fill")
    value = poison_value(dt) if fill is None else nx.from_python(fill, dt)
    compare = np.asarray(args[2]) if kind == "cas" else None
    return [atomic_update(args[0], active, op, np.asarray(args[1]), kind, g.copies, compare,
                          value)]
