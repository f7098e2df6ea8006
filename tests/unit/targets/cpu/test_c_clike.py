"""The shared C-like base: the line-tagged buffer, literals, scalar expression tables."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import tilec.ir as ir
from tilec.targets.clike import CLikeEmitter, IndentedBuffer, round_float
from tilec.targets.cpu.emitter import CEmitter


def _op(name: str = "arith", line: int = 7) -> ir.Operation:
    x = ir.Block([ir.f32]).args[0]
    return ir.Operation(name, [x, x], [ir.f32], {"fn": "add"},
                        loc=ir.Location("k.py", line, 2))


def test_buffer_indents_and_tags_lines_with_operations() -> None:
    buf = IndentedBuffer()
    buf.line("int f(void)")
    with buf.block(""):
        op = _op()
        with buf.origin(op):
            buf.line("int a = 1;\nint b = 2;")
        buf.line("return 0;")
    text = buf.getvalue().splitlines()
    assert text[0] == "int f(void)" and text[1] == "{"
    assert text[2] == f"  /* tilec: arith#{op.id} at k.py:7:3 */"
    assert text[3] == "  int a = 1;" and text[4] == "  int b = 2;"
    assert buf.origin_of_line(4).op_id == op.id and str(buf.origin_of_line(4)).startswith("arith#")
    assert buf.origin_of_line(6) is None and buf.origin_of_line(99) is None
    outer = IndentedBuffer()
    with outer.indent():
        outer.splice(buf)
    assert outer.lines[3] == "    int a = 1;" and outer.origins[3].loc.line == 7


def test_float_literals_are_exact_and_rounded_once() -> None:
    em = CLikeEmitter()
    assert em.literal(0.1, ir.f32) == float(np.float32(0.1)).hex() + "f"
    assert em.literal(-0.0, ir.f32) == "-0x0.0p+0f"
    assert em.literal(float("inf"), ir.f64) == "((double)INFINITY)"
    assert em.literal(float("-inf"), ir.f32) == "(-(float)INFINITY)"
    assert em.literal(float("nan"), ir.bf16) == "((float)NAN)"
    assert em.literal(1 + 2.0**-9, ir.bf16) == "0x1.0000000000000p+0f"
    assert em.literal(65520.0, ir.f16) == "((float)INFINITY)"
    assert em.literal(-(2**63), ir.i64) == "(-INT64_C(9223372036854775807) - 1)"
    assert em.literal(-5, ir.i8) == "((int8_t)-5)"
    assert em.literal(True, ir.i1) == "1"
    with pytest.raises(ValueError, match="does not fit"):
        em.literal(128, ir.i8)
    with pytest.raises(ValueError, match="not an integer"):
        em.literal(1.5, ir.i32)


def test_round_float_is_one_rounding_from_f64() -> None:
    # 1 + 2^-8 + 2^-30 rounds up to bf16 directly, but to 1 + 2^-8 in f32 (a tie) and then
    # down to 1.0 by round-half-even: one rounding must give 1 + 2^-7.
    x = 1 + 2.0**-8 + 2.0**-30
    assert round_float(x, "bf16") == 1 + 2.0**-7
    assert float(np.float32(x).astype(ml_dtypes.bfloat16)) == 1.0
    assert round_float(2**64 + 1, "f32") == float(np.float32(2.0**64))
    assert math.isinf(round_float(1e39, "f32"))


def test_arith_tables_cover_every_function() -> None:
    for fn in ir.ARITH_FNS:
        if fn in ("cast", "select"):
            continue
        in_float = fn in CLikeEmitter.FLOAT_FNS
        in_int = fn in CLikeEmitter.INT_FNS
        assert in_float or in_int, fn


def test_subclasses_change_targets_through_tables() -> None:
    class Fancy(CEmitter):
        FLOAT_FNS = {**CEmitter.FLOAT_FNS, "exp": "fancy_exp_{s}({0})"}

    x = ir.Block([ir.f32]).args[0]
    op = ir.Operation("arith", [x], [ir.f32], {"fn": "exp"})
    m = ir.Module([ir.Function("f", [], [])])
    assert Fancy(m, "f").arith_expr(op, ["x"]) == "fancy_exp_f32(x)"
    assert CEmitter(m, "f").arith_expr(op, ["x"]) == "tc_exp_f32(x)"
