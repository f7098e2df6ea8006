"""The shared base of the C-family emitters (C now, CUDA C++ next).

Two pieces live here:

* ``IndentedBuffer``: the output buffer. Every line it holds remembers the IR
  operation that produced it (id, opcode, source location), so a C compiler
  diagnostic or a profile line maps back to the TileIR operation and the
  Python line it came from. Operation boundaries are also visible in the text
  as ``/* tilec: <op>#<id> at file:line:col */`` comments (the file's name only, so
  an emitted source holds no machine path; cache keys leave these lines out).
* ``CLikeEmitter``: naming, the value table (``id(value)`` -> its form at
  emission time: ``Scalar``, ``TupleVal``, ``TokenVal`` or a target's own),
  per-op dispatch to a method ``emit_<opcode>`` found by name (``atom.call`` ->
  ``emit_atom_call``; a missing method is a located "unsupported" error), the
  operations every C-like target emits alike (scalar ``constant``, ``arith``,
  ``tuple``/``tuple_get``; ``br`` and ``call`` rejected), the dtype -> C type
  tables, literal formatting, and the scalar expression tables behind
  ``arith``. Subclasses change a target by overriding class attributes
  (``SCALAR_CTYPES``, ``FLOAT_FNS``, ``INT_FNS``, ``BOOL_FNS``,
  ``NARROW_ROUND``...) and adding ``emit_*`` methods, not by branching.

Scalar semantics follow docs/design/tileir.md and the reference interpreter's
``numerics`` module: f16/bf16 are computed in f32 and rounded once to the
type; integer arithmetic wraps; integer floordiv/rem/cdiv round toward
negative infinity; float max/min are IEEE 754-2019 maximum/minimum. The
helpers named ``tc_*`` are defined by each target's prelude.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

import tilec.ir as ir

__all__ = ["IndentedBuffer", "LineOrigin", "CLikeEmitter", "UnsupportedError", "Scalar",
           "TupleVal", "TokenVal", "Splat", "round_float", "prod", "shift_helpers"]


_SHIFT_HELPERS = r"""
/* ---- integers: shifts. The count is read as unsigned at the operand's width; one of at
   least the width shifts every bit out (0, or the sign fill for a signed >>, which is
   arithmetic; an unsigned >> is logical) ---- */
#define TC_SHIFTS(S, T, U, BITS) \
  {Q} T tc_shl_##S(T a, T c) { \
    return (U)c >= (BITS) ? (T)0 : (T)((U)a << (U)c); \
  } \
  {Q} T tc_shr_##S(T a, T c) { \
    return (T)(a >> ((U)c >= (BITS) ? (BITS) - 1 : (U)c)); \
  }
#define TC_USHIFTS(S, T, BITS) \
  {Q} T tc_shl_##S(T a, T c) { return c >= (BITS) ? (T)0 : (T)((uint32_t)a << c); } \
  {Q} T tc_shr_##S(T a, T c) { return c >= (BITS) ? (T)0 : (T)(a >> c); }
TC_SHIFTS(i8, int8_t, uint8_t, 8)
TC_SHIFTS(i16, int16_t, uint16_t, 16)
TC_SHIFTS(i32, int32_t, uint32_t, 32)
TC_SHIFTS(i64, int64_t, uint64_t, 64)
TC_SHIFTS(index, int64_t, uint64_t, 64)
TC_USHIFTS(u8, uint8_t, 8)
TC_USHIFTS(u16, uint16_t, 16)
TC_USHIFTS(u32, uint32_t, 32)
"""
"""The shift helpers as C, the same in every C-like prelude but for ``{Q}``, the target's
function qualifier; a line ending in a backslash continues a macro."""


def shift_helpers(qualifier: str) -> str:
    """The C text of ``tc_shl_*`` / ``tc_shr_*`` (docs/design/tileir.md: a count of at least
    the width shifts every bit out; ``>>`` is arithmetic on signed types, logical on unsigned
    ones), its functions declared with ``qualifier`` (``TC_INLINE``, ``TC_DEV``) and the
    macros' continuation backslashes aligned."""
    lines = []
    for line in _SHIFT_HELPERS.replace("{Q}", qualifier).strip("\n").splitlines():
        if line.endswith("\\"):
            line = f"{line[:-1].rstrip():<89} \\"
        lines.append(line)
    return "\n".join(lines) + "\n"


