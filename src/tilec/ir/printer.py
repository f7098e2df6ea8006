"""The textual form of TileIR: readable, stable, and read back by ``parser.py``.

Grammar (informal)::

    module     := "module" "{" function* "}"
    function   := "func" "@" name "(" args ")" "->" "(" types ")" attr-dict? region
    op         := (results "=")? name "(" operands ")" successors? attr-dict? regions?
                  (":" result-types)? location?
    region     := "{" block* "}"
    block      := "^" label "(" args ")" ":" op*

Values print as ``%name`` (the name hint when free, else a number); block
labels as ``^bb<N>``; both are numbered per function. Attribute values are
``1``, ``2.0``, ``inf``, ``nan``, ``true``, ``none``, ``"text"``, ``[a, b]``,
a type in ``type(...)``, and interned records ``#map<...>``, ``#domain<...>``,
``#policy<...>``, ``#arith<...>``, ``#exec<...>``, ``#dim<...>`` and the Scheduled form's
``#dist<...>`` (``tilec.ir.dist_layout.DistLayout``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from .attributes import ArithPolicy, ExecConstraint, ReductionPolicy
from .core import Block, Operation, Region, Value
from .dims import Dim, IndexSet
from .dist_layout import DistLayout
from .layout import IndexMap
from .location import Location
from .module import Function, Module
from .types import Type

__all__ = ["Printer", "print_module", "print_op", "format_attr", "print_function"]

_NAME_OK = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def format_attr(v: Any) -> str:
    """The textual form of one attribute value."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        text = repr(v)
        return text if any(c in text for c in ".e") else text + ".0"
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, tuple):
        return "[" + ", ".join(format_attr(e) for e in v) + "]"
    if isinstance(v, Type):
        return f"type({v})"
    if isinstance(v, IndexMap):
        return f"#map<{v}>"
    if isinstance(v, IndexSet):
        return f"#domain<{v}>"
    if isinstance(v, Dim):
        return f"#dim<{v}>"
    if isinstance(v, (ReductionPolicy, ArithPolicy, ExecConstraint)):
        return str(v)
    if isinstance(v, DistLayout):
        return str(v)
    raise TypeError(f"cannot print attribute value {v!r}")


def _format_loc(loc: Location) -> str:
    return f"loc({json.dumps(loc.filename)}:{loc.line}:{loc.col})"


