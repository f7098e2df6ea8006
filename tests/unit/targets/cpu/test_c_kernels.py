"""Differential tests: hand-built TileIR kernels on the C backend against the reference interpreter.

Shapes are ragged (not multiples of the tile), have size-1 and empty axes;
``strict_fold`` kernels and every non-transcendental scalar function must
agree bit for bit (NaN payloads aside); ``unordered_tree`` within tolerance.
"""

from __future__ import annotations

import threading

import ml_dtypes
import numpy as np
import pytest
from cir import KB, assert_bitwise, mem, run_both, tile

import tilec as tc
import tilec.ir as ir
from tilec.targets.cpu.interop import NP_DTYPES

RNG = np.random.default_rng(1234)

SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, np.inf, -np.inf, np.nan, 1e-40, -1e-42,
            65504.0, 65520.0, 3.4e38, -3.4e38, 1e-8, 7.0, 1 / 3, 2.0**24 + 1, 1e10, -7.25]


def values(dt: ir.ScalarType, n: int, specials: bool = True) -> np.ndarray:
    """``n`` test values of TileIR type ``dt`` (specials first, then random)."""
    npdt = NP_DTYPES[dt.name]
    if dt.is_float:
        base = np.array(SPECIALS if specials else [], np.float64)
        rnd = RNG.standard_normal(max(0, n - len(base))) * 10.0
        x = np.concatenate([base, rnd])[:n]
        with np.errstate(all="ignore"):
            return x.astype(np.float32).astype(npdt) if dt.name == "bf16" else x.astype(npdt)
    if dt is ir.i1:
        return RNG.integers(0, 2, n).astype(bool)
    info = np.iinfo(npdt)
    base = np.array([0, 1, -1, info.min, info.max, 7, -7, 3], np.int64) if specials else []
    rnd = RNG.integers(max(info.min, -1000), min(info.max, 1000), max(0, n - len(base)))
    return np.concatenate([base, rnd])[:n].astype(npdt)


# ------------------------------------------------------------------ elementwise


def ew_kernel(fn: str, dts: list[ir.ScalarType], rdt: ir.ScalarType | None = None,
              T: int = 16) -> KB:
    """``Z[i] = fn(X0[i], X1[i], ...)`` over ``N`` in tiles of ``T``."""
    names = [f"X{k}" for k in range(len(dts))]
    out_t = rdt if rdt is not None else ir.arith_result_type(fn, list(dts))
    kb = KB("ew", [(n, mem(("N",), d)) for n, d in zip(names, dts)] + [("Z", mem(("N",), out_t))],
            ("N",))
    *xs, z, n = kb.args
    ct = kb.idx(T)

    def prog(p):
        o = kb.arith("mul", p, ct)
        tiles = [kb.load(kb.view(x, [o], (T,)), fill=0) for x in xs]

        def body(*a):
            return [kb.arith(fn, *a, rtype=out_t if fn == "cast" else None)]

        (r,) = kb.map((T,), tiles, body)
        kb.store(kb.view(z, [o], (T,)), r)
        return []

    kb.parallel([kb.arith("cdiv", n, ct)], prog)
    kb.ret()
    return kb


EXACT_FLOAT = ["add", "sub", "mul", "div", "rem", "max", "min", "neg", "abs", "sqrt", "rsqrt",
               "floor", "ceil", "eq", "ne", "lt", "le", "gt", "ge", "fma", "select"]
TRANSCENDENTAL = ["exp", "exp2", "log", "log2", "tanh", "erf", "sigmoid", "sin", "cos", "pow"]
INT_FNS = ["add", "sub", "mul", "max", "min", "neg", "abs", "and", "or", "xor", "not",
           "eq", "ne", "lt", "le", "gt", "ge", "fma", "floordiv", "rem", "cdiv", "select"]
BOOL_FNS = ["add", "sub", "mul", "and", "or", "xor", "not", "max", "min", "eq", "ne", "lt",
            "le", "gt", "ge", "select"]
FLOATS = [ir.f32, ir.f64, ir.f16, ir.bf16]
INTS = [ir.i8, ir.i16, ir.i32, ir.i64, ir.index]
ALL = [ir.f32, ir.f64, ir.f16, ir.bf16, ir.i1, ir.i8, ir.i16, ir.i32, ir.i64, ir.index]


