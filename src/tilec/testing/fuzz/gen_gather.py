"""Data-dependent addresses (family ``gather``, off unless asked for): ``tc.gather`` of an
input array with drawn integer tiles as indices, scalar reads ``L[...]`` of an integer
array used in later window origins, and ``tc.scatter_add`` into a seeded array.

Indices come from drawn ``i32`` expressions and seeded inputs (values in ``[-20, 20]``), so
many land outside the arrays: those elements read the fill (gather), read 0 (a scalar
read) or add nothing (scatter_add), which the model follows. An index the model does not
know exactly makes the elements it addresses unknown.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .generator import PRODUCERS, STATEMENTS, Gen, Producer, StmtMaker
from .numerics import DT, DTYPES, MV, binary, cast
from .program import Env, Expr, IndexExpr, Stmt, mem_hits, render_number

__all__ = ["Gather", "ScalarRead", "ScatterAdd", "read_origin_term"]

I32 = DTYPES["i32"]


def _coords(shape: tuple[int, ...], idx: np.ndarray, axis: int) -> list[np.ndarray]:
    """Each element's coordinates with the one along ``axis`` replaced by its index."""
    grid = np.indices(shape, dtype=np.int64) if shape else []
    return [idx.astype(np.int64) if k == axis else grid[k] for k in range(len(shape))]


def _inside(coords: list[np.ndarray], extents: tuple[int, ...]) -> np.ndarray:
    ok = np.ones(coords[0].shape, bool)
    for c, e in zip(coords, extents):
        ok &= (c >= 0) & (c < e)
    return ok


@dataclass
class Gather(Expr):
    """``tc.gather(P, idx, axis, fill=F)``."""

    param: str
    """The array read."""
    idx: Expr
    """An integer tile of the result's shape (``i32``; unsigned with that feature)."""
    axis: int
    """The axis the indices address."""
    fill: float | int
    """What an element outside the array reads."""
    shape: tuple[int, ...]
    """The result's shape (the indices')."""
    dt: DT
    """The array's element type."""
    features = ("gather",)

    def render(self) -> str:
        return (f"tc.gather({self.param}, {self.idx.render()}, {self.axis}, "
                f"fill={render_number(self.fill, self.dt)})")

    def model(self, env: Env) -> MV:
        mem = env.memories[self.param]
        ix = self.idx.model(env)
        coords = _coords(self.shape, ix.a, self.axis)
        ok = _inside(coords, mem.shape)
        clipped = tuple(np.clip(c, 0, max(e - 1, 0)) for c, e in zip(coords, mem.shape))
        fa = np.asarray(self.fill).astype(self.dt.np)
        if mem.a.size:
            a = np.where(ok, mem.a[clipped], fa).astype(self.dt.np)
            e = np.where(ok, mem.e[clipped], 0.0)
        else:
            a, e = np.full(self.shape, fa, self.dt.np), np.zeros(self.shape)
        e = np.where(ix.e != 0, np.inf, e)  # an unknown index: an unknown element
        return MV(a, e, self.dt)

    def children(self) -> tuple[Expr, ...]:
        return (self.idx,)


