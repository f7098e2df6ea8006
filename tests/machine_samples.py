"""Hand-written Machine TileIR samples, exactly per docs/design/lowering.md, with numpy oracles.

These are the shared fixtures of the SIMT simulator (``targets/reference/simt.py``)
and the CUDA emitter: what the lowering is expected to produce, written by
hand. Every function has ``form = "machine"``, ``target = "cuda:sm_90"``, a
grid-level ``parallel`` with ``level = "grid"`` and ``threads = T`` whose
body allocates the group's shared memory and holds one lane-level
``parallel`` over ``constant T``. Inside it, data are per-thread tiles,
scalars (``index``/``i1``) are addresses and predicates, global accesses are
``bounded`` views, shared accesses ``total`` views, and target instructions
are ``atom.call`` from ``tilec.ir.atoms``.

Samples (name: what it shows):

* ``add``: lowering.md's example, ``C = A + B`` with the blocked distribution
  (128 threads x 4 f32);
* ``softmax``: row softmax, two warps per row: lane-local max/sum, a
  ``shfl.xor`` butterfly, a cross-warp exchange through shared memory with
  ``barrier.group``;
* ``softmax_warp``: the same with one warp per row (butterfly only);
* ``gemm_bf16``: ``C = A @ B`` with ``mma.m16n8k16.bf16``: cooperative
  staging to shared, barrier, per-lane fragment loads through views built
  from the catalog layouts, a ``serial`` k loop carrying ``tile<4xf32>``,
  bounded accumulator stores straight from the C fragment layout;
* ``gemm_tf32``: the same with ``mma.m16n8k8.tf32`` (operands rounded to TF32);
* ``gemm_bf16_race``: negative, the barrier between staging and fragment
  loads removed (read-after-write race);
* ``gemm_bf16_war_race``: negative, the barrier that protects the next
  iteration's staging removed (write-after-read race);
* ``softmax_race``: negative, the barrier of the cross-warp max exchange removed;
* ``gemm_bf16_permuted``: negative, the A fragment map permutes registers
  (a wrong answer, no error);
* ``gemm_bf16_oob_shared``: negative, the A staging store is one row off
  (an out-of-range shared store).

``MACHINE_SAMPLES`` maps each name to its module builder; ``SAMPLE_CASES``
gives, per name, the entry function, how to make inputs (outputs
NaN-poisoned), the numpy expected outputs, and the expected outcome. Every
operation is located at the line of this file that built it, so simulator
diagnostics point here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np

import tilec.ir as ir
from tilec.ir.atoms import MMA_ATOMS, FragmentLayout, MmaAtom
from tilec.targets import numerics as nx

__all__ = ["MACHINE_SAMPLES", "SAMPLE_CASES", "SampleCase", "MachineBuilder", "fragment_map",
           "poisoned"]

TARGET = "cuda:sm_90"
"""The profile every sample is written for."""


# ------------------------------------------------------------------ builder


class MachineBuilder:
    """Builds one Machine TileIR function; each op is located at the sample line that made it."""

    def __init__(self, name: str, params: Sequence[tuple[str, ir.Type]],
                 shape_symbols: Sequence[str], shape_bindings: Sequence[tuple[int, int]]) -> None:
        attrs = {"form": "machine", "target": TARGET, "kernel": True,
                 "shape_symbols": tuple(shape_symbols),
                 "shape_bindings": tuple(tuple(b) for b in shape_bindings)}
        types = [t for _, t in params] + [ir.index] * len(shape_symbols)
        names = [n for n, _ in params] + list(shape_symbols)
        self.fn = ir.Function(name, types, [], names, attrs, self._here())
        """The function being built."""
        self.module = ir.Module()
        """Its module."""
        self.module.add_function(self.fn)
        self.b = ir.Builder(ir.InsertionPoint.at_end(self.fn.entry))
        """The underlying builder."""

    @property
    def args(self) -> list[ir.Value]:
        """Parameters, then shape symbols."""
        return self.fn.args

    @staticmethod
    def _here() -> ir.Location:
        """The first caller line outside this class."""
        f = sys._getframe(1)
        while f is not None and (f.f_code in _BUILDER_CODES
                                 or f.f_code.co_filename != __file__):
            f = f.f_back
        return ir.Location(__file__, f.f_lineno if f is not None else 0, 4)

    # -- generic ---------------------------------------------------------------
    def op(self, name: str, operands: Sequence[ir.Value] = (), types: Sequence[ir.Type] = (),
           attrs: dict[str, Any] | None = None, regions: Sequence[ir.Region] = (),
           names: Sequence[str | None] | None = None) -> ir.Operation:
        """Create one operation at the insertion point."""
        return self.b.create(name, operands, types, attrs, regions, loc=self._here(),
                             result_names=names)

    def value(self, name: str, operands: Sequence[ir.Value], t: ir.Type,
              attrs: dict[str, Any] | None = None, hint: str | None = None) -> ir.Value:
        """A single-result operation's value."""
        return self.op(name, operands, [t], attrs, names=[hint]).result

    @contextmanager
    def _inside(self, block: ir.Block) -> Iterator[None]:
        with self.b.at(ir.InsertionPoint.at_end(block)):
            yield

    # -- scalars ---------------------------------------------------------------
    def const(self, v: float | int, t: ir.Type, hint: str | None = None) -> ir.Value:
        """A scalar or splat-tile constant."""
        return self.value("constant", [], t, {"value": v}, hint)

    def idx(self, n: int) -> ir.Value:
        """An index constant."""
        return self.const(n, ir.index, f"c{n}" if n >= 0 else None)

    def arith(self, fn: str, *xs: ir.Value, hint: str | None = None) -> ir.Value:
        """One scalar function (index arithmetic, predicates)."""
        return self.value("arith", xs, ir.arith_result_type(fn, [x.type for x in xs]),
                          {"fn": fn}, hint)

    # -- structure -------------------------------------------------------------
    @contextmanager
    def grid(self, extents: Sequence[ir.Value], threads: int,
             names: Sequence[str]) -> Iterator[list[ir.Value]]:
        """The grid-level ``parallel``; the body is one group (CTA)."""
        block = ir.Block([ir.index] * len(extents), list(names))
        self.op("parallel", extents, [], {"rank": len(extents), "level": "grid",
                                          "threads": threads}, [ir.Region([block])])
        with self._inside(block):
            yield list(block.args)
            self.op("yield")

    def shared(self, shape: Sequence[int], dt: ir.ScalarType, hint: str) -> ir.Value:
        """Per-group shared memory (group level)."""
        return self.value("memory", [], ir.MemoryType(shape, dt, "shared"), None, hint)

    @contextmanager
    def lanes(self, threads: int) -> Iterator[ir.Value]:
        """The lane-level ``parallel`` over ``constant threads``; yields ``%tid``."""
        count = self.idx(threads)
        block = ir.Block([ir.index], ["tid"])
        self.op("parallel", [count], [], {"rank": 1, "level": "lane"}, [ir.Region([block])])
        with self._inside(block):
            yield block.args[0]
            self.op("yield")

    @contextmanager
    def serial(self, lb: ir.Value, ub: ir.Value, step: ir.Value, inits: Sequence[ir.Value],
               names: Sequence[str]) -> Iterator[_Loop]:
        """A ``serial`` loop; call ``loop.next(values)`` at the end of the body."""
        block = ir.Block([ir.index] + [v.type for v in inits], list(names))
        op = self.op("serial", [lb, ub, step, *inits], [v.type for v in inits], None,
                     [ir.Region([block])], names=[f"{n}_out" for n in names[1:]])
        loop = _Loop(block, op)
        with self._inside(block):
            yield loop
            self.op("yield", loop.yielded)

    @contextmanager
    def when(self, cond: ir.Value) -> Iterator[None]:
        """``if cond`` with an empty else region and no results (per-thread predication)."""
        then, other = ir.Block([]), ir.Block([])
        self.op("if", [cond], [], None, [ir.Region([then]), ir.Region([other])])
        with self._inside(other):
            self.op("yield")
        with self._inside(then):
            yield
            self.op("yield")

    # -- data ------------------------------------------------------------------
    def view(self, base: ir.Value, syms: Sequence[ir.Value], shape: Sequence[int],
             m: ir.IndexMap, bounds: str, hint: str | None = None) -> ir.Value:
        """A view of ``base`` (``bounded`` for global memory, ``total`` for shared)."""
        t = base.type
        return self.value("view", [base, *syms], ir.MemoryType(shape, t.dtype, t.space),
                          {"map": m, "bounds": bounds}, hint)

    def load(self, view: ir.Value, fill: float | None = None, hint: str | None = None
             ) -> ir.Value:
        """A per-thread register tile from a view."""
        t = view.type
        attrs = {} if fill is None else {"fill": fill}
        return self.value("load", [view], ir.TileType(t.shape, t.dtype), attrs, hint)

    def store(self, view: ir.Value, tile: ir.Value) -> None:
        """Write a register tile through a view."""
        self.op("store", [view, tile])

    def map(self, operands: Sequence[ir.Value], body: Callable[..., ir.Value],
            hint: str | None = None) -> ir.Value:
        """Lift the scalar ``body(*elements)`` over the operands' common tile shape."""
        shape = max((v.type.shape for v in operands if isinstance(v.type, ir.TileType)), key=len)
        operands = [self.broadcast(v, shape) for v in operands]
        block = ir.Block([v.type.dtype if isinstance(v.type, ir.TileType) else v.type
                          for v in operands])
        with self._inside(block):
            out = body(*block.args)
            self.op("yield", [out])
        return self.op("map", operands, [ir.TileType(shape, out.type)],
                       {"shape": ir.IndexSet(shape)}, [ir.Region([block])], [hint]).result

    def broadcast(self, v: ir.Value, shape: Sequence[int]) -> ir.Value:
        """A rank-0 tile repeated over ``shape`` (``reindex``); other values unchanged."""
        t = v.type
        if not isinstance(t, ir.TileType) or t.shape == tuple(ir.as_dim(e) for e in shape):
            return v
        assert t.rank == 0, "only rank-0 tiles are broadcast"
        return self.value("reindex", [v], ir.TileType(shape, t.dtype),
                          {"map": ir.IndexMap(len(shape), [])})

    def fold(self, tile: ir.Value, seed: float, combiner: str, hint: str | None = None
             ) -> ir.Value:
        """Fold a thread's own 1-D register tile to a rank-0 tile (lane-local reduction)."""
        dt = tile.type.dtype
        seed_v = self.const(seed, dt)
        block = ir.Block([dt, dt], ["state", "x"])
        with self._inside(block):
            self.op("yield", [self.arith(combiner, *block.args)])
        return self.op("reduce", [tile, seed_v], [ir.TileType((), dt)],
                       {"n_inputs": 1, "axes": (0,), "policy": ir.UNORDERED_TREE,
                        "combiner": (combiner,)}, [ir.Region([block])], [hint]).result

    def atom(self, catalog_id: str, operands: Sequence[ir.Value], types: Sequence[ir.Type],
             hint: str | None = None, **attrs: Any) -> ir.Operation:
        """An ``atom.call`` of the CUDA catalog."""
        return self.op("atom.call", operands, types, {"catalog_id": catalog_id, **attrs},
                       names=[hint] * len(types) if types else None)

    def barrier(self) -> None:
        """``barrier.group``: every thread of the group meets."""
        self.atom("barrier.group", [], [])


