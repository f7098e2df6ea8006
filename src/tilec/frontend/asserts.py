"""Capture of ``assert``: checked while compiling, or a runtime ``check`` operation.

Mixed into ``Capture`` (``capture.py``), whose state and helpers it uses. A
compile-time condition is checked on the spot, as before. A runtime scalar
condition becomes ``check(cond, values...) {message, labels}``
(``docs/design/tileir.md``, "Runtime checks"): while the condition is
captured, ``Capture.visit_Compare`` hands every compared value to
``_report``, so the check can say ``K = 50, B.shape[0] = 40`` when it fails.
"""

from __future__ import annotations

import ast
from typing import Any

import tilec.ir as ir

from . import tiles
from .values import ScalarVal, describe, is_number

__all__ = ["AssertCapture"]


class AssertCapture:
    """``visit_Assert`` and the value reporting it needs (a ``Capture`` mixin)."""

    reported: list[tuple[str, Any]] | None
    """While an ``assert``'s condition is captured: each compared value with its source."""

    def visit_Assert(self, node: ast.Assert) -> None:
        """``assert`` on compile-time values is checked while compiling; on a runtime scalar it
        becomes a ``check`` that reports the compared values (tileir.md, "Runtime checks")."""
        block = self.builder.ip.block
        last = block.operations.last
        saved, self.reported = self.reported, []
        try:
            test = self.visit(node.test)
            reported = self.reported
        finally:
            self.reported = saved
        # The condition's comparisons print as %ok, %ok_1 ... (and number nothing else).
        op = last.next_op if last is not None else block.operations.first
        while op is not None:
            for r in op.results:
                if r.type is ir.i1 and r.name_hint is None:
                    r.name_hint = "ok"
            op = op.next_op
        if is_number(test) or test is None or isinstance(test, (str, tuple)):
            if not test:
                msg = self.visit(node.msg) if node.msg is not None else "assertion failed"
                raise self.error(node, f"static assertion failed: {msg}")
            return
        if not isinstance(test, ScalarVal):
            raise self.error(node.test, f"assert needs a scalar condition (on shapes, scalar "
                             f"arguments, indices) or a compile-time one, got {describe(test)}; "
                             f"tiles cannot be asserted")
        if self.pure:
            raise self.error(node, "a runtime assert cannot sit in a reduction update (it must "
                             "be pure); assert before or after the reduction")
        cond = test
        if cond.dtype is not ir.i1:
            if cond.dtype.is_float:
                raise self.error(node.test, f"assert needs a boolean or integer condition, got "
                                 f"{describe(test)}")
            cond = tiles.binary(self, node.test, "ne", cond, 0)
        if node.msg is None:
            message = ast.unparse(node.test)
        else:
            msg = self.visit(node.msg)
            if not (is_number(msg) or isinstance(msg, str)):
                raise self.error(node.msg, f"the message of an assert must be a compile-time "
                                 f"string, got {describe(msg)}")
            message = str(msg)
        labels: list[str] = []
        values: list[ir.Value] = []
        for label, v in reported:
            if label in labels:
                continue
            if isinstance(v, ScalarVal):
                values.append(v.value)
            elif isinstance(v, bool):
                values.append(self.const(v, ir.i1))
            elif isinstance(v, int):
                values.append(self.const(v, ir.index))
            elif isinstance(v, float):
                values.append(self.const(v, ir.f64))
            else:
                continue
            labels.append(label)
        self.builder.create("check", [cond.value, *values], [],
                            {"message": message, "labels": tuple(labels)}, loc=self.loc(node))

    def _report(self, node: ast.expr, value: Any) -> None:
        """Remember a compared value of the assert being captured (literals say nothing)."""
        if self.reported is None or isinstance(node, ast.Constant):
            return
        if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
            return
        if isinstance(value, ScalarVal) or is_number(value):
            self.reported.append((ast.unparse(node), value))
