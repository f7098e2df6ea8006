"""Source locations and caret snippets for diagnostics."""

from __future__ import annotations

import linecache

from .interning import Interned

__all__ = ["Location", "UNKNOWN", "caret_snippet"]


class Location(Interned):
    """A source position ``file:line:col`` (1-based line, 0-based column, as ``ast`` gives)."""

    __slots__ = ("filename", "line", "col", "end_col")
    filename: str
    """Source file name, or ``<unknown>``."""
    line: int
    """1-based line; 0 when unknown."""
    col: int
    """0-based column."""
    end_col: int | None
    """0-based end column on the same line, when known (for a wider underline)."""

    @classmethod
    def _key(cls, filename: str = "<unknown>", line: int = 0, col: int = 0,
             end_col: int | None = None) -> tuple:
        return (str(filename), int(line), int(col), end_col)

    def _init(self, key: tuple) -> None:
        self._set("filename", key[0])
        self._set("line", key[1])
        self._set("col", key[2])
        self._set("end_col", key[3])

    @property
    def known(self) -> bool:
        """True when the location points into a real source line."""
        return self.line > 0

    def __str__(self) -> str:
        if not self.known:
            return "<unknown>"
        return f"{self.filename}:{self.line}:{self.col + 1}"

    def __repr__(self) -> str:
        return f"Location({self})"


UNKNOWN = Location()


def caret_snippet(loc: Location, source_line: str | None = None) -> str:
    """The source line at ``loc`` with a caret line under the column (empty if unavailable)."""
    if not loc.known:
        return ""
    line = source_line if source_line is not None else linecache.getline(loc.filename, loc.line)
    if not line:
        return ""
    line = line.rstrip("\n")
    width = 1
    if loc.end_col is not None and loc.end_col > loc.col:
        width = loc.end_col - loc.col
    return f"{line}\n{' ' * loc.col}{'^' * width}"