@dataclass
class _Loop:
    """A loop under construction: its block and the values its body yields."""

    block: ir.Block
    """The body."""
    op: ir.Operation
    """The ``serial`` operation."""
    yielded: list[ir.Value] = field(default_factory=list)
    """What the body yields (set with ``next``)."""

    @property
    def args(self) -> list[ir.Value]:
        """The induction variable, then the carried values."""
        return list(self.block.args)

    def next(self, values: Sequence[ir.Value]) -> None:
        """Set the carried values of the next iteration."""
        self.yielded = list(values)


_BUILDER_CODES = {getattr(f, "__wrapped__", f).__code__ for f in vars(MachineBuilder).values()
                  if hasattr(getattr(f, "__wrapped__", f), "__code__")}
"""Code objects of the builder's own methods (skipped when locating an operation)."""


def _sym_map(exprs: Sequence[ir.AffineExpr], n_dims: int, n_symbols: int) -> ir.IndexMap:
    return ir.IndexMap(n_dims, list(exprs), n_symbols)


def fragment_map(layout: FragmentLayout, origin: Sequence[ir.AffineExpr], lane: ir.AffineExpr,
                 n_symbols: int, register: ir.AffineExpr | None = None) -> ir.IndexMap:
    """A per-thread view map ``(d0 = register)[symbols] -> origin + layout(lane, register)``.

    ``layout`` is a catalog fragment layout ``(lane, i) -> (row, col)``;
    ``lane`` names the symbol that holds the thread's lane; ``register``
    replaces ``d0`` inside the layout (a permutation, for negative tests).
    """
    reg = ir.d(0) if register is None else register
    coords = [e.substitute([lane, reg]) for e in layout.map.results]
    return _sym_map([o + c for o, c in zip(origin, coords)], 1, n_symbols)