def fns_kernel(fns: list[str], dt: ir.ScalarType, casts: list[ir.ScalarType] | None = None,
               n: int = 64) -> tuple[KB, list[ir.ScalarType]]:
    """One kernel computing every function of ``fns`` (or every cast) on the same inputs.

    Inputs ``X0 X1 X2`` (dtype ``dt``) and ``C`` (i1, the select condition); one
    output per function. Compiling one kernel per dtype keeps the suite fast.
    """
    if casts is not None:
        outs = list(casts)
    else:
        outs = [ir.arith_result_type(f, [dt] * 3) for f in fns]
    params = [(f"X{k}", mem((n,), dt)) for k in range(3)] + [("C", mem((n,), ir.i1))]
    params += [(f"Z{k}", mem((n,), t)) for k, t in enumerate(outs)]
    kb = KB("fns", params)
    xs, cond, zs = kb.args[:3], kb.args[3], kb.args[4:]

    def prog(_p):
        tiles = [kb.load(x) for x in xs]
        c = kb.load(cond)

        def body(a, b, c3, cc):
            if casts is not None:
                return [kb.arith("cast", a, rtype=t) for t in casts]
            res = []
            for f in fns:
                if f == "select":
                    res.append(kb.arith("select", cc, a, b))
                else:
                    res.append(kb.arith(f, *[a, b, c3][:ir.ARITH_FNS[f]]))
            return res

        rs = kb.map((n,), [*tiles, c], body)
        for z, r in zip(zs, rs):
            kb.store(z, r)
        return []

    kb.parallel([kb.idx(1)], prog)
    kb.ret()
    return kb, outs


def run_fns(fns: list[str], dt: ir.ScalarType, casts: list[ir.ScalarType] | None = None,
            extra: np.ndarray | None = None) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Run ``fns_kernel`` on special and random values; return (C outputs, reference outputs)."""
    x0 = values(dt, 64)
    if extra is not None:
        x0[-len(extra):] = extra.astype(x0.dtype)
    x1, x2 = np.roll(values(dt, 64), 5), np.roll(values(dt, 64), 11)
    if any(f in ("floordiv", "rem", "cdiv") for f in fns):
        x1 = np.where(x1 == 0, 3, x1).astype(x1.dtype)
    cond = RNG.integers(0, 2, 64).astype(bool)
    kb, outs = fns_kernel(fns, dt, casts)
    zs = [np.zeros(64, NP_DTYPES[t.name]) for t in outs]
    ca, ra, _, _ = run_both(kb, x0, x1, x2, cond, *zs)
    return ca[4:], ra[4:]


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_exact_float_functions_bitwise(dt: ir.ScalarType) -> None:
    cs, rs = run_fns(EXACT_FLOAT, dt)
    for f, c, r in zip(EXACT_FLOAT, cs, rs):
        assert_bitwise(c, r, str(f))


def test_round_tf32_bitwise_and_only_on_f32() -> None:
    # exact ties of the 13 dropped bits (away from zero), just below a tie, a subnormal tie
    # and the largest finite value (rounds to infinity)
    tricky = np.array([0x3F801000, 0xBF801000, 0x3F800FFF, 0x3F803000, 0x00001000, 0x7F7FFFFF],
                      np.uint32).view(np.float32)
    (c,), (r,) = run_fns(["round_tf32"], ir.f32, extra=tricky)
    assert_bitwise(c, r, "round_tf32")
    got = r[-len(tricky):].view(np.uint32)
    assert got.tolist() == [0x3F802000, 0xBF802000, 0x3F800000, 0x3F804000, 0x00002000,
                            0x7F800000]
    with pytest.raises(ir.VerificationError, match="round_tf32 rounds f32 values"):
        ir.verify(fns_kernel(["round_tf32"], ir.f64)[0].module)


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in units in the last place: how many representable values lie between."""
    def ordered(x: np.ndarray) -> np.ndarray:
        u = np.ascontiguousarray(x).view({2: np.int16, 4: np.int32, 8: np.int64}[x.itemsize])
        u = u.astype(np.int64)
        top = np.int64(1) << (8 * x.itemsize - 1)
        return np.where(u < 0, -(u + top), u)  # -0.0 and +0.0 both map to 0

    d = np.abs(ordered(a) - ordered(b)).astype(np.float64)
    nan = np.isnan(a.astype(np.float64)) & np.isnan(b.astype(np.float64))
    return np.where(nan, 0.0, d)


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_transcendental_functions_within_one_ulp(dt: ir.ScalarType) -> None:
    cs, rs = run_fns(TRANSCENDENTAL, dt)
    for f, c, r in zip(TRANSCENDENTAL, cs, rs):
        nan_c, nan_r = np.isnan(c.astype(np.float64)), np.isnan(r.astype(np.float64))
        assert (nan_c == nan_r).all(), f
        assert _ulps(c, r).max() <= 1.0, (f, _ulps(c, r).max())


@pytest.mark.parametrize("dt", INTS, ids=str)
def test_integer_functions_bitwise(dt: ir.ScalarType) -> None:
    cs, rs = run_fns(INT_FNS, dt)
    for f, c, r in zip(INT_FNS, cs, rs):
        assert_bitwise(c, r, str(f))


def test_bool_functions_bitwise() -> None:
    cs, rs = run_fns(BOOL_FNS, ir.i1)
    for f, c, r in zip(BOOL_FNS, cs, rs):
        assert_bitwise(c, r, str(f))


