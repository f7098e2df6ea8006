"""Structural equality: what it ignores, what it notices, and how it explains a difference."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import ir_samples
from tilec.ir import (
    ArithPolicy,
    Block,
    Builder,
    Function,
    InsertionPoint,
    Location,
    Module,
    Operation,
    Region,
    TileType,
    f32,
    i32,
    index,
    parse,
    print_module,
    structurally_equal,
)
from tilec.ir.equality import explain_difference


def _first(m: Module, name: str) -> Operation:
    return next(op for op in m.walk() if op.name == name)


@pytest.mark.parametrize("name", list(ir_samples.ALL_SAMPLES))
def test_two_builds_of_a_sample_are_equal(name: str) -> None:
    make = ir_samples.ALL_SAMPLES[name]
    a, b = make(), make()
    assert structurally_equal(a, b)
    assert explain_difference(a, b) is None
    for fa, fb in zip(a.functions, b.functions):
        assert structurally_equal(fa, fb)
        assert structurally_equal(fa.body, fb.body)
        assert structurally_equal(fa.entry, fb.entry)


def test_samples_differ_from_each_other() -> None:
    names = [n for n in ir_samples.ALL_SAMPLES if n != "all_ops"]
    built = {n: ir_samples.ALL_SAMPLES[n]() for n in names}
    for x in names:
        for y in names:
            assert structurally_equal(built[x], built[y]) == (x == y)


def test_locations_and_name_hints_are_ignored() -> None:
    a = ir_samples.sample_matmul()
    b = ir_samples.sample_matmul()
    for op in b.walk():
        op.loc = Location("elsewhere.py", 99, 1)
        for r in op.results:
            r.name_hint = None
    for arg in b.lookup("matmul").args:  # type: ignore[union-attr]
        arg.name_hint = "renamed"
    assert structurally_equal(a, b)
    assert print_module(a) != print_module(b)


# Each mutation changes one thing in a fresh matmul sample; the explanation names it.
def _set_attr(op_name: str, key: str, value: object) -> Callable[[Module], None]:
    def mutate(m: Module) -> None:
        _first(m, op_name).attributes[key] = value
    return mutate


def _swap_mma_operands(m: Module) -> None:
    mma = _first(m, "mma")
    a, b, c = mma.operands
    mma.set_operands([b, a, c])


def _drop_attr(m: Module) -> None:
    del _first(m, "view").attributes["bounds"]


def _erase_store(m: Module) -> None:
    _first(m, "store").erase()


def _rename_function(m: Module) -> None:
    fn = m.lookup("matmul")
    assert fn is not None
    m.remove_function(fn)
    fn.name = "matmul2"
    m.add_function(fn)


def _change_result_types(m: Module) -> None:
    m.lookup("matmul").result_types = (f32,)  # type: ignore[union-attr]


def _add_function(m: Module) -> None:
    fn = Function("extra")
    Builder(InsertionPoint.at_end(fn.entry)).create("return")
    m.add_function(fn)


def _read_other_value(m: Module) -> None:
    # The view of B reads %ok as its first origin; make it read %om instead (same type).
    view_b = [op for op in m.walk() if op.name == "view"][1]
    view_a = [op for op in m.walk() if op.name == "view"][0]
    view_b.set_operand(1, view_a.operand(1))


MUTATIONS: list[tuple[str, Callable[[Module], None], str]] = [
    ("attr value", _set_attr("mma", "policy", ArithPolicy("tf32", "unordered_tree")),
     "attribute 'policy' is #arith<exact, unordered_tree> vs #arith<tf32, unordered_tree>"),
    ("attr kind", _set_attr("constant", "value", 0.0), "attribute 'value' is 0 vs 0.0"),
    ("attr bool vs int", _set_attr("constant", "value", False),
     "attribute 'value' is 0 vs false"),
    ("attr missing", _drop_attr, "attribute 'bounds' only on the left"),
    ("operand order", _swap_mma_operands, "(mma): operand 0"),
    ("other value", _read_other_value, "(view): operand 1 names values that do not correspond"),
    ("op count", _erase_store, "op 5: operation 'store' vs 'yield'"),
    ("function name", _rename_function, "function name @matmul vs @matmul2"),
    ("result types", _change_result_types, "result types () vs (f32)"),
    ("function count", _add_function, "module: 1 functions vs 2"),
]


@pytest.mark.parametrize(("mutate", "fragment"), [(m, f) for _, m, f in MUTATIONS],
                         ids=[n for n, _, _ in MUTATIONS])
def test_a_single_change_is_noticed_and_explained(mutate: Callable[[Module], None],
                                                  fragment: str) -> None:
    a, b = ir_samples.sample_matmul(), ir_samples.sample_matmul()
    mutate(b)
    why = explain_difference(a, b)
    assert why is not None and fragment in why, why
    assert not structurally_equal(a, b)
    assert not structurally_equal(b, a)


def test_explanation_gives_the_path() -> None:
    a, b = ir_samples.sample_matmul(), ir_samples.sample_matmul()
    _set_attr("mma", "policy", ArithPolicy("tf32", "unordered_tree"))(b)
    why = explain_difference(a, b)
    assert why is not None
    assert why.startswith("@matmul / block 0 / op 7 (parallel) / region 0 / block 0 / op 3 "
                          "(serial) / region 0 / block 0 / op 5 (mma): attribute 'policy'")


def _attr_fn(value: object) -> Function:
    fn = Function("f", attributes={"v": value})
    Builder(InsertionPoint.at_end(fn.entry)).create("return")
    return fn


@pytest.mark.parametrize(("x", "y", "equal"), [
    (float("nan"), float("nan"), True),
    (0.0, -0.0, False),
    (1, 1.0, False),
    (1, True, False),
    ((1, (2.0,)), (1, (2.0,)), True),
    ((1, (2.0,)), (1, (2,)), False),
    ((1, 2), (1, 2, 3), False),
    (TileType((4,), f32), TileType((4,), f32), True),
    (TileType((4,), f32), TileType((4,), i32), False),
    ("a", "a", True),
    (None, None, True),
])
def test_attribute_comparison(x: object, y: object, equal: bool) -> None:
    assert structurally_equal(_attr_fn(x), _attr_fn(y)) == equal


def test_block_argument_types_and_counts() -> None:
    assert structurally_equal(Block([f32, index]), Block([f32, index]))
    assert "argument 1 has type index vs f32" in (
        explain_difference(Block([f32, index]), Block([f32, f32])) or "")
    assert "1 arguments vs 2" in (explain_difference(Block([f32]), Block([f32, f32])) or "")


def test_region_block_counts() -> None:
    assert structurally_equal(Region([Block(), Block()]), Region([Block(), Block()]))
    assert "1 blocks vs 2" in (explain_difference(Region([Block()]),
                                                  Region([Block(), Block()])) or "")


def test_free_values_pair_up_consistently() -> None:
    outer = Block([f32, f32, f32])
    x, y, z = outer.args

    def add(p, q) -> Operation:
        return Operation("arith", [p, q], [f32], {"fn": "add"})

    # The same free value in both slots vs two different ones.
    assert structurally_equal(add(x, x), add(y, y))
    assert structurally_equal(add(x, y), add(y, z))
    assert not structurally_equal(add(x, x), add(y, z))
    assert not structurally_equal(add(y, z), add(x, x))
    assert "operand 1 names values that do not correspond" in (
        explain_difference(add(x, x), add(y, z)) or "")


def test_successors_follow_the_block_correspondence() -> None:
    text = """func @f(%x: f32) -> (f32) {
  br(%x) [^bb2]
^bb1(%a: f32):
  return(%a)
^bb2(%b: f32):
  br(%b) [^bb1]
}
"""
    swapped = """func @f(%x: f32) -> (f32) {
  br(%x) [^bb1]
^bb1(%a: f32):
  return(%a)
^bb2(%b: f32):
  br(%b) [^bb1]
}
"""
    assert structurally_equal(parse(text), parse(text))
    why = explain_difference(parse(text), parse(swapped))
    assert why is not None and "successor 0: blocks do not correspond" in why


def test_regions_are_compared_recursively() -> None:
    a, b = ir_samples.sample_softmax(), ir_samples.sample_softmax()
    inner = [op for op in b.walk() if op.name == "arith" and op.attr("fn") == "exp"][0]
    inner.attributes["fn"] = "exp2"
    why = explain_difference(a, b)
    assert why is not None and "region 0 / block 0 / op 1 (arith): attribute 'fn'" in why


def test_mismatched_kinds() -> None:
    m = ir_samples.sample_matmul()
    fn = m.lookup("matmul")
    assert fn is not None
    assert not structurally_equal(m, fn)  # type: ignore[arg-type]
    assert explain_difference(m, fn) == "comparing a Module with a Function"  # type: ignore[arg-type]


def test_equality_survives_a_round_trip_but_not_a_change() -> None:
    m = ir_samples.sample_pipeline()
    back = parse(print_module(m))
    assert structurally_equal(m, back)
    _first(back, "pipeline").attributes["window"] = 3
    assert "attribute 'window' is 2 vs 3" in (explain_difference(m, back) or "")
