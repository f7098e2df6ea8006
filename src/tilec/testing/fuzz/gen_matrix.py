"""Matrix products: ``tc.mma`` (``precision``, ``order``), ``tc.dot`` and ``@`` with random
legal tile sizes from 1 to 128, K loops over windows, and epilogues (any elementwise chain on
the accumulator, drawn by the other families).

About one product in four has a transposed layout (``LAYOUTS``): the M x K operand as
``x.T`` of a K x M tile, the K x N operand as ``y.T`` of an N x K tile (a window loaded
transposed, ``X.tile(...).T``, or a computed tile's ``.T``), both, or the whole product
computed transposed, ``tc.mma(b.T, a.T, acc)`` of an N x M accumulator whose ``.T`` is the
value used (a K loop binds ``acc.T`` after the loop and stores that). The model works on the
operands' values, so a layout changes only what is rendered.

f16/bf16/f32 operands accumulate in f32, f64 in f64, int8 in int32;
``precision="tf32"`` reduces f32 operands to TF32 first: the model rounds them to nearest
and, outside ``strict_fold``, allows each one TF32 unit of error (a target may truncate).
``strict_fold`` is exact (in-order, no fused multiply-add); the default order is bounded.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import numerics as nx
from .gen_loops import Loop
from .generator import PRODUCERS, STATEMENTS, Gen, Producer, StmtMaker, small_extent
from .numerics import DT, DTYPES, MV
from .program import Env, Expr, Let, Stmt

__all__ = ["Mma", "mma_model"]

ACC = {"f16": "f32", "bf16": "f32", "f32": "f32", "f64": "f64", "i8": "i32"}
"""The accumulator type of each operand type."""

LAYOUTS = (("nn", 12), ("tn", 1), ("nt", 1), ("tt", 1), ("swapped", 1))
"""A product's operand layouts and their weights: ``nn`` (both operands as drawn), ``tn``
(A is ``x.T`` of a K x M tile), ``nt`` (B is ``y.T`` of an N x K tile), ``tt`` (both) and
``swapped`` (``acc.T = tc.mma(b.T, a.T, acc)`` with an N x M accumulator; each of ``b.T``
and ``a.T`` an N x K / K x M tile as drawn or the ``.T`` of a K x N / M x K one)."""


def mma_model(a: MV, b: MV, c: MV, precision: str, strict: bool) -> MV:
    """``c + a @ b``: the in-order value, exact under ``strict``, bounded otherwise."""
    st = c.dt
    M, K = a.shape
    if not st.is_float:  # integers: exact, wrapping in the accumulator's type
        prod = a.a.astype(np.int64) @ b.a.astype(np.int64)
        v = (c.a.astype(np.int64) + prod).astype(st.np)
        e = np.where(np.isinf(c.e) | np.isinf(a.e).any(1)[:, None] | np.isinf(b.e).any(0)[None],
                     np.inf, 0.0)
        return MV(v, e, st)
    ca = a.a.astype(st.np)
    cb = b.a.astype(st.np)
    if precision == "tf32":
        ca, cb = nx.tf32(ca), nx.tf32(cb)
    acc = c.a.astype(st.np).copy()
    with np.errstate(all="ignore"):
        for k in range(K):
            acc = (acc + (ca[:, k:k + 1] * cb[k:k + 1, :]).astype(st.np)).astype(st.np)
    ea, eb = a.e, b.e
    if precision == "tf32" and not strict:
        # an operand may be truncated to TF32 instead of rounded (the TF32 warpgroup
        # instruction reads a shared operand so): within one TF32 unit, |x| 2^-10
        with np.errstate(all="ignore"):
            ea = ea + np.where(np.isfinite(ca), np.abs(ca.astype(np.float64)) * 2.0**-10, 0)
            eb = eb + np.where(np.isfinite(cb), np.abs(cb.astype(np.float64)) * 2.0**-10, 0)
    inexact = (ea > 0).any(1)[:, None] | (eb > 0).any(0)[None] | (c.e > 0)
    unknown = np.isinf(ea).any(1)[:, None] | np.isinf(eb).any(0)[None] | np.isinf(c.e)
    with np.errstate(all="ignore"):
        fa = np.abs(np.where(np.isfinite(ca), ca, 0).astype(np.float64))
        fb = np.abs(np.where(np.isfinite(cb), cb, 0).astype(np.float64))
        ea0 = np.where(np.isinf(ea), 0, ea)
        eb0 = np.where(np.isinf(eb), 0, eb)
        prop = fa @ eb0 + ea0 @ fb + ea0 @ eb0 + np.where(np.isinf(c.e), 0, c.e)
        mags = fa @ fb + np.abs(np.where(np.isfinite(c.a), c.a, 0).astype(np.float64))
        u = st.u
        bound = prop + 2 * (K + 2) * u * (mags + prop) + 2 * (K + 1) * st.tiny
        v = acc.astype(np.float64)
        risky = mags >= st.big * (1 - u)
        nonfin = ~np.isfinite(v)
        if strict:
            bound = np.where(inexact, bound, 0.0)
        bound = np.where(nonfin, np.where(inexact | risky, np.inf, 0.0), bound)
        bound = np.where(risky & ~nonfin & (bound > 0), np.inf, bound)
        bound = np.where(risky & ~nonfin & ~strict, np.inf, bound)
        bound = np.where(unknown, np.inf, bound)
        if K == 0:
            bound = np.where(unknown, np.inf, c.e)
    return MV(acc, np.asarray(bound, np.float64), st)


@dataclass
class Mma(Expr):
    """``tc.mma(a, b, c, precision=..., order=...)``, ``tc.dot(a, b)`` or ``a @ b``."""

    a: Expr
    """The M x K operand."""
    b: Expr
    """The K x N operand."""
    c: Expr | None
    """The accumulator (None: ``tc.dot`` / ``@`` from zero)."""
    shape: tuple[int, ...]
    """M x N."""
    dt: DT
    """The accumulator's type."""
    precision: str = "exact"
    """``exact`` or ``tf32``."""
    order: str | None = None
    """``strict_fold`` or None (the default order)."""
    form: int = 0
    """0: ``tc.mma``; 1: ``tc.dot``; 2: ``@``."""
    layout: str = "nn"
    """The layout drawn (``LAYOUTS``; for statistics: the operands carry the transposes)."""

    def render(self) -> str:
        opts = ""
        if self.precision != "exact":
            opts += f', precision="{self.precision}"'
        if self.order:
            opts += f', order="{self.order}"'
        if self.c is None:
            if self.form == 2 and not opts:
                return f"({self.a.render()} @ {self.b.render()})"
            return f"tc.dot({self.a.render()}, {self.b.render()}{opts})"
        return f"tc.mma({self.a.render()}, {self.b.render()}, {self.c.render()}{opts})"

    def model(self, env: Env) -> MV:
        a, b = self.a.model(env), self.b.model(env)
        if self.c is None:
            c = nx.exact(np.zeros(self.shape, self.dt.np), self.dt)
        else:
            c = self.c.model(env)
        return mma_model(a, b, c, self.precision, self.order == "strict_fold")

    def children(self) -> tuple[Expr, ...]:
        return (self.a, self.b) + ((self.c,) if self.c is not None else ())

    @property
    def features(self) -> tuple[str, ...]:  # type: ignore[override]
        out = (f"mma:{self.a.dt.name}:{self.precision}:{self.order or 'default'}",)
        return out + ((f"mma_layout:{self.layout}",) if self.layout != "nn" else ())


