"""What a read leaving its tile reports: the ``CheckInfo`` of every path's index failure.

Which reads need a test, and how a failure is worded, is the IR analysis
``tilec.ir.index_bounds``; this module turns its descriptions into the reports
the targets raise and the host decodes.
"""

from __future__ import annotations

import tilec.ir as ir
from tilec.ir.index_bounds import TOTAL_VIEW_MESSAGE, AxisBound, describe

from .kernel_checks import CheckInfo

__all__ = ["index_report", "total_view_report", "bound_report"]


def index_report(op: ir.Operation, axis: int, span: int | None, extent: ir.Dim | int,
                 index: bool) -> CheckInfo:
    """What a read of ``op`` leaving ``axis`` reports: a ``check {kind = "index"}`` at the
    operation's location whose one value (an ``index``) is the smallest coordinate read."""
    message, label = describe(axis, span, extent, index)
    return CheckInfo(ir.op_number(op), op.loc, message, (label,), (ir.index,), "index")


def bound_report(op: ir.Operation, bound: AxisBound) -> CheckInfo:
    """What ``reindex`` ``op`` reports when ``bound``'s test fails (the value: the first
    coordinate read)."""
    return index_report(op, bound.axis, bound.hi - bound.lo + 1, bound.extent, bound.index)


def total_view_report(view: ir.Operation) -> CheckInfo:
    """What an access leaving ``view`` (declared ``bounds = "total"``) reports, at the view."""
    return CheckInfo(ir.op_number(view), view.loc, TOTAL_VIEW_MESSAGE, (), (), "index")
