"""The IR's error hierarchy and the rendering of located diagnostics.

Every error a user can meet carries a message that names the problem and,
where one exists, a location; verifier errors also reprint the IR around the
offending operation with that operation underlined.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .location import Location, caret_snippet

if TYPE_CHECKING:
    from .core import Operation

__all__ = ["TileIRError", "VerificationError", "ParseError", "UserError", "ArgumentError",
           "PerformanceWarning", "format_located"]


class PerformanceWarning(UserWarning):
    """A program that compiles and runs correctly, but through a realization far slower than
    the one its target was planned for (the message names the operation, its location, why
    and what would avoid it)."""


class UserError(Exception):
    """Marker base of errors about the user's program, arguments or machine.

    Anything else escaping a public entry point (``tc.compile``, calling a kernel,
    ``tc.interpret``, ``tc.simulate``) is a compiler bug. The entry points re-raise a
    ``UserError`` with the compiler's own frames cut from its traceback, so the user sees
    their call and the message, never tilec's internals.
    """

    __module__ = "tilec"  # tracebacks name the public class


class ArgumentError(UserError, TypeError, ValueError):
    """A call's argument does not fit the kernel (count, type, rank, extents, layout, aliasing).

    A ``TypeError`` and a ``ValueError`` both, so callers written for either keep working;
    the message names the argument."""

    __module__ = "tilec"


class TileIRError(Exception):
    """Base of TileIR diagnostics."""


class VerificationError(TileIRError):
    """The IR breaks an invariant.

    The message names the invariant and reprints the IR around ``op`` with the
    operation underlined.
    """

    def __init__(self, message: str, invariant: str, op: Operation | None = None,
                 context: str = "") -> None:
        self.invariant = invariant
        """The invariant that failed: a seed-001 number (``"9"``) or a structural name."""
        self.op = op
        """The offending operation, when there is one."""
        self.context = context
        """The rendered IR excerpt with the underline."""
        self.reason = message
        """The bare message, without the excerpt."""
        text = f"invariant {invariant}: {message}"
        if op is not None and op.loc.known:
            text += f"\n  at {op.loc}"
        if context:
            text += "\n" + context
        super().__init__(text)


class ParseError(TileIRError):
    """Malformed IR text, with a 1-based line and column and a caret line."""

    def __init__(self, message: str, line: int, col: int, source_line: str = "") -> None:
        self.line = line
        """1-based line of the problem."""
        self.col = col
        """1-based column of the problem."""
        self.reason = message
        """The bare message."""
        text = f"{line}:{col}: {message}"
        if source_line:
            text += f"\n{source_line}\n{' ' * (col - 1)}^"
        super().__init__(text)


def format_located(message: str, loc: Location, kind: str = "error") -> str:
    """``file:line:col: kind: message`` followed by the caret snippet when available."""
    head = f"{loc}: {kind}: {message}" if loc.known else f"{kind}: {message}"
    snippet = caret_snippet(loc)
    return head + ("\n" + snippet if snippet else "")
