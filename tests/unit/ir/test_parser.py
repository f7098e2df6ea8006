"""The reader of the textual form: round trips, every value kind, scoping, and diagnostics."""

from __future__ import annotations

import math
import random

import pytest

import ir_samples
from tilec.ir import (
    Builder,
    Dim,
    Function,
    InsertionPoint,
    Location,
    MemoryType,
    Module,
    ParseError,
    Region,
    TileType,
    TupleType,
    bf16,
    f32,
    i1,
    index,
    parse,
    print_function,
    print_module,
    structurally_equal,
    token,
    verify,
)
from tilec.ir.equality import explain_difference

SAMPLES = list(ir_samples.ALL_SAMPLES)


# ---------------------------------------------------------------------- round trips


@pytest.mark.parametrize("locations", [False, True], ids=["plain", "locations"])
@pytest.mark.parametrize("name", SAMPLES)
def test_print_parse_is_structurally_equal(name: str, locations: bool) -> None:
    m = ir_samples.ALL_SAMPLES[name]()
    back = parse(print_module(m, locations=locations))
    assert explain_difference(m, back) is None
    assert structurally_equal(back, m)


@pytest.mark.parametrize("locations", [False, True], ids=["plain", "locations"])
@pytest.mark.parametrize("name", SAMPLES)
def test_print_parse_print_is_identical(name: str, locations: bool) -> None:
    text = print_module(ir_samples.ALL_SAMPLES[name](), locations=locations)
    assert print_module(parse(text), locations=locations) == text


@pytest.mark.parametrize("name", SAMPLES)
def test_parsed_samples_pass_the_verifier(name: str) -> None:
    m = parse(print_module(ir_samples.ALL_SAMPLES[name](), locations=True))
    try:
        verify(m, ir_samples.SAMPLE_FORMS[name])
    except NotImplementedError:
        pytest.skip("the verifier is not implemented yet")


@pytest.mark.parametrize("name", SAMPLES)
def test_parsed_use_lists_are_linked(name: str) -> None:
    m = parse(print_module(ir_samples.ALL_SAMPLES[name]()))
    counted: dict[int, int] = {}
    for op in m.walk():
        assert op.is_attached
        for use in op.operand_uses:
            assert use.is_linked and use.linked_list_owner is use.value
            assert use in list(use.value.uses)
            counted[id(use.value)] = counted.get(id(use.value), 0) + 1
        for r in op.results:
            assert r.num_uses == counted.get(id(r), r.num_uses)
    for op in m.walk():
        for v in op.operands:
            assert v.num_uses == counted[id(v)]


def test_locations_and_name_hints_are_read_back() -> None:
    m = ir_samples.sample_matmul()
    back = parse(print_module(m, locations=True))
    pairs = list(zip(m.walk(), back.walk()))
    assert pairs
    for a, b in pairs:
        assert (b.loc.filename, b.loc.line, b.loc.col) == (a.loc.filename, a.loc.line, a.loc.col)
        assert [r.name_hint for r in b.results] == [r.name_hint for r in a.results]
    fn = back.lookup("matmul")
    assert fn is not None and fn.loc == Location("matmul.py", 1, 0)
    assert [a.name_hint for a in fn.args] == ["A", "B", "C", "M", "N", "K"]
    assert fn.attributes == {"kernel": True, "shape_symbols": ("M", "N", "K")}


def test_without_locations_everything_is_unknown() -> None:
    back = parse(print_module(ir_samples.sample_softmax()))
    assert all(not op.loc.known for op in back.walk())


# ---------------------------------------------------------------------------- types


def _arg_type(type_text: str):
    m = parse(f"func @f(%a: {type_text}) -> () {{\n  return()\n}}\n")
    fn = m.lookup("f")
    assert fn is not None
    return fn.args[0].type


@pytest.mark.parametrize(("text", "expected"), [
    ("f32", f32), ("index", index), ("i1", i1), ("token", token), ("bf16", bf16),
    ("tile<4x8xf32>", TileType((4, 8), f32)),
    ("tile<f32>", TileType((), f32)),
    ("tile<4xindex>", TileType((4,), index)),
    ("tile<Mx?xbf16>", TileType(("M", "?"), bf16)),
    ("mem<MxKxf32, global>", MemoryType(("M", "K"), f32)),
    ("mem<16xi1, fragment>", MemoryType((16,), i1, "fragment")),
    ("tuple<>", TupleType([])),
    ("tuple<f32, tuple<token, tile<2xf32>>>",
     TupleType([f32, TupleType([token, TileType((2,), f32)])])),
])
def test_types(text: str, expected: object) -> None:
    t = _arg_type(text)
    assert t is expected
    assert str(t) == text


