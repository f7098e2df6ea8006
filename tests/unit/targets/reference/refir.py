"""A small hand builder of TileIR for the reference-interpreter tests (not part of tilec).

``K`` wraps ``ir.Builder`` with one method per opcode; region bodies are
Python callables that receive the block arguments and return the values to
yield. Every operation gets its own location ``kernel.py:<n>`` so that error
tests can check which operation a message names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.targets.reference import Interpreter, make_backend

Body = Callable[..., Sequence[ir.Value]]


class K:
    """Builds one function (and its module) operation by operation."""

    def __init__(self, name: str = "k", params: Sequence[tuple[str, ir.Type]] = (),
                 shape_symbols: Sequence[str] = (),
                 shape_bindings: Sequence[tuple[int, int]] | None = None,
                 results: Sequence[ir.Type] = (), module: ir.Module | None = None,
                 grid: bool = True) -> None:
        attrs: dict[str, Any] = {"shape_symbols": tuple(shape_symbols)}
        if shape_bindings is not None:
            attrs["shape_bindings"] = tuple(tuple(b) for b in shape_bindings)
        types = [t for _, t in params] + [ir.index] * len(shape_symbols)
        names = [n for n, _ in params] + list(shape_symbols)
        self.fn = ir.Function(name, types, results, names, attrs)
        """The function being built."""
        self.module = module if module is not None else ir.Module()
        """Its module."""
        self.module.add_function(self.fn)
        self.b = ir.Builder(ir.InsertionPoint.at_end(self.fn.entry))
        """The underlying builder."""
        self.line = 0
        """The line number the next operation's location gets."""
        self._grid: ir.Block | None = None
        if grid:
            # Candidate IR keeps tile operations inside a parallel nest (invariant 4): wrap the
            # body in a one-program grid. Its scaffolding has no location, so line numbers of
            # the test's own operations start at 1.
            one = self.b.value("constant", [], ir.index, {"value": 1})
            self._grid = ir.Block([ir.index])
            self.b.create("parallel", [one], [], {"rank": 1}, [ir.Region([self._grid])])
            self.b.ip = ir.InsertionPoint.at_end(self._grid)

    @property
    def args(self) -> list[ir.Value]:
        """The entry block arguments (user parameters, then shape symbols)."""
        return self.fn.args

    # -- generic ---------------------------------------------------------------
    def op(self, name: str, operands: Sequence[ir.Value] = (),
           results: Sequence[ir.Type] = (), regions: Sequence[ir.Region] = (),
           **attrs: Any) -> ir.Operation:
        """Create one operation at the insertion point."""
        self.line += 1
        return self.b.create(name, operands, results, attrs, regions,
                             loc=ir.Location("kernel.py", self.line, 4))

    def v(self, name: str, operands: Sequence[ir.Value], rtype: ir.Type, **attrs: Any
          ) -> ir.Value:
        """A single-result operation's value."""
        return self.op(name, operands, [rtype], **attrs).result

    def block(self, arg_types: Sequence[ir.Type], body: Body) -> tuple[ir.Block, list]:
        """A detached block built by ``body(*args)``, ended with a yield of its return value."""
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
    def const(self, value: float | int | bool, t: ir.Type = ir.f32) -> ir.Value:
        """A scalar or splat-tile constant."""
        return self.v("constant", [], t, value=value)

    def idx(self, n: int) -> ir.Value:
        """An index constant."""
        return self.const(n, ir.index)

    def arith(self, fn: str, *xs: ir.Value, rtype: ir.Type | None = None) -> ir.Value:
        """One scalar function."""
        if rtype is None:
            rtype = ir.arith_result_type(fn, [x.type for x in xs])
        return self.v("arith", xs, rtype, fn=fn)

    def map(self, shape: Sequence[int], operands: Sequence[ir.Value], body: Body
            ) -> list[ir.Value]:
        """``map`` over ``shape``; ``body`` gets one scalar per operand."""
        elems = [x.type.dtype if isinstance(x.type, ir.TileType) else x.type for x in operands]
        blk, outs = self.block(elems, body)
        rtypes = [ir.TileType(shape, o.type) for o in outs]
        return list(self.op("map", operands, rtypes, [ir.Region([blk])],
                            shape=ir.IndexSet(shape)).results)

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
        return list(self.op("reduce", list(inputs) + list(seeds),
                            [ir.TileType(kept, s.type) for s in seeds], [ir.Region([blk])],
                            **attrs).results)

    def reindex(self, src: ir.Value, m: ir.IndexMap, shape: Sequence[int],
                syms: Sequence[ir.Value] = (), fill: float | None = None) -> ir.Value:
        """``reindex`` of ``src`` to a tile of ``shape``."""
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
        """A view (by default the tile of ``shape`` at ``origins``)."""
        if m is None:
            m = ir.IndexMap.tile_at_symbols(len(origins))
        attrs: dict[str, Any] = {"map": m}
        if bounds is not None:
            attrs["bounds"] = bounds
        t = base.type
        return self.v("view", [base, *origins], ir.MemoryType(shape, t.dtype, t.space), **attrs)

    def load(self, view: ir.Value, fill: float | None = None) -> ir.Value:
        """Snapshot a view into a tile."""
        t = view.type
        attrs = {} if fill is None else {"fill": fill}
        return self.v("load", [view], ir.TileType(t.shape, t.dtype), **attrs)

    def store(self, view: ir.Value, tile: ir.Value) -> None:
        """Write a tile through a view."""
        self.op("store", [view, tile])

    # -- structure -------------------------------------------------------------
    def parallel(self, extents: Sequence[ir.Value], inits: Sequence[ir.Value], body: Body
                 ) -> list[ir.Value]:
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
        """``pipeline``; stage k gets ``(iv, *previous yields)``."""
        regions = []
        types = [x.type for x in inits]
        for body in stages:
            blk, outs = self.block([ir.index] + types, body)
            types = [o.type for o in outs]
            regions.append(ir.Region([blk]))
        return list(self.op("pipeline", [lb, ub, step, *inits], [x.type for x in inits], regions,
                            stages=tuple(f"s{i}" for i in range(len(stages)))).results)

    def if_(self, cond: ir.Value, then: Body, other: Body, rtypes: Sequence[ir.Type]
            ) -> list[ir.Value]:
        """``if`` with two yielding regions."""
        b1, _ = self.block([], then)
        b2, _ = self.block([], other)
        return list(self.op("if", [cond], rtypes, [ir.Region([b1]), ir.Region([b2])]).results)

    def ret(self, *vals: ir.Value) -> None:
        """End the function (closing the one-program grid first, when there is one)."""
        if self._grid is not None:
            assert not vals, "a function built inside a grid returns nothing"
            self.b.create("yield")
            self.b.ip = ir.InsertionPoint.at_end(self.fn.entry)
            self.b.create("return")
            return
        self.op("return", vals)

    # -- running ---------------------------------------------------------------
    def compile(self, verify: bool = True):
        """The reference executable of this function (``verify``: run the IR verifier first)."""
        backend = make_backend("reference")
        backend.verify = verify
        return backend.compile(self.module, self.fn.name)

    def run(self, *args: Any, verify: bool = True) -> Any:
        """Compile and call with user arguments."""
        return self.compile(verify)(*args)

    def interpret(self, *entry_args: Any) -> list[Any]:
        """Run directly in the interpreter with entry-block arguments (no binding checks)."""
        return Interpreter(self.module).run(self.fn, list(entry_args))


def tile(shape: Sequence[Any], dt: ir.ScalarType = ir.f32) -> ir.TileType:
    """``tile<shape x dt>``."""
    return ir.TileType(shape, dt)


def mem(shape: Sequence[Any], dt: ir.ScalarType = ir.f32, space: str = "global"
        ) -> ir.MemoryType:
    """``mem<shape x dt, space>``."""
    return ir.MemoryType(shape, dt, space)


def poisoned(shape: Sequence[int], dt: Any = np.float32) -> np.ndarray:
    """An output array full of NaN, so unwritten elements show."""
    return np.full(shape, np.nan, dt)


def bits(x: np.ndarray) -> np.ndarray:
    """The raw bit patterns of a float array (for bit-for-bit comparisons, NaN included)."""
    x = np.ascontiguousarray(x)
    return x.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize])
