"""The arg-reduction merge law (``ir/reductions.py``) and the ``iota`` op: the canonical pair
merge is recognized (and only it), its identity is exact, it is associative and commutative
on (value, position) pairs whatever their grouping, and ``iota`` verifies its map."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import tilec.ir as ir
from tilec.targets import numerics as nx

_NP = {ir.f32: np.float32, ir.i32: np.int32, ir.i1: np.bool_}


def _run(region: ir.Region, args: list) -> list:
    """Evaluate a region of ``arith`` operations on arrays (the reference's numerics)."""
    env = dict(zip(region.entry.args, args))
    for op in region.entry.operations:
        vals = [env[v] for v in op.operands]
        if op.name == "yield":
            return vals
        operand_t = op.operand(1 if op.attr("fn") == "select" else 0).type
        env[op.result] = nx.evaluate(op.attr("fn"), vals, np.dtype(_NP[operand_t]),
                                     np.dtype(_NP[op.result.type]))
    raise AssertionError("no yield")


def _kernel(update: ir.Region, combiner: tuple[str, ...]) -> tuple[ir.Module, ir.Operation]:
    """One nest reducing a 4x8 f32 tile and an ``iota`` of its columns with ``update``."""
    fn = ir.Function("k", [ir.MemoryType((4, 8), ir.f32)], [])
    m = ir.Module([fn])
    b = ir.Builder(ir.InsertionPoint.at_end(fn.entry))
    one = b.value("constant", [], ir.index, {"value": 1})
    body = ir.Block([ir.index])
    ib = ir.Builder(ir.InsertionPoint.at_end(body))
    x = ib.value("load", [fn.args[0]], ir.TileType((4, 8), ir.f32))
    pos = ib.value("iota", [], ir.TileType((4, 8), ir.i32), {"map": ir.IndexMap(2, [ir.d(1)])})
    seeds = [ib.value("constant", [], ir.f32, {"value": -math.inf}),
             ib.value("constant", [], ir.i32, {"value": 2 ** 31 - 1})]
    red = ib.create("reduce", [x, pos, *seeds],
                    [ir.TileType((4,), ir.f32), ir.TileType((4,), ir.i32)],
                    {"n_inputs": 2, "axes": (1,), "policy": ir.UNORDERED_TREE,
                     "combiner": combiner}, [update])
    ib.create("yield", [])
    b.create("parallel", [one], [], {"rank": 1}, [ir.Region([body])])
    b.create("return", [])
    return m, red


@pytest.mark.parametrize("law", ["argmax", "argmin"])
@pytest.mark.parametrize("dt", [ir.f32, ir.f16, ir.i8, ir.i64])
def test_the_canonical_merge_is_recognized(law: str, dt: ir.ScalarType) -> None:
    laws = (ir.ARG_LAWS[law], law)
    region = ir.merge_region(laws, [dt, ir.i32])
    assert ir.recognize_merges(region.entry, 2) == laws


def test_a_hand_written_arg_update_is_not_a_merge() -> None:
    """First-wins without the position tie-break: folds right in order, not in a tree."""
    blk = ir.Block([ir.f32, ir.i32, ir.f32, ir.i32])
    b = ir.Builder(ir.InsertionPoint.at_end(blk))
    best, at, v, i = blk.args
    better = b.value("arith", [v, best], ir.i1, {"fn": "gt"})
    b.create("yield", [b.value("arith", [best, v], ir.f32, {"fn": "max"}),
                       b.value("arith", [better, i, at], ir.i32, {"fn": "select"})])
    assert ir.recognize_merges(blk, 2) == ("max", None)
    m, red = _kernel(ir.Region([blk]), ("max", "argmax"))
    with pytest.raises(ir.VerificationError, match="state 1: the update is not a recognized"):
        ir.verify(m)


def test_the_canonical_kernel_verifies() -> None:
    m, _ = _kernel(ir.merge_region(("max", "argmax"), [ir.f32, ir.i32]), ("max", "argmax"))
    ir.verify(m)
    assert ir.structurally_equal(ir.parse(str(m)), m)


def test_an_arg_law_must_follow_its_value_law() -> None:
    with pytest.raises(ValueError, match="must follow a 'min' state"):
        ir.merge_region(("max", "argmin"), [ir.f32, ir.i32])


@pytest.mark.parametrize("law", ["argmax", "argmin"])
def test_the_merge_is_a_total_order_with_an_exact_identity(law: str) -> None:
    """Every grouping and order of some (value, position) pairs gives numpy's first best
    position; merging the identity changes nothing."""
    laws = (ir.ARG_LAWS[law], law)
    merge = ir.merge_region(laws, [ir.f32, ir.i32])
    vals = np.array([1.0, np.nan, -0.0, 0.0, 3.0, 3.0, np.nan, -np.inf], np.float32)
    ident = [np.float32(ir.merge_identity(laws[0], ir.f32)),
             np.int32(ir.merge_identity(law, ir.i32))]
    for sub in itertools.combinations(range(len(vals)), 4):
        for order in itertools.permutations(sub):
            parts = [[vals[k], np.int32(k)] for k in order]
            got = nx.pairwise_tree_states(
                [np.array([p[0] for p in parts]), np.array([p[1] for p in parts])],
                lambda a, b: _run(merge, a + b))
            assert got is not None
            best = sub[int(getattr(vals[list(sub)], law)())]
            assert int(got[1]) == best, (order, got)
            again = _run(merge, ident + [got[0], got[1]])
            assert int(again[1]) == best


def test_iota_checks_its_map() -> None:
    fn = ir.Function("k", [], [])
    m = ir.Module([fn])
    b = ir.Builder(ir.InsertionPoint.at_end(fn.entry))
    b.value("iota", [], ir.TileType((4, 8), ir.i1), {"map": ir.IndexMap(2, [ir.d(1)])})
    b.create("return", [])
    with pytest.raises(ir.VerificationError, match="integer or float type"):
        ir.verify(m)
    fn.entry.operations.first.erase()
    b2 = ir.Builder(ir.InsertionPoint.before_op(fn.entry.operations.first))
    b2.value("iota", [], ir.TileType((4, 8), ir.i32), {"map": ir.IndexMap(2, [ir.d(0), ir.d(1)])})
    with pytest.raises(ir.VerificationError, match="to one value"):
        ir.verify(m)
