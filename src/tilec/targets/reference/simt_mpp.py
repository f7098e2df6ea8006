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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.targets import numerics as nx

from .errors import SimulationError
from .simt_atoms import WARP, AtomContext, _warps, atom_impl
from .simt_memory import LaneView, gather, scatter

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
    writer = np.zeros(ctx.lanes, bool)
    writer[[lanes[0] for lanes in scopes]] = True
    f32 = np.dtype(np.float32)
    a, b, c = (gather(v, writer, op, np.float32(0), f32, ctx.copies) for v in (a_v, b_v, c_v))
    values = np.zeros((ctx.lanes, m, n), np.float32)
    for lanes in scopes:
        first = lanes[0]
        values[first] = np.asarray(nx.matmul(a[first], b[first], c[first], "exact"), np.float32)
    scatter(c_v, writer, op, values, ctx.copies)
    return []