def _operand_dt(g: Gen, acc: DT) -> DT:
    if acc.name == "f32":
        return DTYPES[g.s.weighted([("f32", 3), ("f16", 3), ("bf16", 3)])]
    if acc.name == "f64":
        return DTYPES["f64"]
    return DTYPES["i8"]


def _options(g: Gen, op_dt: DT) -> tuple[str, str | None]:
    precision = "tf32" if op_dt.name == "f32" and g.s.coin(4) else "exact"
    order = "strict_fold" if g.s.coin(3) else None
    return precision, order


def transposed(x: Expr) -> Expr:
    """``x.T``: a window loads transposed (``X.tile(...).T``), a transposed window or view
    loses its ``.T``, anything else gets a ``.T`` view."""
    from .gen_elementwise import View
    from .gen_windows import Load

    if isinstance(x, Load) and not x.reshaped:
        x.tile_t = not x.tile_t
        x.shape = x.shape[::-1]
        return x
    if isinstance(x, View) and x.kind == "T":
        return x.a
    return View("T", x, x.shape[::-1], x.dt)


def _layout(g: Gen) -> tuple[str, bool, bool]:
    """A layout (``LAYOUTS``) and whether A is stored K x M and B N x K."""
    s = g.s
    layout = s.weighted(LAYOUTS)
    if layout == "swapped":
        return layout, s.coin(2), s.coin(2)
    return layout, layout in ("tn", "tt"), layout in ("nt", "tt")