@pytest.mark.parametrize("src", ALL, ids=str)
def test_casts_bitwise(src: ir.ScalarType) -> None:
    extra = None
    if src.is_float:  # also values that double-round differently through f32
        extra = np.array([1 + 2.0**-8 + 2.0**-30, 1 + 2.0**-11 + 2.0**-40, 2.0**31, -2.0**31,
                          2.0**63, -2.0**63 - 4096, 127.9, -128.7, 300.0, 40000.0], np.float64)
        with np.errstate(all="ignore"):
            extra = extra.astype(NP_DTYPES[src.name])
    elif src in (ir.i64, ir.index):
        extra = np.array([2**53 + 1, 2**62 + 2**39 + 1, -(2**60) - 3], np.int64)
    cs, rs = run_fns([], src, casts=ALL, extra=extra)
    for dst, c, r in zip(ALL, cs, rs):
        assert_bitwise(c, r, str(dst))


def test_integer_division_by_zero_is_an_error() -> None:
    kb = ew_kernel("floordiv", [ir.i32, ir.i32])
    with pytest.raises(ZeroDivisionError, match=r"ckernel\.py:\d+"):
        kb.c()(np.ones(5, np.int32), np.array([1, 2, 0, 1, 1], np.int32), np.zeros(5, np.int32))


@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 100])
@pytest.mark.parametrize("T", [1, 16, 64])
def test_ragged_and_empty_extents(n: int, T: int) -> None:
    kb = ew_kernel("add", [ir.f32, ir.f32], T=T)
    x, y = values(ir.f32, n), values(ir.f32, n, specials=False)
    z = np.full(n, np.nan, np.float32)
    ca, ra, _, _ = run_both(kb, x, y, z)
    assert_bitwise(ca[-1], ra[-1])


# ------------------------------------------------------------------ matmul


def matmul_kernel(BM: int, BN: int, BK: int, order: str = "strict_fold",
                  dt: ir.ScalarType = ir.f32, acc: ir.ScalarType = ir.f32,
                  precision: str = "exact") -> KB:
    """The tiled matmul of the library, written out by hand."""
    kb = KB("matmul", [("A", mem(("M", "K"), dt)), ("B", mem(("K", "N"), dt)),
                       ("C", mem(("M", "N"), acc))], ("M", "N", "K"))
    a_, b_, c_, m, n, k = kb.args
    c0, c1 = kb.idx(0), kb.idx(1)
    cbm, cbn, cbk = kb.idx(BM), kb.idx(BN), kb.idx(BK)

    def prog(pm, pn):
        om, on = kb.arith("mul", pm, cbm), kb.arith("mul", pn, cbn)

        def step(kk, acc_):
            ok = kb.arith("mul", kk, cbk)
            a = kb.load(kb.view(a_, [om, ok], (BM, BK)), fill=0)
            b = kb.load(kb.view(b_, [ok, on], (BK, BN)), fill=0)
            return [kb.mma(a, b, acc_, precision=precision, order=order)]

        (r,) = kb.serial(c0, kb.arith("cdiv", k, cbk), c1, [kb.const(0, tile((BM, BN), acc))],
                         step)
        kb.store(kb.view(c_, [om, on], (BM, BN)), r)
        return []

    kb.parallel([kb.arith("cdiv", m, cbm), kb.arith("cdiv", n, cbn)], prog)
    kb.ret()
    return kb


SHAPES = [(37, 29, 23), (64, 64, 64), (1, 1, 1), (1, 70, 5), (70, 1, 9), (0, 8, 8), (8, 0, 8),
          (8, 8, 0), (100, 33, 130)]


def _mat(shape: tuple[int, int], dt: ir.ScalarType) -> np.ndarray:
    npdt = NP_DTYPES[dt.name]
    if dt.is_float:
        return RNG.standard_normal(shape).astype(np.float32).astype(npdt)
    return RNG.integers(-100, 100, shape).astype(npdt)


@pytest.mark.parametrize("tiles", [(64, 64, 32), (6, 16, 8), (5, 13, 7), (12, 24, 16), (1, 1, 1)])
@pytest.mark.parametrize("shape", SHAPES)
def test_strict_matmul_bitwise(tiles: tuple[int, int, int], shape: tuple[int, int, int]) -> None:
    m, n, k = shape
    if tiles == (1, 1, 1) and m * n * k > 2000:
        shape = m, n, k = (min(m, 9), min(n, 7), min(k, 5))  # the interpreter is slow here
    kb = matmul_kernel(*tiles)
    a, b = _mat((m, k), ir.f32), _mat((k, n), ir.f32)
    ca, ra, _, _ = run_both(kb, a, b, np.full((m, n), np.nan, np.float32))
    assert_bitwise(ca[2], ra[2])