def test_declared_symbols_containing_x_stay_whole() -> None:
    # 'n_ctxx64' could be one name or 'n_ctx' x 64 or 'n_ct' x '' ...: declared names decide.
    t = TileType(("n_ctx", 64), f32)
    mt = MemoryType(("max_len", "xx", 8), f32)
    fn = Function("f", [t, mt, index, index, index], [], ["t", "m", "n_ctx", "max_len", "xx"],
                  {"shape_symbols": ("n_ctx", "max_len", "xx")})
    Builder(InsertionPoint.at_end(fn.entry)).create("return")
    back = parse(print_function(fn)).lookup("f")
    assert back is not None and [a.type for a in back.args[:2]] == [t, mt]
    # Undeclared, the reader takes as many extents as the text allows.
    assert _arg_type("tile<Mx8xindex>") is TileType(("M", 8), index)


def test_spaces_inside_type_brackets_are_allowed() -> None:
    assert _arg_type("tile< 4x8xf32 >") is TileType((4, 8), f32)


# ----------------------------------------------------------------------- attributes


def _attr(text: str):
    m = parse(f"func @f() -> () {{v = {text}}} {{\n  return()\n}}\n")
    fn = m.lookup("f")
    assert fn is not None
    return fn.attributes["v"]


@pytest.mark.parametrize(("text", "expected"), [
    ("0", 0), ("-12", -12), ("123456789012345678901234567890", 123456789012345678901234567890),
    ("2.5", 2.5), ("-0.0", -0.0), ("1e-05", 1e-05), ("1.5E+3", 1500.0), ("inf", math.inf),
    ("-inf", -math.inf), ("true", True), ("false", False), ("none", None),
    ('"t\\u00e9xt\\n"', "t\u00e9xt\n"), ("[]", ()), ("[1, [2.0, [none]]]", (1, (2.0, (None,)))),
    ("type(tile<4xf32>)", TileType((4,), f32)), ("#dim<?>", Dim("?")),
])
def test_attribute_values(text: str, expected: object) -> None:
    got = _attr(text)
    assert type(got) is type(expected) and got == expected
    if isinstance(expected, float):
        assert math.copysign(1.0, got) == math.copysign(1.0, expected)


def test_nan_attribute() -> None:
    got = _attr("nan")
    assert isinstance(got, float) and math.isnan(got)


def test_map_expressions_follow_the_printer() -> None:
    m = _attr("#map<(d0, d1)[s0] -> ((d0 + d1 floordiv 4) * 2, d1 * -3 - 7 + s0, -(d0 mod 5))>")
    assert m.apply((9, 3), (10,)) == (6, 3 * -3 - 7 + 10, -(9 % 5))
    # '(a + b floordiv c)' divides the whole sum, as printed; a unary minus binds tightly.
    assert _attr("#map<(d0) -> (-d0 * 2 + 1)>").apply((3,)) == (-5,)
    assert _attr("#map<() -> (0)>").n_dims == 0


# ---------------------------------------------------------------- scoping and blocks


def test_forward_and_backward_branches() -> None:
    text = """
func @f(%x: f32) -> (f32) {
  br(%x) [^later]
^done(%r: f32):
  return(%r)
^later(%v: f32):
  br(%v) [^done]
}
"""
    fn = parse(text).lookup("f")
    assert fn is not None
    entry, done, later = list(fn.body.blocks)
    assert entry.operations.first.successors == (later,)
    assert later.operations.first.successors == (done,)
    assert later.operations.first.operands == (later.args[0],)


def test_bb0_names_the_entry_block() -> None:
    fn = parse("func @f() -> () {\n  br() [^bb0]\n}\n").lookup("f")
    assert fn is not None
    assert fn.entry.operations.first.successors == (fn.entry,)


def test_sibling_regions_may_reuse_names_and_labels() -> None:
    text = """
func @f(%t: tile<4xf32>) -> () {
  %a = map(%t) {shape = #domain<[4]>} ({
  ^bb0(%x: f32):
    yield(%x)
  }) : tile<4xf32>
  %b = map(%t) {shape = #domain<[4]>} ({
  ^bb0(%x: f32):
    %y = arith(%x) {fn = "neg"} : f32
    yield(%y)
  }) : tile<4xf32>
  return()
}
"""
    m = parse(text)
    assert len(list(m.walk())) == 6
    reprinted = print_module(m)
    assert "^bb1(%x: f32):" in reprinted and "^bb2(%x_1: f32):" in reprinted