def _gather(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    s = g.s
    axis = s.draw(len(shape))
    p = g.input_array(dt, shape)
    if dt.is_float:
        fill = s.pick([0.0, -1.0, float("nan")])
    else:  # an unsigned array's top value stands where a signed one takes -1
        fill = s.pick([0, (1 << dt.bits) - 1 if dt.is_unsigned else -1, 7])
    return Gather(p.name, g.tile(shape, index_dt(g), depth), axis, fill, shape, dt)


def index_dt(g: Gen) -> DT:
    """The type of a tile of indices: ``i32``, or with the ``unsigned`` feature sometimes an
    unsigned type, whose values are never negative (draws nothing without it)."""
    if g.on("unsigned") and g.s.coin(3):
        return DTYPES[g.s.pick(["u32", "u16", "u8"])]
    return I32


@dataclass
class ScalarRead(Stmt):
    """``q = L[i] % m``: one element of an ``i32`` array as an index scalar (0 outside)."""

    name: str
    """The scalar's local (an index name later origins may use)."""
    param: str
    """The rank-1 ``i32`` array read."""
    at: IndexExpr
    """The element's position (may leave the array)."""
    mod: int
    """Keeps the value small, so windows at it overlap the arrays."""
    features = ("scalar_read",)

    def render(self, lines: list[str], indent: int) -> None:
        lines.append("    " * indent + f"{self.name} = {self.param}[{self.at.render()}] % "
                                         f"{self.mod}")

    def model(self, env: Env) -> None:
        mem = env.memories[self.param]
        i = self.at.value(env)
        v = int(mem.a[i]) if 0 <= i < mem.shape[0] else 0
        if 0 <= i < mem.shape[0] and mem.e[i] != 0:
            raise ValueError("a scalar read of an element the model does not know")
        env.idx[self.name] = v % self.mod


def _scalar_read(g: Gen) -> list[Stmt]:
    s = g.s
    n = g.grid[0] + s.between(-1, 2)
    same = [p for p in g.params if p.role == "in" and p.dt is I32 and len(p.shape) == 1]
    p = s.pick(same) if same and s.coin(2) else g.param("in", I32, (max(1, n),))
    at = IndexExpr(((1, "p0"),), s.between(-2, 2)) if s.draw(4) else \
        IndexExpr((), s.pick([0, 1, 1000]))
    q = g.fresh("q")
    g.extra.setdefault("scalar_reads", []).append(q)
    return [ScalarRead(q, p.name, at, s.pick([2, 3, 5]))]


def read_origin_term(g: Gen, term: IndexExpr) -> IndexExpr:
    """``term``, sometimes plus a scalar read earlier in the instance (draws nothing unless
    the family is on)."""
    reads = g.extra.get("scalar_reads")
    if not g.on("gather") or not reads or not g.s.coin(3):
        return term
    q = g.s.pick(reads)
    return IndexExpr(term.terms + ((g.s.pick([1, 2, -1]), q),), term.const)


@dataclass
class ScatterAdd(Stmt):
    """``tc.scatter_add(Z, idx, axis, value)`` into a seeded array every instance updates."""

    param: str
    """The updated array."""
    idx: Expr
    """An integer tile (``i32``; unsigned with that feature)."""
    axis: int
    """The axis the indices address."""
    value: Expr
    """The value added (the indices' shape)."""
    features = ("scatter_add",)

    def render(self, lines: list[str], indent: int) -> None:
        lines.append("    " * indent + f"tc.scatter_add({self.param}, {self.idx.render()}, "
                                         f"{self.axis}, {self.value.render()})")

    def model(self, env: Env) -> None:
        mem = env.memories[self.param]
        ix = self.idx.model(env)
        val = cast(self.value.model(env), mem.dt)
        shape = ix.shape
        coords = _coords(shape, ix.a, self.axis)
        ok = _inside(coords, mem.shape)
        unknown = bool((ix.e != 0).any())
        va = np.broadcast_to(val.a, shape)
        ve = np.broadcast_to(val.e, shape)
        for flat in np.flatnonzero(ok.reshape(-1)):  # row-major, like the reference
            k = np.unravel_index(flat, shape)
            at = tuple(int(c[k]) for c in coords)
            old = MV(mem.a[at][None], mem.e[at][None], mem.dt)
            r = binary("add", old, MV(va[k][None], ve[k][None], mem.dt))
            e = float(r.e[0])
            if mem.dt.is_float:
                hits = mem_hits(mem)
                hits[at] += 1
                if hits[at] > 1:  # another order of the additions may round differently
                    mag = abs(float(r.a[0])) + abs(float(old.a[0])) + abs(float(va[k]))
                    e += 4 * mem.dt.u_op * (mag if np.isfinite(mag) else 0.0) + 2 * mem.dt.tiny
                    if not np.isfinite(r.a[0]) and np.isfinite(old.a[0]) \
                            and np.isfinite(va[k]):
                        e = np.inf
            mem.a[at] = r.a[0]
            mem.e[at] = e
        if unknown:  # an index the model does not know may have hit any element
            mem.e[...] = np.inf

    def exprs(self) -> tuple[Expr, ...]:
        return (self.idx, self.value)


def _scatter_add(g: Gen) -> list[Stmt]:
    from .generator import own_block

    s = g.s
    dt = DTYPES[s.weighted([("i32", 3), ("f32", 2)])]
    if dt is I32 and g.on("unsigned") and s.coin(3):  # wraps as i32 does
        dt = DTYPES["u32"]
    shape = g.shape
    p, _ = own_block(g, "atomic", dt)
    axis = s.draw(len(shape))
    return [ScatterAdd(p.name, g.tile(shape, index_dt(g), 2), axis, g.tile(shape, dt, 2))]


PRODUCERS.append(Producer("gather", "gather", 2,
                          lambda g, s, d: len(s) >= 1 and not d.is_bool, _gather))
STATEMENTS.extend([StmtMaker("gather", "scalar_read", 3, _scalar_read),
                   StmtMaker("gather", "scatter_add", 2, _scatter_add)])
