"""Sample TileIR modules that together use every registered opcode.

Each ``sample_*`` function builds a fresh, well-formed ``Module`` (types
match, every structured region ends in ``yield``, every value is defined
before it is used), so verifier, printer, parser and property tests can share
them. ``ALL_SAMPLES`` maps a short name to each builder; ``sample_all_ops``
puts every sample function into one module.

Every sample is legal Candidate TileIR except the ones using ``atom.call``
(``machine`` and ``all_ops``), which are legal in the machine form;
``SAMPLE_FORMS`` records the form to verify each one in.

Operations carry synthetic locations (``<function>.py:<line>:4``, one line
per operation) so printing with locations is exercised too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from tilec.ir import (
    STRICT_FOLD,
    UNORDERED_TREE,
    ArithPolicy,
    Block,
    Builder,
    Dim,
    ExecConstraint,
    Function,
    IndexMap,
    IndexSet,
    InsertionPoint,
    Location,
    MemoryType,
    Module,
    Operation,
    ReductionPolicy,
    Region,
    TileType,
    TupleType,
    Type,
    Value,
    arith_result_type,
    d,
    f16,
    f32,
    i1,
    i32,
    index,
    s,
    token,
)

__all__ = [
    "ALL_SAMPLES", "sample_matmul", "sample_softmax", "sample_pipeline", "sample_ancestor_update",
    "sample_reductions", "sample_control_flow", "sample_memory", "sample_checks",
    "sample_machine", "sample_all_ops", "SAMPLE_FORMS",
]


class Emitter:
    """Builds operations at the end of a block, giving each a fresh synthetic location."""

    def __init__(self, fn: Function) -> None:
        self.filename = f"{fn.name}.py"
        """The file named by every location."""
        self.line = fn.loc.line
        """The line given to the last operation."""
        self.builder = Builder(InsertionPoint.at_end(fn.entry))
        """Where operations go."""

    def op(self, name: str, operands: Sequence[Value] = (), types: Sequence[Type] = (),
           attrs: dict[str, Any] | None = None, regions: Sequence[Region] = (),
           successors: Sequence[Block] = (), names: Sequence[str | None] | None = None
           ) -> Operation:
        """Create ``name`` at the insertion point."""
        self.line += 1
        return self.builder.create(name, operands, types, attrs, regions, successors,
                                   Location(self.filename, self.line, 4), names)

    def value(self, name: str, operands: Sequence[Value], type: Type,
              attrs: dict[str, Any] | None = None, hint: str | None = None) -> Value:
        """Create a single-result operation and return its result."""
        return self.op(name, operands, [type], attrs, names=[hint]).result

    def const(self, value: Any, type: Type, hint: str | None = None) -> Value:
        """A scalar or splat-tile constant."""
        return self.value("constant", [], type, {"value": value}, hint)

    def arith(self, fn: str, *xs: Value, type: Type | None = None, hint: str | None = None
              ) -> Value:
        """A scalar ``arith``; the result type is inferred unless given (``cast``)."""
        rt = type if type is not None else arith_result_type(fn, [x.type for x in xs])
        return self.value("arith", xs, rt, {"fn": fn}, hint)

    @contextmanager
    def inside(self, block: Block) -> Iterator[Emitter]:
        """Emit at the end of ``block`` for the duration of the ``with``."""
        with self.builder.at(InsertionPoint.at_end(block)):
            yield self


def region(arg_types: Sequence[Type], arg_names: Sequence[str | None]) -> tuple[Region, Block]:
    """A one-block region with these arguments, and its block."""
    block = Block(arg_types, arg_names)
    return Region([block]), block


def _function(module: Module, name: str, arg_types: Sequence[Type], arg_names: Sequence[str],
              result_types: Sequence[Type] = (), attrs: dict[str, Any] | None = None
              ) -> tuple[Function, Emitter]:
    fn = Function(name, arg_types, result_types, arg_names, attrs, Location(f"{name}.py", 1, 0))
    module.add_function(fn)
    return fn, Emitter(fn)


def _offset_map(rank: int, with_symbols: Sequence[bool]) -> IndexMap:
    """``d_i + s_k`` on the axes that take a runtime origin, ``d_i`` on the others."""
    results = []
    k = 0
    for i, has in enumerate(with_symbols):
        if has:
            results.append(d(i) + s(k))
            k += 1
        else:
            results.append(d(i))
    return IndexMap(rank, results, k)


# ------------------------------------------------------------------------- builders


def _build_matmul(m: Module) -> None:
    """C = A @ B over symbolic M, N, K: a 2-D grid of 64x64 tiles and a serial K loop."""
    a_t = MemoryType(("M", "K"), f32)
    b_t = MemoryType(("K", "N"), f32)
    c_t = MemoryType(("M", "N"), f32)
    fn, e = _function(m, "matmul", [a_t, b_t, c_t, index, index, index],
                      ["A", "B", "C", "M", "N", "K"],
                      attrs={"kernel": True, "shape_symbols": ("M", "N", "K")})
    big, bk = 64, 32
    _, _, _, dm, dn, dk = fn.args
    c0 = e.const(0, index, "c0")
    c1 = e.const(1, index, "c1")
    cbig = e.const(big, index, "c64")
    cbk = e.const(bk, index, "c32")
    gm = e.arith("cdiv", dm, cbig, hint="gm")
    gn = e.arith("cdiv", dn, cbig, hint="gn")
    nk = e.arith("cdiv", dk, cbk, hint="nk")
    grid, prog = region([index, index], ["pm", "pn"])
    with e.inside(prog):
        pm, pn = prog.args
        om = e.arith("mul", pm, cbig, hint="om")
        on = e.arith("mul", pn, cbig, hint="on")
        acc0 = e.const(0.0, TileType((big, big), f32), "acc0")
        loop, body = region([index, TileType((big, big), f32)], ["k", "acc"])
        with e.inside(body):
            k, acc = body.args
            ok = e.arith("mul", k, cbk, hint="ok")
            shifted = _offset_map(2, [True, True])
            va = e.value("view", [fn.args[0], om, ok], MemoryType((big, bk), f32),
                         {"map": shifted, "bounds": "bounded"}, "va")
            vb = e.value("view", [fn.args[1], ok, on], MemoryType((bk, big), f32),
                         {"map": shifted, "bounds": "bounded"}, "vb")
            ta = e.value("load", [va], TileType((big, bk), f32), {"fill": 0.0}, "a")
            tb = e.value("load", [vb], TileType((bk, big), f32), {"fill": 0.0}, "b")
            nxt = e.value("mma", [ta, tb, acc], acc.type,
                          {"policy": ArithPolicy("exact", "unordered_tree")}, "acc_next")
            e.op("yield", [nxt])
        res = e.op("serial", [c0, nk, c1, acc0], [acc0.type], regions=[loop],
                   names=["acc_out"]).result
        vc = e.value("view", [fn.args[2], om, on], MemoryType((big, big), f32),
                     {"map": _offset_map(2, [True, True]), "bounds": "bounded"}, "vc")
        e.op("store", [vc, res])
        e.op("yield")
    e.op("parallel", [gm, gn], [], {"rank": 2, "level": "grid"}, [grid])
    e.op("return")


def _build_softmax(m: Module) -> None:
    """Row softmax of an Mx128 matrix, four rows per program (reduce, reindex, map)."""
    x_t = MemoryType(("M", 128), f32)
    fn, e = _function(m, "softmax", [x_t, x_t, index], ["x", "y", "M"],
                      attrs={"kernel": True, "shape_symbols": ("M",)})
    rows = 4
    tile = TileType((rows, 128), f32)
    col = TileType((rows,), f32)
    c4 = e.const(rows, index, "c4")
    g = e.arith("cdiv", fn.args[2], c4, hint="programs")
    grid, prog = region([index], ["p"])
    with e.inside(prog):
        row0 = e.arith("mul", prog.args[0], c4, hint="row0")
        by_rows = _offset_map(2, [True, False])
        vx = e.value("view", [fn.args[0], row0], MemoryType((rows, 128), f32),
                     {"map": by_rows, "bounds": "bounded"}, "vx")
        t = e.value("load", [vx], tile, {"fill": float("-inf")}, "t")
        ninf = e.const(float("-inf"), f32, "ninf")
        upd, blk = region([f32, f32], ["run", "elem"])
        with e.inside(blk):
            e.op("yield", [e.arith("max", *blk.args)])
        mx = e.op("reduce", [t, ninf], [col], {"n_inputs": 1, "axes": (1,),
                                               "policy": UNORDERED_TREE, "combiner": ("max",)},
                  [upd], names=["row_max"]).result
        row_bcast = IndexMap(2, [d(0)])
        mxb = e.value("reindex", [mx], tile, {"map": row_bcast}, "row_max_b")
        body, blk = region([f32, f32], ["v", "mv"])
        with e.inside(blk):
            e.op("yield", [e.arith("exp", e.arith("sub", *blk.args))])
        ex = e.op("map", [t, mxb], [tile], {"shape": IndexSet((rows, 128))}, [body],
                  names=["ex"]).result
        zero = e.const(0.0, f32, "zero")
        upd, blk = region([f32, f32], ["run", "elem"])
        with e.inside(blk):
            e.op("yield", [e.arith("add", *blk.args)])
        total = e.op("reduce", [ex, zero], [col], {"n_inputs": 1, "axes": (1,),
                                                   "policy": UNORDERED_TREE,
                                                   "combiner": ("add",)},
                     [upd], names=["row_sum"]).result
        sumb = e.value("reindex", [total], tile, {"map": row_bcast}, "row_sum_b")
        body, blk = region([f32, f32], ["num", "den"])
        with e.inside(blk):
            e.op("yield", [e.arith("div", *blk.args)])
        out = e.op("map", [ex, sumb], [tile], {"shape": IndexSet((rows, 128))}, [body],
                   names=["out"]).result
        vy = e.value("view", [fn.args[1], row0], MemoryType((rows, 128), f32),
                     {"map": by_rows, "bounds": "bounded"}, "vy")
        e.op("store", [vy, out])
        e.op("yield")
    e.op("parallel", [g], [], {"rank": 1}, [grid])
    e.op("return")


def _build_pipeline(m: Module) -> None:
    """A 128x128x256 f16 matmul whose K loop is a three-stage pipeline."""
    a_t = MemoryType((128, 256), f16)
    b_t = MemoryType((256, 128), f16)
    c_t = MemoryType((128, 128), f32)
    fn, e = _function(m, "pipelined", [a_t, b_t, c_t], ["A", "B", "C"], attrs={"kernel": True})
    tm, tk = 64, 32
    acc_t = TileType((tm, tm), f32)
    a_tile = TileType((tm, tk), f16)
    b_tile = TileType((tk, tm), f16)
    c0 = e.const(0, index, "c0")
    c1 = e.const(1, index, "c1")
    c2 = e.const(2, index, "c2")
    csteps = e.const(256 // tk, index, "steps")
    ctm = e.const(tm, index, "c64")
    ctk = e.const(tk, index, "c32")
    grid, prog = region([index, index], ["pm", "pn"])
    shifted = _offset_map(2, [True, True])
    with e.inside(prog):
        om = e.arith("mul", prog.args[0], ctm, hint="om")
        on = e.arith("mul", prog.args[1], ctm, hint="on")
        acc0 = e.const(0.0, acc_t, "acc0")
        s0, b0 = region([index, acc_t], ["k", "acc"])
        with e.inside(b0):
            ok = e.arith("mul", b0.args[0], ctk, hint="ok")
            va = e.value("view", [fn.args[0], om, ok], MemoryType((tm, tk), f16),
                         {"map": shifted}, "va")
            e.op("yield", [e.value("load", [va], a_tile, hint="a"), b0.args[1]])
        s1, b1 = region([index, a_tile, acc_t], ["k", "a", "acc"])
        with e.inside(b1):
            ok = e.arith("mul", b1.args[0], ctk, hint="ok")
            vb = e.value("view", [fn.args[1], ok, on], MemoryType((tk, tm), f16),
                         {"map": shifted}, "vb")
            e.op("yield", [b1.args[1], e.value("load", [vb], b_tile, hint="b"), b1.args[2]])
        s2, b2 = region([index, a_tile, b_tile, acc_t], ["k", "a", "b", "acc"])
        with e.inside(b2):
            nxt = e.value("mma", b2.args[1:], acc_t,
                          {"policy": ArithPolicy("exact", "strict_fold")}, "acc_next")
            e.op("yield", [nxt])
        acc = e.op("pipeline", [c0, csteps, c1, acc0], [acc_t],
                   {"stages": ("load_a", "load_b", ""), "window": 2}, [s0, s1, s2],
                   names=["acc"]).result
        vc = e.value("view", [fn.args[2], om, on], MemoryType((tm, tm), f32),
                     {"map": shifted, "bounds": "total"}, "vc")
        e.op("store", [vc, acc])
        e.op("yield")
    e.op("parallel", [c2, c2], [], {"rank": 2}, [grid])
    e.op("return")


def _build_ancestor_update(m: Module) -> None:
    """Two group-level instances each patch four rows of tiles owned by their program."""
    fn, e = _function(m, "ancestor_update", [MemoryType((8, 64), f32), MemoryType((8,), f32)],
                      ["out", "sums"], attrs={"kernel": True})
    big = TileType((8, 64), f32)
    part = TileType((4, 64), f32)
    c0 = e.const(0, index, "c0")
    c1 = e.const(1, index, "c1")
    c2 = e.const(2, index, "c2")
    c4 = e.const(4, index, "c4")
    grid, prog = region([index], ["p"])
    with e.inside(prog):
        acc0 = e.const(0.0, big, "acc0")
        sums0 = e.const(0.0, TileType((8,), f32), "sums0")
        nest, blk = region([index, big, sums0.type], ["i", "acc_in", "sums_in"])
        with e.inside(blk):
            i, acc_in, _ = blk.args
            origin = e.arith("mul", i, c4, hint="origin")
            patch = e.value("reindex", [acc_in, origin], part,
                            {"map": _offset_map(2, [True, False])}, "patch")
            one = e.const(1.0, f32, "one")
            body, mb = region([f32, f32], ["v", "inc"])
            with e.inside(mb):
                e.op("yield", [e.arith("add", *mb.args)])
            upd = e.op("map", [patch, one], [part], {"shape": IndexSet((4, 64))}, [body],
                       names=["updated"]).result
            zero = e.const(0.0, f32, "zero")
            red, rb = region([f32, f32], ["run", "elem"])
            with e.inside(rb):
                e.op("yield", [e.arith("add", *rb.args)])
            rsum = e.op("reduce", [upd, zero], [TileType((4,), f32)],
                        {"n_inputs": 1, "axes": (1,), "policy": UNORDERED_TREE,
                         "combiner": ("add",)}, [red], names=["row_sum"]).result
            e.op("yield", [upd, origin, c0, rsum, origin], attrs={"updates": (2, 1)})
        acc1, sums1 = e.op("parallel", [c2, acc0, sums0], [big, sums0.type],
                           {"rank": 1, "level": "group",
                            "constraint": ExecConstraint(128, "group")},
                           [nest], names=["acc1", "sums1"]).results
        e.op("store", [fn.args[0], acc1])
        e.op("store", [fn.args[1], sums1])
        e.op("yield")
    e.op("parallel", [c1], [], {"rank": 1, "level": "grid"}, [grid])
    e.op("return")


def _build_reductions(m: Module) -> None:
    """A rank-0 total, a two-state arg-max reduction (column ids from an iota) and a two-result
    map."""
    fn, e = _function(m, "reductions", [MemoryType((16, 32), f32), MemoryType((16,), i32)],
                      ["x", "where"], [f32], attrs={"kernel": True})
    tile = TileType((16, 32), f32)
    c1 = e.const(1, index, "c1")
    grid, prog = region([index], ["p"])
    with e.inside(prog):
        t = e.value("load", [fn.args[0]], tile, hint="t")
        ids = e.value("iota", [], TileType((16, 32), i32),
                      {"map": IndexMap(2, [d(1)])}, "ids")  # each element's column
        zero = e.const(0.0, f32, "zero")
        upd, blk = region([f32, f32], ["run", "elem"])
        with e.inside(blk):
            e.op("yield", [e.arith("add", *blk.args)])
        e.op("reduce", [t, zero], [TileType((), f32)],
             {"n_inputs": 1, "axes": (0, 1), "policy": STRICT_FOLD, "combiner": ("add",)},
             [upd], names=["total"])
        ninf = e.const(float("-inf"), f32, "ninf")
        none = e.const(-1, i32, "none")
        upd, blk = region([f32, i32, f32, i32], ["best", "at", "v", "id"])
        with e.inside(blk):
            best, at, v, ident = blk.args
            better = e.arith("gt", v, best, hint="better")
            e.op("yield", [e.arith("select", better, v, best),
                           e.arith("select", better, ident, at)])
        _, where = e.op("reduce", [t, ids, ninf, none],
                        [TileType((16,), f32), TileType((16,), i32)],
                        {"n_inputs": 2, "axes": (1,),
                         "policy": ReductionPolicy("strict_fold", False),
                         "combiner": ("custom", "custom")},
                        [upd], names=["best", "where"]).results
        e.op("store", [fn.args[1], where])
        body, blk = region([f32], ["v"])
        with e.inside(blk):
            v = blk.args[0]
            e.op("yield", [e.arith("floor", v), e.arith("cast", v, type=i32, hint="as_int")])
        e.op("map", [t], [tile, TileType((16, 32), i32)], {"shape": IndexSet((16, 32))},
             [body], names=["lo", "as_int"])
        e.op("yield")
    e.op("parallel", [c1], [], {"rank": 1}, [grid])
    e.op("return", [e.const(0.5, f32, "half")])


def _build_control_flow(m: Module) -> None:
    """A helper and a caller with if, call, a serial loop and branches between blocks."""
    helper, e = _function(m, "scale", [f32, f32], ["x", "k"], [f32])
    e.op("return", [e.arith("mul", *helper.args, hint="y")])

    fn, e = _function(m, "control", [f32, index], ["x", "n"], [f32])
    x, n = fn.args
    zero = e.const(0.0, f32, "zero")
    two = e.const(2.0, f32, "two")
    pos = e.arith("gt", x, zero, hint="pos")
    then_r, then_b = region([], [])
    with e.inside(then_b):
        called = e.op("call", [x, two], [f32], {"callee": "scale"}, names=["scaled"]).result
        e.op("yield", [called])
    else_r, else_b = region([], [])
    with e.inside(else_b):
        e.op("yield", [e.arith("neg", x, hint="negated")])
    r = e.op("if", [pos], [f32], regions=[then_r, else_r], names=["r"]).result
    done = Block([f32], ["result"])
    looped = Block([f32, index], ["v", "m"])
    # Entry branches forward to the last block, which branches back to the middle one.
    e.op("br", [r, n], successors=[looped])
    fn.body.add_block(done)
    fn.body.add_block(looped)
    with e.inside(done):
        flag = e.const(True, i1, "flag")
        chosen = e.arith("select", flag, done.args[0], zero, hint="chosen")
        e.op("return", [chosen])
    with e.inside(looped):
        v, count = looped.args
        c0 = e.const(0, index, "c0")
        c1 = e.const(1, index, "c1")
        body, blk = region([index, f32], ["i", "a"])
        with e.inside(blk):
            i, a = blk.args
            fi = e.arith("cast", i, type=f32, hint="fi")
            e.op("yield", [e.arith("fma", a, two, fi, hint="a_next")])
        out = e.op("serial", [c0, count, c1, v], [f32], {"unroll": 2}, [body],
                   names=["sum"]).result
        e.op("br", [out], successors=[done])


def _build_memory(m: Module) -> None:
    """Explicit memory, sync tokens, atomics, tuples and a filled reindex."""
    g = MemoryType((64, 64), f32)
    fn, e = _function(m, "memory_ops", [g, g], ["x", "y"], attrs={"kernel": True})
    c0 = e.const(0, index, "c0")
    c4 = e.const(4, index, "c4")
    c16 = e.const(16, index, "c16")
    grid, prog = region([index], ["p"])
    tile = TileType((16, 64), f32)
    with e.inside(prog):
        p = prog.args[0]
        o = e.arith("mul", p, c16, hint="o")
        rows = _offset_map(2, [True, True])
        src = e.value("view", [fn.args[0], o, c0], MemoryType((16, 64), f32),
                      {"map": rows, "bounds": "total"}, "src")
        t = e.value("load", [src], tile, hint="t")
        smem = e.value("memory", [], MemoryType((16, 64), f32, "shared"), hint="smem")
        e.op("store", [smem, t])
        tok = e.value("sync", [], token, {"scope": "group"}, "ready")
        e.op("sync", [tok], attrs={"scope": "group"})
        t2 = e.value("load", [smem], tile, {"fill": 0.0}, "t2")
        scratch = e.value("memory", [], MemoryType((64,), f32, "local"), hint="scratch")
        row = e.value("reindex", [t2, p], TileType((64,), f32),
                      {"map": IndexMap(1, [s(0), d(0)], 1), "fill": -0.0}, "row")
        e.op("store", [scratch, row])
        packed_t = TupleType([tile, TileType((64,), f32), index])
        packed = e.value("tuple", [t2, row, p], packed_t, hint="packed")
        back = e.value("tuple_get", [packed], tile, {"index": 0}, "back")
        dst = e.value("view", [fn.args[1], o, c0], MemoryType((16, 64), f32),
                      {"map": rows}, "dst")
        e.op("atomic", [dst, back], attrs={"kind": "add"})
        tr = e.value("reindex", [back], TileType((64, 16), f32),
                     {"map": IndexMap.transpose((1, 0))}, "tr")
        frag = e.value("memory", [], MemoryType((64, 16), f32, "fragment"), hint="frag")
        e.op("store", [frag, tr])
        e.op("yield")
    e.op("parallel", [c4], [], {"rank": 1}, [grid])
    e.op("return")


def _build_indexed(m: Module) -> None:
    """Data-dependent addresses: a scalar read as a window origin, a gather, a scatter_add."""
    g = MemoryType((64, 16), f32)
    ids_t = MemoryType((64,), i32)
    fn, e = _function(m, "indexed", [g, ids_t, g], ["table", "ids", "out"],
                      attrs={"kernel": True})
    c0 = e.const(0, index, "c0")
    c4 = e.const(4, index, "c4")
    grid, prog = region([index], ["p"])
    with e.inside(prog):
        p = prog.args[0]
        cell = e.value("view", [fn.args[1], p], MemoryType((), i32),
                       {"map": IndexMap(0, [s(0)], 1), "bounds": "bounded"}, "cell")
        first = e.value("load_scalar", [cell], i32, {"fill": 0}, "first")
        o = e.arith("cast", first, type=index, hint="o")
        win = e.value("view", [fn.args[0], o, c0], MemoryType((16, 16), f32),
                      {"map": _offset_map(2, [True, True]), "bounds": "bounded"}, "win")
        idx = e.value("iota", [], TileType((16, 16), i32),
                      {"map": IndexMap(2, [d(0) * 3])}, "idx")
        rows = e.value("gather", [win, idx], TileType((16, 16), f32),
                       {"axis": 0, "fill": 0.0}, "rows")
        e.op("scatter", [fn.args[2], idx, rows], attrs={"axis": 0, "kind": "add"})
        e.op("yield")
    e.op("parallel", [c4], [], {"rank": 1}, [grid])
    e.op("return")


def _build_checks(m: Module) -> None:
    """Runtime checks: one on the arguments before the nest, one on a program index in it."""
    v = MemoryType(("N",), f32)
    fn, e = _function(m, "checked", [v, v, i32, index], ["x", "y", "n", "N"],
                      attrs={"kernel": True, "shape_symbols": ("N",)})
    x, y, n, dim = fn.args
    wide = e.arith("cast", n, type=index, hint="wide")
    fits = e.arith("le", dim, wide, hint="fits")
    e.op("check", [fits, dim, wide], attrs={"message": "N <= n", "labels": ("N", "n")})
    c16 = e.const(16, index, "c16")
    g = e.arith("cdiv", dim, c16, hint="programs")
    grid, prog = region([index], ["p"])
    with e.inside(prog):
        p = prog.args[0]
        o = e.arith("mul", p, c16, hint="o")
        inside = e.arith("lt", o, dim, hint="inside")
        e.op("check", [inside, o], attrs={"message": "the program starts inside x",
                                          "labels": ("p * 16",)})
        rows = _offset_map(1, [True])
        src = e.value("view", [x, o], MemoryType((16,), f32), {"map": rows, "bounds": "bounded"},
                      "src")
        t = e.value("load", [src], TileType((16,), f32), {"fill": 0.0}, "t")
        dst = e.value("view", [y, o], MemoryType((16,), f32), {"map": rows, "bounds": "bounded"},
                      "dst")
        e.op("store", [dst, t])
        e.op("yield")
    e.op("parallel", [g], [], {"rank": 1}, [grid])
    e.op("return")


def _build_machine(m: Module) -> None:
    """Machine form: an ``atom.call`` carrying every attribute value kind, then a wait."""
    fn, e = _function(m, "machine", [MemoryType((16, 8), f32, "global")], ["out"],
                      attrs={"kernel": True, "target": "sm_80", "threads": (32, 1, 1)})
    c1 = e.const(1, index, "c1")
    grid, prog = region([index], ["lane"])
    with e.inside(prog):
        a = e.const(1.0, TileType((16, 16), f16), "a")
        b = e.const(2.0, TileType((16, 8), f16), "b")
        c = e.const(0.0, TileType((16, 8), f32), "c")
        attrs: dict[str, Any] = {
            "catalog_id": "sm80.mma.sync.m16n8k16.f32.f16",
            "shape": (16, 8, 16), "scale": 0.5, "lo": float("-inf"), "hi": float("inf"),
            "bad": float("nan"), "neg_zero": -0.0, "huge": 1e300, "tiny": 5e-324,
            "count": -7, "flag": False, "on": True, "nothing": None, "empty": (),
            "note": 'quote " backslash \\ tab \t accent \u00e9',
            "nested": ((1, 2), ("a", True), None, (1.5, ())),
            "ty": TileType((16, 8), f32), "pair_ty": TupleType([index, token]),
            "layout": IndexMap(2, [d(0).floordiv(8) * 4 + d(1) * -2 - 3 + s(0),
                                   (d(1) - 1).mod(4), -d(0)], 1),
            "dom": IndexSet((16, "M", "?")), "extent": Dim("N"),
            "reduce_policy": UNORDERED_TREE, "strict": STRICT_FOLD,
            "arith": ArithPolicy("bf16x3", "strict_fold"), "exec": ExecConstraint(None, "lane"),
        }
        res, tok = e.op("atom.call", [a, b, c], [c.type, token], attrs,
                        names=["d", "done"]).results
        e.op("sync", [tok], attrs={"scope": "subgroup"})
        e.op("store", [fn.args[0], res])
        e.op("yield")
    e.op("parallel", [c1], [], {"rank": 1, "constraint": ExecConstraint(32, "group")}, [grid])
    e.op("return")


# ------------------------------------------------------------------------ public API


def _single(build: Callable[[Module], None]) -> Callable[[], Module]:
    def make() -> Module:
        m = Module()
        build(m)
        return m

    make.__doc__ = build.__doc__
    make.__name__ = make.__qualname__ = build.__name__.replace("_build", "sample")
    return make


sample_matmul = _single(_build_matmul)
sample_softmax = _single(_build_softmax)
sample_pipeline = _single(_build_pipeline)
sample_ancestor_update = _single(_build_ancestor_update)
sample_reductions = _single(_build_reductions)
sample_control_flow = _single(_build_control_flow)
sample_memory = _single(_build_memory)
sample_checks = _single(_build_checks)
sample_indexed = _single(_build_indexed)
sample_machine = _single(_build_machine)

_BUILDERS = (_build_matmul, _build_softmax, _build_pipeline, _build_ancestor_update,
             _build_reductions, _build_control_flow, _build_memory, _build_checks,
             _build_indexed, _build_machine)


def sample_all_ops() -> Module:
    """Every sample function in one module; together they use every opcode in ``OPS``."""
    m = Module()
    for build in _BUILDERS:
        build(m)
    return m


ALL_SAMPLES: dict[str, Callable[[], Module]] = {
    "matmul": sample_matmul,
    "softmax": sample_softmax,
    "pipeline": sample_pipeline,
    "ancestor_update": sample_ancestor_update,
    "reductions": sample_reductions,
    "control_flow": sample_control_flow,
    "memory": sample_memory,
    "checks": sample_checks,
    "indexed": sample_indexed,
    "machine": sample_machine,
    "all_ops": sample_all_ops,
}
"""Short name -> a function building a fresh module."""

SAMPLE_FORMS: dict[str, str] = {
    name: ("machine" if name in ("machine", "all_ops") else "candidate") for name in ALL_SAMPLES
}
"""Short name -> the verifier form the sample is legal in (``atom.call`` is machine-only)."""