# ------------------------------------------------------------------ (1) add


def build_add() -> ir.Module:
    """lowering.md's example: ``C = A + B`` on f32, 128 threads x 4 registers (blocked)."""
    threads, regs = 128, 4
    chunk = threads * regs
    vec = ir.MemoryType(("n",), ir.f32)
    k = MachineBuilder("add", [("A", vec), ("B", vec), ("C", vec)], ["n"], [(0, 0)])
    A, B, C, n = k.args
    c512 = k.idx(chunk)
    groups = k.arith("cdiv", n, c512, hint="g")
    with k.grid([groups], threads, ["p"]) as (p,), k.lanes(threads) as tid:
        c4 = k.idx(regs)
        t4 = k.arith("mul", tid, c4, hint="t4")
        base = k.arith("mul", p, c512, hint="base")
        off = k.arith("add", base, t4, hint="off")
        at = _sym_map([ir.d(0) + ir.s(0)], 1, 1)
        a = k.load(k.view(A, [off], [regs], at, "bounded", "va"), hint="a")
        b = k.load(k.view(B, [off], [regs], at, "bounded", "vb"), hint="b")
        total = k.map([a, b], lambda x, y: k.arith("add", x, y), hint="s")
        k.store(k.view(C, [off], [regs], at, "bounded", "vc"), total)
    k.op("return")
    return k.module