def prod(xs: Iterable[int]) -> int:
    """Product of integers (1 for none)."""
    n = 1
    for x in xs:
        n *= int(x)
    return n


class UnsupportedError(ir.TileIRError, ir.UserError):
    """The emitter cannot translate an operation; the message names it and its location."""

    def __init__(self, target: str, op: ir.Operation | None, reason: str) -> None:
        self.op = op
        """The operation that cannot be emitted (None for module-level problems)."""
        self.reason = reason
        """The bare reason, without the location."""
        where = op.loc if op is not None else ir.UNKNOWN
        what = f"cannot compile '{op.name}'" if op is not None else "cannot compile"
        super().__init__(ir.format_located(f"{target} backend {what}: {reason}", where))


@dataclass(frozen=True)
class LineOrigin:
    """The IR operation a generated line came from."""

    op_id: int
    """The operation's number in its module (``ir.op_number``)."""
    op_name: str
    """Its opcode."""
    loc: ir.Location
    """Its source location."""

    def __str__(self) -> str:
        return f"{self.op_name}#{self.op_id} at {self.loc}"


class IndentedBuffer:
    """Lines of generated source, each tagged with the IR operation that produced it."""

    def __init__(self, indent: str = "  ", depth: int = 0) -> None:
        self.indent_unit = indent
        """One level of indentation."""
        self.lines: list[str] = []
        """The text, one entry per line (no trailing newlines)."""
        self.origins: list[LineOrigin | None] = []
        """For each line, the operation it was generated for (None: scaffolding)."""
        self._depth = depth
        self._origin: LineOrigin | None = None

    def line(self, text: str = "") -> None:
        """Append one line (or several, split on newlines) at the current depth."""
        for part in text.split("\n"):
            self.lines.append(self.indent_unit * self._depth + part if part else "")
            self.origins.append(self._origin)

    def lines_of(self, texts: Sequence[str]) -> None:
        """Append several lines."""
        for t in texts:
            self.line(t)

    @contextmanager
    def indent(self, levels: int = 1) -> Iterator[IndentedBuffer]:
        """Indent lines written inside the ``with``."""
        self._depth += levels
        try:
            yield self
        finally:
            self._depth -= levels

    @contextmanager
    def block(self, header: str, trailer: str = "}") -> Iterator[IndentedBuffer]:
        """``header {`` ... ``}`` with the body indented."""
        self.line(f"{header} {{" if header else "{")
        with self.indent():
            yield self
        self.line(trailer)

    @contextmanager
    def origin(self, op: ir.Operation) -> Iterator[IndentedBuffer]:
        """Tag the lines written inside the ``with`` with ``op`` and open them with a comment."""
        saved = self._origin
        number = ir.op_number(op)
        self._origin = LineOrigin(number, op.name, op.loc)
        # the file's name only: an emitted source names no machine path (the line's
        # origin keeps the whole location for diagnostics)
        where = op.loc
        loc = f" at {os.path.basename(where.filename)}:{where.line}:{where.col + 1}" \
            if where.known else ""
        self.line(f"/* tilec: {op.name}#{number}{loc} */")
        try:
            yield self
        finally:
            self._origin = saved

    def splice(self, other: IndentedBuffer) -> None:
        """Append another buffer's lines (with their origins) at the current depth."""
        pad = self.indent_unit * self._depth
        for text, org in zip(other.lines, other.origins):
            self.lines.append(pad + text if text else "")
            self.origins.append(org)

    def origin_of_line(self, lineno: int) -> LineOrigin | None:
        """The operation behind 1-based line ``lineno`` of ``getvalue()`` (None if scaffolding)."""
        if 1 <= lineno <= len(self.origins):
            return self.origins[lineno - 1]
        return None

    def getvalue(self) -> str:
        """The whole text."""
        return "\n".join(self.lines) + "\n"


@dataclass
class Scalar:
    """A scalar value at emission time: a C expression (usually a local's name)."""

    expr: str
    """The C expression."""
    type: ir.ScalarType
    """Its TileIR type."""


@dataclass
class TupleVal:
    """A tuple: exists at compile time only, as the forms of its elements."""

    items: list
    """Element forms."""


