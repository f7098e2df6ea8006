"""User-facing capture errors: ``TileSyntaxError`` with a location and a caret snippet.

Capture raises these at the AST node that is wrong. The public entry points
(``tc.compile``, calling a kernel) re-raise them with the compiler's own frames
cut from the traceback, so what a user sees is their call site, the message
``file:line:col: error: ...`` and the offending source line underlined.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import tilec.ir as ir

__all__ = ["TileSyntaxError", "SourceInfo"]


@dataclass(frozen=True)
class SourceInfo:
    """Where a captured function's text came from, to map AST positions back to the file."""

    filename: str
    """The file that defines the function (``<unknown>`` for generated code)."""
    line_offset: int
    """Added to an AST line number to get the file's line number."""
    col_offset: int
    """Added to an AST column (the indentation ``textwrap.dedent`` removed)."""
    lines: tuple[str, ...]
    """The file's lines of the function, as parsed (before dedenting), for snippets."""

    def position(self, node: ast.AST) -> tuple[int, int, int | None]:
        """``(line, col, end_col)`` of ``node`` in the file (line 1-based, col 0-based)."""
        line = getattr(node, "lineno", 0)
        col = getattr(node, "col_offset", 0)
        end_line = getattr(node, "end_lineno", None)
        end_col = getattr(node, "end_col_offset", None)
        if end_line != line:
            end_col = None
        shift = self.col_offset
        return (line + self.line_offset, col + shift,
                end_col + shift if end_col is not None else None)

    def source_line(self, line: int) -> str:
        """The text of file line ``line`` (empty when outside the function)."""
        i = line - self.line_offset - 1
        if 0 <= i < len(self.lines):
            return self.lines[i].rstrip("\n")
        return ""


class TileSyntaxError(ir.UserError):
    """A kernel uses Python the DSL does not support, or uses the DSL wrongly.

    ``lineno`` / ``col_offset`` follow ``ast`` conventions (1-based line,
    0-based column); ``str()`` prints ``file:line:col`` with a 1-based column.
    """

    __module__ = "tilec"  # tracebacks name the public class, tilec.TileSyntaxError

    def __init__(self, message: str, filename: str = "<unknown>", lineno: int = 0,
                 col_offset: int = 0, end_col_offset: int | None = None,
                 source_line: str = "") -> None:
        self.message = message
        """The bare message, without location or snippet."""
        self.filename = filename
        """File of the offending code."""
        self.lineno = lineno
        """1-based line of the offending code (0 when unknown)."""
        self.col_offset = col_offset
        """0-based column of the offending code."""
        self.end_col_offset = end_col_offset
        """0-based end column on the same line, when known."""
        self.source_line = source_line
        """The offending source line (empty when unavailable)."""
        super().__init__(self._render())

    def _render(self) -> str:
        if self.lineno <= 0:
            return f"error: {self.message}"
        head = f"{self.filename}:{self.lineno}:{self.col_offset + 1}: error: {self.message}"
        if not self.source_line:
            return head
        width = 1
        if self.end_col_offset is not None and self.end_col_offset > self.col_offset:
            width = self.end_col_offset - self.col_offset
        caret = " " * self.col_offset + "^" * width
        return f"{head}\n{self.source_line}\n{caret}"

    @classmethod
    def at(cls, node: ast.AST | None, message: str, src: SourceInfo | None) -> TileSyntaxError:
        """An error located at ``node`` of the function described by ``src``."""
        if node is None or src is None or not hasattr(node, "lineno"):
            return cls(message, src.filename if src else "<unknown>")
        line, col, end_col = src.position(node)
        return cls(message, src.filename, line, col, end_col, src.source_line(line))
