"""Elementwise chains over every dtype: arithmetic, comparisons, ``where``, casts, constants,
runtime scalars, broadcasts and tile views (``.T``, ``[:, None]``, ``tc.broadcast``, slices).

Integer divisors are ``y * y + 1``, which is never 0 in wrapping arithmetic
(``y * y`` is never ``-1`` modulo a power of two), or a constant other than
0 and -1, so no program divides by zero or computes ``INT_MIN // -1``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from . import numerics as nx
from .generator import PRODUCERS, STATEMENTS, Gen, Producer, StmtMaker
from .numerics import DT, DTYPES, MV
from .program import Env, Expr, Let, Stmt, render_number

__all__ = ["Full", "Num", "Scalar", "Bin", "Un", "Cast", "Cmp", "Where", "Fma", "Pick", "View"]

_BIN_SYM = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "rem": "%",
            "pow": "**", "and": "&", "or": "|", "xor": "^", "shl": "<<", "shr": ">>"}
_CMP_SYM = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


@dataclass
class Full(Expr):
    """``tc.full(shape, v, dt)`` (or ``zeros``/``ones``)."""

    shape: tuple[int, ...]
    """The tile shape."""
    dt: DT
    """The element type."""
    value: float | int | bool
    """The constant."""
    how: int = 0
    """0: ``tc.full``, 1: ``tc.zeros``/``tc.ones`` when the value allows."""

    def render(self) -> str:
        shp = "(" + ", ".join(map(str, self.shape)) + ("," if len(self.shape) == 1 else "") + ")"
        if self.how and self.value in (0, 1) and not (isinstance(self.value, float)
                                                      and np.signbit(self.value)):
            fn = "tc.zeros" if self.value == 0 else "tc.ones"
            return f"{fn}({shp}, {self.dt.tc})"
        return f"tc.full({shp}, {render_number(self.value, self.dt)}, {self.dt.tc})"

    def model(self, env: Env) -> MV:
        v = np.asarray(self.value, np.float64) if self.dt.is_float else np.asarray(self.value)
        a = nx.round_to(np.full(self.shape, v, np.float64), self.dt) if self.dt.is_float \
            else np.full(self.shape, self.value).astype(self.dt.np)
        return nx.exact(a, self.dt)


@dataclass
class Num(Expr):
    """A Python number as an operand: it takes the other operand's type."""

    value: float | int
    """The number as written."""
    dt: DT
    """The type it takes from the other operand."""
    shape: tuple[int, ...] = ()
    """Always rank 0."""

    def render(self) -> str:
        return render_number(self.value, self.dt)

    def model(self, env: Env) -> MV:
        if self.dt.is_float:
            return nx.exact(nx.round_to(np.asarray(float(self.value), np.float64), self.dt),
                            self.dt)
        return nx.exact(np.asarray(int(self.value)).astype(self.dt.np), self.dt)


@dataclass
class Scalar(Expr):
    """A runtime scalar argument as an operand: converted to the tile's type."""

    name: str
    """The parameter's name."""
    src: DT
    """The scalar's own type."""
    dt: DT
    """The tile type it is converted to."""
    shape: tuple[int, ...] = ()
    """Always rank 0."""
    features = ("scalar_arg",)

    def render(self) -> str:
        return self.name

    def model(self, env: Env) -> MV:
        return nx.cast(env.scalars[self.name], self.dt)


@dataclass
class Bin(Expr):
    """``a op b`` or ``tc.maximum``/``tc.minimum`` (numpy broadcasting)."""

    fn: str
    """The arith function (add, sub, ..., max, min, and, or, xor)."""
    a: Expr
    """Left operand."""
    b: Expr
    """Right operand (a tile, a broadcast tile, a number or a scalar)."""
    shape: tuple[int, ...]
    """The broadcast shape."""
    dt: DT
    """The operands' (and result's) type."""

    def render(self) -> str:
        if self.fn in ("max", "min"):
            return f"tc.{self.fn}imum({self.a.render()}, {self.b.render()})"
        return f"({self.a.render()} {_BIN_SYM[self.fn]} {self.b.render()})"

    def model(self, env: Env) -> MV:
        x, y = self.a.model(env), self.b.model(env)
        return nx.binary(self.fn, x, y)

    def children(self) -> tuple[Expr, ...]:
        return (self.a, self.b)

    @property
    def features(self) -> tuple[str, ...]:  # type: ignore[override]
        return (f"dtype:{self.dt.name}",)


