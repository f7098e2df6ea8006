"""The ``exchange`` family (off unless named): ``atomic_xchg`` and ``atomic_cas`` through a
window of the instance's own block of a seeded array, binding the old tile for later use.

Each instance exchanges into its own block (blocks are disjoint), so every order of the
instances gives the same memory and the same old tiles, which the model computes
exactly: the old tile is the window's contents (its fill, zero without one, past the
array), then memory takes the value (``xchg``), or the value where memory has the
compared value's bits (``cas``). The compared value is a constant or the window's own
contents read just before (every in-range element then matches). Element types are
``int32`` and ``float32``, which every target exchanges, and ``uint32`` with the
``unsigned`` feature.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .generator import STATEMENTS, Gen, StmtMaker, own_block
from .numerics import DT, DTYPES, MV, cast
from .program import Env, Expr, IndexExpr, Stmt, render_number, window_index

__all__ = ["Exchange"]


@dataclass
class Exchange(Stmt):
    """``name = P.tile(origin, shape[, fill=F]).atomic_xchg(value)`` or
    ``.atomic_cas(compare, value)``."""

    name: str
    """The local bound to the old tile."""
    param: str
    """The array exchanged into."""
    origin: tuple[IndexExpr, ...]
    """The window's origin."""
    shape: tuple[int, ...]
    """The window's (and the old tile's) shape."""
    dt: DT
    """The array's element type."""
    fill: int | float | None
    """The window's fill (None: none, so out-of-range elements return zero)."""
    value: Expr
    """What is exchanged in (converted to ``dt``)."""
    compare: Expr | None = None
    """The compared value (``cas``); None for ``xchg``."""

    def render(self, lines: list[str], indent: int) -> None:
        comma = "," if len(self.origin) == 1 else ""
        org = ", ".join(o.render() for o in self.origin) + comma
        shp = ", ".join(map(str, self.shape)) + comma
        fill = "" if self.fill is None else f", fill={render_number(self.fill, self.dt)}"
        call = f"atomic_xchg({self.value.render()})" if self.compare is None else \
            f"atomic_cas({self.compare.render()}, {self.value.render()})"
        lines.append("    " * indent + f"{self.name} = {self.param}.tile(({org}), ({shp}){fill})"
                     f".{call}")

    def model(self, env: Env) -> None:
        mem = env.memories[self.param]
        cmp = None if self.compare is None else cast(self.compare.model(env), self.dt)
        val = cast(self.value.model(env), self.dt)
        org = tuple(o.value(env) for o in self.origin)
        idx, inside = window_index(mem.shape, org, self.shape, False)
        fill = np.asarray(0 if self.fill is None else self.fill).astype(self.dt.np)
        old_a = np.where(inside, mem.a[idx], fill).astype(self.dt.np)
        old_e = np.where(inside, mem.e[idx], 0.0)
        env.vars[self.name] = MV(old_a, old_e, self.dt)
        va = np.broadcast_to(val.a, self.shape)
        ve = np.broadcast_to(val.e, self.shape)
        take = inside.copy()
        if cmp is not None:
            word = np.dtype(f"u{self.dt.np.itemsize}")
            ca = np.ascontiguousarray(np.broadcast_to(cmp.a, self.shape))
            ce = np.broadcast_to(cmp.e, self.shape)
            if np.any(inside & ((old_e != 0) | (ce != 0))):
                raise AssertionError("exchange: an inexact compare is not generated")
            take &= np.ascontiguousarray(old_a).view(word) == ca.view(word)
        sel = tuple(c[take] for c in idx)
        mem.a[sel] = va[take]
        mem.e[sel] = ve[take]

    def exprs(self) -> tuple[Expr, ...]:
        return (self.value,) if self.compare is None else (self.compare, self.value)

    @property
    def features(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("atomic_xchg",) if self.compare is None else ("atomic_cas",)


def _exchange(g: Gen) -> list[Stmt]:
    from .gen_windows import Load

    s = g.s
    dt = DTYPES[s.pick(["f32", "i32"])]
    if dt.name == "i32" and g.on("unsigned") and s.coin(3):  # no draw without the feature
        dt = DTYPES["u32"]
    top = (1 << 32) - 1 if dt.is_unsigned else -1  # -1 does not fit a u32
    shape = g.shape
    p, origin = own_block(g, "atomic", dt)
    fill = s.pick([None, 0, 1, top])
    val_dt = dt if s.draw(4) else DTYPES["f32"]
    value = g.tile(shape, val_dt, 2)
    compare: Expr | None = None
    if s.coin(2):
        from .gen_elementwise import Full

        if s.draw(3) == 0:  # the window's own contents: every in-range element matches
            compare = Load(p.name, origin, shape, fill, shape, dt, explicit=1)
        else:
            v = s.pick([0, 1, top, 2])
            compare = Full(shape, dt, float(v) if dt.is_float else v)
    name = g.fresh("old")
    out: list[Stmt] = [Exchange(name, p.name, origin, shape, dt, fill, value, compare)]
    g.bind(name, shape, dt)
    return out


STATEMENTS.append(StmtMaker("exchange", "exchange", 3, _exchange))
