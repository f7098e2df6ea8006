"""Whole GEMM programs: the grid nest of a library matrix product, with random tiles,
ragged and misaligned arrays, trip counts, fills, epilogues and output types.

The ``matrix`` family's K loops share a group with other statements and stay small (a
program's tiles hold at most 4096 elements), so they rarely meet the realizations of large
matrix tiles: warpgroup instructions, swizzled tensor-copy rings, mbarrier rings, producer
warpgroups, split K. A ``gemm`` program is the shape those realizations are built for::

    for p0, p1 in tc.parallel(tc.cdiv(Y0.shape[0], BM), tc.cdiv(Y0.shape[1], BN)):
        acc = tc.zeros((BM, BN), tc.float32)          # or a constant
        for k in tc.serial(tc.cdiv(A.shape[1], BK)):
            acc = tc.mma(A.tile((p0 * BM, k * BK), (BM, BK), fill=F),
                         B.tile((k * BK, p1 * BN), (BK, BN), fill=F), acc)
        Y0.tile((p0 * BM, p1 * BN), (BM, BN)).store(<an epilogue of acc>)

(B sometimes ``W.tile((p1 * BN, k * BK), (BN, BK), fill=F).T`` of an N x K array: the
K-major operand; sometimes the transposed product ``acc = tc.mma(B.T, A.T, acc)`` of a
BN x BM accumulator, stored as ``acc.T``: a transposed M operand; A sometimes the first
K block in every iteration: a loop-invariant one;
and sometimes ``acc = tc.dot(acc.to(op), W2.tile((p1 * BN, 0), (BN, BN), fill=F))`` after
the loop, a chained product whose A is the first one's accumulator)
with ``BM`` of 64 or 128, ``BN`` of 64, 128 or 256, ``BK`` of 64 (sometimes 32), 16-bit
operands mostly (f32 with TF32 or exact rounding sometimes), array extents that leave the
last tiles partial, and sometimes a last extent that is not a whole number of 16 bytes
(the tensor-map guard then falls back to ordinary copies). The epilogue is drawn from the
other enabled families over the accumulator, or with the ``bias_epilogue`` family on
(off by default; it draws nothing unless named) mostly a bias row and/or a residual tile
added to it and an activation (``_bias_epilogue``). Off by default (weight 0: the streams of other
campaigns are unchanged); ``--features gemm`` or ``gemm=W`` among others turns it on.
"""

from __future__ import annotations

from .generator import PROGRAMS, Gen
from .numerics import DT, DTYPES
from .program import Expr, IndexExpr, Let, Program, Store

__all__ = ["gemm_program", "small_gemm_program"]


def _extent(g: Gen, blocks: int, tile: int, aligned: bool) -> int:
    """An array extent covering ``blocks`` tiles, the last one partial sometimes; with
    ``aligned`` a whole number of 8 elements (16 bytes of a 16-bit type)."""
    s = g.s
    e = blocks * tile - (s.between(0, tile - 1) if s.coin(2) else 0)
    if aligned:
        e = max(e - e % 8, (blocks - 1) * tile + 8)
    return max(1, e)


def gemm_program(g: Gen) -> Program:
    """One GEMM grid nest (see the module docstring)."""
    s = g.s
    bm = s.pick([64, 128])
    bn = s.weighted([(64, 2), (128, 3), (256, 1 if bm == 64 else 2)])
    bk = s.weighted([(64, 4), (32, 1)])
    op = DTYPES[s.weighted([("bf16", 4), ("f16", 3), ("f32", 1)])]
    precision = "tf32" if op.name == "f32" and s.coin(2) else "exact"
    return _nest(g, bm, bn, bk, op, precision)


