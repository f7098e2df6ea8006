"""Value ranges (``tilec.ir.ranges``): each rule, and cases that must stay 64-bit
(products of user sizes, loop counters bounded by a size)."""

from __future__ import annotations

from cuda_machine_ir import SAMPLES

import tilec.ir as ir
from tilec.ir.ranges import (
    I32,
    I64,
    Range,
    affine_range,
    analyze_ranges,
    arith_range,
    compare_range,
)

SIZE = Range(0, I64.hi)
TID = Range(0, 127)


# ----------------------------------------------------------------- rules


def test_sums_products_and_wrap() -> None:
    assert arith_range("add", [TID, Range(5, 5)], ir.index) == Range(5, 132)
    assert arith_range("sub", [TID, Range(0, 10)], ir.index) == Range(-10, 127)
    assert arith_range("mul", [Range(-2, 3), Range(-5, 4)], ir.index) == Range(-15, 12)
    assert arith_range("neg", [TID], ir.index) == Range(-127, 0)
    assert arith_range("fma", [TID, Range(8, 8), Range(1, 1)], ir.index) == Range(1, 1017)
    # an i32 result that may leave 32 bits wraps: the whole type, not a wrong bound
    assert arith_range("mul", [Range(0, 1 << 20), Range(0, 1 << 20)], ir.i32) == I32


