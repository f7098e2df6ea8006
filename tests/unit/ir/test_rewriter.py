"""IRRewriter: each mutation keeps use lists linked and invalidates cached analyses."""

from __future__ import annotations

import pytest

from tilec.ir import (
    STRICT_FOLD,
    UNORDERED_TREE,
    AnalysisManager,
    Block,
    DominanceInfo,
    Function,
    IndexSet,
    InsertionPoint,
    IRError,
    IRRewriter,
    Liveness,
    MemoryEffects,
    Module,
    Operation,
    Region,
    TileType,
    f32,
    index,
)


def _arith(fn: str, *vals):
    return Operation("arith", list(vals), [vals[0].type], {"fn": fn})


def _setup():
    fn = Function("f", [f32, f32, index])
    m = Module([fn])
    am = AnalysisManager(m)
    return fn, m, am, IRRewriter(am)


def _warm(am):
    for k in (DominanceInfo, Liveness, MemoryEffects):
        am.get(k)


def test_insert_and_create_invalidate():
    fn, m, am, rw = _setup()
    x, y, _ = fn.args
    _warm(am)
    a = rw.insert(_arith("add", x, y), fn.entry)
    assert a.is_attached and rw.changed and rw.num_mutations == 1
    assert not am.cached_kinds()
    _warm(am)
    b = rw.create("arith", [a.result, x], [f32], {"fn": "mul"}, ip=InsertionPoint.before_op(a))
    assert fn.entry.operations.first is b and not am.cached_kinds()
    loose = rw.create("arith", [x], [f32], {"fn": "neg"})
    assert loose.parent is None and rw.num_mutations == 2
    with rw.at(InsertionPoint.at_end(fn.entry)):
        c = rw.create("arith", [x], [f32], {"fn": "neg"})
    assert fn.entry.operations.last is c


def test_insert_refuses_own_region_and_attached_ops():
    fn, m, am, rw = _setup()
    _, _, n = fn.args
    blk = Block([index])
    par = Operation("parallel", [n], [], {"rank": 1}, [Region([blk])])
    with pytest.raises(IRError, match="own region"):
        rw.insert(par, blk)
    rw.insert(par, fn.entry)
    with pytest.raises(IRError, match="already in a block"):
        rw.insert(par, fn.entry)


def test_replace_op_rauw_then_erase():
    fn, m, am, rw = _setup()
    x, y, _ = fn.args
    a = rw.insert(_arith("add", x, y), fn.entry)
    users = [rw.insert(_arith("neg", a.result), fn.entry) for _ in range(3)]
    new = rw.insert(_arith("mul", x, y), fn.entry, before=a)
    _warm(am)
    rw.replace_op(a, [new.result])
    assert a.parent is None and new.result.num_uses == 3
    assert {u.owner for u in new.result.uses} == set(users)
    assert x.num_uses == 1 and not am.cached_kinds()
    with pytest.raises(IRError, match="1 results but 2"):
        rw.replace_op(new, [x, y])
    with pytest.raises(IRError, match="replacement is index"):
        rw.replace_op(new, [fn.args[2]])
    rw.replace_op(new, users[0])  # an Operation stands for its results
    assert users[0].operand(0) is users[0].result


def test_set_operand_rauw_and_conditional_replace():
    fn, m, am, rw = _setup()
    x, y, _ = fn.args
    ops = [rw.insert(_arith("neg", x), fn.entry) for _ in range(4)]
    _warm(am)
    rw.set_operand(ops[0], 0, y)
    assert not am.cached_kinds() and x.num_uses == 3
    n = rw.replace_uses_with_if(x, y, lambda u: u.owner is ops[1])
    assert n == 1 and x.num_uses == 2
    before = rw.num_mutations
    assert rw.replace_uses_with_if(x, y, lambda u: False) == 0
    assert rw.num_mutations == before  # nothing happened, nothing recorded
    rw.replace_all_uses_with(x, y)
    assert x.num_uses == 0 and y.num_uses == 4
    rw.replace_all_uses_with(y, y)
    assert y.num_uses == 4


