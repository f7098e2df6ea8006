"""The ``shared`` family (off unless named): a pure value with several consumers.

``tN = f(x)`` (an elementwise expression of the instance's shape, its outermost node a
unary function or a binary operation, so capture makes it one ``map``), then two or three
stores that each read ``tN`` in their own expression (``tN op y``, ``g(tN)``, ``tN`` as it
is), so ``tN`` reaches the planner as one value with several consumers: what
``PlannerOptions.shared_ssa`` retains, recomputes or materializes (the fuzzer's
``+ssa:MODE`` paths). The ``elementwise`` family's ``let`` binds values too, but a later
expression reads them only when a ``var`` leaf happens to pick them (3 of 234 programs of
a default campaign had a value with two consumers).
"""

from __future__ import annotations

from typing import Any

from .gen_elementwise import Bin, Un
from .generator import STATEMENTS, Gen, StmtMaker, own_block
from .program import Expr, Let, Stmt, Store

__all__: list[str] = []

_FLOAT_FNS = [("exp", 3), ("neg", 2), ("tanh", 1), ("sqrt", 1), ("abs", 1), ("sigmoid", 1)]
"""Unary functions of a float value (expensive and cheap ones, for ``expensive_only``)."""


def _value(g: Gen, shape: tuple[int, ...], dt: Any) -> Expr:
    """A map-shaped expression: a unary function or a binary operation at the top."""
    x = g.tile(shape, dt, 2)
    if dt.is_float and g.s.draw(2):
        return Un(g.s.weighted(_FLOAT_FNS), x, shape, dt)
    if dt.is_bool:
        return Un("not", x, shape, dt)
    fn = g.s.weighted([("mul", 2), ("add", 2), ("sub", 1), ("max", 1)])
    return Bin(fn, x, g.tile(shape, dt, 1), shape, dt)


def _consumer(g: Gen, v: Expr, shape: tuple[int, ...], dt: Any) -> Expr:
    """An expression that reads ``v``."""
    k = g.s.draw(3)
    if k == 0 or dt.is_bool:
        return v if dt.is_bool or k == 0 else Un("neg", v, shape, dt)
    if k == 1 and dt.is_float:
        return Un(g.s.weighted(_FLOAT_FNS), v, shape, dt)
    return Bin(g.s.weighted([("mul", 2), ("add", 2), ("min", 1)]), v, g.tile(shape, dt, 1),
               shape, dt)


def _shared(g: Gen) -> list[Stmt]:
    """``tN = f(x)`` and two or three stores reading it."""
    dt = g.float_dt() if g.s.draw(4) else g.any_dt()
    shape = g.shape
    name = g.fresh("t")
    stmts: list[Stmt] = [Let(name, _value(g, shape, dt))]
    v = g.bind(name, shape, dt)
    for _ in range(2 + g.s.draw(2)):
        p, origin = own_block(g, "out", dt)
        stmts.append(Store(p.name, tuple(origin), _consumer(g, v, shape, dt)))
    return stmts


STATEMENTS.extend([StmtMaker("shared", "shared_value", 4, _shared)])
