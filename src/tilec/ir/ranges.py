"""Value ranges of integer scalars in Machine TileIR, for narrow index arithmetic.

Emitters compute every ``index`` in 64 bits because that is its type; most
index values in a kernel are small (thread ids, loop counters over tiles,
shared-memory offsets), and 64-bit signed floor division, comparison and
multiplication cost several instructions each on a GPU. This module bounds
every integer scalar by an interval so that an emitter can prove a value
fits in 32 bits, that a floor division or modulo has a non-negative operand
(a shift, a mask, an unsigned division), or that a guard is always true.

The intervals are exact mathematical bounds of the IR's value, which wraps
at its type's width: when an operation's exact result could leave the type,
the result gets the type's full range (never a wrong, wrapped bound). Sources:

* constants: the value itself;
* shape symbols (the function's trailing ``index`` parameters): ``[0, 2**63 - 1]``,
  user sizes are non-negative and otherwise unbounded;
* coordinates of a ``parallel``: ``[0, extent - 1]``, and for the grid also
  below the target's bound on a grid coordinate (``grid_bound``);
* loop counters (``serial``/``pipeline`` with a positive constant step):
  ``[lb.lo, ub.hi - 1]``;
* the arguments of a ``map`` region that stand for scalar operands: the operand's range;
* a loop's carried integers: the union of the initial value's range and of what one
  iteration yields, iterated to a fixed point (a select of ``x == c`` knows that ``x != c``
  on its other branch, so a wrapping ring slot settles); the type's range when it does not
  settle within a bounded number of rounds;
* any other value (parameters, ``if`` results): its type's range.

The same intervals decide which integer divisions need a zero-divisor test
(``divisor_may_be_zero``) and which counted loops need a test of their step
(``step_may_be_nonpositive``): a division by a constant or a provably nonzero
value, or a loop with a constant or provably positive step, costs nothing on
any target.

Cost: one pass over the function, O(operations), except that a loop with carried integers
is visited until its carried ranges settle (at most ``_CARRY_ROUNDS + 1`` times, nested loops
multiplying).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import tilec.ir as ir

__all__ = ["Range", "I32", "I64", "type_range", "arith_range", "affine_range",
           "analyze_ranges", "is_pow2", "INT_DIVISIONS", "is_int_division", "divisor_may_be_zero",
           "step_may_be_nonpositive"]


@dataclass(frozen=True)
class Range:
    """The closed interval ``[lo, hi]`` of Python integers."""

    lo: int
    """Smallest possible value."""
    hi: int
    """Largest possible value."""

    def __post_init__(self) -> None:
        if self.lo > self.hi:
            raise ValueError(f"empty range [{self.lo}, {self.hi}]")

    @staticmethod
    def point(v: int) -> Range:
        """The range of one value."""
        return Range(int(v), int(v))

    @property
    def is_point(self) -> bool:
        """True when only one value is possible."""
        return self.lo == self.hi

    @property
    def nonneg(self) -> bool:
        """True when every value is ``>= 0``."""
        return self.lo >= 0

    def within(self, other: Range) -> bool:
        """True when this range is a subset of ``other``."""
        return other.lo <= self.lo and self.hi <= other.hi

    def union(self, other: Range) -> Range:
        """The smallest range containing both."""
        return Range(min(self.lo, other.lo), max(self.hi, other.hi))

    def __add__(self, o: Range) -> Range:
        return Range(self.lo + o.lo, self.hi + o.hi)

    def __sub__(self, o: Range) -> Range:
        return Range(self.lo - o.hi, self.hi - o.lo)

    def __mul__(self, o: Range) -> Range:
        c = (self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi)
        return Range(min(c), max(c))

    def __neg__(self) -> Range:
        return Range(-self.hi, -self.lo)

    def __str__(self) -> str:
        return f"[{self.lo}, {self.hi}]"


I32 = Range(-(1 << 31), (1 << 31) - 1)
"""Values of a 32-bit signed integer."""
I64 = Range(-(1 << 63), (1 << 63) - 1)
"""Values of a 64-bit signed integer (and of ``index``)."""
BOOL = Range(0, 1)


def type_range(t: ir.Type) -> Range | None:
    """All values of an integer type (None for other types)."""
    if not isinstance(t, ir.ScalarType) or t.is_float:
        return None
    return Range(*t.int_bounds)


def is_pow2(c: int) -> bool:
    """True for 1, 2, 4, 8, ..."""
    return c > 0 and c & (c - 1) == 0


def floordiv_range(a: Range, c: int) -> Range:
    """``floor(a / c)`` for a positive constant ``c``."""
    return Range(a.lo // c, a.hi // c)


def mod_range(a: Range, c: int) -> Range:
    """``a mod c`` (floor semantics, in ``[0, c)``) for a positive constant ``c``."""
    if a.lo // c == a.hi // c:  # one period: the operand minus a constant
        return Range(a.lo % c, a.hi % c)
    return Range(0, c - 1)


def _div_corners(a: Range, b: Range, f: Callable[[int, int], int]) -> Range:
    """``f(x, y)`` over a box, for ``f`` monotone in each argument when ``y > 0``."""
    c = [f(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return Range(min(c), max(c))


def _bits_range(a: Range, b: Range, fn: str) -> Range | None:
    if not (a.nonneg and b.nonneg):
        return None
    if fn == "and":
        return Range(0, min(a.hi, b.hi))
    return Range(0, (1 << max(a.hi, b.hi).bit_length()) - 1)


def compare_range(fn: str, a: Range, b: Range) -> Range:
    """The ``i1`` result of comparing integers of ranges ``a`` and ``b``: a point when decided."""
    if fn in ("gt", "ge"):
        return compare_range("lt" if fn == "gt" else "le", b, a)
    if fn == "lt":
        true, false = a.hi < b.lo, a.lo >= b.hi
    elif fn == "le":
        true, false = a.hi <= b.lo, a.lo > b.hi
    else:
        same = a.is_point and a == b
        apart = a.hi < b.lo or b.hi < a.lo
        true, false = (same, apart) if fn == "eq" else (apart, same)
    return Range.point(1) if true else Range.point(0) if false else BOOL


def _bool_range(fn: str, args: Sequence[Range]) -> Range:
    """``i1`` arithmetic (modulo 2): and/or are monotone, the rest decided on points only."""
    fn = {"mul": "and", "min": "and", "max": "or", "add": "xor", "sub": "xor"}.get(fn, fn)
    if fn == "and":
        return Range(args[0].lo & args[1].lo, args[0].hi & args[1].hi)
    if fn == "or":
        return Range(args[0].lo | args[1].lo, args[0].hi | args[1].hi)
    if fn == "not":
        return Range(1 - args[0].hi, 1 - args[0].lo)
    if fn == "select":
        return _select_range(args)
    if fn == "xor" and args[0].is_point and args[1].is_point:
        return Range.point(args[0].lo ^ args[1].lo)
    return BOOL


def _select_range(args: Sequence[Range]) -> Range:
    """``select(c, x, y)``: a decided condition picks its branch, else either may be taken."""
    c = args[0]
    return args[1] if c == Range.point(1) else args[2] if c == Range.point(0) else \
        args[1].union(args[2])


def arith_range(fn: str, args: Sequence[Range], t: ir.Type) -> Range | None:
    """The range of ``arith fn`` with operand ranges ``args`` and result type ``t``.

    ``args`` are integer operands (a comparison of floats is not asked here).
    None for a non-integer result. An exact result outside ``t`` wraps, so it
    gets ``t``'s full range; a function this table does not know likewise.
    """
    full = type_range(t)
    if full is None:
        return None
    if fn in ("eq", "ne", "lt", "le", "gt", "ge"):
        return compare_range(fn, args[0], args[1])
    r: Range | None = None
    a = args[0] if args else full
    b = args[1] if len(args) > 1 else full
    if t is ir.i1:
        return _bool_range(fn, args) if fn != "cast" else \
            (Range.point(int(a.lo != 0)) if a.is_point else
             Range.point(1) if a.lo > 0 or a.hi < 0 else BOOL)
    if fn == "add":
        r = a + b
    elif fn == "sub":
        r = a - b
    elif fn == "mul":
        r = a * b
    elif fn == "fma":
        r = a * b + args[2]
    elif fn == "neg":
        r = -a
    elif fn == "abs":
        r = a if a.nonneg else Range(0 if a.lo <= 0 <= a.hi else min(abs(a.lo), abs(a.hi)),
                                     max(abs(a.lo), abs(a.hi)))
    elif fn == "max":
        r = Range(max(a.lo, b.lo), max(a.hi, b.hi))
    elif fn == "min":
        r = Range(min(a.lo, b.lo), min(a.hi, b.hi))
    elif fn == "select":
        r = _select_range(args)
    elif fn in ("floordiv", "cdiv") and b.lo > 0:
        f = (lambda x, y: x // y) if fn == "floordiv" else (lambda x, y: -((-x) // y))
        r = _div_corners(a, b, f)
    elif fn == "rem" and b.lo > 0:
        r = mod_range(a, b.lo) if b.is_point else \
            (a if a.nonneg and a.hi < b.lo else Range(0, b.hi - 1))
    elif fn in ("and", "or", "xor"):
        r = _bits_range(a, b, fn)
    elif fn == "cast":
        r = a
    if r is None or not r.within(full):
        return full
    return r


def affine_range(e: ir.AffineExpr, syms: Sequence[Range], dims: Sequence[Range] = ()
                 ) -> Range:
    """The range of a quasi-affine expression given its symbols' and dimensions' ranges."""
    r = Range.point(e.constant)
    for atom, c in e.terms:
        r = r + atom_range(atom, syms, dims) * Range.point(c)
    return r


def atom_range(atom: tuple, syms: Sequence[Range], dims: Sequence[Range] = ()) -> Range:
    """The range of one atom of an ``AffineExpr``."""
    if atom[0] == "d":
        return dims[atom[1]]
    if atom[0] == "s":
        return syms[atom[1]]
    inner = affine_range(atom[1], syms, dims)
    return floordiv_range(inner, atom[2]) if atom[0] == "floordiv" else mod_range(inner, atom[2])


# ----------------------------------------------------------------- the analysis


def analyze_ranges(fn: ir.Function, grid_bound: Callable[[int, int], int] | None = None
                   ) -> dict[int, Range]:
    """``id(value)`` -> range for every integer scalar of ``fn`` with something known.

    ``grid_bound(rank, k)``: an exclusive upper bound of grid coordinate ``k``
    of a rank-``rank`` grid on the target (None: only the extent bounds it).
    Values missing from the result have their type's full range.
    """
    out: dict[int, Range] = {}
    budget = [_VISIT_BUDGET]  # operations visited while loops' carried ranges settle
    n_sym = len(fn.shape_symbols)
    for a in fn.args[len(fn.args) - n_sym:] if n_sym else ():
        out[id(a)] = Range(0, I64.hi)

    def get(v: ir.Value) -> Range:
        r = out.get(id(v))
        if r is not None:
            return r
        return type_range(v.type) or I64

    def block(b: ir.Block) -> None:
        for op in b.operations:
            budget[0] -= 1
            visit(op)

    def visit(op: ir.Operation) -> None:
        name = op.name
        if name == "constant":
            v = op.attr("value")
            if type_range(op.result.type) is not None and isinstance(v, (int, bool)):
                out[id(op.result)] = Range.point(int(v))
        elif name == "arith":
            if all(type_range(v.type) is not None for v in op.operands):
                args = [get(v) for v in op.operands]
                if op.attr("fn") == "select" and op.num_operands == 3:
                    args = _refined_select(op, args, get)
                r = arith_range(op.attr("fn"), args, op.result.type)
                if r is not None:
                    out[id(op.result)] = r
        elif name == "parallel":
            rank = op.attr("rank")
            args = op.regions[0].entry.args
            for k in range(rank):
                hi = get(op.operand(k)).hi
                if op.attr("level") == "grid" and grid_bound is not None:
                    hi = min(hi, grid_bound(rank, k))
                out[id(args[k])] = Range(0, max(0, hi - 1))
        elif name == "map":
            for a, v in zip(op.regions[0].entry.args, op.operands):
                if not isinstance(v.type, ir.TileType) and type_range(v.type) is not None:
                    out[id(a)] = get(v)
        elif name in ("serial", "pipeline"):
            lb, ub, step = (get(v) for v in op.operands[:3])
            if step.is_point and step.lo > 0:
                r = Range(lb.lo, max(lb.lo, ub.hi - 1))
                for reg in op.regions:
                    out[id(reg.entry.args[0])] = r
            loop(op)
            return
        for reg in op.regions:
            for b in reg.blocks:
                block(b)

    def loop(op: ir.Operation) -> None:
        """A counted loop's carried integers: the smallest range holding the initial value and
        everything an iteration yields from a value of that range (iterated from the initial
        values; the type's range when that does not settle in ``_CARRY_ROUNDS`` rounds)."""
        stages = [reg.entry for reg in op.regions]
        cur: list[Range | None] = [get(v) if type_range(v.type) is not None else None
                                   for v in op.operands[3:]]
        for rnd in range(_CARRY_ROUNDS + 1):
            if rnd == _CARRY_ROUNDS or budget[0] < 0:  # not settled (or nested loops spent
                # the budget): what any value of the type allows
                cur = [type_range(v.type) if c is not None else None
                       for v, c in zip(op.operands[3:], cur)]
            given: list[Range | None] = list(cur)
            for b in stages:  # a stage's arguments are what the stage before it yields
                for a, g in zip(b.args[1:], given):
                    if g is not None:
                        out[id(a)] = g
                block(b)
                term = b.terminator
                ys = list(term.operands) if term is not None and term.name == "yield" else []
                given = [get(y) if type_range(y.type) is not None else None for y in ys]
            given += [None] * (len(cur) - len(given))
            new = [None if c is None else c.union(g) if g is not None else type_range(v.type)
                   for v, c, g in zip(op.operands[3:], cur, given)]
            if new == cur or not any(c is not None for c in cur):
                break
            cur = new
        for res, c in zip(op.results, cur):
            if c is not None:
                out[id(res)] = c

    block(fn.entry)
    return out


_CARRY_ROUNDS = 12
"""Rounds of a loop's carried ranges before they fall back to their types' ranges (a ring of
``n`` slots settles in ``n + 1``)."""

_VISIT_BUDGET = 1 << 20
"""Operation visits one analysis may spend on rounds (nested loops multiply them); past it,
each loop still unsettled takes its types' ranges at once."""


def _refined_select(op: ir.Operation, args: list[Range], get: Callable[[ir.Value], Range]
                    ) -> list[Range]:
    """The branch ranges of ``select(x == c, a, x)`` (or ``select(x != c, x, a)``) with the
    value ``x`` takes there: ``x``'s range less ``c`` where ``c`` is one of its ends (how a
    ring slot wraps: ``s + 1 == n ? 0 : s + 1`` stays in ``[0, n - 1]``)."""
    cond = op.operand(0).defining_op
    if cond is None or cond.name != "arith" or cond.attr("fn") not in ("eq", "ne") \
            or cond.num_operands != 2:
        return args
    k = 2 if cond.attr("fn") == "eq" else 1  # the branch where x != c
    for x, c in ((cond.operand(0), cond.operand(1)), (cond.operand(1), cond.operand(0))):
        rc, rx = get(c), get(x)
        if op.operand(k) is not x or not rc.is_point or rx.is_point:
            continue
        if rc.lo == rx.hi:
            rx = Range(rx.lo, rx.hi - 1)
        elif rc.lo == rx.lo:
            rx = Range(rx.lo + 1, rx.hi)
        out = list(args)
        out[k] = rx
        return out
    return args


# ------------------------------------------------------------ division by zero

INT_DIVISIONS = ("floordiv", "rem", "cdiv")
"""The ``arith`` functions that fail on an integer zero divisor."""


def is_int_division(op: ir.Operation) -> bool:
    """True for an integer ``floordiv``/``rem``/``cdiv`` (float ``rem`` never fails)."""
    if op.name != "arith" or op.attr("fn") not in INT_DIVISIONS or op.num_operands != 2:
        return False
    t = op.operand(1).type
    return isinstance(t, ir.ScalarType) and not t.is_float


def divisor_may_be_zero(op: ir.Operation, ranges: dict[int, Range]) -> bool:
    """True when integer division ``op``'s divisor is not provably nonzero under ``ranges``
    (``analyze_ranges`` of its function); False for anything but an integer division."""
    if not is_int_division(op):
        return False
    v = op.operand(1)
    r = ranges.get(id(v)) or type_range(v.type) or I64
    return r.lo <= 0 <= r.hi


def step_may_be_nonpositive(op: ir.Operation, ranges: dict[int, Range]) -> bool:
    """True when counted loop ``op`` (``serial``/``pipeline``) has a step that is not provably
    positive under ``ranges`` (a run-time error, tileir.md); False for any other operation."""
    if op.name not in ("serial", "pipeline"):
        return False
    v = op.operand(2)
    r = ranges.get(id(v)) or type_range(v.type) or I64
    return r.lo <= 0