def test_erase_and_erase_block():
    fn, m, am, rw = _setup()
    x, y, n = fn.args
    a = rw.insert(_arith("add", x, y), fn.entry)
    b = rw.insert(_arith("neg", a.result), fn.entry)
    with pytest.raises(IRError):
        rw.erase(a)
    rw.erase(b)
    rw.erase(a)
    assert x.num_uses == 0
    blk = rw.create_block(fn.body, [f32])
    inner = blk.append(_arith("neg", blk.args[0]))
    blk.append(_arith("neg", inner.result))
    escape = rw.insert(_arith("neg", inner.result), fn.entry)
    with pytest.raises(IRError, match="used by"):
        rw.erase_block(blk)
    rw.erase(escape)
    rw.erase_block(blk)
    assert blk.parent is None and len(fn.body) == 1 and not inner.is_attached


def test_moves_keep_use_identities():
    fn, m, am, rw = _setup()
    x, y, n = fn.args
    a = rw.insert(_arith("add", x, y), fn.entry)
    b = rw.insert(_arith("neg", x), fn.entry)
    c = rw.insert(_arith("neg", y), fn.entry)
    uses = a.operand_uses
    _warm(am)
    rw.move_after(a, c)
    assert list(fn.entry) == [b, c, a] and not am.cached_kinds()
    rw.move_before(a, b)
    assert list(fn.entry) == [a, b, c]
    assert a.operand_uses == uses and all(u.is_linked for u in uses) and x.num_uses == 2
    with pytest.raises(IRError):
        rw.move_before(a, a)
    blk = Block([index])
    par = rw.insert(Operation("parallel", [n], [], {"rank": 1}, [Region([blk])]), fn.entry)
    y_ = rw.insert(Operation("yield"), blk)
    rw.move_before(c, y_)  # into the nested region
    assert c.parent_op is par and c.is_attached and y.num_uses == 2
    with pytest.raises(IRError, match="own region"):
        rw.move_before(par, c)


def test_move_region_blocks_and_inline_region_before():
    fn, m, am, rw = _setup()
    x, y, n = fn.args
    b1, b2 = Block([index]), Block([index])
    p1 = rw.insert(Operation("parallel", [n], [], {"rank": 1}, [Region([b1])]), fn.entry)
    p2 = rw.insert(Operation("parallel", [n], [], {"rank": 1}, [Region([b2])]), fn.entry)
    inner = b1.append(_arith("neg", x))
    b1.append(Operation("yield"))
    rw.erase_block(b2)
    _warm(am)
    rw.move_region_blocks(p1.regions[0], p2.regions[0])
    assert len(p1.regions[0]) == 0 and p2.regions[0].entry is b1
    assert inner.parent_op is p2 and x.num_uses == 1 and not am.cached_kinds()
    extra = Block()
    with pytest.raises(IRError, match="not in the destination"):
        rw.inline_region_before(p2.regions[0], p1.regions[0], before=extra)
    with pytest.raises(IRError, match="nested inside"):
        holder = Block([index])
        p3 = Operation("parallel", [n], [], {"rank": 1}, [Region([holder])])
        b1.insert_op(p3, b1.operations.first)
        rw.inline_region_before(p2.regions[0], p3.regions[0])
    with pytest.raises(IRError, match="into itself"):
        rw.inline_region_before(p2.regions[0], p2.regions[0])


def test_inline_block_before_substitutes_arguments():
    fn, m, am, rw = _setup()
    x, y, n = fn.args
    anchor = rw.insert(_arith("neg", y), fn.entry)
    # Attached source: a parallel body using its coordinate.
    blk = Block([index])
    par = rw.insert(Operation("parallel", [n], [], {"rank": 1}, [Region([blk])]), fn.entry,
                    before=anchor)
    use = blk.append(_arith("add", blk.args[0], blk.args[0]))
    rw.inline_block_before(blk, anchor, [n])
    assert use.parent is fn.entry and use.operands == (n, n) and n.num_uses == 3
    assert len(blk) == 0 and par.is_attached
    # Detached source block: uses are found by walking it.
    loose = Block([f32])
    lop = loose.append(_arith("mul", loose.args[0], x))
    rw.inline_block_before(loose, anchor, [y])
    assert lop.operands == (y, x) and lop.is_attached and y.num_uses == 2
    with pytest.raises(IRError, match="takes 1 arguments"):
        rw.inline_block_before(Block([f32]), anchor, [])
    with pytest.raises(IRError, match="argument 0 is f32"):
        rw.inline_block_before(Block([f32]), anchor, [n])


