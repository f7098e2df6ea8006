"""Reads the textual form that ``printer.py`` writes back into IR.

The reader is a hand-written tokenizer and a recursive-descent parser over
the grammar in ``printer.py``'s docstring. It builds operations with
``Operation(...)`` and inserts them into blocks, so use lists come out linked
exactly as if a builder had made them.

Scoping follows the usual SSA text rules:

* a value is referenced only after its definition; names defined in a region
  go out of scope when the region closes, so sibling regions may reuse a
  name, but a name may not shadow one that is still visible;
* block labels are scoped to their region (visible in nested regions) and may
  be referenced before their header (forward branches). The function's entry
  block has no header; the printer calls it ``^bb0``, so an otherwise
  undefined ``^bb0`` names it.

Dominance across blocks of one region is the verifier's business, not the
reader's. Every malformed input raises ``ParseError`` with a 1-based line and
column, a caret line, and a message naming what was expected and what was
found.

Shapes print as ``4xMxf32``, which is ambiguous when a symbolic extent's
name contains the letter ``x`` (``n_ctx``). The reader splits at every ``x``
except where that would break up a name the text declares as a symbol (in a
``shape_symbols`` list or as an ``index`` parameter name).
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple, NoReturn

from .attributes import ArithPolicy, ExecConstraint, ReductionPolicy
from .core import Block, IRError, Operation, Region, Value
from .diagnostics import ParseError
from .dims import AffineExpr, Dim, IndexSet, as_expr
from .dist_layout import DistLayout
from .layout import IndexMap, LayoutError
from .location import UNKNOWN, Location
from .module import Function, Module
from .opdef import OPS
from .types import SCALARS, MemoryType, TileType, TupleType, Type, token

__all__ = ["parse"]

# Errors that the IR's own constructors raise for bad values; the parser turns them into
# located ParseErrors instead of letting them escape.
_CONSTRUCTION_ERRORS = (ValueError, TypeError, KeyError, LayoutError, IRError)

# ----------------------------------------------------------------------------- tokens

_TOKEN_RE = re.compile(r"""
    (?P<ws>[ \t\r\n]+|//[^\n]*)
  | (?P<value>%[A-Za-z0-9_.$]+)
  | (?P<label>\^[A-Za-z0-9_.$]+)
  | (?P<symbol>@[A-Za-z0-9_.$]+)
  | (?P<hash>\#[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<punct>->|[(){}\[\]<>,:=*+?-])
""", re.VERBOSE)

# A tile or memory shape such as ``4xMxf32`` is one token: the letters and digits would
# otherwise split into numbers and identifiers in ways that lose the ``x`` separators.
_SHAPE_RE = re.compile(r"[A-Za-z0-9_?]*")
_EXTENT_RE = re.compile(r"[0-9]+|[A-Za-z_][A-Za-z0-9_]*|\?")


class _Tok(NamedTuple):
    """One token."""

    kind: str
    """``value label symbol hash number ident string punct shape eof``."""
    text: str
    """The exact source text."""
    offset: int
    """Offset of the first character in the source."""

    def describe(self) -> str:
        """How an error message names this token."""
        return "end of input" if self.kind == "eof" else repr(self.text)


def _tokenize(text: str, fail: Any) -> list[_Tok]:
    toks: list[_Tok] = []
    pos = 0
    n = len(text)
    match = _TOKEN_RE.match
    while pos < n:
        m = match(text, pos)
        if m is None:
            if text[pos] == '"':
                fail("unterminated string literal", pos)
            fail(f"unexpected character {text[pos]!r}", pos)
        kind = m.lastgroup
        assert kind is not None
        pos = m.end()
        if kind == "ws":
            continue
        tok = _Tok(kind, m.group(), m.start())
        toks.append(tok)
        if tok.text == "<" and len(toks) >= 2 and toks[-2].text in ("tile", "mem") \
                and toks[-2].kind == "ident":
            while pos < n and text[pos] in " \t":
                pos += 1
            sm = _SHAPE_RE.match(text, pos)
            assert sm is not None  # the pattern matches the empty string
            toks.append(_Tok("shape", sm.group(), pos))
            pos = sm.end()
    # End of input is reported just after the last visible character, not on a blank line.
    # Several copies let the parser look a few tokens ahead without bounds checks.
    toks.extend([_Tok("eof", "", len(text.rstrip()))] * 4)
    return toks


def _declared_symbols(text: str) -> set[str]:
    """Names the text declares as symbolic extents; they disambiguate shapes like ``n_ctxx4``."""
    names = set(re.findall(r"%([A-Za-z_][A-Za-z0-9_]*): index\b", text))
    for listed in re.findall(r"shape_symbols = \[([^\]]*)\]", text):
        names.update(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', listed))
    return names


# ------------------------------------------------------------------------------ scopes


@dataclass
class _LabelScope:
    """The block labels of one region, and the region around it."""

    parent: _LabelScope | None
    """The enclosing region's labels."""
    blocks: dict[str, Block] = field(default_factory=dict)
    """Label (without ``^``) -> block."""

    def lookup(self, name: str) -> Block | None:
        """The block a label names here or in an enclosing region."""
        scope: _LabelScope | None = self
        while scope is not None:
            if name in scope.blocks:
                return scope.blocks[name]
            scope = scope.parent
        return None


@dataclass
class _FunctionState:
    """What the parser tracks while reading one function."""

    entry: Block
    """The function's entry block (the printer's implicit ``^bb0``)."""
    value_scopes: list[dict[str, tuple[Value, _Tok]]] = field(default_factory=list)
    """Visible values, innermost region last: name -> (value, defining token)."""
    closed: dict[str, _Tok] = field(default_factory=dict)
    """Names whose region has closed, for a better 'undefined' message."""
    pending: dict[str, _Tok] = field(default_factory=dict)
    """Result names of operations whose regions are being read."""
    branches: list[tuple[Operation, list[_Tok], _LabelScope]] = field(default_factory=list)
    """Successor references, resolved when the function ends (they may point forward)."""


# ------------------------------------------------------------------------------ parser


class _Parser:
    """Recursive descent over the token list; one instance reads one text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
        self.toks = _tokenize(text, self._fail_at)
        self.i = 0
        self.fn: _FunctionState | None = None
        self.map_arity = (0, 0)  # dimensions and symbols of the map being read
        self.symbols = _declared_symbols(text)

    # -- errors -------------------------------------------------------------------
    def line_col(self, offset: int) -> tuple[int, int, str]:
        """1-based line and column of ``offset``, and the text of that line."""
        line = bisect.bisect_right(self.line_starts, offset) - 1
        start = self.line_starts[line]
        end = self.text.find("\n", start)
        source_line = self.text[start:end if end >= 0 else len(self.text)].rstrip("\r")
        return line + 1, offset - start + 1, source_line

    def _fail_at(self, message: str, offset: int) -> NoReturn:
        line, col, source_line = self.line_col(offset)
        raise ParseError(message, line, col, source_line)

    def error(self, message: str, tok: _Tok | None = None) -> NoReturn:
        """Raise a ``ParseError`` at ``tok`` (the next token by default)."""
        self._fail_at(message, (tok if tok is not None else self.peek()).offset)

    def expected(self, what: str, tok: _Tok | None = None) -> NoReturn:
        """Raise 'expected <what>, found <token>'."""
        tok = tok if tok is not None else self.peek()
        self.error(f"expected {what}, found {tok.describe()}", tok)

    # -- token stream -------------------------------------------------------------
    def peek(self, k: int = 0) -> _Tok:
        """The token ``k`` (at most 3) places ahead; ``eof`` past the end."""
        return self.toks[self.i + k]

    def next(self) -> _Tok:
        """Consume one token (the ``eof`` token is never consumed)."""
        tok = self.toks[self.i]
        if tok.kind != "eof":
            self.i += 1
        return tok

    def at(self, text: str, k: int = 0) -> bool:
        """True when the token ``k`` ahead is punctuation or a keyword spelled ``text``."""
        tok = self.peek(k)
        return tok.text == text and tok.kind in ("punct", "ident")

    def accept(self, text: str) -> bool:
        """Consume the next token if it is ``text``."""
        if self.at(text):
            self.next()
            return True
        return False

    def expect(self, text: str, context: str = "") -> _Tok:
        """Consume ``text`` or fail naming it."""
        if not self.at(text):
            self.expected(f"'{text}'" + (f" {context}" if context else ""))
        return self.next()

    def expect_kind(self, kind: str, what: str) -> _Tok:
        """Consume a token of ``kind`` or fail naming ``what``."""
        if self.peek().kind != kind:
            self.expected(what)
        return self.next()

    def comma_list(self, close: str, item: Any) -> list[Any]:
        """``item (',' item)*`` up to (and consuming) ``close``; may be empty."""
        out: list[Any] = []
        if self.accept(close):
            return out
        while True:
            out.append(item())
            if self.accept(close):
                return out
            if not self.at(","):
                self.expected(f"',' or '{close}'")
            self.next()

    # -- module and functions ---------------------------------------------------
    def module(self) -> Module:
        """``module { function* }``, or bare functions."""
        m = Module()
        if self.accept("module"):
            self.expect("{", "to open the module body")
            while not self.at("}"):
                if not self.at("func"):
                    self.expected("'func' or '}'")
                self.function(m)
            self.next()
        elif self.at("func"):
            while self.at("func"):
                self.function(m)
        else:
            self.expected("'module' or 'func'")
        if self.peek().kind != "eof":
            self.expected("end of input")
        return m

    def function(self, m: Module) -> None:
        """``func @name(args) -> (types) {attrs}? loc(...)? { body }``."""
        self.expect("func")
        name_tok = self.expect_kind("symbol", "a function name like '@kernel'")
        name = name_tok.text[1:]
        if m.lookup(name) is not None:
            self.error(f"redefinition of function @{name}", name_tok)
        self.expect("(", "to open the parameter list")
        params = self.comma_list(")", self.typed_name)
        self.expect("->", "before the result types")
        self.expect("(", "to open the result types")
        results = self.comma_list(")", self.type)
        attrs: dict[str, Any] = {}
        if self.at("{") and self.peek(1).kind == "ident" and self.at("=", 2):
            attrs = self.attr_dict()
        loc = self.location()
        self.expect("{", "to open the function body")
        try:
            fn = Function(name, [t for _, t in params], results,
                          [self.hint(tok) for tok, _ in params], attrs, loc)
        except _CONSTRUCTION_ERRORS as e:
            self.error(f"invalid function @{name}: {e}", name_tok)
        state = _FunctionState(fn.entry)
        self.fn = state
        state.value_scopes.append({})
        for (tok, _), arg in zip(params, fn.entry.args):
            self.define(tok, arg)
        labels = _LabelScope(None)
        self.blocks(fn.body, labels, fn.entry)
        self.expect("}", "to close the function body")
        self.resolve_branches(state)
        self.fn = None
        m.add_function(fn)

    def resolve_branches(self, state: _FunctionState) -> None:
        """Bind every successor label, now that all blocks of the function exist."""
        for op, toks, scope in state.branches:
            blocks = []
            for tok in toks:
                b = scope.lookup(tok.text[1:])
                if b is None and tok.text == "^bb0":
                    b = state.entry
                if b is None:
                    self.error(f"undefined block label {tok.text}", tok)
                blocks.append(b)
            # Successors are plain references (not use-list links); they are known only now.
            op.successors = tuple(blocks)

    # -- regions and blocks ------------------------------------------------------
    def blocks(self, region: Region, labels: _LabelScope, entry: Block | None) -> None:
        """Read blocks up to (not including) the closing '}'."""
        current = entry
        while not self.at("}"):
            tok = self.peek()
            if tok.kind == "eof":
                self.expected("an operation, a block label or '}'")
            if tok.kind == "label":
                current = self.block_header(region, labels)
                continue
            if current is None:  # a region written without an entry label
                current = region.add_block(Block())
            current.append(self.operation(labels))

    def block_header(self, region: Region, labels: _LabelScope) -> Block:
        """``^label(args):``."""
        tok = self.next()
        name = tok.text[1:]
        if name in labels.blocks:
            self.error(f"redefinition of block label {tok.text}", tok)
        args = self.comma_list(")", self.typed_name) if self.accept("(") else []
        self.expect(":", f"after the block header {tok.text}")
        block = Block([t for _, t in args], [self.hint(a) for a, _ in args])
        for (atok, _), arg in zip(args, block.args):
            self.define(atok, arg)
        labels.blocks[name] = block
        return region.add_block(block)

    def region(self, labels: _LabelScope) -> Region:
        """``{ block* }`` as an operation's region, with its own name scopes."""
        self.expect("{", "to open a region")
        assert self.fn is not None
        region = Region()
        self.fn.value_scopes.append({})
        self.blocks(region, _LabelScope(labels), None)
        self.expect("}", "to close the region")
        for name, (_, tok) in self.fn.value_scopes.pop().items():
            self.fn.closed[name] = tok
        return region

    # -- values ---------------------------------------------------------------------
    @staticmethod
    def hint(tok: _Tok) -> str | None:
        """The name hint a printed value name carries (numbers carry none)."""
        name = tok.text[1:]
        return None if name.isdigit() else name

    def typed_name(self) -> tuple[_Tok, Type]:
        """``%name: type``."""
        tok = self.expect_kind("value", "a value name like '%x'")
        self.expect(":", f"after {tok.text}")
        return tok, self.type()

    def define(self, tok: _Tok, value: Value) -> None:
        """Bind a name in the innermost scope; shadowing a visible name is an error."""
        assert self.fn is not None
        for scope in self.fn.value_scopes:
            if tok.text in scope:
                first = self.position(scope[tok.text][1])
                self.error(f"redefinition of {tok.text} (first defined at {first})", tok)
        if tok.text in self.fn.pending:
            first = self.position(self.fn.pending[tok.text])
            self.error(f"redefinition of {tok.text}, a result of the enclosing operation "
                       f"at {first}", tok)
        self.fn.value_scopes[-1][tok.text] = (value, tok)
        self.fn.closed.pop(tok.text, None)

    def position(self, tok: _Tok) -> str:
        """``line:col`` of ``tok``, 1-based."""
        line, col, _ = self.line_col(tok.offset)
        return f"{line}:{col}"

    def use(self) -> Value:
        """A reference to a visible value."""
        assert self.fn is not None
        tok = self.expect_kind("value", "a value name like '%x'")
        for scope in reversed(self.fn.value_scopes):
            if tok.text in scope:
                return scope[tok.text][0]
        if tok.text in self.fn.pending:
            self.error(f"{tok.text} is used inside the operation that defines it", tok)
        if tok.text in self.fn.closed:
            where = self.position(self.fn.closed[tok.text])
            self.error(f"{tok.text} is out of scope: it was defined at {where} inside a "
                       f"region that has closed", tok)
        self.error(f"use of undefined value {tok.text}", tok)

    # -- operations ---------------------------------------------------------------
    def operation(self, labels: _LabelScope) -> Operation:
        """``results = name(operands) [succ] {attrs} (regions) : types loc(...)``."""
        assert self.fn is not None
        start = self.peek()
        names: list[_Tok] = []
        if start.kind == "value":
            names = [self.next()]
            while self.accept(","):
                names.append(self.expect_kind("value", "a result name like '%x'"))
            self.expect("=", "after the result names")
        name_tok = self.peek()
        if name_tok.kind != "ident":
            self.expected("an operation name")
        self.next()
        if name_tok.text in ("func", "module"):  # most likely a '}' is missing above
            self.expected("an operation, a block label or '}'", name_tok)
        if name_tok.text not in OPS:
            self.error(f"unknown operation '{name_tok.text}'", name_tok)
        self.expect("(", f"to open the operands of '{name_tok.text}'")
        operands = self.comma_list(")", self.use)
        succ: list[_Tok] = []
        if self.accept("["):
            succ = self.comma_list("]", lambda: self.expect_kind("label", "a block label"))
        attrs = self.attr_dict() if self.at("{") else {}
        regions: list[Region] = []
        if self.accept("("):
            for t in names:
                self.fn.pending[t.text] = t
            regions = self.comma_list(")", lambda: self.region(labels))
            for t in names:
                self.fn.pending.pop(t.text, None)
        types: list[Type] = []
        if self.at(":"):
            colon = self.next()
            types = self.comma_list(")", self.type) if self.accept("(") else [self.type()]
            if len(types) != len(names):
                self.error(f"'{name_tok.text}' defines {len(names)} result(s) but "
                           f"{len(types)} result type(s) follow", colon)
        elif names:
            self.expected(f"':' and the result type(s) of '{name_tok.text}'")
        loc = self.location()
        try:
            op = Operation(name_tok.text, operands, types, attrs, regions, (), loc,
                           [self.hint(t) for t in names])
        except _CONSTRUCTION_ERRORS as e:
            self.error(f"invalid '{name_tok.text}' operation: {e}", start)
        for t, r in zip(names, op.results):
            self.define(t, r)
        if succ:
            self.fn.branches.append((op, succ, labels))
        return op

    def location(self) -> Location:
        """An optional ``loc("file":line:col)``."""
        if not (self.at("loc") and self.at("(", 1)):
            return UNKNOWN
        self.next()
        self.next()
        fname = self.string()
        self.expect(":", "between the file name and the line")
        line = self.integer("a line number")
        self.expect(":", "between the line and the column")
        col = self.integer("a column number")
        self.expect(")", "to close the location")
        return Location(fname, line, col)

    def integer(self, what: str) -> int:
        """A non-negative integer literal."""
        tok = self.peek()
        if tok.kind != "number" or not tok.text.isdigit():
            self.expected(what)
        self.next()
        return int(tok.text)

    def string(self) -> str:
        """A JSON-style string literal."""
        tok = self.expect_kind("string", "a string literal")
        try:
            return json.loads(tok.text)
        except ValueError as e:
            self.error(f"bad string literal: {e}", tok)

    # -- attributes -----------------------------------------------------------------
    def attr_dict(self) -> dict[str, Any]:
        """``{name = value, ...}``."""
        self.expect("{")
        out: dict[str, Any] = {}

        def entry() -> None:
            key = self.expect_kind("ident", "an attribute name")
            if key.text in out:
                self.error(f"duplicate attribute '{key.text}'", key)
            self.expect("=", f"after the attribute name '{key.text}'")
            out[key.text] = self.attr()

        self.comma_list("}", entry)
        return out

    def attr(self) -> Any:
        """One attribute value (see ``printer.format_attr``)."""
        tok = self.peek()
        if tok.kind == "number" or (tok.text == "-" and tok.kind == "punct"):
            return self.number()
        if tok.kind == "string":
            return self.string()
        if self.accept("["):
            return tuple(self.comma_list("]", self.attr))
        if tok.kind == "hash":
            return self.record()
        if tok.kind == "ident":
            consts = {"true": True, "false": False, "none": None,
                      "inf": float("inf"), "nan": float("nan")}
            if tok.text in consts:
                self.next()
                return consts[tok.text]
            if tok.text == "type":
                self.next()
                self.expect("(", "after 'type'")
                t = self.type()
                self.expect(")", "to close 'type('")
                return t
        self.expected("an attribute value")

    def number(self) -> int | float:
        """An optionally negative int or float, or ``-inf``."""
        neg = self.accept("-")
        if neg and self.accept("inf"):
            return float("-inf")
        tok = self.expect_kind("number", "a number")
        is_float = any(c in tok.text for c in ".eE")
        v: int | float = float(tok.text) if is_float else int(tok.text)
        return -v if neg else v

    def record(self) -> Any:
        """An interned record: ``#map``, ``#domain``, ``#dim``, ``#policy``, ``#arith``..."""
        tok = self.next()
        kind = tok.text[1:]
        readers = {"map": self.map_body, "domain": self.domain_body, "dim": self.dim,
                   "policy": self.policy_body, "arith": self.arith_body, "exec": self.exec_body,
                   "dist": self.dist_body}
        if kind not in readers:
            self.error(f"unknown attribute kind '{tok.text}'; known: "
                       + ", ".join("#" + k for k in readers), tok)
        self.expect("<", f"after '{tok.text}'")
        try:
            value = readers[kind]()
        except _CONSTRUCTION_ERRORS as e:
            self.error(f"invalid {tok.text}: {e}", tok)
        self.expect(">", f"to close '{tok.text}<'")
        return value

    def ident(self, what: str) -> str:
        """An identifier's text."""
        return self.expect_kind("ident", what).text

    def policy_body(self) -> ReductionPolicy:
        """``kind[, explicit]``."""
        kind = self.ident("a reduction policy kind")
        explicit = False
        if self.accept(","):
            self.expect("explicit")
            explicit = True
        return ReductionPolicy(kind, explicit)

    def arith_body(self) -> ArithPolicy:
        """``precision, order``."""
        precision = self.ident("a precision")
        self.expect(",", "after the precision")
        return ArithPolicy(precision, self.ident("a summation order"))

    def exec_body(self) -> ExecConstraint:
        """``level[, threads = N]``."""
        level = self.ident("an execution level")
        threads = None
        if self.accept(","):
            self.expect("threads")
            self.expect("=", "after 'threads'")
            threads = self.integer("a thread count")
        return ExecConstraint(threads, level)

    def dist_body(self) -> Any:
        """``kind, [shape], threads = T, regs = [..], map = (d0, d1) -> (..)[, flags][, k = v]``."""

        kind = self.ident("a distribution family")
        self.expect(",", "after the distribution family")
        self.expect("[", "to open the tile shape")
        shape = self.comma_list("]", lambda: self.integer("a static extent"))
        fields: dict[str, Any] = {"replicated": False, "masked": False}
        params: list[tuple[str, int]] = []
        while self.accept(","):
            key = self.ident("a distribution field")
            if key in ("replicated", "masked"):
                fields[key] = True
                continue
            self.expect("=", f"after '{key}'")
            if key == "map":
                fields["map"] = self.map_body()
            elif key in ("regs", "parts"):
                self.expect("[", f"to open '{key}'")
                fields[key] = self.comma_list("]", lambda: self.integer("an extent"))
            elif key == "threads":
                fields[key] = self.integer("a thread count")
            else:
                params.append((key, self.integer(f"an integer value for '{key}'")))
        for need in ("threads", "regs", "map"):
            if need not in fields:
                self.error(f"#dist needs '{need} = ...'")
        return DistLayout(kind, shape, fields["threads"], fields["regs"], fields["map"],
                          fields["replicated"], fields["masked"], params, fields.get("parts"))

    def dim(self) -> Dim:
        """An extent: an integer, a symbol name or ``?``."""
        tok = self.peek()
        if tok.kind == "number" and tok.text.isdigit():
            self.next()
            return Dim(int(tok.text))
        if tok.kind == "ident" or tok.text == "?":
            self.next()
            return Dim(tok.text)
        self.expected("an extent (an integer, a name or '?')")

    def domain_body(self) -> IndexSet:
        """``[e0, e1, ...]``."""
        self.expect("[", "to open the domain extents")
        return IndexSet(self.comma_list("]", self.dim))

    def map_body(self) -> IndexMap:
        """``(d0, ..)[s0, ..] -> (expr, ..)``."""
        self.expect("(", "to open the map's dimension list")
        dims = self.comma_list(")", lambda: self.expect_kind("ident", "a dimension like 'd0'"))
        syms = self.comma_list("]", lambda: self.expect_kind("ident", "a symbol like 's0'")) \
            if self.accept("[") else []
        for prefix, names in (("d", dims), ("s", syms)):
            for k, tok in enumerate(names):
                if tok.text != f"{prefix}{k}":
                    self.error(f"map {'dimensions' if prefix == 'd' else 'symbols'} are named "
                               f"{prefix}0, {prefix}1, ... in order; expected {prefix}{k}, found "
                               f"{tok.text}", tok)
        self.expect("->", "between the map's domain and its results")
        self.expect("(", "to open the map's results")
        self.map_arity = (len(dims), len(syms))
        results = self.comma_list(")", self.affine_sum)
        return IndexMap(len(dims), results, len(syms))

    # affine := term (('+' | '-') term)*;  term := unary ('*' unary)*
    # unary := '-' unary | int | d<i> | s<i> | '(' affine [('floordiv' | 'mod') int] ')'
    # As the printer writes it, '(e floordiv c)' divides the whole sum e.
    def affine_sum(self) -> AffineExpr:
        """A sum of terms."""
        e = self.affine_term()
        while self.at("+") or self.at("-"):
            sign = self.next().text
            t = self.affine_term()
            e = e + t if sign == "+" else e - t
        return e

    def affine_term(self) -> AffineExpr:
        """A product where at most one factor is non-constant."""
        e = self.affine_unary()
        while self.at("*"):
            star = self.next()
            f = self.affine_unary()
            try:
                e = e * f
            except ValueError as err:
                self.error(str(err), star)
        return e

    def affine_unary(self) -> AffineExpr:
        """A negation, a constant, a coordinate, a symbol or a parenthesised division."""
        tok = self.peek()
        if self.accept("-"):
            return -self.affine_unary()
        if tok.kind == "number" and tok.text.isdigit():
            self.next()
            return as_expr(int(tok.text))
        if tok.kind == "ident" and re.fullmatch(r"[ds][0-9]+", tok.text):
            self.next()
            k = int(tok.text[1:])
            limit = self.map_arity[0 if tok.text[0] == "d" else 1]
            if k >= limit:
                self.error(f"{tok.text} is not declared by this map", tok)
            atom = (tok.text[0], k)
            return AffineExpr(((atom, 1),), 0)
        if self.accept("("):
            e = self.affine_sum()
            if self.at("floordiv") or self.at("mod"):
                op = self.next().text
                ctok = self.peek()
                c = self.integer(f"a positive integer after '{op}'")
                if c <= 0:
                    self.error(f"'{op}' needs a positive integer, found {ctok.text}", ctok)
                e = e.floordiv(c) if op == "floordiv" else e.mod(c)
            self.expect(")", "to close the parenthesised expression")
            return e
        self.expected("an affine expression (an integer, d<i>, s<i> or '(')")

    # -- types ------------------------------------------------------------------------
    def type(self) -> Type:
        """A scalar, ``tile<..>``, ``mem<.., space>``, ``token`` or ``tuple<..>``."""
        tok = self.peek()
        if tok.kind != "ident":
            self.expected("a type")
        self.next()
        if tok.text in SCALARS:
            return SCALARS[tok.text]
        if tok.text == "token":
            return token
        if tok.text == "tuple":
            self.expect("<", "after 'tuple'")
            return TupleType(self.comma_list(">", self.type))
        if tok.text not in ("tile", "mem"):
            self.error(f"unknown type '{tok.text}'", tok)
        self.expect("<", f"after '{tok.text}'")
        shape_tok = self.next()
        shape, dtype = self.split_shape(shape_tok)
        if tok.text == "tile":
            self.expect(">", "to close 'tile<'")
            return TileType(shape, dtype)
        self.expect(",", "between the memory shape and its space")
        space_tok = self.expect_kind("ident", "a memory space")
        self.expect(">", "to close 'mem<'")
        try:
            return MemoryType(shape, dtype, space_tok.text)
        except ValueError as e:
            self.error(str(e), space_tok)

    def split_shape(self, tok: _Tok) -> tuple[list[Dim], Any]:
        """``4xMxf32`` -> ([Dim(4), Dim("M")], f32)."""
        text = tok.text
        for name in sorted(SCALARS, key=len, reverse=True):
            if text == name:
                return [], SCALARS[name]
            if text.endswith("x" + name):
                break
        else:
            self.error(f"expected a shape ending in an element type like '4x8xf32', found "
                       f"{tok.describe()}", tok)
        extents = text[:-len(name) - 1]
        pieces = self.split_extents(extents)
        if pieces is None:
            bad = next(p for p in extents.split("x") if not _EXTENT_RE.fullmatch(p))
            self.error(f"bad extent {bad!r} in shape '{text}'", tok)
        return [Dim(int(p)) if p.isdigit() else Dim(p) for p in pieces], SCALARS[name]

    def split_extents(self, text: str) -> list[str] | None:
        """Cut ``text`` at ``x`` separators: as many extents as possible, declared names whole."""
        cuts = [k for k, c in enumerate(text) if c == "x"]
        if len(cuts) > 12:  # no real shape has that many; skip the search
            pieces = text.split("x")
            return pieces if all(_EXTENT_RE.fullmatch(p) for p in pieces) else None
        best: tuple[tuple[int, int], list[str]] | None = None
        for mask in range(1 << len(cuts)):
            bounds = [-1] + [c for j, c in enumerate(cuts) if mask >> j & 1] + [len(text)]
            pieces = [text[a + 1:b] for a, b in zip(bounds, bounds[1:])]
            if all(_EXTENT_RE.fullmatch(p) for p in pieces):
                score = (sum(p in self.symbols for p in pieces), len(pieces))
                if best is None or score > best[0]:
                    best = (score, pieces)
        return best[1] if best is not None else None


def parse(text: str) -> Module:
    """Read a module printed by ``print_module`` (or bare ``func`` definitions)."""
    return _Parser(text).module()
