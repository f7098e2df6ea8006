"""A compact hand builder of TileIR for the C backend tests (test support, not part of tilec).

``KB`` creates one function operation by operation; region bodies are Python
callables that receive the block arguments and return the values to yield.
Each operation gets the location ``ckernel.py:<n>`` so error tests can check
which operation a message names. ``run_both`` runs a function on the C
backend and on the reference interpreter with separate copies of the inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import tilec.ir as ir

Body = Callable[..., Sequence[ir.Value]]


def mem(shape: Sequence[Any], dt: ir.ScalarType = ir.f32) -> ir.MemoryType:
    """``mem<shape x dt, global>``."""
    return ir.MemoryType(shape, dt)


def tile(shape: Sequence[Any], dt: ir.ScalarType = ir.f32) -> ir.TileType:
    """``tile<shape x dt>``."""
    return ir.TileType(shape, dt)


class KB:
    """Builds one kernel function and its module."""

    def __init__(self, name: str, params: Sequence[tuple[str, ir.Type]],
                 symbols: Sequence[str] = (), results: Sequence[ir.Type] = (),
                 bindings: Sequence[tuple[int, int]] | None = None) -> None:
        attrs: dict[str, Any] = {"kernel": True, "shape_symbols": tuple(symbols)}
        if bindings is not None:
            attrs["shape_bindings"] = tuple(bindings)
        types = [t for _, t in params] + [ir.index] * len(symbols)
        names = [n for n, _ in params] + list(symbols)
        self.fn = ir.Function(name, types, results, names, attrs)
        """The function."""
        self.module = ir.Module([self.fn])
        """Its module."""
        self.b = ir.Builder(ir.InsertionPoint.at_end(self.fn.entry))
        self.line = 0

    @property
    def args(self) -> list[ir.Value]:
        """Entry arguments (user parameters, then shape symbols)."""
        return self.fn.args

    def op(self, name: str, operands: Sequence[ir.Value] = (), results: Sequence[ir.Type] = (),
           regions: Sequence[ir.Region] = (), **attrs: Any) -> ir.Operation:
        """One operation at the insertion point."""
        self.line += 1
        return self.b.create(name, operands, results, attrs, regions,
                             loc=ir.Location("ckernel.py", self.line, 4))

    def v(self, name: str, operands: Sequence[ir.Value], rtype: ir.Type, **attrs: Any
          ) -> ir.Value:
        """A single-result operation's value."""
        return self.op(name, operands, [rtype], **attrs).result

    def block(self, arg_types: Sequence[ir.Type], body: Body) -> tuple[ir.Block, list]:
        """A detached block built by ``body(*args)`` and ended with a yield of its result."""
        blk = ir.Block(list(arg_types))
        saved = self.b.ip
        self.b.ip = ir.InsertionPoint.at_end(blk)
        try:
            outs = list(body(*blk.args) or [])
            self.op("yield", outs)
        finally:
            self.b.ip = saved
        return blk, outs

    # -- values ----------------------------------------------------------------
    def const(self, value: Any, t: ir.Type = ir.f32) -> ir.Value:
        """A scalar or a splat tile."""
        return self.v("constant", [], t, value=value)

    def idx(self, n: int) -> ir.Value:
        """An index constant."""
        return self.const(n, ir.index)

    def arith(self, fn: str, *xs: ir.Value, rtype: ir.Type | None = None) -> ir.Value:
        """A scalar function."""
        if rtype is None:
            rtype = ir.arith_result_type(fn, [x.type for x in xs])
        return self.v("arith", xs, rtype, fn=fn)

    def map(self, shape: Sequence[int], operands: Sequence[ir.Value], body: Body
            ) -> list[ir.Value]:
        """``map``; ``body`` receives one scalar per operand."""
        elems = [x.type.dtype if isinstance(x.type, ir.TileType) else x.type for x in operands]
        blk, outs = self.block(elems, body)
        return list(self.op("map", operands, [ir.TileType(shape, o.type) for o in outs],
                            [ir.Region([blk])], shape=ir.IndexSet(shape)).results)

    def reduce(self, inputs: Sequence[ir.Value], seeds: Sequence[ir.Value], axes: Sequence[int],
               body: Body, policy: str = "strict_fold",
               combiner: Sequence[str] | None = None) -> list[ir.Value]:
        """``reduce``; ``body(*states, *elems)`` returns the next states."""
        shape = inputs[0].type.shape
        blk, _ = self.block([s.type for s in seeds] + [x.type.dtype for x in inputs], body)
        kept = [e for i, e in enumerate(shape) if i not in axes]
        attrs: dict[str, Any] = {"n_inputs": len(inputs), "axes": tuple(axes),
                                 "policy": ir.ReductionPolicy(policy, True)}
        if combiner is not None:
            attrs["combiner"] = tuple(combiner)
        return list(self.op("reduce", [*inputs, *seeds],
                            [ir.TileType(kept, s.type) for s in seeds], [ir.Region([blk])],
                            **attrs).results)

    def reindex(self, src: ir.Value, m: ir.IndexMap, shape: Sequence[int],
                syms: Sequence[ir.Value] = (), fill: Any = None) -> ir.Value:
        """``reindex`` of ``src``."""
        attrs: dict[str, Any] = {"map": m}
        if fill is not None:
            attrs["fill"] = fill
        return self.v("reindex", [src, *syms], ir.TileType(shape, src.type.dtype), **attrs)

    def mma(self, a: ir.Value, b: ir.Value, c: ir.Value, precision: str = "exact",
            order: str = "strict_fold") -> ir.Value:
        """``c + a @ b``."""
        return self.v("mma", [a, b, c], c.type, policy=ir.ArithPolicy(precision, order))

    # -- memories --------------------------------------------------------------
    def view(self, base: ir.Value, origins: Sequence[ir.Value], shape: Sequence[Any],
             bounds: str | None = "bounded", m: ir.IndexMap | None = None) -> ir.Value:
        """A view: by default the window of ``shape`` at ``origins``."""
        if m is None:
            m = ir.IndexMap.tile_at_symbols(len(origins))
        attrs: dict[str, Any] = {"map": m}
        if bounds is not None:
            attrs["bounds"] = bounds
        t = base.type
        return self.v("view", [base, *origins], ir.MemoryType(shape, t.dtype, t.space), **attrs)

    def load(self, view: ir.Value, fill: Any = None) -> ir.Value:
        """Snapshot a view."""
        t = view.type
        attrs = {} if fill is None else {"fill": fill}
        return self.v("load", [view], ir.TileType(t.shape, t.dtype), **attrs)

    def store(self, view: ir.Value, value: ir.Value) -> None:
        """Write a tile through a view."""
        self.op("store", [view, value])

    def atomic(self, view: ir.Value, value: ir.Value, kind: str = "add") -> None:
        """Atomic read-modify-write through a view."""
        self.op("atomic", [view, value], kind=kind)

    def memory(self, shape: Sequence[int], dt: ir.ScalarType = ir.f32) -> ir.Value:
        """Manual storage."""
        return self.v("memory", [], ir.MemoryType(shape, dt, "local"))

    # -- structure -------------------------------------------------------------
    def parallel(self, extents: Sequence[ir.Value], body: Body,
                 inits: Sequence[ir.Value] = ()) -> list[ir.Value]:
        """``parallel``; ``body(*coords, *snapshots)`` returns the yield operands."""
        blk, _ = self.block([ir.index] * len(extents) + [x.type for x in inits], body)
        return list(self.op("parallel", [*extents, *inits], [x.type for x in inits],
                            [ir.Region([blk])], rank=len(extents)).results)

    def serial(self, lb: ir.Value, ub: ir.Value, step: ir.Value, inits: Sequence[ir.Value],
               body: Body) -> list[ir.Value]:
        """``serial``; ``body(iv, *carried)`` returns the next carried values."""
        blk, _ = self.block([ir.index] + [x.type for x in inits], body)
        return list(self.op("serial", [lb, ub, step, *inits], [x.type for x in inits],
                            [ir.Region([blk])]).results)

    def pipeline(self, lb: ir.Value, ub: ir.Value, step: ir.Value, inits: Sequence[ir.Value],
                 stages: Sequence[Body]) -> list[ir.Value]:
        """``pipeline``; stage k receives ``(iv, *previous yields)``."""
        regions = []
        types = [x.type for x in inits]
        for body in stages:
            blk, outs = self.block([ir.index] + types, body)
            types = [o.type for o in outs]
            regions.append(ir.Region([blk]))
        return list(self.op("pipeline", [lb, ub, step, *inits], [x.type for x in inits],
                            regions, stages=tuple(f"s{i}" for i in range(len(stages)))).results)

    def if_(self, cond: ir.Value, then: Body, other: Body, rtypes: Sequence[ir.Type]
            ) -> list[ir.Value]:
        """``if`` with two yielding regions."""
        b1, _ = self.block([], then)
        b2, _ = self.block([], other)
        return list(self.op("if", [cond], rtypes, [ir.Region([b1]), ir.Region([b2])]).results)

    def ret(self, *vals: ir.Value) -> None:
        """``return``."""
        self.op("return", vals)

    # -- running ---------------------------------------------------------------
    def c(self):
        """The C executable of this function."""
        from tilec.targets.cpu.backend import make_backend

        return make_backend("cpu").compile(self.module, self.fn.name)

    def ref(self):
        """The reference executable of this function."""
        from tilec.targets.reference.backend import make_backend

        return make_backend("reference").compile(self.module, self.fn.name)