def _operand(g: Gen, shape: tuple[int, int], dt: DT, depth: int, t: bool) -> Expr:
    """A tile of ``shape``, drawn as is or (``t``) as the transpose of the other shape."""
    if not t:
        return g.tile(shape, dt, depth)
    return transposed(g.tile(shape[::-1], dt, depth))


def _mma(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    s = g.s
    op_dt = _operand_dt(g, dt)
    M, N = shape
    K = small_extent(s)
    while M * K > 8192 or K * N > 8192:
        K = max(1, K // 2)
    layout, ta, tb = _layout(g)
    a = _operand(g, (M, K), op_dt, depth, ta)
    b = _operand(g, (K, N), op_dt, depth, tb)
    precision, order = _options(g, op_dt)
    form = s.weighted([(0, 4), (1, 1), (2, 1)])
    swapped = layout == "swapped"
    if swapped:  # (b.T @ a.T).T: an N x M product
        a, b = transposed(b), transposed(a)
        shape = (N, M)
    if form and dt.name in ("f32", "f64"):  # tc.dot takes no order=
        out = Mma(a, b, None, shape, dt, precision, None, form, layout)
    else:
        out = Mma(a, b, g.tile(shape, dt, depth), shape, dt, precision, order, 0, layout)
    return transposed(out) if swapped else out


def _k_loop(g: Gen) -> list[Stmt]:
    """``acc = init; for k in serial(n): acc = tc.mma(A window at k, B window at k, acc)``."""
    s = g.s
    if len(g.shape) != 2:
        M, N = small_extent(s), small_extent(s)
    else:
        M, N = g.shape if s.draw(3) else (small_extent(s), small_extent(s))
    acc_dt = DTYPES[s.weighted([("f32", 8), ("f64", 1), ("i32", 1)])]
    op_dt = _operand_dt(g, acc_dt)
    BK = small_extent(s)
    while M * BK > 8192 or BK * N > 8192:
        BK = max(1, BK // 2)
    return _k_loop_of(g, M, N, BK, acc_dt, op_dt)


def _warpgroup_k_loop(g: Gen) -> list[Stmt]:
    """A K loop of 16-bit tiles the size of warpgroup instructions (M and N of 64 or 128, 64
    deep): on ``cuda:sm_90`` it can stage swizzled rings and keep groups in flight."""
    s = g.s
    M, N = s.pick([64, 128]), s.pick([64, 128])
    return _k_loop_of(g, M, N, 64, DTYPES["f32"], DTYPES[s.pick(["bf16", "f16"])])


def _k_loop_of(g: Gen, M: int, N: int, BK: int, acc_dt: DT, op_dt: DT) -> list[Stmt]:
    s = g.s
    from .gen_elementwise import Full, View
    from .gen_windows import Load, loaded, window_origin
    from .program import IndexExpr, Var

    out: list[Stmt] = []
    acc = g.fresh("acc")
    layout, ta, tb = _layout(g)
    swapped = layout == "swapped"
    at = (N, M) if swapped else (M, N)  # the accumulator's shape
    init = loaded(g.tile(at, acc_dt, 1)) if s.coin(3) else Full(at, acc_dt, 0, 1)
    out.append(Let(acc, init))
    acc_v = g.bind(acc, at, acc_dt)
    n = s.weighted([(2, 4), (1, 2), (3, 2), (0, 1), (4, 1)])
    iv = g.fresh("k")
    # A's array is M x K (or K x M with ta), B's K x N (or N x K with tb)
    kn = BK * max(n, 1)
    pa = g.input_array(op_dt, (kn, M) if ta else (M, kn))
    pb = g.input_array(op_dt, (N, kn) if tb else (kn, N))
    fill = 0.0 if op_dt.is_float else 0
    if s.coin(4) and op_dt.is_float:
        fill = s.pick([1.0, -1.0, float("nan"), float("inf")])

    def k_origin(o: IndexExpr) -> IndexExpr:
        return IndexExpr(((BK, iv),), o.const if s.coin(3) else 0)

    if ta:
        oa = window_origin(g, (BK, M), (None, 0))
        oa, wa = (k_origin(oa[0]), oa[1]), (BK, M)
    else:
        oa = window_origin(g, (M, BK), (0, None))
        oa, wa = (oa[0], k_origin(oa[1])), (M, BK)
    if tb:
        ob = window_origin(g, (N, BK), (1, None))
        ob, wb = (ob[0], k_origin(ob[1])), (N, BK)
    else:
        ob = window_origin(g, (BK, N), (None, 1))
        ob, wb = (k_origin(ob[0]), ob[1]), (BK, N)
    # the operands as the product reads them: M x K and K x N, or with ``swapped`` the
    # N x K ``b.T`` and the K x M ``a.T``; a window of the other shape loads transposed
    ra, rb = ((BK, M), (N, BK)) if swapped else ((M, BK), (BK, N))
    a = Load(pa.name, oa, wa, fill, ra, op_dt, tile_t=ta != swapped)
    b = Load(pb.name, ob, wb, fill, rb, op_dt, tile_t=tb != swapped)
    if swapped:
        a, b = b, a
    precision, order = _options(g, op_dt)
    pipe = s.coin(4)
    mma_args = (acc_v, at, acc_dt, precision, order, 0, layout)
    if pipe:
        a.explicit = b.explicit = 1
        from .gen_loops import Stage

        xa, xb = g.fresh("a"), g.fresh("b")
        body = [Let(xa, a), Let(xb, b), Stage(),
                Let(acc, Mma(_v(xa, a), _v(xb, b), *mma_args))]
        out.append(Loop("pipeline", iv, 0, n, 1, body, 0, s.pick([0, 2])))
    else:
        body = [Let(acc, Mma(a, b, *mma_args))]
        out.append(Loop("serial", iv, 0, n, 1, body))
    if swapped:  # the product's value is the accumulator's transpose
        final = g.fresh("acc")
        out.append(Let(final, View("T", Var(acc, at, acc_dt), (M, N), acc_dt)))
        acc_v = g.bind(final, (M, N), acc_dt)
    out.extend(_stored(g, acc_v))
    return out


def _stored(g: Gen, acc: Expr) -> list[Stmt]:
    """A store of the accumulator into a new output at the instance's block, so that the
    product is compared whether or not a later statement reads it (capture drops a product
    nobody reads). It draws no choice: recorded streams replay the same programs, with
    this output added. Not with a third grid axis, whose instances would share the block."""
    from .program import IndexExpr, Store

    if len(g.grid) > 2:
        return []
    m, n = acc.shape
    ext, origin = [], []
    for d, e in enumerate((m, n)):
        if d < len(g.grid):
            ext.append(g.grid[d] * e)
            origin.append(IndexExpr(((e, f"p{d}"),), 0))
        else:
            ext.append(e)
            origin.append(IndexExpr((), 0))
    p = g.param("out", acc.dt, tuple(ext))
    return [Store(p.name, tuple(origin), acc)]


def _v(name: str, like: Expr) -> Expr:
    from .program import Var

    return Var(name, like.shape, like.dt)


PRODUCERS.append(Producer("matrix", "mma", 4, lambda g, s, d: len(s) == 2 and d.name in
                          ("f32", "f64", "i32"), _mma))
STATEMENTS.append(StmtMaker("matrix", "k_loop", 6, _k_loop))
STATEMENTS.append(StmtMaker("matrix", "warpgroup_k_loop", 1, _warpgroup_k_loop))