@dataclass
class Un(Expr):
    """``-a``, ``~a``, ``tc.abs(a)``, ``tc.exp(a)`` ..."""

    fn: str
    """The function (neg, not, abs, sqrt, floor, exp, ...)."""
    a: Expr
    """The operand."""
    shape: tuple[int, ...]
    """Its shape."""
    dt: DT
    """Its type."""

    def render(self) -> str:
        if self.fn == "neg":
            return f"(-{self.a.render()})"
        if self.fn == "not":
            return f"(~{self.a.render()})"
        return f"tc.{self.fn}({self.a.render()})"

    def model(self, env: Env) -> MV:
        return nx.unary(self.fn, self.a.model(env))

    def children(self) -> tuple[Expr, ...]:
        return (self.a,)

    @property
    def features(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("transcendental",) if self.fn in nx.TRANSCENDENTAL else ()


@dataclass
class Cast(Expr):
    """``a.to(dt)``, ``tc.cast(a, dt)`` or ``dt(a)``."""

    a: Expr
    """The value converted."""
    shape: tuple[int, ...]
    """Its shape."""
    dt: DT
    """The target type."""
    how: int = 0
    """0: ``.to``; 1: ``tc.cast``; 2: the dtype called."""

    def render(self) -> str:
        if self.how == 1:
            return f"tc.cast({self.a.render()}, {self.dt.tc})"
        if self.how == 2:
            return f"{self.dt.tc}({self.a.render()})"
        return f"{self.a.render()}.to({self.dt.tc})"

    def model(self, env: Env) -> MV:
        return nx.cast(self.a.model(env), self.dt)

    def children(self) -> tuple[Expr, ...]:
        return (self.a,)

    features = ("cast",)


@dataclass
class Cmp(Expr):
    """``a < b`` ... (a ``bool_`` tile)."""

    fn: str
    """lt, le, gt, ge, eq or ne."""
    a: Expr
    """Left operand."""
    b: Expr
    """Right operand."""
    shape: tuple[int, ...]
    """The broadcast shape."""
    dt: DT
    """``i1``."""

    def render(self) -> str:
        return f"({self.a.render()} {_CMP_SYM[self.fn]} {self.b.render()})"

    def model(self, env: Env) -> MV:
        return nx.compare(self.fn, self.a.model(env), self.b.model(env))

    def children(self) -> tuple[Expr, ...]:
        return (self.a, self.b)


class _Call(Expr):
    """``tc.<fn>(...)`` of the operands ``children()`` lists, whose model is ``nx.<fn>`` of
    theirs: the DSL functions the generator calls with three operands."""

    fn: ClassVar[str]
    """The function's name in the DSL (``tc``) and in the model (``numerics``) alike."""

    def render(self) -> str:
        return f"tc.{self.fn}(" + ", ".join(e.render() for e in self.children()) + ")"

    def model(self, env: Env) -> MV:
        return getattr(nx, self.fn)(*(e.model(env) for e in self.children()))


@dataclass
class Where(_Call):
    """``tc.where(c, a, b)``."""

    c: Expr
    """The ``bool_`` condition."""
    a: Expr
    """Where true."""
    b: Expr
    """Where false."""
    shape: tuple[int, ...]
    """The result shape."""
    dt: DT
    """The result type."""
    fn = "where"

    def children(self) -> tuple[Expr, ...]:
        return (self.c, self.a, self.b)


@dataclass
class Fma(_Call):
    """``tc.fma(a, b, c)``."""

    a: Expr
    """First factor."""
    b: Expr
    """Second factor."""
    c: Expr
    """Addend."""
    shape: tuple[int, ...]
    """The shape."""
    dt: DT
    """The type."""
    fn = "fma"

    def children(self) -> tuple[Expr, ...]:
        return (self.a, self.b, self.c)


@dataclass
class Pick(Expr):
    """``a if s > 0 else b`` on a runtime scalar argument (both sides evaluated)."""

    scalar: str
    """The scalar argument compared with zero."""
    a: Expr
    """The value when it is positive."""
    b: Expr
    """The value otherwise."""
    shape: tuple[int, ...]
    """The shape of both sides."""
    dt: DT
    """Their type."""
    features = ("select_scalar",)

    def render(self) -> str:
        return f"({self.a.render()} if {self.scalar} > 0 else {self.b.render()})"

    def model(self, env: Env) -> MV:
        s = env.scalars[self.scalar]
        a, b = self.a.model(env), self.b.model(env)
        return a if bool(s.a > 0) else b

    def children(self) -> tuple[Expr, ...]:
        return (self.a, self.b)


@dataclass
class View(Expr):
    """A tile view: ``.T``, ``[:, None]``/``[None, :]``, ``tc.broadcast``, a static slice,
    ``reshape``."""

    kind: str
    """``T``, ``expand0``, ``expand1``, ``broadcast``, ``slice``, ``reshape``."""
    a: Expr
    """The tile viewed."""
    shape: tuple[int, ...]
    """The view's shape."""
    dt: DT
    """The element type."""
    start: tuple[int, ...] = ()
    """Slice starts (``slice``)."""
    step: tuple[int, ...] = ()
    """Slice steps (``slice``)."""

    def render(self) -> str:
        x = self.a.render()
        if self.kind == "T":
            return f"{x}.T"
        if self.kind == "expand0":
            return f"{x}[None, :]" if len(self.a.shape) == 1 else f"{x}[None]"
        if self.kind == "expand1":
            return f"{x}[:, None]"
        if self.kind == "broadcast":
            return f"tc.broadcast({x}, ({', '.join(map(str, self.shape))}" + \
                ("," if len(self.shape) == 1 else "") + "))"
        if self.kind == "reshape":
            return f"{x}.reshape({', '.join(map(str, self.shape))})"
        parts = []
        for st, sp, n in zip(self.start, self.step, self.shape):
            stop = st + sp * (n - 1) + 1
            parts.append(f"{st}:{stop}" + (f":{sp}" if sp != 1 else ""))
        return f"{x}[{', '.join(parts)}]"

    def model(self, env: Env) -> MV:
        v = self.a.model(env)
        if self.kind == "T":
            return MV(np.ascontiguousarray(v.a.T), np.ascontiguousarray(v.e.T), v.dt)
        if self.kind in ("expand0", "expand1", "broadcast", "reshape"):
            if self.kind == "reshape":
                return MV(v.a.reshape(self.shape), v.e.reshape(self.shape), v.dt)
            a, e = v.a, v.e
            if self.kind == "expand0":
                a, e = a[None], e[None]
            elif self.kind == "expand1":
                a, e = a[:, None], e[:, None]
            else:
                a = np.broadcast_to(a, self.shape).copy()
                e = np.broadcast_to(e, self.shape).copy()
            return MV(a, e, v.dt)
        sl = tuple(slice(st, st + sp * (n - 1) + 1, sp)
                   for st, sp, n in zip(self.start, self.step, self.shape))
        return MV(v.a[sl].copy(), v.e[sl].copy(), v.dt)

    def children(self) -> tuple[Expr, ...]:
        return (self.a,)

    @property
    def features(self) -> tuple[str, ...]:  # type: ignore[override]
        return (f"view:{self.kind}",)


# ---------------------------------------------------------------------- producers


def _constant(g: Gen, dt: DT) -> float | int | bool:
    if dt.is_bool:
        return bool(g.s.draw(2))
    if dt.is_unsigned:
        return g.s.pick([1, 2, 3, 0, 5, 7, 100, 255])
    if dt.is_int:
        return g.s.pick([1, 2, -3, 0, 5, 7, -1, 100])
    return g.s.pick([1.0, 2.0, 0.5, -1.5, 0.0, 3.25, -0.0, 0.1, 1e-3, 100.0, float("inf"),
                     float("nan")])


def _full(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    return Full(shape, dt, _constant(g, dt), g.s.draw(2))


def _var(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    v = g.var(shape, dt)
    assert v is not None
    return v


def operand(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    """A second operand: a tile of ``shape``, a broadcast one, a number or a scalar argument."""
    k = g.s.weighted([("tile", 6), ("num", 3), ("bcast", 2), ("scalar", 1)])
    if k == "num" and not dt.is_bool:
        return Num(_constant(g, dt), dt)
    if k == "scalar" and not dt.is_bool and dt.name in ("f32", "f16", "bf16", "f64", "i32",
                                                          "i64"):
        src = DTYPES["f32"] if dt.is_float else DTYPES["i32"]
        p = g.scalar(src)
        return Scalar(p.name, src, dt)
    if k == "bcast" and len(shape) >= 1:
        return broadcastable(g, shape, dt, depth)
    return g.tile(shape, dt, depth)


def broadcastable(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    """A tile that broadcasts to ``shape``: rank 0, or one axis made unit."""
    if len(shape) != 2 or g.s.draw(3) == 0:
        if len(shape) == 1 and g.s.draw(2):
            inner = g.tile((1,), dt, depth)
            return inner
        return g.tile((), dt, depth)
    axis = g.s.draw(2)
    inner = g.tile((shape[1 - axis],), dt, depth)
    kind = "expand0" if axis == 0 else "expand1"
    out = (1, shape[1]) if axis == 0 else (shape[0], 1)
    return View(kind, inner, out, dt)


_FLOAT_FNS = [("add", 6), ("sub", 4), ("mul", 5), ("div", 2), ("max", 2), ("min", 2),
              ("rem", 1), ("pow", 1)]
_INT_FNS = [("add", 5), ("sub", 3), ("mul", 4), ("floordiv", 2), ("rem", 2), ("max", 2),
            ("min", 1), ("and", 1), ("or", 1), ("xor", 1)]
_BOOL_FNS = [("and", 2), ("or", 2), ("xor", 1)]
_UINT_FNS = [*_INT_FNS, ("shl", 2), ("shr", 3)]
"""Unsigned types (the ``unsigned`` feature) also shift; signed ones keep ``_INT_FNS`` so
that recorded streams replay."""


def _binary(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    fns = _FLOAT_FNS if dt.is_float else _BOOL_FNS if dt.is_bool else \
        _UINT_FNS if dt.is_unsigned else _INT_FNS
    fn = g.s.weighted(fns)
    a = g.tile(shape, dt, depth)
    if fn in ("shl", "shr"):  # counts past the width (and wrapped ones) included
        b: Expr = Num(g.s.pick([0, 1, 3, dt.bits - 1, dt.bits, dt.bits + 1]), dt) \
            if g.s.draw(2) else g.tile(shape, dt, max(depth - 1, 0))
        return Bin(fn, a, b, shape, dt)
    if fn == "pow":
        return Bin(fn, a, Num(g.s.pick([2.0, 0.5, 3.0, -1.0]), dt), shape, dt)
    if fn in ("floordiv", "rem") and dt.is_int:
        if g.s.draw(2):
            ks = [3, 2, 5, 1, 7, 4] if dt.is_unsigned else [3, 2, 5, -3, 7, -4]
            return Bin(fn, a, Num(g.s.pick(ks), dt), shape, dt)
        y = g.tile(shape, dt, max(depth - 1, 0))
        return Bin(fn, a, Bin("add", Bin("mul", y, y, shape, dt), Num(1, dt), shape, dt),
                   shape, dt)
    if fn == "rem":
        return Bin(fn, a, Num(g.s.pick([1.5, 2.0, -3.0, 0.75]), dt), shape, dt)
    b = operand(g, shape, dt, depth)
    if g.s.draw(4) == 0 and isinstance(b, (Num, Scalar)):
        a, b = b, a  # a number or scalar on the left
        if isinstance(a, Num) and isinstance(b, Num):
            a = g.tile(shape, dt, 0)
    return Bin(fn, a, b, tuple(np.broadcast_shapes(_shape(a), _shape(b)) or shape), dt)


def _shape(e: Expr) -> tuple[int, ...]:
    return tuple(getattr(e, "shape", ()))


_FLOAT_UN = [("neg", 3), ("abs", 3), ("sqrt", 2), ("floor", 1), ("ceil", 1), ("exp", 2),
             ("exp2", 1), ("log", 1), ("log2", 1), ("tanh", 1), ("erf", 1), ("sigmoid", 1),
             ("rsqrt", 1), ("sin", 1), ("cos", 1)]


def _unary(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    if dt.is_float:
        fn = g.s.weighted(_FLOAT_UN)
    elif dt.is_bool:
        fn = "not"
    else:
        fn = g.s.weighted([("neg", 2), ("abs", 2), ("not", 1)])
    return Un(fn, g.tile(shape, dt, depth), shape, dt)


def _cast(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    src = g.any_dt()
    if src is dt:
        src = DTYPES["f32"] if dt.name != "f32" else DTYPES["i32"]
    return Cast(g.tile(shape, src, depth), shape, dt, g.s.draw(3))


def _compare(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    src = g.any_dt()
    if src.is_bool:
        src = DTYPES["f32"]
    fn = g.s.pick(list(_CMP_SYM))
    a = g.tile(shape, src, depth)
    b = operand(g, shape, src, depth)
    return Cmp(fn, a, b, tuple(np.broadcast_shapes(shape, _shape(b))), dt)


def _where(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    c = g.tile(shape, DTYPES["i1"], depth)
    return Where(c, g.tile(shape, dt, depth), operand(g, shape, dt, depth), shape, dt)


def _pick(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    p = g.scalar(DTYPES["i32"] if g.s.draw(2) else DTYPES["f32"])
    return Pick(p.name, g.tile(shape, dt, depth), g.tile(shape, dt, depth), shape, dt)


def _fma(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    return Fma(g.tile(shape, dt, depth), g.tile(shape, dt, depth), g.tile(shape, dt, depth),
               shape, dt)


def _transpose(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    return View("T", g.tile(shape[::-1], dt, depth), shape, dt)


def _broadcast(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    if g.s.draw(2) and len(shape) == 2:
        inner = g.tile((shape[1],), dt, depth)
    else:
        inner = g.tile(tuple(1 for _ in shape) if g.s.draw(2) else (), dt, depth)
    return View("broadcast", inner, shape, dt)


def _slice(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    steps = tuple(g.s.pick([1, 2]) for _ in shape)
    starts = tuple(g.s.draw(3) for _ in shape)
    big = tuple(st + sp * (n - 1) + 1 + g.s.draw(2) for st, sp, n in zip(starts, steps, shape))
    return View("slice", g.tile(big, dt, depth), shape, dt, starts, steps)


def _reshape(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    n = int(np.prod(shape))
    if len(shape) == 2:
        src: tuple[int, ...] = (n,)
    else:
        divs = [d for d in range(1, n + 1) if n % d == 0]
        d = g.s.pick(divs)
        src = (d, n // d)
    return View("reshape", g.tile(src, dt, depth), shape, dt)


def _let(g: Gen) -> list[Stmt]:
    """``tN = <expression>``: a shared value (a value used twice stays one value)."""
    shape = g.shape if g.s.draw(3) else (g.shape[::-1] if len(g.shape) == 2 else g.shape)
    dt = g.any_dt()
    e = g.tile(shape, dt, 3)
    name = g.fresh("t")
    g.bind(name, shape, dt)
    return [Let(name, e)]


def _rank(shape: tuple[int, ...]) -> int:
    return len(shape)


PRODUCERS.extend([
    Producer("base", "var", 8, lambda g, s, d: g.var(s, d) is not None, _var),
    Producer("base", "full", 1, lambda g, s, d: True, _full),
    Producer("elementwise", "binary", 8, lambda g, s, d: True, _binary),
    Producer("elementwise", "unary", 3, lambda g, s, d: not d.is_bool or True, _unary),
    Producer("elementwise", "cast", 2, lambda g, s, d: True, _cast),
    Producer("elementwise", "compare", 3, lambda g, s, d: d.is_bool, _compare),
    Producer("elementwise", "where", 2, lambda g, s, d: True, _where),
    Producer("elementwise", "fma", 1, lambda g, s, d: d.is_float, _fma),
    Producer("elementwise", "pick", 1, lambda g, s, d: True, _pick),
    Producer("elementwise", "transpose", 1, lambda g, s, d: _rank(s) == 2, _transpose),
    Producer("elementwise", "broadcast", 1, lambda g, s, d: _rank(s) >= 1, _broadcast),
    Producer("elementwise", "slice", 1, lambda g, s, d: 1 <= _rank(s) <= 2
             and int(np.prod(s)) <= 1024, _slice),
    Producer("elementwise", "reshape", 1, lambda g, s, d: 1 <= _rank(s) <= 2
             and int(np.prod(s)) <= 1024, _reshape),
])

STATEMENTS.extend([StmtMaker("elementwise", "let", 4, _let)])