@pytest.mark.parametrize("dt,acc,precision", [
    (ir.f64, ir.f64, "exact"), (ir.bf16, ir.f32, "exact"), (ir.f16, ir.f32, "exact"),
    (ir.f32, ir.f32, "tf32"), (ir.f32, ir.f64, "exact"), (ir.bf16, ir.bf16, "exact"),
    (ir.i32, ir.i32, "exact"), (ir.i8, ir.i32, "exact"), (ir.f32, ir.f32, "bf16x3"),
])
def test_strict_matmul_dtypes_bitwise(dt: ir.ScalarType, acc: ir.ScalarType,
                                      precision: str) -> None:
    m, n, k = 45, 37, 29
    kb = matmul_kernel(16, 24, 8, "strict_fold", dt, acc, precision)
    a, b = _mat((m, k), dt), _mat((k, n), dt)
    ca, ra, _, _ = run_both(kb, a, b, np.zeros((m, n), NP_DTYPES[acc.name]))
    assert_bitwise(ca[2], ra[2])


@pytest.mark.parametrize("tiles", [(64, 64, 32), (6, 16, 8), (5, 13, 7)])
@pytest.mark.parametrize("shape", SHAPES)
def test_tree_matmul_close(tiles: tuple[int, int, int], shape: tuple[int, int, int]) -> None:
    m, n, k = shape
    kb = matmul_kernel(*tiles, order="unordered_tree")
    a, b = _mat((m, k), ir.f32), _mat((k, n), ir.f32)
    ca, ra, _, _ = run_both(kb, a, b, np.full((m, n), np.nan, np.float32))
    bound = 4 * max(k, 1) * np.finfo(np.float32).eps * (np.abs(a) @ np.abs(b) + 1e-30)
    assert (np.abs(ca[2].astype(np.float64) - ra[2]) <= bound).all()


def test_matmul_special_values_strict() -> None:
    m, n, k = 13, 17, 11
    a, b = _mat((m, k), ir.f32), _mat((k, n), ir.f32)
    a[0, 0], a[1, 2], b[3, 4], b[5, 0] = np.nan, np.inf, -np.inf, -0.0
    a[4, :] = -0.0
    kb = matmul_kernel(8, 8, 4)
    ca, ra, _, _ = run_both(kb, a, b, np.zeros((m, n), np.float32))
    assert_bitwise(ca[2], ra[2])


# ------------------------------------------------------------------ reductions


def reduce_kernel(shape: tuple[int, ...], axes: tuple[int, ...], fn: str, policy: str,
                  dt: ir.ScalarType = ir.f32, seed: float = 0.0) -> KB:
    """Load a whole static tile, reduce it along ``axes``, store the result."""
    kept = tuple(e for i, e in enumerate(shape) if i not in axes)
    kb = KB("red", [("X", mem(shape, dt)), ("Y", mem(kept, dt))])
    x_, y_ = kb.args

    def prog(_p):
        x = kb.load(x_)
        s = kb.const(seed, dt)
        (r,) = kb.reduce([x], [s], axes, lambda st, e: [kb.arith(fn, st, e)], policy=policy)
        kb.store(y_, r)
        return []

    kb.parallel([kb.idx(1)], prog)
    kb.ret()
    return kb


@pytest.mark.parametrize("shape,axes", [((7, 33), (1,)), ((7, 33), (0,)), ((7, 33), (0, 1)),
                                        ((3, 4, 5), (1,)), ((3, 4, 5), (0, 2)), ((1, 1), (1,)),
                                        ((5, 0), (1,)), ((0, 5), (1,)), ((40,), (0,))])
@pytest.mark.parametrize("fn", ["add", "max", "min", "mul"])
def test_strict_reductions_bitwise(shape, axes, fn) -> None:
    kb = reduce_kernel(shape, axes, fn, "strict_fold", seed=1.0 if fn == "mul" else -0.0)
    x = values(ir.f32, int(np.prod(shape))).reshape(shape)
    x = np.where(np.abs(x) > 1e6, 1.5, x).astype(np.float32) if fn == "mul" else x
    kept = tuple(e for i, e in enumerate(shape) if i not in axes)
    ca, ra, _, _ = run_both(kb, x, np.zeros(kept, np.float32))
    assert_bitwise(ca[1], ra[1])


@pytest.mark.parametrize("shape,axes", [((7, 33), (1,)), ((5, 300), (1,)), ((6, 40), (0,)),
                                        ((4, 5, 6), (1, 2)), ((5, 0), (1,))])
@pytest.mark.parametrize("dt", [ir.f32, ir.f64, ir.bf16, ir.i32], ids=str)
def test_tree_reductions(shape, axes, dt) -> None:
    kb = reduce_kernel(shape, axes, "add", "unordered_tree", dt, seed=0 if dt is ir.i32 else 0.0)
    x = values(dt, int(np.prod(shape)), specials=False).reshape(shape)
    kept = tuple(e for i, e in enumerate(shape) if i not in axes)
    ca, ra, _, _ = run_both(kb, x, np.zeros(kept, NP_DTYPES[dt.name]))
    if not dt.is_float:
        assert_bitwise(ca[1], ra[1])
        return
    eps = float(np.finfo(np.float32).eps) if dt is not ir.bf16 else 2.0**-7
    bound = 2 * shape[-1] * eps * np.abs(x.astype(np.float64)).sum(axis=axes) + 1e-30
    assert (np.abs(ca[1].astype(np.float64) - ra[1].astype(np.float64)) <= bound).all()


