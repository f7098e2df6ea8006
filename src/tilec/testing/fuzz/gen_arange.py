"""Coordinate tiles (family ``arange``, off unless asked for): ``tc.arange(lo, hi, step,
dtype=...)`` of every non-bool type, with a compile-time start or a runtime one
(``s0 + 3``), as a rank-1 tile or, for a 2-D shape, as row or column coordinates
(``[:, None]`` / ``[None, :]`` then ``tc.broadcast``).

Compile-time bounds are drawn so that every value fits an integer type (the DSL
refuses others); a runtime start wraps as a cast would, which the model follows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import numerics as nx
from .gen_elementwise import View
from .generator import PRODUCERS, Gen, Producer
from .numerics import DT, DTYPES, MV
from .program import Env, Expr

__all__ = ["Arange"]


@dataclass
class Arange(Expr):
    """``tc.arange(start, start + n * step, step, dtype=dt)``, the start maybe ``param +
    start``."""

    start: int
    """The compile-time part of the first value."""
    step: int
    """The step (not zero)."""
    shape: tuple[int, ...]
    """``(n,)``."""
    dt: DT
    """The element type."""
    param: str | None = None
    """A runtime i32 scalar added to both bounds (None: compile-time bounds)."""
    features = ("arange",)

    def render(self) -> str:
        n = self.shape[0]
        lo, hi = str(self.start), str(self.start + n * self.step)
        if self.param is not None:
            lo, hi = f"{self.param} + {lo}", f"{self.param} + {hi}"
        return f"tc.arange({lo}, {hi}, {self.step}, dtype={self.dt.tc})"

    def model(self, env: Env) -> MV:
        base = self.start + (0 if self.param is None else int(env.scalars[self.param].a))
        values = base + self.step * np.arange(self.shape[0], dtype=np.int64)
        return nx.cast(nx.exact(values, DTYPES["i64"]), self.dt)


def _arange(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    s = g.s
    axis = s.draw(len(shape))
    n = shape[axis]
    start, step = s.between(-4, 4), s.pick([1, 1, 2, 3, -1, -2])
    param = g.scalar(DTYPES["i32"]).name if s.coin(3) else None
    lo, hi = sorted((start, start + (n - 1) * step))
    info = np.iinfo(dt.np) if dt.is_int else None
    if info is not None and param is None and not info.min <= lo <= hi <= info.max:
        start, step = 0, 1  # n <= 128 values from 0 fit every integer type
    out: Expr = Arange(start, step, (n,), dt, param)
    if len(shape) == 2:
        out = View("expand1" if axis == 0 else "expand0", out,
                   (n, 1) if axis == 0 else (1, n), dt)
        out = View("broadcast", out, shape, dt)
    return out


PRODUCERS.append(Producer("arange", "arange", 2,
                          lambda g, s, d: 1 <= len(s) <= 2 and not d.is_bool, _arange))
