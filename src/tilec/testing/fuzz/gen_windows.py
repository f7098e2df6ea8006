"""Bounded windows: every fill (0, +-1, +-inf, NaN, none) at ragged and negative origins,
through array views (``X.T``, ``X.permute``), with window transposes and unit-axis reshapes.

A window's elements outside its array read as the fill; without a fill they
are unspecified, which the model marks unknown.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .gen_gather import read_origin_term
from .generator import PRODUCERS, Gen, Producer
from .numerics import DT, MV
from .program import Env, Expr, IndexExpr, render_number, window_index

__all__ = ["Load", "window_origin", "FILLS", "loaded"]

FILLS = (0.0, 1.0, -1.0, float("inf"), float("-inf"), float("nan"), None)
"""Fill values of float windows (None: no fill)."""


@dataclass
class Load(Expr):
    """``P[.T|.permute(...)].tile(origin, wshape, fill=F)[.load()][.T][.reshape(...)]``."""

    param: str
    """The array (or scratch memory) read."""
    origin: tuple[IndexExpr, ...]
    """The window's origin in the viewed array's coordinates."""
    wshape: tuple[int, ...]
    """The window's shape in the viewed array's coordinates."""
    fill: float | int | None
    """What elements outside the array read as (None: unspecified)."""
    shape: tuple[int, ...]
    """The tile's shape after the transpose or reshape."""
    dt: DT
    """The array's element type."""
    perm: tuple[int, ...] | None = None
    """The array view: None, or an axis permutation (``(1, 0)`` renders ``.T``)."""
    tile_t: bool = False
    """Transpose the loaded tile (``.T`` on the window)."""
    reshaped: bool = False
    """Drop unit axes with ``.reshape``."""
    explicit: int = 0
    """0: used as a value; 1: ``.load()``; 2: ``tc.load(...)``."""

    def render(self) -> str:
        base = self.param
        if self.perm is not None:
            base += ".T" if self.perm == (1, 0) else f".permute({', '.join(map(str, self.perm))})"
        comma = "," if len(self.origin) == 1 else ""
        org = ", ".join(o.render() for o in self.origin) + comma
        shp = ", ".join(map(str, self.wshape)) + comma
        fill = "" if self.fill is None else f", fill={render_number(self.fill, self.dt)}"
        x = f"{base}.tile(({org}), ({shp}){fill})"
        if self.explicit == 1:
            x += ".load()"
        elif self.explicit == 2:
            x = f"tc.load({x})"
        if self.tile_t:
            x += ".T"
        if self.reshaped:
            x += f".reshape({', '.join(map(str, self.shape))})"
        return x

    def model(self, env: Env) -> MV:
        mem = env.memories[self.param]
        a, e = mem.a, mem.e
        if self.perm is not None:
            a, e = np.transpose(a, self.perm), np.transpose(e, self.perm)
        org = tuple(o.value(env) for o in self.origin)
        idx, inside = window_index(a.shape, org, self.wshape, False)
        if a.size:
            va, ve = a[idx], e[idx]
        else:
            va, ve = np.zeros(self.wshape, a.dtype), np.zeros(self.wshape)
        if self.fill is None:
            fa = np.zeros((), self.dt.np)
            fe = np.inf
        else:
            fa = np.asarray(self.fill).astype(self.dt.np) if not self.dt.is_float else \
                np.asarray(float(self.fill)).astype(self.dt.np)
            fe = 0.0
        va = np.where(inside, va, fa).astype(self.dt.np)
        ve = np.where(inside, ve, fe)
        if self.tile_t:
            va, ve = va.T, ve.T
        va = np.ascontiguousarray(va).reshape(self.shape)
        ve = np.ascontiguousarray(ve).reshape(self.shape)
        return MV(va, ve, self.dt)

    @property
    def features(self) -> tuple[str, ...]:  # type: ignore[override]
        out = ["window"]
        if self.perm is not None:
            out.append("array_view")
        if self.tile_t:
            out.append("window_T")
        out.append(f"fill:{self.fill}")
        return tuple(out)