@pytest.mark.parametrize("fn", ["max", "min"])
def test_tree_max_min_exact_with_nan_and_signed_zero(fn: str) -> None:
    kb = reduce_kernel((4, 50), (1,), fn, "unordered_tree", seed=float("-inf") if fn == "max"
                       else float("inf"))
    x = values(ir.f32, 200, specials=False).reshape(4, 50)
    x[0, 7] = np.nan
    x[1, :] = -0.0
    x[1, 33] = 0.0
    x[2, :] = 0.0
    x[2, 49] = -0.0
    ca, ra, _, _ = run_both(kb, x, np.zeros(4, np.float32))
    assert_bitwise(ca[1], ra[1])


def test_tree_sum_of_negative_zeros_stays_negative() -> None:
    kb = reduce_kernel((3, 37), (1,), "add", "unordered_tree", seed=-0.0)
    x = np.full((3, 37), -0.0, np.float32)
    ca, ra, _, _ = run_both(kb, x, np.zeros(3, np.float32))
    assert_bitwise(ca[1], ra[1])
    assert np.signbit(ca[1]).all()


def test_tree_reduction_with_mapped_contribution() -> None:
    """``state + e * e`` with no combiner attribute: recognized, contributions squared."""
    kb = KB("sq", [("X", mem((6, 70))), ("Y", mem((6,)))])
    x_, y_ = kb.args

    def prog(_p):
        x = kb.load(x_)
        (r,) = kb.reduce([x], [kb.const(0.0)], (1,),
                         lambda s, e: [kb.arith("add", s, kb.arith("mul", e, e))],
                         policy="unordered_tree")
        kb.store(y_, r)
        return []

    kb.parallel([kb.idx(1)], prog)
    kb.ret()
    x = values(ir.f32, 420, specials=False).reshape(6, 70)
    ca, ra, _, _ = run_both(kb, x, np.zeros(6, np.float32))
    np.testing.assert_allclose(ca[1], ra[1], rtol=1e-5)
    assert "acc" in kb.c().source  # the lane-partial path


def test_multi_state_argmax_strict() -> None:
    kb = KB("argmax", [("X", mem((9, 31))), ("V", mem((9,))), ("I", mem((9,), ir.i32)),
                       ("ID", mem((9, 31), ir.i32))])
    x_, v_, i_, id_ = kb.args

    def prog(_p):
        x, ids = kb.load(x_), kb.load(id_)

        def upd(best, at, v, i):
            better = kb.arith("gt", v, best)
            return [kb.arith("select", better, v, best), kb.arith("select", better, i, at)]

        r, w = kb.reduce([x, ids], [kb.const(float("-inf")), kb.const(-1, ir.i32)], (1,), upd,
                         combiner=("custom", "custom"))
        kb.store(v_, r)
        kb.store(i_, w)
        return []

    kb.parallel([kb.idx(1)], prog)
    kb.ret()
    x = values(ir.f32, 279, specials=False).reshape(9, 31)
    ids = np.tile(np.arange(31, dtype=np.int32), (9, 1))
    ca, ra, _, _ = run_both(kb, x, np.zeros(9, np.float32), np.zeros(9, np.int32), ids)
    assert_bitwise(ca[1], ra[1])
    assert_bitwise(ca[2], ra[2])
    assert (ca[2] == x.argmax(axis=1)).all()


# ------------------------------------------------------------------ reindex, views


def _one_program(kb: KB, body) -> None:
    kb.parallel([kb.idx(1)], lambda _p: (body(), [])[1])
    kb.ret()


def test_reindex_broadcast_transpose_and_window() -> None:
    kb = KB("rx", [("X", mem((5, 7))), ("R", mem((5,))), ("Y", mem((7, 5))), ("W", mem((4, 4))),
                   ("Q", mem((5, 7)))])
    x_, r_, y_, w_, q_ = kb.args

    def body():
        x = kb.load(x_)
        r = kb.load(r_)
        rb = kb.reindex(r, ir.IndexMap(2, [ir.d(0)]), (5, 7))
        (s,) = kb.map((5, 7), [x, rb], lambda a, b: [kb.arith("sub", a, b)])
        kb.store(q_, s)
        t = kb.reindex(x, ir.IndexMap.transpose((1, 0)), (7, 5))
        kb.store(y_, t)
        w = kb.reindex(x, ir.IndexMap.tile_at_symbols(2), (4, 4), [kb.idx(3), kb.idx(5)],
                       fill=-1.0)
        kb.store(w_, w)

    _one_program(kb, body)
    x = values(ir.f32, 35, specials=False).reshape(5, 7)
    r = values(ir.f32, 5, specials=False)
    ca, ra, _, _ = run_both(kb, x, r, np.zeros((7, 5), np.float32), np.zeros((4, 4), np.float32),
                            np.zeros((5, 7), np.float32))
    for k in (2, 3, 4):
        assert_bitwise(ca[k], ra[k])
    assert (ca[2] == x.T).all() and (ca[3][2:, :] == -1).all()