@dataclass
class Splat:
    """A tile holding one value everywhere (not materialized)."""

    expr: str
    """The C expression of the value (in the compute type)."""
    shape: tuple[int, ...]
    """Static extents."""
    dtype: ir.ScalarType
    """Element type."""


@dataclass
class TokenVal:
    """A token (no runtime form on targets that order effects by program order)."""


_IDENT = re.compile(r"[^A-Za-z0-9_]")


class CLikeEmitter:
    """Shared machinery of the C-family emitters; targets override the tables."""

    TARGET: ClassVar[str] = "C-like"

    PRINTERS: ClassVar[dict[str, Callable[[Any, ir.Operation], None]]] = {}
    """Opcode -> a printer function ``(emitter, op)``, consulted before the ``emit_<opcode>``
    methods: a target keeps families of operations in modules of their own."""
    """Target name used in diagnostics."""

    SCALAR_CTYPES: ClassVar[dict[str, str]] = {
        "f16": "float", "bf16": "float", "f32": "float", "f64": "double", "i1": "uint8_t",
        "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t", "index": "int64_t",
        "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t",
    }
    """Type of a scalar or tile element in registers (narrow floats are held in f32)."""

    MEMORY_CTYPES: ClassVar[dict[str, str]] = {
        **SCALAR_CTYPES, "f16": "uint16_t", "bf16": "uint16_t",
    }
    """Type of an element in addressable memory (narrow floats as their bit patterns)."""

    NARROW_ROUND: ClassVar[dict[str, str]] = {
        "f16": "tc_round_f16({})", "bf16": "tc_round_bf16({})",
    }
    """Round an f32-held value to a narrow float type."""

    LOAD_CONVERT: ClassVar[dict[str, str]] = {
        "f16": "tc_f16_to_f32({})", "bf16": "tc_bf16_to_f32({})",
    }
    """Memory element -> register element, where they differ."""

    STORE_CONVERT: ClassVar[dict[str, str]] = {
        "f16": "tc_f32_to_f16({})", "bf16": "tc_f32_to_bf16({})",
    }
    """Register element (already rounded) -> memory element, where they differ."""

    # Per-function scalar expression templates; {0}, {1}, {2} are the operands,
    # {t} the C compute type and {s} a type suffix ("f32"/"f64", "i8".. for helpers).
    FLOAT_FNS: ClassVar[dict[str, str]] = {
        "add": "({0} + {1})", "sub": "({0} - {1})", "mul": "({0} * {1})", "div": "({0} / {1})",
        "rem": "tc_rem_{s}({0}, {1})", "pow": "tc_pow_{s}({0}, {1})",
        "max": "tc_max_{s}({0}, {1})", "min": "tc_min_{s}({0}, {1})",
        "neg": "(-{0})", "abs": "tc_abs_{s}({0})",
        "exp": "tc_exp_{s}({0})", "exp2": "tc_exp2_{s}({0})", "log": "tc_log_{s}({0})",
        "log2": "tc_log2_{s}({0})", "sqrt": "tc_sqrt_{s}({0})", "rsqrt": "tc_rsqrt_{s}({0})",
        "tanh": "tc_tanh_{s}({0})", "erf": "tc_erf_{s}({0})", "sigmoid": "tc_sigmoid_{s}({0})",
        "sin": "tc_sin_{s}({0})", "cos": "tc_cos_{s}({0})", "floor": "tc_floor_{s}({0})",
        "ceil": "tc_ceil_{s}({0})", "fma": "tc_fma_{s}({0}, {1}, {2})",
        "round_tf32": "tc_round_tf32({0})",
        "eq": "({0} == {1})", "ne": "({0} != {1})", "lt": "({0} < {1})", "le": "({0} <= {1})",
        "gt": "({0} > {1})", "ge": "({0} >= {1})",
    }
    """``arith`` on floats (f16/bf16 operands are f32 values; the result is rounded after)."""

    INT_FNS: ClassVar[dict[str, str]] = {
        "add": "(({t})({0} + {1}))", "sub": "(({t})({0} - {1}))", "mul": "(({t})({0} * {1}))",
        "max": "({0} > {1} ? {0} : {1})", "min": "({0} < {1} ? {0} : {1})",
        "neg": "(({t})(-{0}))", "abs": "(({t})({0} < 0 ? -{0} : {0}))",
        "and": "(({t})({0} & {1}))", "or": "(({t})({0} | {1}))", "xor": "(({t})({0} ^ {1}))",
        "not": "(({t})(~{0}))", "fma": "(({t})({0} * {1} + {2}))",
        "shl": "tc_shl_{s}({0}, {1})", "shr": "tc_shr_{s}({0}, {1})",
        "floordiv": "(({t})tc_floordiv_i64({0}, {1}, tc_st, {op}))",
        "rem": "(({t})tc_rem_i64({0}, {1}, tc_st, {op}))",
        "cdiv": "(({t})tc_cdiv_i64({0}, {1}, {tmin}, tc_st, {op}))",
        "eq": "({0} == {1})", "ne": "({0} != {1})", "lt": "({0} < {1})", "le": "({0} <= {1})",
        "gt": "({0} > {1})", "ge": "({0} >= {1})",
    }
    """``arith`` on integers and ``index``: two's complement wrap-around, Python division
    (unsigned types: wrap-around modulo ``2**bits``; their division is C's, which is the same
    floor division for values that are never negative)."""

    UINT_FNS: ClassVar[dict[str, str]] = {}
    """Unsigned ``arith`` where it differs from ``INT_FNS`` (consulted first)."""

    BOOL_FNS: ClassVar[dict[str, str]] = {
        "add": "({0} ^ {1})", "sub": "({0} ^ {1})", "mul": "({0} & {1})",
        "and": "({0} & {1})", "or": "({0} | {1})", "xor": "({0} ^ {1})", "not": "({0} ^ 1)",
        "max": "({0} | {1})", "min": "({0} & {1})",
        "eq": "({0} == {1})", "ne": "({0} != {1})", "lt": "({0} < {1})", "le": "({0} <= {1})",
        "gt": "({0} > {1})", "ge": "({0} >= {1})",
    }
    """``arith`` on ``i1``: arithmetic modulo 2 (add/sub are xor, mul is and; max/min or/and)."""

    COMPARISONS: ClassVar[frozenset[str]] = frozenset(("eq", "ne", "lt", "le", "gt", "ge"))
    """Functions that produce ``i1``."""

    NO_EMISSION: ClassVar[str] = "no {target} emission for this operation yet"
    """Message of the error for an operation the target has no ``emit_*`` method for."""

    fn: ir.Function
    """The function being emitted (set by each target's constructor)."""

    def __init__(self) -> None:
        self.buf = IndentedBuffer()
        """Where the function bodies go."""
        self.vals: dict[int, object] = {}
        """``id(value)`` -> the value's form (``Scalar``, ``TupleVal`` or a target's own)."""
        self.ops: dict[int, tuple[str, ir.Location]] = {}
        """Operation id -> (opcode, location) of every emitted operation."""
        self.sym_vars: dict[str, str] = {}
        """Shape symbol -> the C name holding its value."""
        self._names: dict[int, str] = {}
        self._counter = 0

    # -- errors -------------------------------------------------------------------
    def unsupported(self, op: ir.Operation | None, reason: str) -> UnsupportedError:
        """An ``UnsupportedError`` for ``op`` (raise it)."""
        return UnsupportedError(self.TARGET, op, reason)

    # -- naming -------------------------------------------------------------------
    def fresh(self, prefix: str = "t") -> str:
        """A C identifier never handed out before in this emitter."""
        self._counter += 1
        return f"{prefix}{self._counter}"

    def name_of(self, v: ir.Value) -> str:
        """The C identifier of SSA value ``v`` (stable; includes its name hint when it has one)."""
        key = id(v)
        n = self._names.get(key)
        if n is None:
            hint = _IDENT.sub("_", v.name_hint or "")[:24].strip("_")
            n = self.fresh("v") + (f"_{hint}" if hint else "")
            self._names[key] = n
        return n

    # -- types and literals --------------------------------------------------------
    def ctype(self, t: ir.ScalarType) -> str:
        """The register C type of a scalar type."""
        return self.SCALAR_CTYPES[t.name]

    UNSIGNED_CTYPES: ClassVar[dict[str, str]] = {"i32": "uint32_t", "i64": "uint64_t",
                                                  "index": "uint64_t", "u8": "uint32_t",
                                                  "u16": "uint32_t", "u32": "uint32_t"}
    """The unsigned type wrapping arithmetic of a wide integer goes through (``{u}``; ``u16``
    too, whose product would overflow the ``int`` it promotes to)."""

    def utype(self, t: ir.ScalarType) -> str:
        """``{u}`` of the integer templates: the unsigned counterpart, or ``int`` for types
        that promote to ``int`` (where their arithmetic cannot overflow)."""
        return self.UNSIGNED_CTYPES.get(t.name, "int")

    def mtype(self, t: ir.ScalarType) -> str:
        """The memory C type of a scalar type."""
        return self.MEMORY_CTYPES[t.name]

    @staticmethod
    def suffix(t: ir.ScalarType) -> str:
        """The helper-name suffix of a type's compute type (narrow floats compute as f32)."""
        return "f32" if t.name in ("f16", "bf16") else t.name

    def literal(self, value: Any, t: ir.ScalarType) -> str:
        """``value`` as a C literal of type ``t``, rounded once to ``t`` (hex floats are exact)."""
        if t.is_float:
            x = round_float(value, t.name)
            ct = self.ctype(t)
            if math.isnan(x):
                return f"(({ct})NAN)"
            if math.isinf(x):
                return f"(({ct})INFINITY)" if x > 0 else f"(-({ct})INFINITY)"
            text = float(x).hex()
            return text + ("f" if ct == "float" else "")
        if t is ir.i1:
            return "1" if value else "0"
        if isinstance(value, float):
            if not value.is_integer():
                raise ValueError(f"{value!r} is not an integer of type {t}")
            value = int(value)
        v = int(value)
        lo, hi = t.int_bounds
        if not lo <= v <= hi:
            raise ValueError(f"{v} does not fit in {t}")
        if t.is_unsigned:  # u32 values past INT32_MAX stay unsigned int, not long
            return f"{v}u" if t.bits == 32 else str(v)
        if t.bits == 64:
            return f"(-INT64_C({-(v + 1)}) - 1)" if v < 0 else f"INT64_C({v})"
        return f"(({self.ctype(t)}){v})" if v < 0 else str(v)


    # -- value table and dispatch ------------------------------------------------------
    def bind(self, v: ir.Value, r: object) -> None:
        """Record the C form of ``v``."""
        self.vals[id(v)] = r

    def get(self, v: ir.Value, user: ir.Operation | None = None) -> object:
        """The C form of ``v`` (a located error if it was never emitted)."""
        try:
            return self.vals[id(v)]
        except KeyError:
            raise self.unsupported(user, f"operand {v!r} is used before it is defined "
                                         "(or defined in an unsupported form)") from None

    def scalar(self, v: ir.Value, user: ir.Operation | None = None) -> str:
        """The C expression of a scalar value."""
        r = self.get(v, user)
        if not isinstance(r, Scalar):
            raise self.unsupported(user, f"expected a scalar operand, got {v.type}")
        return r.expr

    def emit_block(self, block: ir.Block) -> ir.Operation | None:
        """Emit a block's operations; returns its terminator (not emitted) if any."""
        term = None
        for op in block.operations:
            if op.name in ("yield", "br"):
                term = op
                break
            self.emit_op(op)
        return term

    def emit_op(self, op: ir.Operation) -> None:
        """Emit one operation (dispatch on ``emit_<opcode>``)."""
        self.ops[ir.op_number(op)] = (op.name, op.loc)
        printer = self.PRINTERS.get(op.name)
        method = None if printer is not None else \
            getattr(self, "emit_" + op.name.replace(".", "_"), None)
        if printer is None and method is None:
            raise self.unsupported(op, self.NO_EMISSION.format(target=self.TARGET))
        with self.buf.origin(op):
            if printer is not None:
                printer(self, op)
            else:
                method(op)  # type: ignore[misc]

    def alias(self, form: object) -> object:
        """The form of a second name for ``form`` (targets mark borrowed storage here)."""
        return form

    def dim_expr(self, dim: ir.Dim, op: ir.Operation) -> str:
        """A C expression for an extent."""
        if dim.is_static:
            return str(int(dim))
        var = self.sym_vars.get(str(dim.value))
        if var is None:
            raise self.unsupported(op, f"extent {dim} is not a shape symbol of @{self.fn.name}")
        return var

    # -- structured control and regions (storage comes from the target) ------------------
    def mutable_result(self, v: ir.Value, op: ir.Operation, init: ir.Value | None = None
                       ) -> object:
        """Mutable storage for a structured op's result, initialized from ``init``."""
        raise NotImplementedError(f"{type(self).__name__} declares no result storage")

    def assign(self, dsts: Sequence[object], srcs: Sequence[ir.Value], op: ir.Operation
               ) -> None:
        """Copy the forms of ``srcs`` into the storage ``dsts``."""
        raise NotImplementedError(f"{type(self).__name__} defines no assignment")

    def emit_if(self, op: ir.Operation) -> None:
        """``if (c) {then} else {else}`` with results assigned at the yields."""
        cond = self.scalar(op.operand(0), op)
        dsts = [self.mutable_result(r, op) for r in op.results]
        for k, header in enumerate((f"if ({cond})", "else")):
            with self.buf.block(header):
                term = self.emit_block(op.regions[k].entry)
                if term is not None:
                    self.assign(dsts, term.operands, term)
        for r, d in zip(op.results, dsts):
            self.bind(r, d)

    def emit_update(self, block: ir.Block, states: Sequence[str], elems: Sequence[str],
                    op: ir.Operation) -> ir.Operation:
        """Emit a reduce region on state and element expressions; returns its ``yield``."""
        n = len(states)
        for a, s in zip(block.args[:n], states):
            self.bind(a, Scalar(s, a.type))
        for a, x in zip(block.args[n:], elems):
            var = self.name_of(a)
            self.buf.line(f"const {self.ctype(a.type)} {var} = {x};")
            self.bind(a, Scalar(var, a.type))
        term = self.emit_block(block)
        if term is None:
            raise self.unsupported(op, "reduce region does not end with yield")
        return term

    def fold_update(self, block: ir.Block, states: Sequence[str], elems: Sequence[str],
                    op: ir.Operation) -> None:
        """Emit a reduce region and assign what it yields back to the state variables."""
        term = self.emit_update(block, states, elems, op)
        self.assign([Scalar(s, a.type) for s, a in zip(states, block.args[:len(states)])],
                    term.operands, term)

    # -- operations every C-like target emits alike ----------------------------------------
    def emit_constant(self, op: ir.Operation) -> None:
        """A scalar literal (targets extend this to tiles)."""
        t = op.result.type
        if not isinstance(t, ir.ScalarType):
            raise self.unsupported(op, f"constant of type {t}")
        self.bind(op.result, Scalar(self.literal(op.attr("value"), t), t))

    def emit_arith(self, op: ir.Operation) -> None:
        """One scalar function as a ``const`` local."""
        args = [self.scalar(v, op) for v in op.operands]
        t = op.result.type
        if not isinstance(t, ir.ScalarType):
            raise self.unsupported(op, f"arith producing {t}")
        var = self.name_of(op.result)
        self.buf.line(f"const {self.ctype(t)} {var} = {self.arith_expr(op, args)};")
        self.bind(op.result, Scalar(var, t))

    def emit_tuple(self, op: ir.Operation) -> None:
        """Tuples exist at compile time only."""
        self.bind(op.result, TupleVal([self.get(v, op) for v in op.operands]))

    def emit_tuple_get(self, op: ir.Operation) -> None:
        """Project a tuple element (an alias of it)."""
        r = self.get(op.operand(0), op)
        if not isinstance(r, TupleVal):
            raise self.unsupported(op, "tuple_get of a non-tuple")
        self.bind(op.result, self.alias(r.items[op.attr("index")]))

    def emit_br(self, op: ir.Operation) -> None:
        """Unstructured control flow is rejected."""
        raise self.unsupported(op, "unstructured control flow (br) is not supported")

    def emit_call(self, op: ir.Operation) -> None:
        """Calls are inlined by capture; a remaining call is rejected."""
        raise self.unsupported(op, f"calls (to @{op.attr('callee')}) are not supported; "
                                   "inline the callee")

    # -- scalar arithmetic ------------------------------------------------------------
    def arith_expr(self, op: ir.Operation, args: Sequence[str]) -> str:
        """The C expression of one ``arith`` operation over operand expressions ``args``."""
        fn = op.attr("fn")
        rt = op.result.type
        ots = [v.type for v in op.operands]
        if fn == "cast":
            return self.cast_expr(args[0], ots[0], rt, op)
        if fn == "select":
            return f"({args[0]} ? {args[1]} : {args[2]})"
        ot = ots[0] if ots else rt
        if not isinstance(ot, ir.ScalarType):
            raise self.unsupported(op, f"arith {fn} on {ot}")
        if ot is ir.i1:
            table = self.BOOL_FNS
        elif ot.is_float:
            table = self.FLOAT_FNS
        else:
            table = self.INT_FNS
        tmpl = self.UINT_FNS.get(fn) if ot.is_unsigned else None
        tmpl = tmpl or table.get(fn)
        if tmpl is None:
            raise self.unsupported(op, f"arith {fn} is not defined on {ot}")
        expr = tmpl.format(*args, t=self.ctype(ot), u=self.utype(ot), s=self.suffix(ot),
                           op=ir.op_number(op),
                           tmin=self.literal(_int_min(ot), ot) if ot.is_int and not ot.is_unsigned
                           else "-1")
        if fn in self.COMPARISONS:
            return f"(uint8_t){expr}"
        round_ = self.NARROW_ROUND.get(rt.name) if isinstance(rt, ir.ScalarType) else None
        return round_.format(expr) if round_ else expr

    def cast_expr(self, x: str, src: ir.Type, dst: ir.Type, op: ir.Operation | None) -> str:
        """Convert ``x`` from ``src`` to ``dst`` under TileIR's conversion rules."""
        if not (isinstance(src, ir.ScalarType) and isinstance(dst, ir.ScalarType)):
            raise self.unsupported(op, f"cast from {src} to {dst}")
        if src is dst:
            return x
        if dst is ir.i1:
            return f"(uint8_t)({x} != 0)"
        d, s = dst.name, src.name
        if src.is_float and dst.is_float:
            if d == "f64":
                return f"((double){x})"
            if s == "f64":
                return {"f32": f"((float){x})", "bf16": f"tc_round_bf16(tc_f64_to_f32_odd({x}))",
                        "f16": f"tc_round_f16(tc_f64_to_f32_odd({x}))"}[d]
            # f16 / bf16 / f32 held as float: widening is exact, narrowing rounds once.
            return self.NARROW_ROUND[d].format(x) if d in self.NARROW_ROUND else x
        if src.is_float:
            return f"tc_f2i_{'i64' if d == 'index' else d}((double){x})"
        if dst.is_float:
            wide = s in ("i64", "index")
            if d == "f64":
                return f"((double){x})"
            if d == "f32":
                return f"((float){x})"
            odd = f"tc_i64_to_f64_odd({x})" if wide else f"((double){x})"
            return self.NARROW_ROUND[d].format(f"tc_f64_to_f32_odd({odd})")
        return f"(({self.ctype(dst)}){x})"


