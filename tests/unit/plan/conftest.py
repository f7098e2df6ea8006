"""Shared builders for planner tests: a matmul-shaped Candidate TileIR module."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import tilec.ir as ir


def build_matmul(m: int = 128, n: int = 128, k: int = 256, bm: int = 32, bn: int = 64,
                 bk: int = 32, dtype: ir.ScalarType = ir.f32, precision: str = "exact",
                 bounded: bool = False, source_k: int | None = None, init: float = 0.0,
                 extra_use: bool = False, threads: int | None = None,
                 bounded_store: bool = False, scaled_iv: bool = False,
                 symbolic: bool = False) -> ir.Module:
    """``C[pm, pn] = sum_k A[pm, k] @ B[k, pn]`` over a (m/bm) x (n/bn) program grid.

    ``source_k`` is the memory K extent (defaults to ``k``); ``bounded`` makes the
    A/B views bounded (zero-filled past ``source_k``); ``extra_use`` adds a second
    use of the loop result (which must defeat the direct-output proof);
    ``bounded_store`` makes the C view bounded; ``scaled_iv`` counts K tiles
    (``for kk in [0, k/bk): k0 = kk * bk``) instead of stepping by ``bk``. The grid is
    ``cdiv(m, bm) x cdiv(n, bn)``, so ragged shapes overhang the memory. ``symbolic``
    captures shape-generically, as the frontend does: extents M, N, K are trailing index
    parameters named by ``shape_symbols``.
    """
    sk = k if source_k is None else source_k
    dm, dn, dk = ("M", "N", "K") if symbolic else (m, n, sk)
    a_t = ir.MemoryType((dm, dk), dtype)
    b_t = ir.MemoryType((dk, dn), dtype)
    c_t = ir.MemoryType((dm, dn), ir.f32)
    attrs_fn = {"shape_symbols": ("M", "K", "N"), "shape_bindings": ((0, 0), (0, 1), (1, 1))} \
        if symbolic else {}
    extra = [ir.index] * 3 if symbolic else []
    fn = ir.Function("matmul", [a_t, b_t, c_t, *extra],
                     arg_names=["A", "B", "C", *(["M", "K", "N"] if symbolic else [])],
                     attributes=attrs_fn)
    A, B, C = fn.args[:3]
    bld = ir.Builder(ir.InsertionPoint.at_end(fn.entry))

    def const(v: int | float, t: ir.Type = ir.index) -> ir.Value:
        return bld.value("constant", [], t, {"value": v})

    if symbolic:
        sm, skk, sn = fn.args[3:]
        gm = bld.value("arith", [sm, const(bm)], ir.index, {"fn": "cdiv"})
        gn = bld.value("arith", [sn, const(bn)], ir.index, {"fn": "cdiv"})
    else:
        gm, gn = const(-(-m // bm)), const(-(-n // bn))
    body = ir.Block([ir.index, ir.index], ["pm", "pn"])
    attrs = {"rank": 2}
    if threads is not None:
        attrs["constraint"] = ir.ExecConstraint(threads, "grid")
    bld.create("parallel", [gm, gn], [], attrs, [ir.Region([body])])
    tile_c = ir.TileType((bm, bn), ir.f32)
    origin2 = ir.IndexMap.tile_at_symbols(2)
    bounds = {"bounds": "bounded"} if bounded else {}
    with bld.at(ir.InsertionPoint.at_end(body)):
        pm, pn = body.args
        m0 = bld.value("arith", [pm, const(bm)], ir.index, {"fn": "mul"})
        n0 = bld.value("arith", [pn, const(bn)], ir.index, {"fn": "mul"})
        zero = const(init, tile_c)
        loop_body = ir.Block([ir.index, tile_c], ["k", "acc"])
        k_end = skk if symbolic else const(k)
        if scaled_iv:
            bounds_k = [const(0), bld.value("arith", [k_end, const(bk)], ir.index,
                                            {"fn": "cdiv"}), const(1)]
        else:
            bounds_k = [const(0), k_end, const(bk)]
        loop = bld.create("serial", [*bounds_k, zero], [tile_c], {}, [ir.Region([loop_body])])
        with bld.at(ir.InsertionPoint.at_end(loop_body)):
            kk, acc = loop_body.args
            if scaled_iv:
                kk = bld.value("arith", [kk, const(bk)], ir.index, {"fn": "mul"})
            va = bld.value("view", [A, m0, kk], ir.MemoryType((bm, bk), dtype),
                           {"map": origin2, **bounds})
            a = bld.value("load", [va], ir.TileType((bm, bk), dtype))
            vb = bld.value("view", [B, kk, n0], ir.MemoryType((bk, bn), dtype),
                           {"map": origin2, **bounds})
            b = bld.value("load", [vb], ir.TileType((bk, bn), dtype))
            dd = bld.value("mma", [a, b, acc], tile_c, {"policy": ir.ArithPolicy(precision)})
            bld.create("yield", [dd])
        res = loop.results[0]
        store_bounds = {"bounds": "bounded"} if bounded_store else {}
        vc = bld.value("view", [C, m0, n0], ir.MemoryType((bm, bn), ir.f32),
                       {"map": origin2, **store_bounds})
        bld.create("store", [vc, res])
        if extra_use:
            vc2 = bld.value("view", [C, m0, n0], ir.MemoryType((bm, bn), ir.f32),
                            {"map": origin2})
            bld.create("store", [vc2, res])
        bld.create("yield", [])
    bld.create("return", [])
    return ir.Module([fn])


@pytest.fixture
def matmul_module() -> Callable[..., ir.Module]:
    """The ``build_matmul`` builder."""
    return build_matmul
