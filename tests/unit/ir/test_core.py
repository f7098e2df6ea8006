"""The core mutation contract (seed 001): use lists, intrusive lists, attach/detach."""

from __future__ import annotations

import pytest

from tilec.ir import (
    Block,
    Function,
    IList,
    IRError,
    Module,
    Operation,
    Region,
    f32,
    i32,
    index,
)


def _arith(fn: str, *vals):
    return Operation("arith", list(vals), [vals[0].type], {"fn": fn})


def _uses(v) -> set:
    return set(v.uses)


def _fn():
    fn = Function("f", [f32, f32, index])
    Module([fn])
    return fn


def _parallel(n, body_ops=()):
    blk = Block([index])
    par = Operation("parallel", [n], [], {"rank": 1}, [Region([blk])])
    return par, blk


def test_uses_link_only_when_attached():
    fn = _fn()
    x, y, _ = fn.args
    op = _arith("add", x, y)
    assert not op.is_attached and x.num_uses == 0
    assert all(not u.is_linked for u in op.operand_uses)
    fn.entry.append(op)
    assert op.is_attached and x.num_uses == 1 and y.num_uses == 1
    assert _uses(x) == {op.operand_uses[0]}
    assert x.users() == [op]


def test_remove_self_unlinks_nested_uses_and_reinsert_relinks_same_objects():
    fn = _fn()
    x, y, n = fn.args
    par, blk = _parallel(n)
    inner = blk.append(_arith("mul", x, y))
    blk.append(Operation("yield"))
    fn.entry.append(par)
    uses_before = inner.operand_uses + par.operand_uses
    assert x.num_uses == 1 and n.num_uses == 1 and inner.is_attached
    assert par.remove_self() is par
    assert x.num_uses == 0 and n.num_uses == 0 and y.num_uses == 0
    assert not inner.is_attached and par.parent is None
    assert all(not u.is_linked and u.neighbours_consistent for u in uses_before)
    fn.entry.append(par)
    assert inner.is_attached
    # The very same Use objects come back: identity, not equality.
    assert inner.operand_uses + par.operand_uses == uses_before
    assert next(iter(x.uses)) is inner.operand_uses[0]
    assert next(iter(n.uses)) is par.operand_uses[0]
    assert all(u.linked_list_owner is u.value for u in uses_before)


def test_set_operand_moves_exactly_one_use():
    fn = _fn()
    x, y, _ = fn.args
    a = fn.entry.append(_arith("add", x, x))
    b = fn.entry.append(_arith("add", x, y))
    u0 = a.operand_uses[0]
    a.set_operand(0, y)
    assert a.operand_uses[0] is u0 and u0.value is y and u0.linked_list_owner is y
    assert x.num_uses == 2 and y.num_uses == 2
    assert _uses(x) == {a.operand_uses[1], b.operand_uses[0]}
    assert all(u.neighbours_consistent for v in (x, y) for u in v.uses)


def test_set_operand_on_detached_op_stays_unlinked():
    fn = _fn()
    x, y, _ = fn.args
    a = _arith("add", x, x)
    a.set_operand(1, y)
    assert y.num_uses == 0 and not a.operand_uses[1].is_linked
    fn.entry.append(a)
    assert y.num_uses == 1 and x.num_uses == 1


def test_replace_all_uses_walks_only_the_old_use_list(monkeypatch):
    fn = _fn()
    x, y, _ = fn.args
    users = [fn.entry.append(_arith("neg", x)) for _ in range(3)]
    bystander = fn.entry.append(_arith("neg", y))
    # Any module walk during RAUW would be a contract violation: make it fail loudly.
    for cls in (Block, Region, Function):
        monkeypatch.setattr(cls, "walk", lambda *a, **k: pytest.fail("RAUW walked the IR"))
    x.replace_all_uses_with(y)
    monkeypatch.undo()
    assert x.num_uses == 0 and not x.has_uses
    assert y.num_uses == 4
    assert _uses(y) == {u.operand_uses[0] for u in users} | {bystander.operand_uses[0]}
    assert all(u.linked_list_owner is y and u.neighbours_consistent for u in y.uses)


def test_replace_all_uses_type_mismatch_and_self():
    fn = _fn()
    x, _, n = fn.args
    fn.entry.append(_arith("neg", x))
    x.replace_all_uses_with(x)
    assert x.num_uses == 1
    with pytest.raises(IRError, match="type mismatch"):
        x.replace_all_uses_with(n)


def test_erase_refused_while_used_then_unlinks_operands():
    fn = _fn()
    x, y, _ = fn.args
    a = fn.entry.append(_arith("add", x, y))
    b = fn.entry.append(_arith("neg", a.result))
    with pytest.raises(IRError, match="still used"):
        a.erase()
    assert a.parent is fn.entry and x.num_uses == 1
    b.erase()
    assert a.result.num_uses == 0
    a.erase()
    assert x.num_uses == 0 and y.num_uses == 0 and len(fn.entry) == 0


def test_erase_of_region_op_unlinks_nested_uses_of_outer_values():
    fn = _fn()
    x, y, n = fn.args
    par, blk = _parallel(n)
    inner = blk.append(_arith("mul", x, y))
    blk.append(Operation("yield"))
    fn.entry.append(par)
    assert x.num_uses == 1
    par.erase()
    assert x.num_uses == 0 and y.num_uses == 0 and n.num_uses == 0
    assert not inner.is_attached


def test_erase_detached_op():
    fn = _fn()
    x, _, _ = fn.args
    a = _arith("neg", x)
    a.erase()
    assert x.num_uses == 0


