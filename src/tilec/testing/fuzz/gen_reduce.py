"""Reductions on every axis with every policy: ``tc.sum``/``max``/``min``/``prod`` (and the
methods), ``dtype=``, ``keepdims``, ``tc.reduce`` with a lambda (a recognized lift, or a
custom update folded in order), the loop form ``for e in tc.reduction(...)`` and
``tc.argmax``/``tc.argmin`` (an ``i32`` position) of any non-bool type.

``max``/``min`` are exact under any policy (IEEE maximum is associative),
``strict_fold`` is exact, ``unordered_tree`` sums and products are bounded
(``docs/design/fuzzing.md``); an arg-reduction's position is exact where the model's
bounds decide it and unknown elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import numerics as nx
from .generator import PRODUCERS, STATEMENTS, Gen, Producer, StmtMaker, small_extent
from .numerics import DT, DTYPES, MV
from .program import Env, Expr, Stmt

__all__ = ["Reduce", "ArgReduce", "ReductionLoop", "fold", "arg_positions"]


def _flatten(x: MV, axes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """Move the reduced axes last (in the tile's own order) and merge them."""
    kept = [d for d in range(len(x.shape)) if d not in axes]
    order = kept + sorted(axes)
    a = np.transpose(x.a, order)
    e = np.transpose(x.e, order)
    kshape = tuple(x.shape[d] for d in kept)
    n = int(np.prod([x.shape[d] for d in axes])) if axes else 1
    return a.reshape(kshape + (n,)), e.reshape(kshape + (n,)), kshape


def fold(law: str, x: MV, axes: tuple[int, ...], st: DT, strict: bool,
         update: str = "", lift: str = "") -> MV:
    """A reduction of ``x`` over ``axes`` in the state type ``st``.

    ``law`` is the merge (add, mul, max, min); ``lift`` squares each element first
    (``s + v * v``); ``update == "halve"`` is the custom ``s * 0.5 + v`` (folded in order).
    The value is the in-order fold; its bound allows any regrouping unless ``strict``.
    """
    if lift == "square":
        x = nx.binary("mul", x, x)
    x = nx.cast(x, st)
    a, e, kshape = _flatten(x, axes)
    n = a.shape[-1]
    seed = {"add": 0, "mul": 1, "max": -np.inf, "min": np.inf}[law]
    if not st.is_float and law in ("max", "min"):
        info = np.iinfo(st.np)
        seed = info.min if law == "max" else info.max
    acc = nx.exact(np.full(kshape, seed).astype(st.np) if not st.is_float else
                   nx.round_to(np.full(kshape, float(seed)), st), st)
    half = nx.exact(nx.round_to(np.full(kshape, 0.5), st), st) if st.is_float else None
    for j in range(n):
        el = MV(np.ascontiguousarray(a[..., j]), np.ascontiguousarray(e[..., j]), st)
        if update == "halve":
            acc = nx.binary("add", nx.binary("mul", acc, half), el)  # type: ignore[arg-type]
        else:
            acc = nx.binary(law, acc, el)
    if strict or not st.is_float or law in ("max", "min") or update == "halve":
        return acc
    # unordered_tree: any regrouping of the recognized merge
    with np.errstate(all="ignore"):
        mag = np.abs(np.where(np.isfinite(a.astype(np.float64)), a.astype(np.float64), 0.0))
        unknown_in = np.isinf(e).any(axis=-1)
        v = acc.a.astype(np.float64)
        if law == "add":
            total = (mag + np.where(np.isinf(e), 0, e)).sum(axis=-1)
            bound = e.sum(axis=-1) + 2 * (n + 1) * st.u_op * total + 2 * n * st.tiny
            risky = total >= st.big * (1 - st.u)
            under = np.zeros(kshape, bool)
        else:  # mul
            hi = np.prod(np.maximum(mag, 1.0), axis=-1)
            bound = 2 * (n + 1) * st.u_op * np.abs(np.where(np.isfinite(v), v, 0)) + \
                2 * n * st.tiny * hi
            risky = (hi >= st.big * (1 - st.u)) | (e > 0).any(axis=-1)
            # Some grouping's partial product of the finite factors may round to zero, and
            # an infinite factor times it is NaN, where the in-order fold stays infinite.
            lo = np.prod(np.where(mag > 0, np.minimum(mag, 1.0), 1.0), axis=-1)
            under = lo < 4 * st.tiny
        certain = np.isfinite(v) | (~np.isfinite(v) & ~(e > 0).any(axis=-1) & ~risky & ~under)
        bound = np.where(~np.isfinite(v), np.where(certain, 0.0, np.inf), bound)
        bound = np.where(risky & np.isfinite(v), np.inf, bound)
        bound = np.where(unknown_in, np.inf, bound)
        if n <= 1:  # one contribution: merge(seed, x) is the only order
            bound = np.where(unknown_in, np.inf, acc.e)
    return MV(acc.a, np.asarray(bound, np.float64), st)


@dataclass
class Reduce(Expr):
    """``tc.sum(x, axis=..., dtype=..., keepdims=..., policy=...)`` and friends."""

    kind: str
    """``sum``, ``prod``, ``max``, ``min`` or ``reduce`` (the lambda form)."""
    x: Expr
    """The tile reduced."""
    axes: tuple[int, ...] | None
    """Reduced axes (None: every axis)."""
    policy: str | None
    """``strict_fold``, ``unordered_tree`` or None (the default)."""
    shape: tuple[int, ...]
    """The result's shape."""
    dt: DT
    """The state's type."""
    dtype: DT | None = None
    """``dtype=`` of sum/prod."""
    keepdims: bool = False
    form: int = 0
    """0: ``tc.sum(...)``; 1: ``x.sum(...)``."""
    update: str = ""
    """The lambda form: ``square`` (``s + v * v``) or ``halve`` (``s * 0.5 + v``)."""

    def render(self) -> str:
        x = self.x.render()
        pol = f', policy="{self.policy}"' if self.policy else ""
        if self.kind == "reduce":
            ax = self.axes[0] if self.axes else 0
            fn = "lambda s, v: s + v * v" if self.update == "square" else \
                "lambda s, v: s * 0.5 + v"
            seed = "0.0" if self.dt.is_float else "0"
            return f"tc.reduce({x}, {ax}, {seed}, {fn}{pol})"
        args = []
        if self.axes is not None:
            args.append(f"axis={self.axes[0]}" if len(self.axes) == 1 else
                        f"axis=({', '.join(map(str, self.axes))})")
        if self.dtype is not None:
            args.append(f"dtype={self.dtype.tc}")
        if self.keepdims:
            args.append("keepdims=True")
        rest = ", ".join(args) + pol
        if self.form == 1:
            return f"{x}.{self.kind}({rest.lstrip(', ')})"
        return f"tc.{self.kind}({x}{', ' + rest.lstrip(', ') if rest else ''})"

    def model(self, env: Env) -> MV:
        x = self.x.model(env)
        axes = tuple(range(len(x.shape))) if self.axes is None else self.axes
        strict = self.policy == "strict_fold"
        if self.kind == "reduce":
            out = fold("add", x, axes, x.dt, strict, self.update if self.update == "halve"
                       else "", "square" if self.update == "square" else "")
        else:
            law = {"sum": "add", "prod": "mul", "max": "max", "min": "min"}[self.kind]
            out = fold(law, x, axes, self.dtype or x.dt, strict)
        if self.keepdims:
            shape = tuple(1 if d in axes else e for d, e in enumerate(x.shape))
            out = MV(out.a.reshape(shape), out.e.reshape(shape), out.dt)
        return out

    def children(self) -> tuple[Expr, ...]:
        return (self.x,)

    @property
    def features(self) -> tuple[str, ...]:  # type: ignore[override]
        return (f"reduce:{self.kind}:{self.policy or 'default'}",)


def _applies(g: Gen, shape: tuple[int, ...], dt: DT) -> bool:
    return not dt.is_bool and len(shape) <= 2


def _reduce(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    s = g.s
    kind = s.weighted([("sum", 5), ("max", 2), ("min", 2), ("prod", 1), ("reduce", 2)])
    policy = s.weighted([(None, 3), ("strict_fold", 2), ("unordered_tree", 1)])
    rank = len(shape)
    keep = 1 in shape and kind != "reduce" and s.coin(3)
    if keep:
        pos = [d for d, e in enumerate(shape) if e == 1]
        axes: tuple[int, ...] | None = (s.pick(pos),)
        in_shape = list(shape)
        in_shape[axes[0]] = small_extent(s)  # type: ignore[index]
        in_shape_t = tuple(in_shape)
    else:
        n_red = 1 if rank >= 1 or kind == "reduce" else s.between(1, 2)
        if rank == 0 and kind != "reduce":
            n_red = s.between(1, 2)
        in_rank = rank + n_red
        if in_rank > 3:
            n_red, in_rank = 1, rank + 1
        red = sorted(s.draw(in_rank) for _ in range(n_red))
        red = sorted(set(red))
        while len(red) < n_red:
            red.append(max(red) + 1 if max(red) + 1 < in_rank else min(set(range(in_rank))
                                                                       - set(red)))
            red = sorted(set(red))
        kept = iter(shape)
        in_shape_t = tuple(small_extent(s, big=in_rank <= 2) if d in red else next(kept)
                           for d in range(in_rank))
        axes = tuple(red)
        if rank == 0 and s.draw(2) and kind != "reduce":
            axes = None
    def reducible(d: int) -> bool:
        return axes is None or d in axes

    while int(np.prod(in_shape_t)) > 4096 and any(e > 1 for d, e in enumerate(in_shape_t)
                                                  if reducible(d)):
        in_shape_t = tuple(max(1, e // 2) if reducible(d) else e
                           for d, e in enumerate(in_shape_t))
    src_dt = dt
    dtype = None
    if kind in ("sum", "prod") and s.coin(4):
        dtype = dt
        if dt.name == "f32":
            src_dt = DTYPES[s.pick(["f16", "bf16", "f32"])]
        elif dt.name in ("i32", "i64"):
            src_dt = DTYPES[s.pick(["i8", "i16", "i32"])]
    if kind == "reduce":
        axes = axes[:1] if axes else (0,)
        if len(in_shape_t) - 1 != rank:  # the lambda form reduces exactly one axis
            in_shape_t = shape[:axes[0]] + (small_extent(s, False),) + shape[axes[0]:]
        update = s.pick(["square", "halve"])
        if update == "halve":
            policy = "strict_fold"
            if not dt.is_float:
                update = "square"
                policy = None
        if update == "square" and policy == "strict_fold" and s.coin(2):
            policy = None
        x = g.tile(in_shape_t, dt, depth)
        return Reduce("reduce", x, axes, policy, shape, dt, update=update)
    x = g.tile(in_shape_t, src_dt, depth)
    return Reduce(kind, x, axes, policy, shape, dt, dtype, keep,
                  s.draw(2) if dtype is None and not keep and kind != "prod" else 0)


def arg_positions(x: MV, axes: tuple[int, ...], largest: bool) -> MV:
    """numpy's ``argmax`` (``argmin``) of ``x`` over ``axes`` (row-major over them) as ``i32``,
    first position on ties, a NaN winning; a position is exact where the bounds decide it:
    every element of its row is exact, or (all bounds finite, so NaN and infinity positions
    are the model's) the row holds a NaN, or the winner's interval is strictly beyond every
    other element's. Unknown elsewhere."""
    a, e, kshape = _flatten(x, axes)
    wide = a.astype(np.float64) if x.dt.is_float else a.astype(np.int64)
    pos = wide.argmax(-1) if largest else wide.argmin(-1)
    with np.errstate(invalid="ignore"):
        exact = (e == 0) | ~np.isfinite(wide)
        r = np.where(exact, 0.0, e)
        lo, hi = wide - r, wide + r  # the interval of each element (exact ones: a point)
        best = np.take_along_axis(lo if largest else -hi, pos[..., None], -1)
        others = np.where(np.arange(a.shape[-1]) == pos[..., None], -np.inf,
                          hi if largest else -lo)
        apart = (best[..., 0] > others.max(-1)) if a.shape[-1] > 1 else np.ones(kshape, bool)
    finite = np.isfinite(e).all(-1)
    nan = np.isnan(wide).any(-1) if x.dt.is_float else np.zeros(kshape, bool)
    known = (e == 0).all(-1) | (finite & (nan | apart))
    i32 = DTYPES["i32"]
    return MV(pos.astype(np.int32), np.where(known, 0.0, np.inf), i32)


@dataclass
class ArgReduce(Expr):
    """``tc.argmax(x, axis=..., keepdims=...)`` / ``tc.argmin`` or the methods."""

    kind: str
    """``argmax`` or ``argmin``."""
    x: Expr
    """The tile searched."""
    axis: int | None
    """The searched axis (None: every axis, row-major)."""
    shape: tuple[int, ...]
    """The result's shape."""
    dt: DT
    """``i32``."""
    keepdims: bool = False
    form: int = 0
    """0: ``tc.argmax(...)``; 1: ``x.argmax(...)``."""

    def render(self) -> str:
        args = [] if self.axis is None else [f"axis={self.axis}"]
        if self.keepdims:
            args.append("keepdims=True")
        rest = ", ".join(args)
        if self.form == 1:
            return f"{self.x.render()}.{self.kind}({rest})"
        return f"tc.{self.kind}({self.x.render()}{', ' + rest if rest else ''})"

    def model(self, env: Env) -> MV:
        x = self.x.model(env)
        axes = tuple(range(len(x.shape))) if self.axis is None else (self.axis,)
        out = arg_positions(x, axes, self.kind == "argmax")
        return MV(out.a.reshape(self.shape), out.e.reshape(self.shape), out.dt)

    def children(self) -> tuple[Expr, ...]:
        return (self.x,)

    @property
    def features(self) -> tuple[str, ...]:  # type: ignore[override]
        return (f"reduce:{self.kind}",)


def _arg_applies(g: Gen, shape: tuple[int, ...], dt: DT) -> bool:
    return dt.name == "i32" and len(shape) <= 2


def _arg_reduce(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    s = g.s
    kind = s.pick(["argmax", "argmin"])
    src = DTYPES[s.pick(["f32", "i32", "f16", "bf16", "i8", "i16", "i64", "f64"])]
    units = [d for d, e in enumerate(shape) if e == 1]
    keep = bool(units) and s.coin(3)
    axis: int | None
    if keep:  # keepdims: the searched axis is one of the unit axes
        axis = s.pick(units)
        in_shape = shape[:axis] + (small_extent(s),) + shape[axis + 1:]
    elif not shape and s.coin(2):  # every axis of a rank-1 or rank-2 tile
        axis = None
        in_shape = tuple(small_extent(s) for _ in range(s.between(1, 2)))
    else:
        axis = s.draw(len(shape) + 1)
        in_shape = shape[:axis] + (small_extent(s),) + shape[axis:]
    searched = range(len(in_shape)) if axis is None else (axis,)
    while int(np.prod(in_shape)) > 4096 and any(in_shape[d] > 1 for d in searched):
        in_shape = tuple(max(1, e // 2) if d in searched else e for d, e in enumerate(in_shape))
    x = g.tile(in_shape, src, depth)
    return ArgReduce(kind, x, axis, shape, dt, keep, s.draw(2))


@dataclass
class ReductionLoop(Stmt):
    """``total, big = 0.0, float("-inf")`` then ``for e in tc.reduction(x, axis=a)``."""

    x: Expr
    """The tile reduced."""
    axis: int
    """The reduced axis."""
    total: str
    """The sum's local."""
    big: str
    """The maximum's local."""
    shape: tuple[int, ...]
    """The kept axes' shape."""

    def render(self, lines: list[str], indent: int) -> None:
        pad = "    " * indent
        lines.append(pad + f"{self.total}, {self.big} = 0.0, float(\"-inf\")")
        lines.append(pad + f"for e in tc.reduction({self.x.render()}, axis={self.axis}):")
        lines.append(pad + f"    {self.total} = {self.total} + e")
        lines.append(pad + f"    {self.big} = tc.maximum({self.big}, e)")

    def model(self, env: Env) -> None:
        x = self.x.model(env)
        env.vars[self.total] = fold("add", x, (self.axis,), x.dt, False)
        env.vars[self.big] = fold("max", x, (self.axis,), x.dt, False)

    def exprs(self) -> tuple[Expr, ...]:
        return (self.x,)

    features = ("reduction_loop",)


def _reduction_loop(g: Gen) -> list[Stmt]:
    shape = g.shape
    axis = g.s.draw(len(shape) + 1)
    in_shape = shape[:axis] + (small_extent(g.s, False),) + shape[axis:]
    while int(np.prod(in_shape)) > 4096:
        in_shape = tuple(max(1, e // 2) for e in in_shape)
        shape = in_shape[:axis] + in_shape[axis + 1:]
    f32 = DTYPES["f32"]
    x = g.tile(in_shape, f32, 2)
    total, big = g.fresh("tot"), g.fresh("big")
    g.bind(total, shape, f32)
    g.bind(big, shape, f32)
    return [ReductionLoop(x, axis, total, big, shape)]


PRODUCERS.append(Producer("reduce", "reduce", 5, _applies, _reduce))
PRODUCERS.append(Producer("reduce", "arg_reduce", 2, _arg_applies, _arg_reduce))
STATEMENTS.append(StmtMaker("reduce", "reduction_loop", 1, _reduction_loop))
