"""Which A and B operands an MPP ``matmul2d`` may read as device tensors (docs/design/metal.md,
"Direct operands").

A forwarded MPP operation (``PlannerOptions.forward_snapshots`` and the snapshot forwarding
proof, ``plan/proofs/snapshot_forwarding.py``) reads A and B where they are: each is passed
as ``tensor<device T, dextents<int32_t, 2>, tensor_inline>`` over the load's window, with
the window's actual extents. The proof says that reading the window in place is
indistinguishable from the snapshot; the descriptor's tensor rules add what an inline
tensor can express, checked here on the program before anything is lowered:

* **a plain window**: the load reads a ``view`` of a kernel buffer whose map sends each view
  axis to one buffer axis with a unit step (``A.tile(origin, shape)``), so the tensor is
  the buffer's pointer at the origin with the buffer's strides, and a bounded window's
  valid elements are one rectangle whose extents are ``min(nominal, extent - origin)``;
* **a positive-zero fill** (or none): elements outside the extents contribute zero
  products, which is what the descriptor's bounded tensors give (seed 000, "Positive actual
  M/N use MPP's bounded inline tensors"); a nonzero or negative-zero fill keeps staging.

Whatever fails keeps the staged realization, and the schedule's notes say why.
"""

from __future__ import annotations

import math

import tilec.ir as ir
from tilec.ir.index_bounds import unit_projection

__all__ = ["direct_operand_refusal"]


def direct_operand_refusal(load: ir.Operation) -> str | None:
    """Why the window of ``load`` (an MPP operand's snapshot) cannot be read as a device
    tensor, or None when it can (module docstring)."""
    fill = load.attr("fill")
    if fill is not None and (not isinstance(fill, float) or fill != 0.0
                             or math.copysign(1.0, fill) < 0):
        return (f"its load's fill is {fill!r}; a bounded device tensor reads +0.0 outside its "
                "extents")
    view = load.operand(0).defining_op
    if view is None or view.name != "view" or view.operand(0).defining_op is not None:
        return "its load does not read a window of a kernel buffer (A.tile(...))"
    src = view.operand(0).type
    if not isinstance(src, ir.MemoryType) or src.rank != 2 or load.result.type.rank != 2:
        return "its window is not a 2-D window of a 2-D buffer"
    if src.dtype is not ir.f32:
        return f"its buffer holds {src.dtype}; the MPP atoms read f32 tensors"
    if unit_projection(view.attr("map")) is None:
        return ("its window's map is not a unit-step projection of the buffer's axes "
                "(an inline tensor is a pointer, extents and strides)")
    return None
