"""Loops of two products per iteration: attention's key loop without its softmax, the shape
the warpgroup turns (``+turns``), the producer ring without groups in flight and the
register A operand of the second product are built for::

    for p0, p1 in tc.parallel(tc.cdiv(Y0.shape[0], BM), tc.cdiv(Y0.shape[1], D)):
        acc = tc.zeros((BM, D), tc.float32)            # or a constant
        for k in tc.serial(tc.cdiv(X1.shape[0], BN)):
            s = tc.dot(X0.tile((p0 * BM, 0), (BM, DQ), fill=F),
                       X1.tile((k * BN, 0), (BN, DQ), fill=F).T)       # BM x BN, f32
            s = <s scaled, or through relu / tanh>                      # sometimes
            acc = tc.mma(s.to(op), X2.tile((k * BN, p1 * D), (BN, D), fill=F), acc)
        Y0.tile((p0 * BM, p1 * D), (BM, D)).store(acc)                 # or acc.to(op)

or, one program in three, software-pipelined as FlashAttention-3 writes it: the next
block's scores issued before this block's second product, which runs one iteration late::

        s_next = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(X1.shape[0], BN) + 1):
            s = s_next                                                  # (or scaled ...)
            s_next = tc.dot(X0.tile(...), X1.tile((k * BN, 0), ...).T)  # only carried
            if k > 0:
                acc = tc.mma(s.to(op), X2.tile((k * BN - BN, p1 * D), ...), acc)

(its product for the next iteration stays in flight to the end of the iteration,
``machine_matrix._carried_only``; the value block of the first iteration lies before the
array; half the time the value block is loaded at the top of the body, into the ring,
``v = X2.tile(...).load()``, else where the ``if`` first reads it), with ``BM`` of 128
(two consumer warpgroups; 64 sometimes), ``BN`` of 64 or 128, ``DQ`` and
``D`` of 64 or 128, 16-bit operands, key counts that leave the last block partial (its
keys read as the fill) and query counts that leave the last row tile partial. Off by
default (``--features two_products``).
"""

from __future__ import annotations

from .generator import PROGRAMS, Gen
from .numerics import DTYPES
from .program import IndexExpr, Let, Program, Store

__all__ = ["two_product_program"]


def two_product_program(g: Gen) -> Program:
    """One two-product grid nest (see the module docstring)."""
    from .gen_elementwise import Bin, Cast, Full, Num, Un
    from .gen_loops import Cond, If, Loop
    from .gen_matrix import Mma
    from .gen_windows import Load
    from .program import Var

    s = g.s
    bm = s.weighted([(128, 3), (64, 1)])
    bn = s.pick([64, 128])
    dq, d = s.pick([64, 128]), s.pick([64, 128])
    op = DTYPES[s.weighted([("bf16", 3), ("f16", 2)])]
    f32 = DTYPES["f32"]
    gm, gn = s.between(1, 3), s.between(1, 2)
    trips = s.weighted([(1, 2), (2, 3), (3, 2), (5, 1)])
    g.grid = (gm, gn)
    g.shape = (bm, d)
    g.index_names = ["p0", "p1"]
    m = gm * bm - (s.between(0, bm - 1) if s.coin(2) else 0)
    keys = max(1, trips * bn - (s.between(0, bn - 1) if s.coin(2) else 0))
    keys -= keys % 8 if keys > 8 else 0  # a 16-byte row pitch of the key-major operands
    q = g.param("in", op, (m, dq))
    kx = g.param("in", op, (keys, dq))
    v = g.param("in", op, (keys, gn * d))
    fill = s.weighted([(0.0, 6), (1.0, 1)])
    acc, sc, iv = g.fresh("acc"), g.fresh("s"), g.fresh("k")
    acc_v = g.bind(acc, (bm, d), f32)
    row, col = IndexExpr(((bm, "p0"),), 0), IndexExpr(((d, "p1"),), 0)
    key0, zero = IndexExpr(((bn, iv),), 0), IndexExpr((), 0)
    lq = Load(q.name, (row, zero), (bm, dq), fill, (bm, dq), op)
    lk = Load(kx.name, (key0, zero), (bn, dq), fill, (dq, bn), op, tile_t=True)
    pipelined = s.coin(3)
    lv = Load(v.name, (IndexExpr(((bn, iv),), -bn if pipelined else 0), col), (bn, d), fill,
              (bn, d), op)
    sv = Var(sc, (bm, bn), f32)
    scores = Mma(lq, lk, None, (bm, bn), f32, "exact", None, 1)
    nxt = g.fresh("s_next")
    # the scores of this iteration (pipelined: carried to the next), then what uses them
    head = [Let(sc, Var(nxt, (bm, bn), f32)), Let(nxt, scores)] if pipelined \
        else [Let(sc, scores)]
    step: list = []
    shape = s.weighted([("as is", 2), ("scale", 2), ("relu", 1), ("tanh", 1)])
    if shape == "scale":
        step.append(Let(sc, Bin("mul", sv, Num(0.125, f32), (bm, bn), f32)))
    elif shape == "relu":
        step.append(Let(sc, Bin("max", sv, Num(0.0, f32), (bm, bn), f32)))
    elif shape == "tanh":
        step.append(Let(sc, Un("tanh", sv, (bm, bn), f32)))
    if pipelined and s.coin(2):  # loaded in the body (into the ring), not inside the if
        vn = g.fresh("v")
        lv.explicit = 1
        head.insert(0, Let(vn, lv))
        lv = Var(vn, (bn, d), op)
    step.append(Let(acc, Mma(Cast(sv, (bm, bn), op), lv, acc_v, (bm, d), f32)))
    # pipelined: the second product of the previous iteration's scores
    body = head + ([If(Cond("gt", iv, 0), step)] if pipelined else step)
    init = Full((bm, d), f32, 0, 1) if s.draw(4) else Full((bm, d), f32, 0.5, 0)
    trips = -(-keys // bn)
    stmts = [Let(acc, init)]
    if pipelined:
        g.bind(nxt, (bm, bn), f32)
        stmts.append(Let(nxt, Full((bm, bn), f32, 0, 1)))
    stmts.append(Loop("serial", iv, 0, trips + pipelined, 1, body,
                      hi_source=f"tc.cdiv({kx.name}.shape[0], {bn})"
                      + (" + 1" if pipelined else "")))
    out_dt = DTYPES[s.weighted([("f32", 2), (op.name, 1)])]
    y = g.param("out", out_dt, (m, gn * d))
    stmts.append(Store(y.name, (row, col), Var(acc, (bm, d), f32), "store", False))
    grid = (f"tc.cdiv({y.name}.shape[0], {bm})", f"tc.cdiv({y.name}.shape[1], {d})")
    return Program(g.params, g.grid, stmts, s.draw(1 << 16), s.draw(3), g.weights, grid)


PROGRAMS["two_products"] = two_product_program
