"""Dominance: lexical across nested regions, CFG dominators across blocks."""

from __future__ import annotations

from tilec.ir import (
    AnalysisManager,
    Block,
    DominanceInfo,
    Function,
    Module,
    Operation,
    Region,
    f32,
    index,
)


def _arith(fn: str, *vals):
    return Operation("arith", list(vals), [vals[0].type], {"fn": fn})


def _const(v: float = 1.0):
    return Operation("constant", [], [f32], {"value": v})


def _nest():
    """f(x, n): c; a = x + c; parallel(n) { i: b = a + a; serial(0, n, 1) { j: e = b*b } }; z."""
    fn = Function("f", [f32, index])
    x, n = fn.args
    entry = fn.entry
    c = entry.append(_const())
    a = entry.append(_arith("add", x, c.result))
    pblock = Block([index])
    par = Operation("parallel", [n], [], {"rank": 1}, [Region([pblock])])
    entry.append(par)
    b = pblock.append(_arith("add", a.result, a.result))
    sblock = Block([index])
    ser = Operation("serial", [n, n, n], [], {}, [Region([sblock])])
    pblock.append(ser)
    e = sblock.append(_arith("mul", b.result, b.result))
    sblock.append(Operation("yield"))
    pblock.append(Operation("yield"))
    z = entry.append(_arith("mul", a.result, c.result))
    entry.append(Operation("return"))
    Module([fn])
    return fn, dict(x=x, n=n, c=c, a=a, par=par, b=b, ser=ser, e=e, z=z, pblock=pblock,
                    sblock=sblock)


def test_straight_line_order():
    fn, o = _nest()
    dom = DominanceInfo(fn)
    assert dom.dominates(o["c"].result, o["a"])
    assert not dom.dominates(o["a"].result, o["c"])
    assert not dom.dominates(o["a"].result, o["a"])
    assert dom.properly_dominates(o["c"], o["a"])
    assert not dom.properly_dominates(o["a"], o["a"])
    assert not dom.properly_dominates(o["z"], o["a"])


def test_lexical_dominance_into_nested_regions():
    fn, o = _nest()
    dom = DominanceInfo(fn)
    # An enclosing earlier definition and a function argument reach any depth.
    assert dom.dominates(o["a"].result, o["e"])
    assert dom.dominates(o["x"], o["e"])
    assert dom.dominates(o["pblock"].args[0], o["e"])  # enclosing block argument
    assert dom.dominates(o["b"].result, o["e"])
    # Inner definitions do not escape their region.
    assert not dom.dominates(o["b"].result, o["z"])
    assert not dom.dominates(o["sblock"].args[0], o["b"])
    assert not dom.dominates(o["pblock"].args[0], o["z"])
    # Later enclosing definitions do not reach back in.
    assert not dom.dominates(o["z"].result, o["e"])


def test_enclosing_op_properly_dominates_nested_but_its_results_do_not():
    fn = Function("g", [index])
    (n,) = fn.args
    blk = Block([index, f32])
    init = fn.entry.append(_const())
    ser = Operation("serial", [n, n, n, init.result], [f32], {}, [Region([blk])])
    fn.entry.append(ser)
    inner = blk.append(_arith("add", blk.args[1], blk.args[1]))
    blk.append(Operation("yield", [inner.result]))
    fn.entry.append(Operation("return"))
    dom = DominanceInfo(fn)
    assert dom.properly_dominates(ser, inner)
    assert not dom.properly_dominates(inner, ser)
    assert not dom.dominates(ser.result, inner)
    assert dom.dominates(blk.args[1], inner)


def test_block_dominates_nested_and_reflexive():
    fn, o = _nest()
    dom = DominanceInfo(fn)
    assert dom.block_dominates(fn.entry, o["sblock"])
    assert dom.block_dominates(o["pblock"], o["sblock"])
    assert dom.block_dominates(o["sblock"], o["sblock"])
    assert not dom.block_dominates(o["sblock"], o["pblock"])
    assert not dom.block_dominates(o["sblock"], fn.entry)


def _cfg(edges: dict[int, list[int]], n: int):
    """A function whose body has ``n`` blocks; block i ends in a br to ``edges[i]``.

    The analysis reads successors generically, so a two-successor br stands in
    for a conditional branch.
    """
    fn = Function("cfg", [f32])
    blocks = [fn.entry] + [Block() for _ in range(n - 1)]
    for b in blocks[1:]:
        fn.body.add_block(b)
    defs = []
    for i, b in enumerate(blocks):
        defs.append(b.append(_arith("neg", fn.args[0])))
        succ = [blocks[j] for j in edges.get(i, [])]
        b.append(Operation("br", [], [], successors=succ) if succ else Operation("return"))
    return fn, blocks, defs


def test_diamond_with_loop():
    # 0 -> 1, 2;  1 -> 3;  2 -> 3;  3 -> 4, 1;  5 unreachable -> 3
    fn, b, defs = _cfg({0: [1, 2], 1: [3], 2: [3], 3: [4, 1], 5: [3]}, 6)
    dom = DominanceInfo(fn)
    assert all(dom.block_dominates(b[0], x) for x in b)
    assert not dom.block_dominates(b[1], b[3])
    assert not dom.block_dominates(b[2], b[3])
    assert dom.block_dominates(b[3], b[4])
    assert not dom.block_dominates(b[4], b[3])
    assert not dom.block_dominates(b[1], b[2])
    # The unreachable block is dominated by everything and dominates only itself.
    assert dom.block_dominates(b[4], b[5])
    assert not dom.block_dominates(b[5], b[3])
    # Values: a definition in block 0 reaches all blocks; block 1's does not reach 3.
    assert dom.dominates(defs[0].result, defs[3])
    assert not dom.dominates(defs[1].result, defs[3])
    assert dom.dominates(defs[3].result, defs[4])


def test_long_chain_does_not_recurse():
    n = 3000
    fn, b, defs = _cfg({i: [i + 1] for i in range(n - 1)}, n)
    dom = DominanceInfo(fn)
    assert dom.dominates(defs[0].result, defs[-1])
    assert dom.block_dominates(b[10], b[n - 1])
    assert not dom.block_dominates(b[n - 1], b[10])


def test_detached_is_outside_the_ir():
    fn, o = _nest()
    o["z"].remove_self()
    dom = DominanceInfo(fn)
    assert not dom.dominates(o["a"].result, o["z"])
    assert not dom.properly_dominates(o["a"], o["z"])
    loose = _arith("neg", o["x"])
    assert not dom.dominates(o["x"], loose)
    assert not dom.dominates(loose.result, o["z"])


def test_snapshot_rebuilds_a_block_on_miss():
    fn, o = _nest()
    dom = DominanceInfo(fn)
    assert dom.dominates(o["c"].result, o["z"])
    late = fn.entry.insert_op(_arith("neg", o["x"]), fn.entry.operations.first)
    assert dom.properly_dominates(late, o["c"])


def test_values_of_another_function_never_dominate():
    fn, o = _nest()
    other, p = _nest()
    dom = DominanceInfo(fn)
    assert not dom.dominates(p["a"].result, o["z"])


def test_analysis_manager_caches_dominance():
    fn, o = _nest()
    am = AnalysisManager(fn)
    d1 = am.get(DominanceInfo)
    assert am.get(DominanceInfo) is d1
    assert d1.name == "dominance"
    am.invalidate()
    assert am.get(DominanceInfo) is not d1