# ------------------------------------------------------------------ (2) softmax

SOFTMAX_COLS = 256
"""The padded row length of the softmax samples: they need ``N <= 256``."""


def build_softmax(warps_per_row: int = 2, exchange_barrier: bool = True) -> ir.Module:
    """Row softmax of ``x: M x N`` (``N <= 256``) into ``y``; 128 threads, 4 warps per group.

    Distribution (lowering.md, row-per-warp): warp ``w`` works on row
    ``p * R + w // W`` (``W`` = warps per row, ``R = 4 / W`` rows per
    group); lane ``l`` of the row's ``k``-th warp holds the 4-wide chunks at
    columns ``(k*32 + l)*4 + j*(128*W) + (0..3)``. Max and sum are lane-local
    folds, then a ``shfl.xor`` butterfly (masks 16..1) within the warp, then,
    when a row spans two warps, lane 0 of each warp publishes its partial in
    shared memory, ``barrier.group``, and every lane folds its row's partials.
    Columns past ``N`` load ``-inf`` (exp gives 0); rows past ``M`` are
    dropped by the bounded stores.
    """
    threads, warp = 128, 32
    warps = threads // warp
    wpr = warps_per_row
    rows_per_group = warps // wpr
    regs = SOFTMAX_COLS // (warp * wpr)
    stride = 4 * warp * wpr
    mat = ir.MemoryType(("M", "N"), ir.f32)
    name = "softmax" if wpr > 1 else "softmax_warp"
    k = MachineBuilder(name, [("x", mat), ("y", mat)], ["M", "N"], [(0, 0), (0, 1)])
    x, y, M, _ = k.args
    crows = k.idx(rows_per_group)
    groups = k.arith("cdiv", M, crows, hint="g")
    with k.grid([groups], threads, ["p"]) as (p,):
        red_max = red_sum = None
        if wpr > 1:
            red_max = k.shared([rows_per_group, wpr], ir.f32, "red_max")
            red_sum = k.shared([rows_per_group, wpr], ir.f32, "red_sum")
        with k.lanes(threads) as tid:
            c32, c4, cw = k.idx(warp), k.idx(4), k.idx(wpr)
            w = k.arith("floordiv", tid, c32, hint="warp")
            lane = k.arith("rem", tid, c32, hint="lane")
            part = k.arith("rem", w, cw, hint="part")           # which warp of the row
            r = k.arith("floordiv", w, cw, hint="r")            # row within the group
            row0 = k.arith("mul", p, crows, hint="row0")
            row = k.arith("add", row0, r, hint="row")
            chunk = k.arith("add", k.arith("mul", part, c32), lane, hint="chunk")
            col0 = k.arith("mul", chunk, c4, hint="col0")
            # register i -> (row, col0 + (i floordiv 4) * stride + i mod 4)
            row_map = _sym_map([ir.s(0), ir.s(1) + ir.d(0).floordiv(4) * stride
                                + ir.d(0).mod(4)], 1, 2)
            vx = k.view(x, [row, col0], [regs], row_map, "bounded", "vx")
            t = k.load(vx, fill=float("-inf"), hint="t")
            zero = k.idx(0)
            is_lane0 = k.arith("eq", lane, zero, hint="is_lane0")

            def warp_combine(v: ir.Value, combiner: str, hint: str) -> ir.Value:
                for mask in (16, 8, 4, 2, 1):
                    other = k.atom("shfl.xor", [v, k.idx(mask)], [v.type], f"{hint}_o").result
                    v = k.map([v, other], lambda a, b: k.arith(combiner, a, b), hint=hint)
                return v

            def exchange(v: ir.Value, red: ir.Value, combiner: str, seed: float, hint: str,
                         barrier: bool) -> ir.Value:
                # Lane 0 of each warp publishes the warp's partial; after the barrier every
                # lane folds the W partials of its row.
                with k.when(is_lane0):
                    mine = k.view(red, [r, part], [], _sym_map([ir.s(0), ir.s(1)], 0, 2),
                                  "total", f"{hint}_slot")
                    k.store(mine, v)
                if barrier:
                    k.barrier()
                ours = k.view(red, [r], [wpr], _sym_map([ir.s(0), ir.d(0)], 1, 1), "total",
                              f"{hint}_row")
                return k.fold(k.load(ours, hint=f"{hint}_parts"), seed, combiner, hint)

            m = warp_combine(k.fold(t, float("-inf"), "max", "m_lane"), "max", "m_warp")
            if red_max is not None:
                m = exchange(m, red_max, "max", float("-inf"), "m_row", exchange_barrier)
            e = k.map([t, m], lambda a, b: k.arith("exp", k.arith("sub", a, b)), hint="e")
            s = warp_combine(k.fold(e, 0.0, "add", "s_lane"), "add", "s_warp")
            if red_sum is not None:
                s = exchange(s, red_sum, "add", 0.0, "s_row", True)
            out = k.map([e, s], lambda a, b: k.arith("div", a, b), hint="out")
            k.store(k.view(y, [row, col0], [regs], row_map, "bounded", "vy"), out)
    k.op("return")
    return k.module


