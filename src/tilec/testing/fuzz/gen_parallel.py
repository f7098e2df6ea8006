"""Nested parallel levels with ancestor updates: a tile defined in the instance is updated in
disjoint parts by the instances of a ``group``/``subgroup``/``lane`` nest (slice assignment
or ``tc.update``), one level inside another.

Each nested instance updates each ancestor once, at the top of its body, and
never reads it; parts no instance writes keep their value.
"""

from __future__ import annotations

from dataclasses import dataclass

from .gen_windows import loaded
from .generator import STATEMENTS, Gen, StmtMaker
from .numerics import DTYPES, MV, cast
from .program import Env, Expr, Let, Stmt

__all__ = ["Nest", "Update"]

LEVELS = ("group", "subgroup", "lane")
"""Nest levels, outermost first."""


@dataclass
class Update(Stmt):
    """``acc[i * B:(i + 1) * B, ...] = patch`` or ``acc = tc.update(acc, (i * B, 0), patch)``."""

    target: str
    """The ancestor tile updated."""
    iv: str
    """The nest's coordinate."""
    block: int
    """Rows per instance."""
    patch: Expr
    """The instance's rows."""
    target_shape: tuple[int, ...]
    """The ancestor's shape."""
    slice_form: bool
    """Render as slice assignment (else ``tc.update``)."""

    def render(self, lines: list[str], indent: int) -> None:
        pad = "    " * indent
        rest = [f"0:{e}" for e in self.patch.shape[1:]]
        if self.slice_form:
            b = self.block
            idx = ", ".join([f"{self.iv} * {b}:({self.iv} + 1) * {b}"] + rest)
            lines.append(pad + f"{self.target}[{idx}] = {self.patch.render()}")
        else:
            org = ", ".join([f"{self.iv} * {self.block}"] + ["0"] * (len(self.patch.shape) - 1))
            comma = "," if len(self.patch.shape) == 1 else ""
            lines.append(pad + f"{self.target} = tc.update({self.target}, ({org}{comma}), "
                         f"{self.patch.render()})")

    def model(self, env: Env) -> None:
        acc = env.vars[self.target]
        p = cast(self.patch.model(env), acc.dt)
        start = env.idx[self.iv] * self.block
        stop = min(start + self.patch.shape[0], acc.shape[0])
        if stop <= start:
            return
        a, e = acc.a.copy(), acc.e.copy()
        a[start:stop] = p.a[:stop - start]
        e[start:stop] = p.e[:stop - start]
        env.vars[self.target] = MV(a, e, acc.dt)

    def exprs(self) -> tuple[Expr, ...]:
        return (self.patch,)


@dataclass
class Nest(Stmt):
    """``for i in tc.parallel(P, level=...):`` with a body ending in ancestor updates."""

    iv: str
    """The nest's coordinate."""
    extent: int
    """Instances."""
    level: str
    """``group``, ``subgroup`` or ``lane``."""
    body: list[Stmt]
    """The instance body, ending in ancestor updates."""

    def render(self, lines: list[str], indent: int) -> None:
        lines.append("    " * indent + f"for {self.iv} in tc.parallel({self.extent}, "
                     f"level=\"{self.level}\"):")
        for s in self.body:
            s.render(lines, indent + 1)

    def model(self, env: Env) -> None:
        saved = dict(env.vars)
        updated: dict[str, MV] = {}
        for i in range(self.extent):
            env.idx[self.iv] = i
            env.vars = dict(saved)
            # every instance sees the entry snapshot; their disjoint updates are joined
            for name, v in updated.items():
                env.vars[name] = v
            for s in self.body:
                s.model(env)
            for s in self.body:
                if isinstance(s, Update):
                    updated[s.target] = env.vars[s.target]
        env.idx.pop(self.iv, None)
        env.vars = dict(saved)
        env.vars.update(updated)

    def stmts(self) -> tuple[Stmt, ...]:
        return tuple(self.body)

    @property
    def features(self) -> tuple[str, ...]:  # type: ignore[override]
        return (f"nest:{self.level}",)


def _nest(g: Gen, target: str, shape: tuple[int, ...], dt, level_from: int,
          depth: int) -> Nest:
    s = g.s
    level_i = s.between(level_from, len(LEVELS) - 1)
    extent = s.weighted([(2, 4), (1, 1), (3, 2), (4, 2)])
    rows = shape[0]
    block = max(1, -(-rows // extent))
    if s.coin(3):
        block = max(1, rows // extent)  # leaves rows no instance writes
    slice_form = block * extent <= rows and s.draw(2) == 0
    iv = g.fresh("i")
    pshape = (block,) + shape[1:]
    hidden = [v for v in g.scope if v.name == target]
    g.scope = [v for v in g.scope if v.name != target]  # the ancestor is not read inside
    g.extra.setdefault("loop_ivs", []).append((iv, block))
    body: list[Stmt] = []
    if depth > 1 and level_i + 1 < len(LEVELS) and s.coin(3):
        inner = g.fresh("q")
        body.append(Let(inner, loaded(g.tile(pshape, dt, 1))))
        body.append(_nest(g, inner, pshape, dt, level_i + 1, depth - 1))
        from .program import Var

        patch: Expr = Var(inner, pshape, dt)
    else:
        patch = g.tile(pshape, dt, 2)
    body.append(Update(target, iv, block, patch, shape, slice_form))
    g.extra["loop_ivs"].pop()
    g.scope.extend(hidden)
    return Nest(iv, extent, LEVELS[level_i], body)


def nest_stmt(g: Gen) -> list[Stmt]:
    """``acc = init``; a nested nest updates row blocks of ``acc``."""
    s = g.s
    shape = g.shape if s.draw(3) else (g.shape[::-1] if len(g.shape) == 2 else g.shape)
    dt = DTYPES[s.weighted([("f32", 5), ("i32", 1), ("f16", 1)])]
    acc = g.fresh("acc")
    init = loaded(g.tile(shape, dt, 1))
    out: list[Stmt] = [Let(acc, init)]
    g.bind(acc, shape, dt)
    if s.coin(3):
        old = g.fresh("old")
        out.append(Let(old, g.scope[-1]))
        g.bind(old, shape, dt)
    out.append(_nest(g, acc, shape, dt, 0, 2))
    return out


STATEMENTS.append(StmtMaker("parallel", "nest", 5, nest_stmt))