def test_attribute_edits_keep_structural_analyses():
    fn, m, am, rw = _setup()
    x, _, _ = fn.args
    a = rw.insert(_arith("neg", x), fn.entry)
    _warm(am)
    dom = am.get(DominanceInfo)
    rw.set_attribute(a, "fn", "abs")
    assert am.cached(DominanceInfo) is dom and am.is_cached(Liveness)
    assert not am.is_cached(MemoryEffects)  # effects depend on what the op is
    rw.remove_attribute(a, "fn")
    assert am.cached(DominanceInfo) is dom


def test_set_reduction_policy():
    fn = Function("r", [TileType((4, 8), f32), f32])
    m = Module([fn])
    am = AnalysisManager(m)
    rw = IRRewriter(am)
    t, seed = fn.args
    body = Block([f32, f32])
    s = body.append(_arith("add", body.args[0], body.args[1]))
    body.append(Operation("yield", [s.result]))
    red = Operation("reduce", [t, seed], [TileType((4,), f32)],
                    {"n_inputs": 1, "axes": (1,), "policy": UNORDERED_TREE},
                    [Region([body])])
    rw.insert(red, fn.entry)
    am.get(MemoryEffects)
    rw.set_reduction_policy(red, STRICT_FOLD)
    assert red.attr("policy") is STRICT_FOLD and not am.is_cached(MemoryEffects)
    with pytest.raises(IRError, match="not a reduce"):
        rw.set_reduction_policy(s, STRICT_FOLD)
    with pytest.raises(IRError, match="not a ReductionPolicy"):
        rw.set_reduction_policy(red, "strict_fold")


def test_listeners_and_no_manager():
    fn = Function("f", [f32])
    rw = IRRewriter()
    seen = []
    rw.listeners.append(lambda kind, subject: seen.append(kind))
    op = rw.insert(_arith("neg", fn.args[0]), fn.entry)
    rw.set_attribute(op, "fn", "abs")
    assert seen == ["insert", "set_attribute"] and rw.changed


def test_map_region_shape_attribute_roundtrip():
    # create() passes regions through; the new op owns them.
    fn, m, am, rw = _setup()
    x, _, _ = fn.args
    body = Block([f32])
    body.append(Operation("yield", [body.args[0]]))
    op = rw.create("map", [x], [TileType((4,), f32)], {"shape": IndexSet((4,))},
                   regions=[Region([body])], ip=InsertionPoint.at_end(fn.entry))
    assert op.regions[0].owner is op and body.is_attached


def test_detach_then_insert_relinks_same_uses():
    fn, m, am, rw = _setup()
    x, y, _ = fn.args
    a = rw.insert(_arith("add", x, y), fn.entry)
    b = rw.insert(_arith("neg", y), fn.entry)
    uses = a.operand_uses
    _warm(am)
    assert rw.detach(a) is a
    assert not a.is_attached and x.num_uses == 0 and not am.cached_kinds()
    rw.insert(a, InsertionPoint.after_op(b))
    assert list(fn.entry) == [b, a] and a.operand_uses == uses
    assert set(x.uses) == {uses[0]} and uses[1] in set(y.uses)


def test_operand_list_and_block_argument_edits():
    fn, m, am, rw = _setup()
    x, y, n = fn.args
    blk = Block([index, f32])
    body = blk.append(_arith("neg", blk.args[1]))
    yld = blk.append(Operation("yield", [body.result]))
    ser = rw.insert(Operation("serial", [n, n, n, x], [f32], {}, [Region([blk])]), fn.entry)
    _warm(am)
    rw.set_operands(yld, [blk.args[1]])
    assert yld.operands == (blk.args[1],) and body.result.num_uses == 0
    assert not am.cached_kinds()
    extra = rw.add_argument(blk, f32, "extra")
    assert blk.args[-1] is extra and extra.index == 2
    rw.erase_argument(blk, 2)
    with pytest.raises(IRError):
        rw.erase_argument(blk, 1)
    assert ser.is_attached and rw.num_mutations == 4