# ------------------------------------------------------------------ (3, 4) GEMM


def build_gemm(catalog_id: str = "mma.m16n8k16.bf16", *, raw_barrier: bool = True,
               war_barrier: bool = True, permute_a: bool = False,
               staging_row_shift: int = 0) -> ir.Module:
    """``C (f32) = A @ B`` with one matrix atom per warp; 128 threads = 2 x 2 warps.

    The group computes a ``32 x 16`` block of C (``pm, pn``); warp ``w``
    owns the atom at rows ``(w // 2) * 16``, columns ``(w % 2) * 8`` of the
    block (``gm = gn = 2``, ``rm = rn = 1``), so each thread's accumulator is
    ``tile<4xf32>`` in the C fragment layout. Per k step of ``ak``:

    1. every thread stages ``32*ak/128`` consecutive elements of A and
       ``ak*16/128`` of B from global memory (bounded, zero fill: ragged M,
       N, K) into shared ``As (32 x ak)``, ``Bs (ak x 16)``;
    2. ``barrier.group`` (the staged tiles are visible);
    3. each thread loads its A and B fragments from shared through views
       whose maps are the catalog fragment layouts (``fragment_map``);
    4. ``atom.call`` of the MMA atom updates the accumulator;
    5. ``barrier.group`` (every warp has read the tiles before the next step
       overwrites them).

    After the ``serial`` loop, each thread stores its accumulator registers
    straight from the C layout through a bounded view. Keyword flags make
    the negative samples: a removed barrier, a permuted A register order,
    a staging store shifted by rows.
    """
    atom: MmaAtom = MMA_ATOMS[catalog_id]
    threads, warp, gm, gn = 128, 32, 2, 2
    bm, bn, bk = gm * atom.am, gn * atom.an, atom.ak
    in_t = atom.in_dtype
    a_per, b_per = bm * bk // threads, bk * bn // threads
    k = MachineBuilder("gemm", [("A", ir.MemoryType(("M", "K"), in_t)),
                                ("B", ir.MemoryType(("K", "N"), in_t)),
                                ("C", ir.MemoryType(("M", "N"), ir.f32))],
                       ["M", "N", "K"], [(0, 0), (1, 1), (0, 1)])
    A, B, C, M, N, K = k.args
    cbm, cbn, cbk = k.idx(bm), k.idx(bn), k.idx(bk)
    gx = k.arith("cdiv", M, cbm, hint="gx")
    gy = k.arith("cdiv", N, cbn, hint="gy")
    with k.grid([gx, gy], threads, ["pm", "pn"]) as (pm, pn):
        As = k.shared([bm, bk], in_t, "As")
        Bs = k.shared([bk, bn], in_t, "Bs")
        with k.lanes(threads) as tid:
            c0, c1, c32, c2 = k.idx(0), k.idx(1), k.idx(warp), k.idx(2)
            w = k.arith("floordiv", tid, c32, hint="warp")
            lane = k.arith("rem", tid, c32, hint="lane")
            wm = k.arith("floordiv", w, c2, hint="wm")
            wn = k.arith("rem", w, c2, hint="wn")
            m0 = k.arith("mul", pm, cbm, hint="m0")
            n0 = k.arith("mul", pn, cbn, hint="n0")
            am0 = k.arith("mul", wm, k.idx(atom.am), hint="am0")   # warp's rows in As / C
            bn0 = k.arith("mul", wn, k.idx(atom.an), hint="bn0")   # warp's columns in Bs / C
            nk = k.arith("cdiv", K, cbk, hint="nk")
            acc0 = k.const(0.0, ir.TileType((atom.c.regs,), ir.f32), "acc0")

            def staged(per: int, cols: int, shift: int = 0) -> list[ir.AffineExpr]:
                # element d0 of thread s: the tile's linear element s*per + d0, row-major
                flat = ir.s(0) * per + ir.d(0)
                return [flat.floordiv(cols) + shift, flat.mod(cols)]

            with k.serial(c0, nk, c1, [acc0], ["kt", "acc"]) as loop:
                kt, acc = loop.args
                k0 = k.arith("mul", kt, cbk, hint="k0")
                # 1. stage A and B (global -> registers -> shared)
                a_rc = staged(a_per, bk)
                ga = k.view(A, [tid, m0, k0], [a_per],
                            _sym_map([ir.s(1) + a_rc[0], ir.s(2) + a_rc[1]], 1, 3), "bounded",
                            "ga")
                sa = k.view(As, [tid], [a_per], _sym_map(staged(a_per, bk, staging_row_shift),
                                                          1, 1), "total", "sa")
                k.store(sa, k.load(ga, fill=0.0, hint="ta"))
                b_rc = staged(b_per, bn)
                gb = k.view(B, [tid, k0, n0], [b_per],
                            _sym_map([ir.s(1) + b_rc[0], ir.s(2) + b_rc[1]], 1, 3), "bounded",
                            "gb")
                sb = k.view(Bs, [tid], [b_per], _sym_map(b_rc, 1, 1), "total", "sb")
                k.store(sb, k.load(gb, fill=0.0, hint="tb"))
                # 2. the staged tiles are visible to every warp
                if raw_barrier:
                    k.barrier()
                # 3. fragments straight from the catalog layouts (symbols: origin, lane)
                perm = None
                if permute_a:  # registers {0,1} <-> {2,3}, {4,5} <-> {6,7}: rows g and g+8 swap
                    perm = (ir.d(0) + 2).mod(4) + ir.d(0).floordiv(4) * 4
                fa = k.view(As, [am0, lane], [atom.a.regs],
                            fragment_map(atom.a, [ir.s(0), ir.const(0)], ir.s(1), 2, perm),
                            "total", "fa")
                fb = k.view(Bs, [bn0, lane], [atom.b.regs],
                            fragment_map(atom.b, [ir.const(0), ir.s(0)], ir.s(1), 2),
                            "total", "fb")
                a = k.load(fa, hint="a")
                b = k.load(fb, hint="b")
                # 4. one warp-wide MMA
                nxt = k.atom(catalog_id, [a, b, acc], [acc.type], "acc_next").result
                # 5. every warp is done with As/Bs before the next step overwrites them
                if war_barrier:
                    k.barrier()
                loop.next([nxt])
            acc_out = loop.op.result
            # direct accumulator output: registers -> C through the C fragment layout
            vc = k.view(C, [m0, n0, am0, bn0, lane], [atom.c.regs],
                        fragment_map(atom.c, [ir.s(0) + ir.s(2), ir.s(1) + ir.s(3)], ir.s(4), 5),
                        "bounded", "vc")
            k.store(vc, acc_out)
    k.op("return")
    return k.module