class Printer:
    """Prints modules, functions and operations; records the line of every operation.

    ``op_lines`` maps ``Operation.id`` to the 0-based line where the
    operation's text starts, so diagnostics can underline it.
    """

    def __init__(self, locations: bool = False, indent: str = "  ") -> None:
        self.locations = locations
        """True to print ``loc(...)`` after every operation."""
        self.indent = indent
        """One indentation step."""
        self.lines: list[str] = []
        """The output so far, one entry per line."""
        self.op_lines: dict[int, int] = {}
        """Operation id -> line index of its first line."""
        self._names: dict[int, str] = {}
        self._used: set[str] = set()
        self._blocks: dict[int, str] = {}
        self._next_number = 0

    # -- naming -----------------------------------------------------------------------
    def _reset_scope(self) -> None:
        self._names = {}
        self._used = set()
        self._blocks = {}
        self._next_number = 0

    def name_of(self, v: Value) -> str:
        """The printed name of ``v`` (``%<hint>`` or ``%<number>``), assigned on first sight."""
        key = id(v)
        n = self._names.get(key)
        if n is None:
            hint = v.name_hint
            base = hint if hint and _NAME_OK.match(hint) else None
            if base is not None and base not in self._used and not base.isdigit():
                n = base
            elif base is not None:
                k = 1
                while f"{base}_{k}" in self._used:
                    k += 1
                n = f"{base}_{k}"
            else:
                while str(self._next_number) in self._used:
                    self._next_number += 1
                n = str(self._next_number)
            self._used.add(n)
            self._names[key] = n
        return "%" + n

    def label_of(self, b: Block) -> str:
        """The printed label of ``b``."""
        lab = self._blocks.get(id(b))
        if lab is None:
            lab = f"bb{len(self._blocks)}"
            self._blocks[id(b)] = lab
        return "^" + lab

    # -- emission ---------------------------------------------------------------------
    def _emit(self, depth: int, text: str) -> None:
        self.lines.append(self.indent * depth + text)

    def module(self, m: Module) -> None:
        """Print a whole module."""
        self._emit(0, "module {")
        for fn in m.functions:
            self.function(fn, 1)
        self._emit(0, "}")

    def function(self, fn: Function, depth: int = 0) -> None:
        """Print one function; names restart per function."""
        self._reset_scope()
        entry = fn.entry
        # Pre-assign block labels in order so forward branches print stably.
        for b in fn.body.blocks:
            self.label_of(b)
        args = ", ".join(f"{self.name_of(a)}: {a.type}" for a in entry.args)
        res = ", ".join(str(t) for t in fn.result_types)
        attrs = self._attr_dict(fn.attributes)
        loc = f" {_format_loc(fn.loc)}" if self.locations and fn.loc.known else ""
        self._emit(depth, f"func @{fn.name}({args}) -> ({res}){attrs}{loc} {{")
        for i, b in enumerate(fn.body.blocks):
            if i > 0:
                self._block_header(b, depth)
            for op in b.operations:
                self.op(op, depth + 1)
        self._emit(depth, "}")

    def _block_header(self, b: Block, depth: int) -> None:
        args = ", ".join(f"{self.name_of(a)}: {a.type}" for a in b.args)
        self._emit(depth, f"{self.label_of(b)}({args}):")

    def _attr_dict(self, attrs: dict[str, Any]) -> str:
        if not attrs:
            return ""
        items = ", ".join(f"{k} = {format_attr(attrs[k])}" for k in sorted(attrs))
        return f" {{{items}}}"

    def op(self, op: Operation, depth: int) -> None:
        """Print one operation (with its regions)."""
        self.op_lines[op.id] = len(self.lines)
        head = ""
        if op.results:
            head = ", ".join(self.name_of(r) for r in op.results) + " = "
        text = head + op.name + "(" + ", ".join(self.name_of(v) for v in op.operands) + ")"
        if op.successors:
            text += " [" + ", ".join(self.label_of(b) for b in op.successors) + "]"
        text += self._attr_dict(op.attributes)
        tail = ""
        if op.results:
            if len(op.results) == 1:
                tail = f" : {op.results[0].type}"
            else:
                tail = " : (" + ", ".join(str(r.type) for r in op.results) + ")"
        if self.locations and op.loc.known:
            tail += " " + _format_loc(op.loc)
        if not op.regions:
            self._emit(depth, text + tail)
            return
        self._emit(depth, text + " ({")
        for k, r in enumerate(op.regions):
            self.region_body(r, depth)
            closing = "}" + (", {" if k + 1 < len(op.regions) else ")" + tail)
            self._emit(depth, closing)

    def region_body(self, r: Region, depth: int) -> None:
        """Print the blocks of a region (each with its label line)."""
        for b in r.blocks:
            self.label_of(b)
        for b in r.blocks:
            self._block_header(b, depth)
            for op in b.operations:
                self.op(op, depth + 1)

    def text(self) -> str:
        """Everything printed so far."""
        return "\n".join(self.lines) + "\n"


def print_module(m: Module, locations: bool = False) -> str:
    """The textual form of a module."""
    p = Printer(locations)
    p.module(m)
    return p.text()


def print_function(fn: Function, locations: bool = False) -> str:
    """The textual form of one function."""
    p = Printer(locations)
    p.function(fn)
    return p.text()


def print_op(op: Operation, locations: bool = False,
             namer: Callable[[Value], str] | None = None) -> str:
    """The textual form of one operation (value names local to this print)."""
    p = Printer(locations)
    if namer is not None:
        p.name_of = namer  # type: ignore[method-assign]
    p.op(op, 0)
    return p.text().rstrip("\n")