def test_region_without_entry_label_and_comments() -> None:
    text = """// a comment line
module {  // trailing comment
  func @f(%c: i1) -> (f32) {
    %r = if(%c) ({
      %one = constant() {value = 1.0} : f32
      yield(%one)
    }, {
      %two = constant() {value = 2.0} : f32
      yield(%two)
    }) : f32
    return(%r)
  }
}
"""
    fn = parse(text).lookup("f")
    assert fn is not None
    if_op = fn.entry.operations.first
    assert [len(r.blocks) for r in if_op.regions] == [1, 1]
    assert if_op.regions[0].entry.args == []


def test_empty_regions_and_bodies_round_trip() -> None:
    m = Module()
    fn = Function("empty", [f32], [], ["x"])
    m.add_function(fn)
    b = Builder(InsertionPoint.at_end(fn.entry))
    cond = b.value("constant", [], i1, {"value": True})
    b.create("if", [cond], regions=[Region(), Region()])
    m.add_function(Function("nothing"))
    text = print_module(m)
    assert "    if(%0) ({\n    }, {\n    })\n" in text
    assert "func @nothing() -> () {\n  }\n" in text
    back = parse(text)
    assert structurally_equal(m, back) and print_module(back) == text


def test_bare_functions_and_empty_module() -> None:
    assert len(parse("module {\n}\n").functions) == 0
    m = parse("func @a() -> () {\n  return()\n}\nfunc @b() -> () {\n  return()\n}\n")
    assert [f.name for f in m.functions] == ["a", "b"]


def test_multiple_results_and_regions() -> None:
    text = print_module(ir_samples.sample_ancestor_update())
    m = parse(text)
    par = [op for op in m.walk() if op.name == "parallel" and op.results][0]
    assert [r.name_hint for r in par.results] == ["acc1", "sums1"]
    assert par.results[0].num_uses == 1


# ---------------------------------------------------------------------- diagnostics

GOOD = """module {
  func @f(%x: f32) -> (f32) {
    %y = arith(%x, %x) {fn = "add"} : f32
    return(%y)
  }
}
"""

LINE3 = '    %y = arith(%x, %x) {fn = "add"} : f32'


def _with_line3(line: str) -> str:
    return GOOD.replace(LINE3, line)


BAD_INPUTS = [
    # (text, message fragment, line, col)
    (_with_line3('    %y = arith(%x, %z) {fn = "add"} : f32'),
     "use of undefined value %z", 3, 20),
    (_with_line3("    %x = constant() {value = 1.0} : f32\n"
                 "    %y = constant() {value = 1.0} : f32"),
     "redefinition of %x (first defined at 2:11)", 3, 5),
    (_with_line3("    %y = frobnicate(%x) : f32"), "unknown operation 'frobnicate'", 3, 10),
    (GOOD.replace("(%x: f32)", "(%x: f33)"), "unknown type 'f33'", 2, 15),
    (_with_line3("    %y = arith(%x, %x) {fn = add} : f32"),
     "expected an attribute value, found 'add'", 3, 30),
    (GOOD.rstrip().removesuffix("}").rstrip() + "\n",
     "expected 'func' or '}', found end of input", 5, 4),
    (GOOD + "}\n", "expected end of input, found '}'", 7, 1),
    (_with_line3('    %y = arith(%x, %x) {fn = "add"}'),
     "expected ':' and the result type(s) of 'arith', found 'return'", 4, 5),
    (_with_line3('    %y, %z = arith(%x, %x) {fn = "add"} : f32'),
     "'arith' defines 2 result(s) but 1 result type(s) follow", 3, 41),
    (GOOD.replace("return(%y)", "br(%y) [^bb7]"), "undefined block label ^bb7", 4, 13),
    (_with_line3('    %y = arith(%x, %x) {fn = "add} : f32'), "unterminated string literal", 3, 30),
    (_with_line3('    %y = arith(%x, %x) {fn = "add", m = #map<(d0)[s0] -> (d0 + s1)>} : f32'),
     "s1 is not declared by this map", 3, 64),
    (_with_line3('    %y = arith(%x, %x) {m = #map<(d0, d1) -> (d0 * d1)>} : f32'),
     "product of two non-constant expressions is not affine", 3, 50),
    (_with_line3("    %y = arith(%x, %x) {p = #foo<1>} : f32"),
     "unknown attribute kind '#foo'", 3, 29),
    (_with_line3("    %y = arith(%x, %x) {p = #policy<sloppy>} : f32"),
     "invalid #policy: unknown reduction policy 'sloppy'", 3, 29),
    (GOOD.replace("(%x: f32)", "(%x: mem<4xf32, texture>)"),
     "unknown memory space 'texture'", 2, 26),
    (GOOD.replace("(%x: f32)", "(%x: tile<4x8>)"),
     "expected a shape ending in an element type like '4x8xf32', found '4x8'", 2, 20),
    (GOOD.replace("(%x: f32)", "(%x: tile<4xxf32>)"), "bad extent '' in shape '4xxf32'", 2, 20),
    (_with_line3("    %y = arith(%x, %x) {m = #map<(d1) -> (d1)>} : f32"),
     "expected d0, found d1", 3, 35),
    (_with_line3("    %y = arith(%x, %x) $ : f32"), "unexpected character '$'", 3, 24),
    (GOOD.replace("-> (f32)", "(f32)"), "expected '->' before the result types, found '('", 2, 20),
    (GOOD.replace("  }\n}", "  }\n  func @f() -> () {\n    return()\n  }\n}"),
     "redefinition of function @f", 6, 8),
    (_with_line3('    %y = arith(%x, %x) {fn = "add", fn = "sub"} : f32'),
     "duplicate attribute 'fn'", 3, 37),
    (GOOD.replace("    return(%y)\n  }\n",
                  "    return(%y)\n  func @g() -> () {\n    return()\n  }\n"),
     "expected an operation, a block label or '}', found 'func'", 5, 3),
    (_with_line3("    %y = arith(%x, %x) {fn = \"add\"} : f32 loc(\"a.py\":3.5:1)"),
     "expected a line number, found '3.5'", 3, 54),
    ("", "expected 'module' or 'func', found end of input", 1, 1),
]