def test_reindex_without_fill_out_of_range_is_an_error() -> None:
    kb = KB("rx", [("X", mem((4, 4))), ("W", mem((4, 4)))])
    x_, w_ = kb.args

    def body():
        w = kb.reindex(kb.load(x_), ir.IndexMap.tile_at_symbols(2), (4, 4),
                       [kb.idx(1), kb.idx(0)])
        kb.store(w_, w)

    _one_program(kb, body)
    with pytest.raises(tc.KernelIndexError, match=r"ckernel\.py:\d+:\d+: error: index out of "
                       r"range in @rx: a slice of extent 4 leaves axis 0 of the source tile, "
                       r"of extent 4 \(start = 1\)"):
        kb.c()(np.zeros((4, 4), np.float32), np.zeros((4, 4), np.float32))


def test_reshape_views_take_the_guarded_path() -> None:
    """A floordiv/mod map (reshape) on both load and store; also a strided view."""
    kb = KB("rs", [("X", mem((6, 8))), ("Y", mem((4, 12))), ("S", mem((3, 4)))])
    x_, y_, s_ = kb.args

    def body():
        v = kb.view(x_, [], (4, 12), bounds="total",
                    m=ir.IndexMap.reshape((6, 8), (4, 12)))
        t = kb.load(v)
        kb.store(kb.view(y_, [], (4, 12), bounds="total",
                         m=ir.IndexMap.reshape((4, 12), (4, 12))), t)
        strided = kb.view(x_, [kb.idx(1)], (3, 4), bounds="bounded",
                          m=ir.IndexMap(2, [ir.d(0) * 2 + ir.s(0), ir.d(1) * 3], 1))
        kb.store(s_, kb.load(strided, fill=7.0))

    _one_program(kb, body)
    x = values(ir.f32, 48, specials=False).reshape(6, 8)
    ca, ra, _, _ = run_both(kb, x, np.zeros((4, 12), np.float32), np.zeros((3, 4), np.float32))
    assert_bitwise(ca[1], ra[1])
    assert_bitwise(ca[2], ra[2])
    assert (ca[1] == x.reshape(4, 12)).all()


def test_window_of_a_window_is_valid_only_inside_both() -> None:
    kb = KB("ww", [("X", mem(("N",))), ("Y", mem((8,)))], ("N",))
    x_, y_, _n = kb.args

    def body():
        outer = kb.view(x_, [kb.idx(2)], (5,))
        inner = kb.view(outer, [kb.idx(1)], (8,))
        kb.store(y_, kb.load(inner, fill=-9.0))

    _one_program(kb, body)
    x = np.arange(20, dtype=np.float32)
    ca, ra, _, _ = run_both(kb, x, np.zeros(8, np.float32))
    assert_bitwise(ca[1], ra[1])
    assert ca[1].tolist() == [3, 4, 5, 6, -9, -9, -9, -9]


def test_total_view_out_of_range_is_an_error_not_a_crash() -> None:
    kb = KB("tv", [("X", mem(("N",))), ("Y", mem((8,)))], ("N",))
    x_, y_, _n = kb.args
    _one_program(kb, lambda: kb.store(y_, kb.load(kb.view(x_, [kb.idx(4)], (8,), bounds=None))))
    exe = kb.c()
    y = np.zeros(8, np.float32)
    exe(np.arange(12, dtype=np.float32), y)
    assert y.tolist() == list(range(4, 12))
    y[:] = np.nan
    with pytest.raises(tc.KernelIndexError, match="leaves the view's base"):
        exe(np.arange(10, dtype=np.float32), y)
    assert np.isnan(y).all(), "the failed load was stored"


# ------------------------------------------------------------------ structure


def test_ancestor_updates_of_a_nested_parallel() -> None:
    kb = KB("anc", [("O", mem((8, 64))), ("S", mem((8,)))])
    o_, s_ = kb.args
    c0, c4 = kb.idx(0), kb.idx(4)

    def grid(_p):
        acc0 = kb.const(0.0, tile((8, 64)))
        sums0 = kb.const(0.0, tile((8,)))

        def inner(i, acc_in, _sums_in):
            org = kb.arith("mul", i, c4)
            patch = kb.reindex(acc_in, ir.IndexMap(2, [ir.d(0) + ir.s(0), ir.d(1)], 1), (4, 64),
                               [org])
            (up,) = kb.map((4, 64), [patch, kb.const(1.0)],
                           lambda v, one: [kb.arith("add", v, one)])
            (rs,) = kb.reduce([up], [kb.const(0.0)], (1,),
                              lambda s, e: [kb.arith("add", s, e)], policy="unordered_tree")
            return [up, org, c0, rs, org]

        acc1, sums1 = kb.parallel([kb.idx(2)], inner, [acc0, sums0])
        kb.store(o_, acc1)
        kb.store(s_, sums1)
        return []

    kb.parallel([kb.idx(1)], grid)
    kb.ret()
    ca, ra, _, _ = run_both(kb, np.zeros((8, 64), np.float32), np.zeros(8, np.float32))
    assert_bitwise(ca[0], ra[0])
    assert_bitwise(ca[1], ra[1])
    assert (ca[1] == 64).all()