# ------------------------------------------------------------------ inputs and oracles


def poisoned(shape: Sequence[int], dt: Any = np.float32) -> np.ndarray:
    """An output array filled with NaN, so an element the kernel never writes shows."""
    return np.full(tuple(shape), np.nan, dt)


def _add_inputs(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    return [rng.standard_normal(n).astype(np.float32),
            rng.standard_normal(n).astype(np.float32), poisoned([n])]


def _add_expected(args: list[np.ndarray]) -> dict[int, np.ndarray]:
    return {2: args[0] + args[1]}


def _softmax_inputs(rng: np.random.Generator, M: int, N: int) -> list[np.ndarray]:
    return [(3 * rng.standard_normal((M, N))).astype(np.float32), poisoned([M, N])]


def _softmax_expected(args: list[np.ndarray]) -> dict[int, np.ndarray]:
    x = args[0].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {1: e / e.sum(axis=1, keepdims=True)}


def _gemm_inputs(dt: Any) -> Callable[..., list[np.ndarray]]:
    def make(rng: np.random.Generator, M: int, N: int, K: int) -> list[np.ndarray]:
        return [rng.standard_normal((M, K)).astype(dt), rng.standard_normal((K, N)).astype(dt),
                poisoned([M, N])]

    return make


def _gemm_expected(tf32: bool) -> Callable[[list[np.ndarray]], dict[int, np.ndarray]]:
    def expected(args: list[np.ndarray]) -> dict[int, np.ndarray]:
        a, b = args[0].astype(np.float32), args[1].astype(np.float32)
        if tf32:
            a, b = nx.tf32_round(a), nx.tf32_round(b)
        return {2: a.astype(np.float64) @ b.astype(np.float64)}

    return expected


@dataclass(frozen=True)
class SampleCase:
    """How to run one sample and what it must give."""

    fn_name: str
    """The entry function."""
    make_inputs: Callable[..., list[np.ndarray]]
    """``(rng, **shape) -> args`` (user-level, outputs NaN-poisoned)."""
    expected: Callable[[list[np.ndarray]], dict[int, np.ndarray]]
    """``args (before the run) -> {argument index: expected output}`` (float64)."""
    shapes: tuple[dict[str, int], ...]
    """Shapes to test: exact multiples of the group tile and ragged ones."""
    rtol: float
    """Relative tolerance (of the output's largest magnitude)."""
    outcome: str = "ok"
    """``ok``, ``mismatch`` (runs, wrong answer), or a ``SimulationError`` kind."""


_GEMM_SHAPES = ({"M": 32, "N": 16, "K": 32}, {"M": 45, "N": 37, "K": 40},
                {"M": 7, "N": 5, "K": 3})
_SOFTMAX_SHAPES = ({"M": 8, "N": 256}, {"M": 7, "N": 200}, {"M": 3, "N": 1})

MACHINE_SAMPLES: dict[str, Callable[[], ir.Module]] = {
    "add": build_add,
    "softmax": build_softmax,
    "softmax_warp": lambda: build_softmax(warps_per_row=1),
    "gemm_bf16": build_gemm,
    "gemm_tf32": lambda: build_gemm("mma.m16n8k8.tf32"),
    "gemm_bf16_race": lambda: build_gemm(raw_barrier=False),
    "gemm_bf16_war_race": lambda: build_gemm(war_barrier=False),
    "softmax_race": lambda: build_softmax(exchange_barrier=False),
    "gemm_bf16_permuted": lambda: build_gemm(permute_a=True),
    "gemm_bf16_oob_shared": lambda: build_gemm(staging_row_shift=1),
}
"""Every sample's module builder (a fresh module per call)."""

_BF16 = ml_dtypes.bfloat16
_gemm_bf16 = dict(make_inputs=_gemm_inputs(_BF16), expected=_gemm_expected(False),
                  shapes=_GEMM_SHAPES, rtol=1e-5)
_softmax = dict(make_inputs=_softmax_inputs, expected=_softmax_expected,
                shapes=_SOFTMAX_SHAPES, rtol=1e-5)

SAMPLE_CASES: dict[str, SampleCase] = {
    "add": SampleCase("add", _add_inputs, _add_expected,
                      ({"n": 1024}, {"n": 1000}, {"n": 3}), 0.0),
    "softmax": SampleCase("softmax", **_softmax),
    "softmax_warp": SampleCase("softmax_warp", **_softmax),
    "gemm_bf16": SampleCase("gemm", **_gemm_bf16),
    "gemm_tf32": SampleCase("gemm", _gemm_inputs(np.float32), _gemm_expected(True),
                            _GEMM_SHAPES, 1e-5),
    "gemm_bf16_race": SampleCase("gemm", **_gemm_bf16, outcome="race"),
    "gemm_bf16_war_race": SampleCase("gemm", **_gemm_bf16, outcome="race"),
    "softmax_race": SampleCase("softmax", **_softmax, outcome="race"),
    "gemm_bf16_permuted": SampleCase("gemm", **_gemm_bf16, outcome="mismatch"),
    "gemm_bf16_oob_shared": SampleCase("gemm", **_gemm_bf16, outcome="out_of_range"),
}
"""Per sample: entry point, inputs, numpy oracle, shapes, tolerance and expected outcome."""