def loaded(e: Expr) -> Expr:
    """``e`` as a tile: a bare window gets an explicit ``.load()`` (a name bound to a window
    stays a window, which a carried or updated local must not be)."""
    if isinstance(e, Load) and e.explicit == 0 and not e.tile_t and not e.reshaped:
        e.explicit = 1
    return e


def window_origin(g: Gen, wshape: tuple[int, ...], axes: tuple[int | None, ...]) -> tuple[
        IndexExpr, ...]:
    """An origin per window axis; ``axes[k]`` is the grid axis that axis follows (or None),
    and enclosing loop variables may step it."""
    out = []
    loops = g.extra.get("loop_ivs", [])
    for k, e in enumerate(wshape):
        term = g.origin_term(axes[k] if axes[k] is not None else 99, e)
        if loops and g.s.draw(3) == 0:
            iv, _ = loops[-1 - g.s.draw(len(loops))] if len(loops) > 1 else loops[0]
            term = IndexExpr(term.terms + ((e, iv),), term.const)
        if g.on("windows") and g.s.coin(30):  # a runtime offset argument
            off = g.offset_scalar()
            term = IndexExpr(term.terms + ((g.s.pick([1, 65536, -2]), off.name),), term.const)
        out.append(read_origin_term(g, term))
    return tuple(out)


def _fill(g: Gen, dt: DT) -> float | int | None:
    if not g.on("windows"):
        return 0.0 if dt.is_float else 0
    if dt.is_float:
        return g.s.pick(FILLS)
    if dt.is_bool:
        return g.s.pick([False, True])
    if dt.is_unsigned:  # the top value stands where a signed window takes -1
        return g.s.pick([0, 1, (1 << dt.bits) - 1])
    return g.s.pick([0, 1, -1])


def _window(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    s = g.s
    rank = len(shape)
    fancy = g.on("windows")
    kind = s.weighted([("plain", 6), ("T", 2 if rank == 2 and fancy else 0),
                       ("tileT", 2 if rank == 2 and fancy else 0),
                       ("unit", 1 if fancy and rank <= 2 else 0)])
    perm: tuple[int, ...] | None = None
    tile_t = False
    reshaped = False
    wshape = shape
    axes: tuple[int | None, ...] = tuple(range(rank))
    if kind == "T":
        perm = (1, 0)
        if s.draw(2):  # a transposed view read as the tile we want: window of shape
            wshape = shape
        arr_rank_shape = wshape[::-1]
    elif kind == "tileT":
        tile_t = True
        wshape = shape[::-1]
        axes = (1, 0)
        arr_rank_shape = wshape
    elif kind == "unit":
        pos = s.draw(rank + 1)
        wshape = shape[:pos] + (1,) + shape[pos:]
        axes = tuple(range(pos)) + (None,) + tuple(range(pos, rank))
        reshaped = True
        arr_rank_shape = wshape
        if rank == 2 and s.draw(3) == 0:
            perm = tuple(s.pick([(1, 0, 2), (2, 0, 1), (0, 2, 1), (1, 2, 0), (2, 1, 0)]))
            inv = tuple(int(i) for i in np.argsort(perm))
            arr_rank_shape = tuple(wshape[inv[k]] for k in range(3))
    else:
        arr_rank_shape = shape
    if rank == 0:
        wshape, reshaped, axes, arr_rank_shape = (1,), True, (None,), (1,)
    p = g.input_array(dt, arr_rank_shape)
    origin = window_origin(g, wshape, axes)
    explicit = s.draw(3) if fancy else 0
    if g.extra.get("force_load") and not explicit:
        explicit = 1  # a pipeline's load stage reads explicitly
    return Load(p.name, origin, wshape, _fill(g, dt), shape, dt, perm, tile_t, reshaped,
                explicit)


PRODUCERS.append(Producer("base", "window", 4, lambda g, s, d: True, _window))