def test_pipeline_and_if() -> None:
    kb = KB("pl", [("X", mem((16,))), ("t", ir.f32), ("Y", mem((16,))), ("S", mem(()))])
    x_, t_, y_, s_ = kb.args

    def s0(iv, acc, tot):
        return [kb.load(x_), acc, tot, iv]

    def s1(iv, xi, acc, tot, _iv):
        (nxt,) = kb.map((16,), [acc, xi], lambda a, b: [kb.arith("add", a, b)])
        ivf = kb.arith("cast", iv, rtype=ir.f32)
        big = kb.arith("gt", ivf, t_)
        (tot2,) = kb.if_(big, lambda: [kb.arith("add", tot, ivf)], lambda: [tot], [ir.f32])
        return [nxt, tot2]

    def body():
        acc, tot = kb.pipeline(kb.idx(0), kb.idx(5), kb.idx(1),
                               [kb.const(0.0, tile((16,))), kb.const(0.0)], [s0, s1])
        kb.store(y_, acc)
        (t0,) = kb.map((), [tot], lambda v: [v])
        kb.store(s_, t0)

    _one_program(kb, body)
    x = values(ir.f32, 16, specials=False)
    ca, ra, _, _ = run_both(kb, x, 1.5, np.zeros(16, np.float32), np.zeros((), np.float32))
    assert_bitwise(ca[2], ra[2])
    assert_bitwise(ca[3], ra[3])
    assert float(ca[3]) == 2 + 3 + 4


def test_function_results_are_returned() -> None:
    kb = KB("ret", [("a", ir.f32), ("k", ir.i32)], results=[ir.f32, ir.i32])
    a_, k_ = kb.args
    kb.ret(kb.arith("mul", a_, kb.const(2.0)), kb.arith("floordiv", k_, kb.const(-2, ir.i32)))
    assert kb.c()(1.25, 7) == kb.ref()(1.25, 7) == (2.5, -4)


def test_serial_swap_of_carried_tiles() -> None:
    """yield(b, a): the carried arrays swap without clobbering each other."""
    kb = KB("sw", [("X", mem((8,))), ("Y", mem((8,))), ("P", mem((8,))), ("Q", mem((8,)))])
    x_, y_, p_, q_ = kb.args

    def body():
        a, b = kb.load(x_), kb.load(y_)
        r = kb.serial(kb.idx(0), kb.idx(3), kb.idx(1), [a, b], lambda _i, u, v: [v, u])
        kb.store(p_, r[0])
        kb.store(q_, r[1])

    _one_program(kb, body)
    x, y = values(ir.f32, 8, False), values(ir.f32, 8, False)
    ca, _ra, _, _ = run_both(kb, x, y, np.zeros(8, np.float32), np.zeros(8, np.float32))
    assert (ca[2] == y).all() and (ca[3] == x).all()


def test_memory_roundtrip_and_atomics() -> None:
    kb = KB("ma", [("X", mem(("N",))), ("H", mem((4,))), ("I", mem((4,), ir.i32)),
                   ("M", mem((4,)))], ("N",))
    x_, h_, i_, m_, n = kb.args
    c4 = kb.idx(4)

    def prog(p):
        scratch = kb.memory((4,))
        t = kb.load(kb.view(x_, [kb.arith("mul", p, c4)], (4,)), fill=0.0)
        kb.store(scratch, t)
        back = kb.load(scratch)
        kb.atomic(h_, back, "add")
        kb.atomic(m_, back, "max")
        kb.atomic(i_, kb.const(1, tile((4,), ir.i32)), "add")
        return []

    kb.parallel([kb.arith("cdiv", n, c4)], prog)
    kb.ret()
    x = np.arange(64, dtype=np.float32)
    ca, ra, _, _ = run_both(kb, x, np.zeros(4, np.float32), np.zeros(4, np.int32),
                            np.full(4, -np.inf, np.float32))
    assert_bitwise(ca[1], ra[1])  # small integers: exact in any order
    assert_bitwise(ca[2], ra[2])
    assert_bitwise(ca[3], ra[3])
    assert (ca[2] == 16).all()


