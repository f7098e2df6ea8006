"""How the verifier shows a broken invariant: the function reprinted around the operation.

``to_error`` turns one issue of a verifier run into the ``VerificationError`` raised
to the user: the enclosing function is printed (once per function, by the run's
context), ``_CONTEXT_LINES`` lines are kept on each side of the offending operation's
first line, and that line is underlined. It is separate from ``verifier.py`` because
it only presents what the checks found; nothing here decides whether IR is valid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .core import Operation
from .diagnostics import VerificationError
from .printer import print_op

if TYPE_CHECKING:
    from .verifier import _Context, _Issue

__all__ = ["to_error"]

_CONTEXT_LINES = 3
"""Printed lines kept before and after the offending operation."""


def _op_head(op: Operation) -> str:
    """The op's first printed line, printed alone (its regions are not walked: they may loop)."""
    if op.regions:
        return f"{op.name}#{op.id} (with {len(op.regions)} region(s))"
    try:
        return print_op(op)
    except Exception:
        return f"{op.name}#{op.id}"


def _render(ctx: _Context, issue: _Issue) -> str:
    """The function around the issue's operation, with that operation's first line underlined."""
    op = issue.op
    fn = issue.function or (ctx.fn_of.get(op) if op is not None else None)
    p = ctx.printer(fn) if fn is not None else None
    target: int | None = None
    if p is not None:
        target = p.op_lines.get(op.id) if op is not None else 0
    if fn is None or p is None or target is None:
        if op is None and fn is None:
            return ""
        head = _op_head(op) if op is not None else f"func @{fn.name}"  # type: ignore[union-attr]
        return f"  {head}\n  {'^' * len(head)}"
    lines = p.lines
    lo = max(0, target - _CONTEXT_LINES)
    hi = min(len(lines), target + _CONTEXT_LINES + 1)
    width = len(str(hi))
    out = [f"{' ' * width}--> @{fn.name}"]
    if lo > 0:
        out.append(f"{' ' * width} | ...")
    for i in range(lo, hi):
        out.append(f"{i + 1:>{width}} | {lines[i]}")
        if i == target:
            text = lines[i].rstrip()
            indent = len(text) - len(text.lstrip())
            out.append(f"{' ' * width} | {' ' * indent}{'^' * (len(text) - indent)}")
    if hi < len(lines):
        out.append(f"{' ' * width} | ...")
    return "\n".join(out)


def to_error(ctx: _Context, issue: _Issue) -> VerificationError:
    """The located ``VerificationError`` of ``issue`` (without context if rendering fails)."""
    try:
        context = _render(ctx, issue)
    except Exception:
        context = ""
    return VerificationError(issue.message, issue.invariant, issue.op, context)