def test_double_insert_refused():
    fn = _fn()
    x, _, _ = fn.args
    a = fn.entry.append(_arith("neg", x))
    with pytest.raises(IRError, match="already inserted"):
        fn.entry.append(a)
    with pytest.raises(IRError, match="not in a block"):
        _arith("neg", x).remove_self()


def test_block_move_between_regions_keeps_uses():
    fn = _fn()
    x, _, n = fn.args
    p1, b1 = _parallel(n)
    p2, b2 = _parallel(n)
    inner = b1.append(_arith("neg", x))
    b1.append(Operation("yield"))
    fn.entry.append(p1)
    fn.entry.append(p2)
    p2.regions[0].blocks.first.remove_self()  # empty p2's region
    assert x.num_uses == 1
    uses = inner.operand_uses
    b1.remove_self()
    assert x.num_uses == 0 and b1.parent is None and not b1.is_attached
    p2.regions[0].add_block(b1)
    assert b1.parent is p2.regions[0] and inner.parent_op is p2
    assert x.num_uses == 1 and inner.operand_uses == uses and uses[0].is_linked


def test_region_take_body_moves_all_blocks_in_order():
    fn = _fn()
    x, _, _ = fn.args
    src = Region([Block(), Block()])
    ops = [blk.append(_arith("neg", x)) for blk in src.blocks]
    holder = Operation("if", [], [], {}, [src, Region()])
    assert x.num_uses == 0
    dst = fn.body
    before = list(dst.blocks)
    dst.take_body(src)
    assert len(src) == 0
    assert list(dst.blocks)[: len(before)] == before
    assert [b.operations.first for b in list(dst.blocks)[len(before):]] == ops
    assert x.num_uses == 2 and holder.regions[0] is src


def test_block_arguments_insert_erase_renumber():
    blk = Block([f32, i32])
    a = blk.insert_argument(1, index)
    assert [x.index for x in blk.args] == [0, 1, 2] and blk.args[1] is a
    blk.erase_argument(0)
    assert [x.index for x in blk.args] == [0, 1] and blk.args[0] is a


def test_erase_used_block_argument_refused():
    fn = _fn()
    x = fn.args[0]
    fn.entry.append(_arith("neg", x))
    with pytest.raises(IRError, match="still has 1 uses"):
        fn.entry.erase_argument(0)


def test_region_cannot_have_two_owners():
    r = Region([Block()])
    Operation("if", [], [], {}, [r, Region()])
    with pytest.raises(IRError, match="already has an owner"):
        Operation("if", [], [], {}, [r, Region()])


class _Node:
    def __init__(self, k: int) -> None:
        self.k = k
        self._prev = self._next = self._parent = None


def test_ilist_ops():
    lst = IList("owner")
    nodes = [_Node(k) for k in range(4)]
    for nd in nodes[:3]:
        lst.append(nd)
    lst.insert_before(nodes[3], nodes[1])
    assert [n.k for n in lst] == [0, 3, 1, 2] and len(lst) == 4 and lst
    assert [n.k for n in reversed(lst)] == [2, 1, 3, 0]
    assert lst.first is nodes[0] and lst.last is nodes[2]
    assert lst.index_of(nodes[1]) == 2
    lst.remove(nodes[0])
    lst.remove(nodes[2])
    assert [n.k for n in lst] == [3, 1] and lst.first is nodes[3] and lst.last is nodes[1]
    assert nodes[0]._parent is None and nodes[0]._prev is None and nodes[0]._next is None
    with pytest.raises(IRError):
        lst.remove(nodes[0])
    with pytest.raises(IRError):
        lst.insert_before(nodes[3], None)
    with pytest.raises(IRError):
        lst.insert_before(nodes[0], nodes[2])
    with pytest.raises(IRError):
        lst.index_of(nodes[2])
    # Iteration survives removal of the current node.
    for n in lst:
        lst.remove(n)
    assert len(lst) == 0 and not lst and lst.first is None and lst.last is None


def test_use_identity_survives_many_moves():
    fn = _fn()
    x, y, _ = fn.args
    a = fn.entry.append(_arith("add", x, y))
    b = fn.entry.append(_arith("neg", x))
    uses = a.operand_uses
    for _ in range(5):
        a.remove_self()
        fn.entry.insert_op(a, None)
        a.remove_self()
        fn.entry.insert_op(a, b)
    assert a.operand_uses == uses and x.num_uses == 2 and fn.entry.operations.first is a
    assert all(u.neighbours_consistent for u in x.uses)


def test_function_body_is_attached_without_module():
    fn = Function("loose", [f32])
    op = fn.entry.append(_arith("neg", fn.args[0]))
    assert op.is_attached and op.function is fn


def test_named_operands_of_the_ops_lowering_reads() -> None:
    """``operand_named``: the op definition names its leading operands; a name it does not
    have is a KeyError that lists the names it has."""
    import numpy as np

    import tilec as tc
    from tilec.lib.matmul import matmul

    a = np.ones((32, 16), np.float32)
    c = np.zeros((32, 32), np.float32)
    fn = tc.compile(matmul, a, a.T.copy(), c, target="reference").module.lookup("matmul")
    ops = {op.name: op for op in fn.walk()}
    mma = ops["mma"]
    assert [mma.operand_named(n) for n in ("a", "b", "acc")] == list(mma.operands)
    assert ops["load"].operand_named("memory") is ops["load"].operand(0)
    assert ops["store"].operand_named("value") is ops["store"].operand(1)
    assert ops["view"].operand_named("base") is ops["view"].operand(0)
    with pytest.raises(KeyError, match="'mma' has no operand named 'c' .it names a, b, acc."):
        mma.operand_named("c")
    with pytest.raises(KeyError) as e:
        ops["arith"].operand_named("x")
    assert e.value.args[0] == "'arith' has no operand named 'x'"