def small_gemm_program(g: Gen) -> Program:
    """The same grid nest with f32 operands and tiles a metal:m1 group holds (32 KiB of
    threadgroup memory): ``BM``, ``BN`` of 8, 16 or 32 and ``BK`` of 8, 16, 24 or 32, so
    that the Metal matrix families meet it: MPP ``matmul2d`` where its descriptor rules
    hold (a K tile not a multiple of 16 is its dynamic-K case; an 8-wide tile breaks the
    rule), ``simdgroup_matrix`` fragments, lane FMAs. Off by default (``small_gemm``)."""
    s = g.s
    bm = s.weighted([(8, 1), (16, 3), (32, 3)])
    bn = s.weighted([(8, 1), (16, 3), (32, 3)])
    bk = s.weighted([(8, 2), (16, 3), (24, 1), (32, 2)])
    return _nest(g, bm, bn, bk, DTYPES["f32"], "exact")


def _nest(g: Gen, bm: int, bn: int, bk: int, op: DT, precision: str) -> Program:
    """The GEMM grid nest of the drawn tile (draws the rest: extents, operands, epilogue)."""
    from .gen_elementwise import Cast, Full, View
    from .gen_loops import Loop
    from .gen_matrix import Mma
    from .gen_windows import Load
    from .program import Var

    s = g.s
    gm, gn = s.between(1, 3), s.between(1, 3 if bn < 256 else 2)
    trips = s.weighted([(1, 2), (2, 3), (3, 2), (5, 2), (10, 1)])
    g.grid = (gm, gn)
    g.shape = (bm, bn)
    g.index_names = ["p0", "p1"]
    aligned = not s.coin(5)  # else some last extent breaks the tensor-map guard
    m = _extent(g, gm, bm, True)
    n = _extent(g, gn, bn, aligned or s.coin(2))
    k = _extent(g, trips, bk, aligned)
    f32 = DTYPES["f32"]
    a = g.param("in", op, (m, k))
    k_major = s.coin(3)  # B read as W.tile(...).T from an N x K array (a K-major operand)
    b = g.param("in", op, (n, k) if k_major else (k, n))
    once = s.coin(6)  # every iteration reads A's first K block: a loop-invariant operand
    fill = s.weighted([(0.0, 8), (float("nan"), 1), (1.0, 1)])
    acc = g.fresh("acc")
    swapped = s.coin(6)  # the transposed product acc.T = B.T @ A.T, stored as acc.T
    at = (bn, bm) if swapped else (bm, bn)  # the accumulator's shape
    init = Full(at, f32, 0, 1) if s.draw(4) else Full(at, f32, 0.5, 0)
    body = [Let(acc, init)]
    acc_v = g.bind(acc, at, f32)
    iv = g.fresh("k")
    a_col = IndexExpr((), 0) if once else IndexExpr(((bk, iv),), 0)
    la = Load(a.name, (IndexExpr(((bm, "p0"),), 0), a_col), (bm, bk), fill, (bm, bk), op)
    if k_major:
        lb = Load(b.name, (IndexExpr(((bn, "p1"),), 0), IndexExpr(((bk, iv),), 0)),
                  (bn, bk), fill, (bk, bn), op, tile_t=True)
    else:
        lb = Load(b.name, (IndexExpr(((bk, iv),), 0), IndexExpr(((bn, "p1"),), 0)),
                  (bk, bn), fill, (bk, bn), op)
    if swapped:
        # B.T is the M operand (a transposed window, or W's K-major tile as it is) and
        # A.T the K x M operand; the accumulator is BN x BM and leaves as its transpose
        la.tile_t, la.shape = True, (bk, bm)
        lb.tile_t, lb.shape = not k_major, (bn, bk)
        mma = Mma(lb, la, acc_v, (bn, bm), f32, precision, None, 0)
    else:
        mma = Mma(la, lb, acc_v, (bm, bn), f32, precision, None, 0)
    body.append(Loop("serial", iv, 0, -(-k // bk), 1, [Let(acc, mma)],
                     hi_source=f"tc.cdiv({a.name}.shape[1], {bk})"))
    if swapped:
        final = g.fresh("acc")
        body.append(Let(final, View("T", Var(acc, (bn, bm), f32), (bm, bn), f32)))
        g.bind(final, (bm, bn), f32)
        acc = final
    elif op.name != "f32" and bm == 64 and bn <= 128 and s.coin(3):
        # a second product of the accumulator, cast (as attention's probabilities): where
        # the planner gives both products warpgroup instructions its A comes from the
        # first's registers; where no plan fits, the checked scalar reference runs it
        w2 = g.param("in", op, (n, bn))
        lw2 = Load(w2.name, (IndexExpr(((bn, "p1"),), 0), IndexExpr((), 0)), (bn, bn), fill,
                   (bn, bn), op)
        body.append(Let(acc, Mma(Cast(Var(acc, (bm, bn), f32), (bm, bn), op), lw2, None,
                                 (bm, bn), f32, "exact", None, 1)))
    out_dt = DTYPES[s.weighted([("f32", 4), (op.name, 1)])]
    g.budget = 8
    if g.on("bias_epilogue") and not s.coin(4):  # no draw at all unless enabled
        epilogue = _bias_epilogue(g, Var(acc, (bm, bn), f32), m, n, bm, bn)
    else:
        epilogue = g.tile((bm, bn), f32, 2) if s.coin(2) else Var(acc, (bm, bn), f32)
    y = g.param("out", out_dt, (m, n))
    body.append(Store(y.name, (IndexExpr(((bm, "p0"),), 0), IndexExpr(((bn, "p1"),), 0)),
                      epilogue, "store", False))
    grid = (f"tc.cdiv({y.name}.shape[0], {bm})", f"tc.cdiv({y.name}.shape[1], {bn})")
    return Program(g.params, g.grid, body, s.draw(1 << 16), s.draw(3), g.weights, grid)


def _bias_epilogue(g: Gen, acc: Expr, m: int, n: int, bm: int, bn: int) -> Expr:
    """``act(acc + bias[None, :])``, ``act(acc + R)`` or both: a bias row of ``n`` f32
    elements (shorter than the last tile where ``n`` is ragged) and a residual window of
    the output's shape, each read in the epilogue (the scalar-epilogue proof's reindexed
    and owned loads), then relu, tanh, a GELU-like ``x * sigmoid(1.702 x)`` or nothing.
    Drawn only with the ``bias_epilogue`` family on."""
    from .gen_elementwise import Bin, Num, Un, View
    from .gen_windows import Load

    s = g.s
    f32 = DTYPES["f32"]
    tile = (bm, bn)
    row, col = IndexExpr(((bm, "p0"),), 0), IndexExpr(((bn, "p1"),), 0)
    fill = s.weighted([(0.0, 4), (1.0, 1)])
    kind = s.weighted([("bias", 3), ("residual", 2), ("both", 1)])
    x = acc
    if kind in ("bias", "both"):
        b = g.param("in", f32, (n,))
        row_t = View("expand0", Load(b.name, (col,), (bn,), fill, (bn,), f32), tile, f32)
        x = Bin("add", x, row_t, tile, f32)
    if kind in ("residual", "both"):
        r = g.param("in", f32, (m, n))
        x = Bin("add", x, Load(r.name, (row, col), tile, fill, tile, f32), tile, f32)
    act = s.weighted([("relu", 3), ("gelu", 2), ("tanh", 1), ("none", 1)])
    if act == "relu":
        return Bin("max", x, Num(0.0, f32), tile, f32)
    if act == "gelu":
        return Bin("mul", x, Un("sigmoid", Bin("mul", x, Num(1.702, f32), tile, f32),
                                tile, f32), tile, f32)
    return Un("tanh", x, tile, f32) if act == "tanh" else x


PROGRAMS["gemm"] = gemm_program
PROGRAMS["small_gemm"] = small_gemm_program