def _int_min(t: ir.ScalarType) -> int:
    bits = 64 if t is ir.index else t.bits
    return -(1 << (bits - 1))


def round_float(value: Any, name: str) -> float:
    """A Python number rounded once to the float type ``name`` (returned as a Python float)."""
    import ml_dtypes

    if isinstance(value, bool):
        value = int(value)
    if name == "f64":
        return float(value)
    # An integer is first rounded to f64 *to odd* (exact when it fits), so the one rounding
    # below is a correct rounding of the integer itself.
    x = _int_to_f64_odd(value) if isinstance(value, int) else float(value)
    with np.errstate(over="ignore"):
        if name == "f32":
            return float(np.float32(x))
        # double -> narrow in one rounding: round to odd in f32 first (two spare bits suffice)
        f = np.float32(x)
        if math.isfinite(x) and float(f) != x:
            bits = np.array(f).view(np.uint32)
            if abs(float(f)) > abs(x):
                bits = bits - np.uint32(1)
            bits = bits | np.uint32(1)
            f = bits.view(np.float32)
        dt = ml_dtypes.bfloat16 if name == "bf16" else np.float16
        return float(np.asarray(f).astype(dt))


def _int_to_f64_odd(v: int) -> float:
    """An integer rounded to f64 *to odd* (exact when representable)."""
    f = float(v)
    if int(f) == v:
        return f
    if abs(int(f)) > abs(v):
        f = math.nextafter(f, 0.0)
    bits = np.array(f).view(np.uint64) | np.uint64(1)
    return float(bits.view(np.float64))