def test_products_of_sizes_are_not_narrowed() -> None:
    assert arith_range("mul", [SIZE, SIZE], ir.index) == I64
    assert arith_range("mul", [SIZE, Range(128, 128)], ir.index) == I64
    # a loop counter bounded by cdiv(K, 32) times 32 does not fit 32 bits
    k = Range(0, (I64.hi + 31) // 32 - 1)
    assert not arith_range("mul", [k, Range(32, 32)], ir.index).within(I32)


def test_division_and_modulo() -> None:
    assert arith_range("floordiv", [Range(0, 1016), Range(32, 32)], ir.index) == Range(0, 31)
    assert arith_range("floordiv", [Range(-7, 9), Range(4, 4)], ir.index) == Range(-2, 2)
    assert arith_range("cdiv", [SIZE, Range(128, 128)], ir.index) == Range(0, -(-I64.hi // 128))
    assert arith_range("rem", [Range(0, 1016), Range(32, 32)], ir.index) == Range(0, 31)
    assert arith_range("rem", [Range(33, 40), Range(32, 32)], ir.index) == Range(1, 8)
    assert arith_range("rem", [Range(-5, 3), Range(8, 8)], ir.index) == Range(0, 7)
    assert arith_range("rem", [TID, Range(1, 200)], ir.index) == Range(0, 199)
    # a divisor that may be zero or negative: nothing known
    assert arith_range("floordiv", [TID, Range(-1, 4)], ir.index) == I64


def test_min_max_select_bits_cast() -> None:
    sub = Range(-(1 << 40), 1 << 40)
    clamped = arith_range("min", [sub, Range(8, 8)], ir.index)
    assert clamped == Range(-(1 << 40), 8)
    assert arith_range("max", [clamped, Range(0, 0)], ir.index) == Range(0, 8)
    assert arith_range("select", [Range(0, 1), Range(0, 8), Range(0, 0)], ir.index) == Range(0, 8)
    assert arith_range("and", [TID, Range(31, 31)], ir.index) == Range(0, 31)
    assert arith_range("or", [TID, Range(0, 200)], ir.index) == Range(0, 255)
    assert arith_range("cast", [TID], ir.i32) == TID
    assert arith_range("cast", [SIZE], ir.i32) == I32
    assert arith_range("add", [TID, TID], ir.f32) is None


def test_comparisons_and_booleans() -> None:
    assert compare_range("lt", TID, Range(128, 200)) == Range(1, 1)
    assert compare_range("ge", TID, Range(0, 0)) == Range(1, 1)
    assert compare_range("gt", TID, Range(127, 300)) == Range(0, 0)
    assert compare_range("lt", TID, SIZE) == Range(0, 1)
    assert compare_range("eq", Range(3, 3), Range(3, 3)) == Range(1, 1)
    assert compare_range("ne", Range(0, 3), Range(4, 9)) == Range(1, 1)
    one, some = Range(1, 1), Range(0, 1)
    assert arith_range("and", [one, some], ir.i1) == some
    assert arith_range("and", [Range(0, 0), some], ir.i1) == Range(0, 0)
    assert arith_range("or", [one, some], ir.i1) == one
    assert arith_range("not", [one], ir.i1) == Range(0, 0)


def test_affine_ranges() -> None:
    e = (ir.s(0) * 8).floordiv(32) * 40 + (ir.s(0) * 8).mod(32) + ir.s(1) * 5120
    # intervals do not track divisibility: (8 * tid) mod 32 is bounded by 31, not 24
    assert affine_range(e, [TID, Range(0, 1)]) == Range(0, 31 * 40 + 31 + 5120)


def test_analysis_of_a_kernel() -> None:
    """Thread ids, grid coordinates and loop counters of a Machine GEMM get their bounds."""
    s = SAMPLES["gemm_mma_bf16"]
    fn = s.module().lookup(s.name)
    ranges = analyze_ranges(fn, lambda rank, k: 65535)
    found: dict[str, Range] = {}
    for op in fn.walk():
        if op.name == "parallel":
            a = op.regions[0].entry.args[0]
            found[op.attr("level")] = ranges[id(a)]
        if op.name in ("serial", "pipeline"):
            found.setdefault("loop", ranges[id(op.regions[0].entry.args[0])])
    threads = next(op for op in fn.walk() if op.name == "parallel").attr("threads")
    assert found["lane"] == Range(0, threads - 1)
    assert found["grid"].lo == 0 and found["grid"].hi <= 65534
    assert found["loop"].lo == 0
    symbols = fn.args[len(fn.args) - len(fn.shape_symbols):]
    assert all(ranges[id(a)] == SIZE for a in symbols)


def _loop_fn(step_body: str, init: str = "0") -> ir.Function:
    """A function with one counted loop over ``%n`` iterations carrying an index ``%s``
    (initial value ``init``); ``step_body`` computes ``%next`` from ``%s``."""
    text = f"""module {{
  func @f(%n: index) -> () {{form = "machine", shape_symbols = ["n"], target = "cuda:sm_90"}} {{
    %c0 = constant() {{value = 0}} : index
    %c1 = constant() {{value = 1}} : index
    %init = constant() {{value = {init}}} : index
    %r = serial(%c0, %n, %c1, %init) ({{
    ^bb1(%i: index, %s: index):
{step_body}
      yield(%next)
    }}) : index
    return()
  }}
}}
"""
    return ir.parse(text).lookup("f")


def _carried(fn: ir.Function) -> tuple[Range | None, Range | None]:
    ranges = analyze_ranges(fn)
    loop = next(op for op in fn.walk() if op.name == "serial")
    return ranges.get(id(loop.regions[0].entry.args[1])), ranges.get(id(loop.results[0]))


def test_a_wrapping_ring_slot_stays_in_its_ring() -> None:
    """``s + 1 == 4 ? 0 : s + 1`` from 0 settles at [0, 3] (the other branch of the select
    knows ``s + 1 != 4``), and so does the flipped form with ``!=``."""
    for cond, sel in (('"eq"', "%c0b, %t"), ('"ne"', "%t, %c0b")):
        fn = _loop_fn(f"""      %c4 = constant() {{value = 4}} : index
      %c0b = constant() {{value = 0}} : index
      %t = arith(%s, %c1) {{fn = "add"}} : index
      %w = arith(%t, %c4) {{fn = {cond}}} : i1
      %next = arith(%w, {sel}) {{fn = "select"}} : index""")
        assert _carried(fn) == (Range(0, 3), Range(0, 3))


def test_a_phase_that_flips_stays_a_bit() -> None:
    fn = _loop_fn("""      %next = arith(%c1, %s) {fn = "sub"} : index""")
    assert _carried(fn) == (Range(0, 1), Range(0, 1))


def test_a_carried_value_that_keeps_growing_gets_its_types_range() -> None:
    """A running sum never settles: the carried value and the loop's result get the whole
    type (the analysis never returns a bound that a later iteration could leave)."""
    fn = _loop_fn("""      %c4 = constant() {value = 4} : index
      %next = arith(%s, %c4) {fn = "add"} : index""", init="3")
    assert _carried(fn) == (I64, I64)
    # a wrap that is not at an end of the range proves nothing: it also grows
    fn = _loop_fn("""      %c2 = constant() {value = 2} : index
      %c0b = constant() {value = 0} : index
      %t = arith(%s, %c2) {fn = "add"} : index
      %w = arith(%t, %c1) {fn = "eq"} : i1
      %next = arith(%w, %c0b, %t) {fn = "select"} : index""")
    assert _carried(fn) == (I64, I64)


def test_a_decided_select_takes_its_branch() -> None:
    assert arith_range("select", [Range(1, 1), Range(0, 8), Range(100, 200)],
                       ir.index) == Range(0, 8)
    assert arith_range("select", [Range(0, 0), Range(0, 8), Range(100, 200)],
                       ir.index) == Range(100, 200)


def test_a_slot_carried_through_nested_loops_settles_in_both() -> None:
    """A persistent loop carries the ring slot into each tile's K loop and takes back what
    that loop leaves: both loops' carried slots and results settle at [0, 3]."""
    head = ('func @f(%n: index, %k: index) -> () {form = "machine", '
            'shape_symbols = ["n", "k"], target = "cuda:sm_90"} {')
    text = """module {
  HEAD
    %c0 = constant() {value = 0} : index
    %c1 = constant() {value = 1} : index
    %c4 = constant() {value = 4} : index
    %r = serial(%c0, %n, %c1, %c0) ({
    ^bb1(%t: index, %s: index):
      %q = serial(%c0, %k, %c1, %s) ({
      ^bb2(%i: index, %u: index):
        %v = arith(%u, %c1) {fn = "add"} : index
        %w = arith(%v, %c4) {fn = "eq"} : i1
        %x = arith(%w, %c0, %v) {fn = "select"} : index
        yield(%x)
      }) : index
      yield(%q)
    }) : index
    return()
  }
}
"""
    fn = ir.parse(text.replace("HEAD", head)).lookup("f")
    ranges = analyze_ranges(fn)
    loops = [op for op in fn.walk() if op.name == "serial"]
    assert len(loops) == 2
    for loop in loops:
        assert ranges[id(loop.regions[0].entry.args[1])] == Range(0, 3)
        assert ranges[id(loop.results[0])] == Range(0, 3)


def test_a_spent_budget_gives_loops_their_types_ranges(monkeypatch) -> None:
    """Nested loops multiply the rounds; past the analysis's budget of visits an unsettled
    loop takes its types' ranges at once (never a bound a later iteration could leave)."""
    import tilec.ir.ranges as ranges_mod

    ring = """      %c4 = constant() {value = 4} : index
      %c0b = constant() {value = 0} : index
      %t = arith(%s, %c1) {fn = "add"} : index
      %w = arith(%t, %c4) {fn = "eq"} : i1
      %next = arith(%w, %c0b, %t) {fn = "select"} : index"""
    assert _carried(_loop_fn(ring)) == (Range(0, 3), Range(0, 3))
    monkeypatch.setattr(ranges_mod, "_VISIT_BUDGET", 3)
    assert _carried(_loop_fn(ring)) == (I64, I64)