def test_scalar_and_tile_parameters() -> None:
    kb = KB("sp", [("X", mem((8,), ir.bf16)), ("a", ir.bf16), ("k", ir.i32), ("T", tile((8,))),
                   ("Y", mem((8,)))])
    x_, a_, k_, t_, y_ = kb.args

    def body():
        x = kb.load(x_)
        kf = kb.arith("cast", k_, rtype=ir.bf16)

        def f(v, a, kk, tv):
            s = kb.arith("mul", kb.arith("add", v, a), kk)
            return [kb.arith("add", kb.arith("cast", s, rtype=ir.f32), tv)]

        (r,) = kb.map((8,), [x, a_, kf, t_], f)
        kb.store(y_, r)

    _one_program(kb, body)
    x = values(ir.bf16, 8, specials=False)
    t = values(ir.f32, 8, specials=False)
    ca, ra, _, _ = run_both(kb, x, 0.3, 3, t, np.zeros(8, np.float32))
    assert_bitwise(ca[4], ra[4])


def test_large_tiles_use_thread_local_storage() -> None:
    kb = ew_kernel("add", [ir.f32, ir.f32], T=128 * 1024)
    assert "_Thread_local" in kb.c().source
    n = 300_000
    x, y = values(ir.f32, n, False), values(ir.f32, n, False)
    ca, ra, _, _ = run_both(kb, x, y, np.zeros(n, np.float32))
    assert_bitwise(ca[2], ra[2])


def test_concurrent_python_threads_share_an_executable() -> None:
    kb = matmul_kernel(16, 16, 16)
    exe = kb.c()
    a, b = _mat((50, 40), ir.f32), _mat((40, 30), ir.f32)
    want = np.zeros((50, 30), np.float32)
    exe(a, b, want)
    outs = [np.zeros((50, 30), np.float32) for _ in range(6)]
    threads = [threading.Thread(target=exe, args=(a, b, o)) for o in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for o in outs:
        assert_bitwise(o, want)


# ------------------------------------------------------------------ errors


def test_unsupported_operation_is_rejected_with_its_location() -> None:
    from tilec.targets.clike import UnsupportedError

    helper = ir.Function("helper", [], [], [], {})
    helper.entry.append(ir.Operation("return"))
    kb = KB("u", [("X", mem((4,)))])
    kb.module.add_function(helper)
    kb.op("call", [], [], callee="helper")
    kb.ret()
    with pytest.raises(UnsupportedError) as info:
        kb.c()
    assert "ckernel.py:1:5" in str(info.value) and "'call'" in str(info.value)


def test_generated_source_maps_lines_to_operations() -> None:
    from tilec.targets.cpu.backend import make_backend

    kb = matmul_kernel(16, 16, 16)
    src = make_backend().emit(kb.module, "matmul")
    mma_lines = [i + 1 for i, o in enumerate(src.buffer.origins) if o and o.op_name == "mma"]
    assert mma_lines
    org = src.buffer.origin_of_line(mma_lines[0])
    assert org is not None and org.loc.filename == "ckernel.py"
    assert "/* tilec: mma#" in src.text


def test_bf16_memory_round_trip_is_exact() -> None:
    kb = ew_kernel("add", [ir.bf16, ir.bf16])
    x = values(ir.bf16, 40)
    y = np.zeros(40, ml_dtypes.bfloat16)
    ca, ra, _, _ = run_both(kb, x, y, np.zeros(40, ml_dtypes.bfloat16))
    assert_bitwise(ca[2], ra[2])


def test_atomics_from_openmp_threads() -> None:
    """Enough work that the programs run on OpenMP threads; integer atomics stay exact."""
    kb = KB("hist", [("X", mem(("N",), ir.i32)), ("H", mem((4096,), ir.i32))], ("N",))
    x_, h_, n = kb.args
    c = kb.idx(4096)

    def prog(p):
        t = kb.load(kb.view(x_, [kb.arith("mul", p, c)], (4096,)), fill=0)
        kb.atomic(h_, t, "add")
        return []

    kb.parallel([kb.arith("cdiv", n, c)], prog)
    kb.ret()
    exe = kb.c()
    assert "#pragma omp parallel for" in exe.source
    x = np.ones(4096 * 200, np.int32)
    h = np.zeros(4096, np.int32)
    exe(x, h)
    assert (h == 200).all()


@pytest.mark.parametrize("fn", ["exp", "sigmoid"])
def test_vectorized_exp_matches_the_reference_on_many_values(fn: str) -> None:
    """f32 exp/sigmoid use tilec's own double-precision exponential: 1 ulp at most, rare."""
    kb = ew_kernel(fn, [ir.f32], T=4096)
    n = 200_000
    x = np.concatenate([RNG.standard_normal(n // 2) * 30,
                        RNG.uniform(-110, 95, n // 2)]).astype(np.float32)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 88.72284, -103.9721, -87.33655]
    ca, ra, _, _ = run_both(kb, x, np.zeros(n, np.float32))
    u = _ulps(ca[1], ra[1])
    assert u.max() <= 1 and (u > 0).mean() < 1e-4
