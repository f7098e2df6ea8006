"""Golden tests of the printed form, and checks that the shared samples are well-formed.

The expected text of each sample lives in ``tests/filecheck/ir/<name>.tir``.
After an intended change to the printed form, regenerate the files with
``TILEC_UPDATE_GOLDEN=1 python -m pytest tests/unit/ir/test_printer.py`` and
review the diff.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

import ir_samples
from tilec.ir import (
    OPS,
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
    Printer,
    Region,
    TileType,
    TupleType,
    d,
    f32,
    format_attr,
    i1,
    index,
    parse,
    print_function,
    print_module,
    print_op,
    s,
    token,
    verify,
)
from tilec.ir.ops import check_signature

GOLDEN = Path(__file__).resolve().parents[2] / "filecheck" / "ir"
UPDATE = os.environ.get("TILEC_UPDATE_GOLDEN") == "1"

GOLDEN_CASES = [(name, False) for name in ir_samples.ALL_SAMPLES if name != "all_ops"]
GOLDEN_CASES.append(("matmul", True))


def _golden_path(name: str, locations: bool) -> Path:
    return GOLDEN / (f"{name}.loc.tir" if locations else f"{name}.tir")


# -------------------------------------------------------------------------- goldens


@pytest.mark.parametrize(("name", "locations"), GOLDEN_CASES)
def test_sample_prints_as_golden(name: str, locations: bool) -> None:
    text = print_module(ir_samples.ALL_SAMPLES[name](), locations=locations)
    path = _golden_path(name, locations)
    if UPDATE:
        path.write_text(text)
    assert text == path.read_text(), f"printed {name} differs from {path}"


@pytest.mark.parametrize(("name", "locations"), GOLDEN_CASES)
def test_golden_file_reprints_identically(name: str, locations: bool) -> None:
    text = _golden_path(name, locations).read_text()
    assert print_module(parse(text), locations=locations) == text


def test_every_golden_file_is_checked() -> None:
    on_disk = {p.name for p in GOLDEN.glob("*.tir")}
    assert on_disk == {_golden_path(n, loc).name for n, loc in GOLDEN_CASES}


def test_small_function_exact_text() -> None:
    fn = Function("axpy", [f32, TileType((4,), f32)], [TileType((4,), f32)], ["a", "x"])
    b = Builder(InsertionPoint.at_end(fn.entry), loc=Location("axpy.py", 3, 4))
    blk = Block([f32, f32], ["xe", "ae"])
    r = Region([blk])
    with b.at(InsertionPoint.at_end(blk)):
        prod = b.value("arith", list(blk.args), f32, {"fn": "mul"})
        b.create("yield", [prod])
    y = b.create("map", [fn.args[1], fn.args[0]], [TileType((4,), f32)],
                 {"shape": IndexSet((4,))}, [r], result_names=["y"]).result
    b.create("return", [y])
    assert print_function(fn) == (
        "func @axpy(%a: f32, %x: tile<4xf32>) -> (tile<4xf32>) {\n"
        "  %y = map(%x, %a) {shape = #domain<[4]>} ({\n"
        "  ^bb1(%xe: f32, %ae: f32):\n"
        "    %0 = arith(%xe, %ae) {fn = \"mul\"} : f32\n"
        "    yield(%0)\n"
        "  }) : tile<4xf32>\n"
        "  return(%y)\n"
        "}\n")
    assert print_function(fn, locations=True).splitlines()[2] == (
        "  ^bb1(%xe: f32, %ae: f32):")
    assert print_function(fn, locations=True).splitlines()[-2] == (
        '  return(%y) loc("axpy.py":3:4)')


def test_name_collisions_get_suffixes_and_numbers_skip_taken_names() -> None:
    fn = Function("f", [index, index, index, index], [], ["x", "x", "1", None])
    b = Builder(InsertionPoint.at_end(fn.entry))
    b.create("return")
    head = print_function(fn).splitlines()[0]
    assert head == "func @f(%x: index, %x_1: index, %0: index, %1: index) -> () {"


def test_print_op_and_op_lines() -> None:
    m = ir_samples.sample_matmul()
    p = Printer()
    p.module(m)
    fn = m.lookup("matmul")
    assert fn is not None
    for op in fn.walk():
        line = p.lines[p.op_lines[op.id]]
        assert op.name + "(" in line
    ret = fn.entry.operations.last
    assert print_op(ret) == "return()"


@pytest.mark.parametrize(("value", "text"), [
    (None, "none"), (True, "true"), (False, "false"), (3, "3"), (-7, "-7"),
    (2.0, "2.0"), (-0.0, "-0.0"), (1e300, "1e+300"), (1.5e-7, "1.5e-07"),
    (float("inf"), "inf"), (float("-inf"), "-inf"), (float("nan"), "nan"),
    ("a\"b", '"a\\"b"'), ((), "[]"), ((1, ("x", None)), '[1, ["x", none]]'),
    (TileType((4, "M"), f32), "type(tile<4xMxf32>)"),
    (TileType((), i1), "type(tile<i1>)"),
    (MemoryType(("M", 8), f32, "shared"), "type(mem<Mx8xf32, shared>)"),
    (TupleType([index, token]), "type(tuple<index, token>)"),
    (IndexMap(2, [d(1), d(0) + s(0)], 1), "#map<(d0, d1)[s0] -> (d1, d0 + s0)>"),
    (IndexMap(2, [(d(0) + d(1)).floordiv(4) * 2, d(1).mod(3) - 1]),
     "#map<(d0, d1) -> ((d0 + d1 floordiv 4) * 2, (d1 mod 3) - 1)>"),
    (IndexSet((64, "M", "?")), "#domain<[64, M, ?]>"),
    (Dim("K"), "#dim<K>"), (Dim(16), "#dim<16>"),
    (UNORDERED_TREE, "#policy<unordered_tree>"), (STRICT_FOLD, "#policy<strict_fold, explicit>"),
    (ArithPolicy("tf32", "strict_fold"), "#arith<tf32, strict_fold>"),
    (ExecConstraint(), "#exec<grid>"), (ExecConstraint(64, "group"), "#exec<group, threads = 64>"),
])
def test_format_attr(value: object, text: str) -> None:
    assert format_attr(value) == text
    back = parse(f"func @f() -> () {{v = {text}}} {{\n  return()\n}}\n")
    got = back.lookup("f").attributes["v"]  # type: ignore[union-attr]
    if isinstance(value, float) and math.isnan(value):
        assert isinstance(got, float) and math.isnan(got)
    else:
        assert type(got) is type(value) and got == value
        assert format_attr(got) == text


# ---------------------------------------------------------------- the samples


def _check_well_formed(m: Module) -> None:
    """What a verifier will demand of the samples: signatures, hooks, terminators, scoping."""
    for fn in m.functions:
        _check_region(fn.body, [set(map(id, fn.entry.args))], m, is_function=True)


def _check_region(r: Region, visible: list[set[int]], m: Module, is_function: bool) -> None:
    entry_defs: set[int] = set()
    for k, block in enumerate(r.blocks):
        # Values of the entry block dominate the other blocks of a function body.
        scope = set(map(id, block.args)) | (entry_defs if k > 0 else set())
        if is_function and k == 0:
            scope |= visible[-1]
        stack = visible + [scope]
        ops = list(block.operations)
        assert ops, "empty block"
        last = ops[-1]
        assert last.opdef.terminator, f"block ends with {last.name}, not a terminator"
        if is_function:
            assert last.name in ("return", "br")
        else:
            assert last.name == "yield"
        for op in ops:
            _check_op(op, stack, m)
            scope.update(id(v) for v in op.results)
        if k == 0:
            entry_defs = set(scope)


def _check_op(op: Operation, visible: list[set[int]], m: Module) -> None:
    check_signature(op)
    if op.opdef.verify is not None:
        op.opdef.verify(op)
    for use in op.operand_uses:
        assert use.is_linked and use.linked_list_owner is use.value
        assert any(id(use.value) in scope for scope in visible), (
            f"{op.name} uses a value that is not visible")
    if op.opdef.terminator:
        assert op.next_op is None
    if op.name == "call":
        callee = m.lookup(op.attr("callee"))
        assert callee is not None
        assert [v.type for v in op.operands] == [a.type for a in callee.args]
        assert [r.type for r in op.results] == list(callee.result_types)
    for region in op.regions:
        _check_region(region, visible, m, is_function=False)


@pytest.mark.parametrize("name", list(ir_samples.ALL_SAMPLES))
def test_samples_are_well_formed(name: str) -> None:
    _check_well_formed(ir_samples.ALL_SAMPLES[name]())


@pytest.mark.parametrize("name", list(ir_samples.ALL_SAMPLES))
def test_samples_pass_the_verifier(name: str) -> None:
    try:
        verify(ir_samples.ALL_SAMPLES[name](), ir_samples.SAMPLE_FORMS[name])
    except NotImplementedError:
        pytest.skip("the verifier is not implemented yet")


def test_sample_all_ops_uses_every_opcode() -> None:
    used = {op.name for op in ir_samples.sample_all_ops().walk()}
    assert used == set(OPS)


def test_samples_are_fresh_each_call() -> None:
    a, b = ir_samples.sample_softmax(), ir_samples.sample_softmax()
    assert a is not b
    assert {op.id for op in a.walk()}.isdisjoint({op.id for op in b.walk()})