@pytest.mark.parametrize(("text", "message", "line", "col"), BAD_INPUTS,
                         ids=[f"bad{k}" for k in range(len(BAD_INPUTS))])
def test_malformed_input(text: str, message: str, line: int, col: int) -> None:
    with pytest.raises(ParseError) as info:
        parse(text)
    e = info.value
    assert message in e.reason
    assert (e.line, e.col) == (line, col), f"{e}"
    source_line = (text.splitlines() or [""])[line - 1]
    rendered = str(e).splitlines()
    assert rendered[0] == f"{line}:{col}: {e.reason}"
    if source_line:
        assert rendered[1:] == [source_line, " " * (col - 1) + "^"]
    else:  # nothing to point into
        assert len(rendered) == 1


def test_value_used_inside_its_own_operation() -> None:
    text = """func @f(%c: i1) -> () {
  %r = if(%c) ({
  ^bb1():
    yield(%r)
  }, {
  ^bb2():
    yield(%c)
  }) : i1
  return()
}
"""
    with pytest.raises(ParseError, match="used inside the operation that defines it") as info:
        parse(text)
    assert (info.value.line, info.value.col) == (4, 11)


def test_value_out_of_scope_after_its_region() -> None:
    text = """func @f(%c: i1) -> () {
  if(%c) ({
  ^bb1():
    %inner = constant() {value = 1.0} : f32
    yield()
  }, {
  ^bb2():
    yield()
  })
  return(%inner)
}
"""
    with pytest.raises(ParseError, match=r"%inner is out of scope: it was defined at 4:5") as info:
        parse(text)
    assert (info.value.line, info.value.col) == (10, 10)


def test_region_cannot_redefine_its_operations_result() -> None:
    text = """func @f(%c: i1) -> () {
  %r = if(%c) ({
  ^bb1():
    %r = constant() {value = true} : i1
    yield(%r)
  }, {
  ^bb2():
    yield(%c)
  }) : i1
  return()
}
"""
    with pytest.raises(ParseError, match="a result of the enclosing operation at 2:3") as info:
        parse(text)
    assert (info.value.line, info.value.col) == (4, 5)


def test_duplicate_block_label_in_one_region() -> None:
    text = "func @f() -> () {\n  br() [^a]\n^a():\n  br() [^a]\n^a():\n  return()\n}\n"
    with pytest.raises(ParseError, match=r"redefinition of block label \^a") as info:
        parse(text)
    assert (info.value.line, info.value.col) == (5, 1)


@pytest.mark.parametrize("name", ["matmul", "control_flow", "machine"])
def test_damaged_text_raises_only_parse_errors(name: str) -> None:
    """Cutting or corrupting printed IR anywhere gives a ParseError, never another exception."""
    text = print_module(ir_samples.ALL_SAMPLES[name](), locations=True)
    rng = random.Random(name)
    damaged = [text[:k] for k in range(0, len(text), 89)]
    for _ in range(60):
        k = rng.randrange(len(text))
        damaged.append(text[:k] + text[k + 1:])
        damaged.append(text[:k] + rng.choice("%^@#{}()[]<>,:=-x0\"") + text[k:])
    for t in damaged:
        try:
            parse(t)
        except ParseError:
            pass
