"""Explicit memory: ``tc.memory`` scratch (shared and local) written and read back through
shifted bounded windows, the instance's own output window read back after a store, and
atomics (``atomic_add``/``max``/``min``) into the instance's block or one window every
instance updates.

Scratch contents are undefined until written (the model marks them unknown);
an instance reads back only its own output window (other instances' windows
would race); atomics into a shared window commute up to the bounds the model
gives float additions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .gen_windows import Load
from .generator import STATEMENTS, Gen, StmtMaker
from .numerics import DT, DTYPES, MV
from .program import Env, Expr, IndexExpr, Let, Stmt, Store

__all__ = ["Scratch"]


@dataclass
class Scratch(Stmt):
    """``m = tc.memory(shape, dt, space=...)`` then ``m.store(x)``."""

    name: str
    """The memory's local."""
    shape: tuple[int, ...]
    """Its static extents."""
    dt: DT
    """Its element type."""
    space: str
    """``shared`` or ``local``."""
    value: Expr
    """What is stored into it first."""

    def render(self, lines: list[str], indent: int) -> None:
        pad = "    " * indent
        shp = ", ".join(map(str, self.shape)) + ("," if len(self.shape) == 1 else "")
        lines.append(pad + f"{self.name} = tc.memory(({shp}), {self.dt.tc}, space="
                     f"\"{self.space}\")")
        lines.append(pad + f"{self.name}.store({self.value.render()})")

    def model(self, env: Env) -> None:
        from .numerics import cast

        v = cast(self.value.model(env), self.dt)
        a = np.broadcast_to(v.a, self.shape).copy()
        e = np.broadcast_to(v.e, self.shape).copy()
        env.memories[self.name] = MV(a, e, self.dt)

    def exprs(self) -> tuple[Expr, ...]:
        return (self.value,)

    @property
    def features(self) -> tuple[str, ...]:  # type: ignore[override]
        return (f"memory:{self.space}",)


def _scratch(g: Gen) -> list[Stmt]:
    s = g.s
    shape = g.shape
    dt = DTYPES[s.weighted([("f32", 5), ("i32", 1), ("f16", 1), ("bf16", 1)])]
    name = g.fresh("m")
    space = s.pick(["shared", "local"])
    out: list[Stmt] = [Scratch(name, shape, dt, space, g.tile(shape, dt, 2))]
    reads = 1 + s.draw(2)
    for _ in range(reads):
        shift = tuple(IndexExpr((), s.between(-e, e) if s.coin(2) else 0) for e in shape)
        fill = s.pick([0.0, float("nan"), -1.0, 1.0]) if dt.is_float else s.pick([0, 1, -1])
        t = g.fresh("r")
        out.append(Let(t, Load(name, shift, shape, fill, shape, dt, explicit=1)))
        g.bind(t, shape, dt)
    return out


def _readback(g: Gen) -> list[Stmt]:
    """Store into a new output at the instance's block, then read that window back."""
    from .generator import own_block

    s = g.s
    dt = DTYPES[s.weighted([("f32", 4), ("f16", 1), ("i32", 1)])]
    shape = g.shape
    p, origin = own_block(g, "out", dt)
    val_dt = dt if s.draw(3) else g.any_dt()
    if val_dt.is_bool:
        val_dt = dt
    out: list[Stmt] = [Store(p.name, origin, g.tile(shape, val_dt, 2))]
    t = g.fresh("rb")
    fill = s.pick([0.0, float("nan"), 1.0]) if dt.is_float else 0
    out.append(Let(t, Load(p.name, origin, shape, fill, shape, dt, explicit=s.draw(2))))
    g.bind(t, shape, dt)
    return out


def _atomic(g: Gen) -> list[Stmt]:
    from .generator import own_block

    s = g.s
    dt = DTYPES[s.weighted([("f32", 4), ("i32", 3), ("f16", 1)])]
    kind = s.weighted([("atomic_add", 4), ("atomic_max", 2), ("atomic_min", 2)])
    shape = g.shape
    shared = s.coin(2)
    p, origin = own_block(g, "atomic", dt)
    if shared:  # every instance updates the same window
        origin = tuple(IndexExpr((), o.const) for o in origin)
    val_dt = dt if s.draw(4) else DTYPES["f32"]
    return [Store(p.name, origin, g.tile(shape, val_dt, 2), kind)]


STATEMENTS.extend([StmtMaker("memory", "scratch", 3, _scratch),
                   StmtMaker("memory", "readback", 2, _readback),
                   StmtMaker("memory", "atomic", 3, _atomic)])