def copies(args: Sequence[Any]) -> list[Any]:
    """Deep copies of array arguments (scalars as they are)."""
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def bits(x: np.ndarray) -> np.ndarray:
    """Raw bit patterns; every NaN mapped to one pattern (payloads are not part of the contract)."""
    x = np.ascontiguousarray(np.asarray(x))
    if x.dtype.kind == "b":
        return x.view(np.uint8)
    u = x.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize])
    if x.dtype.kind == "f" or x.dtype.name == "bfloat16":
        u = np.where(np.isnan(x.astype(np.float64)), np.array(-1).astype(u.dtype), u)
    return u


def run_both(kb: KB, *args: Any) -> tuple[list[Any], list[Any], Any, Any]:
    """Run on C and on the reference with separate input copies: (c_args, ref_args, rc, rr)."""
    ca, ra = copies(args), copies(args)
    rc = kb.c()(*ca)
    rr = kb.ref()(*ra)
    return ca, ra, rc, rr


def assert_bitwise(a: Any, b: Any, what: str = "") -> None:
    """Equal bit for bit (NaNs equal to each other, signed zeros distinguished)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (what, a.dtype, b.dtype, a.shape, b.shape)
    ba, bb = bits(a), bits(b)
    bad = np.argwhere(ba != bb)
    assert bad.size == 0, (f"{what}: {len(bad)} of {a.size} elements differ; first at "
                           f"{bad[0].tolist()}: {a[tuple(bad[0])]!r} vs {b[tuple(bad[0])]!r}")
