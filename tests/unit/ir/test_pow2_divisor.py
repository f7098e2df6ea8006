"""Known power-of-two divisors of index values (``ir.dataflow.pow2_divisor``) and the
tensor-copy alignment fact built on them (``lower.staged_windows.column_origin_aligned``):
the column origin of each window below is a multiple of the power of two its arithmetic
guarantees, never more."""

from __future__ import annotations

import numpy as np

import tilec as tc
from tilec import ir
from tilec.ir.dataflow import affine_pow2_divisor, pow2_divisor
from tilec.lower.staged_windows import column_origin_aligned


@tc.kernel
def origins(A, C, off):
    for p in tc.parallel(2):
        acc = tc.zeros((8, 16), tc.float32)
        for k in tc.serial(4, 12, step=4):
            acc = acc + A.tile((p * 8, k * 16), (8, 16), fill=0.0).astype(tc.float32)
            acc = acc + A.tile((p * 8, k * 16 - 3), (8, 16), fill=0.0).astype(tc.float32)
            acc = acc + A.tile((0, off * 8), (8, 16), fill=0.0).astype(tc.float32)
            acc = acc + A.tile((0, (k // 4) * 32), (8, 16), fill=0.0).astype(tc.float32)
            acc = acc + A.tile((0, (k % 4) * 2 + 8), (8, 16), fill=0.0).astype(tc.float32)
            acc = acc + A.tile((0, p * 8 + 4), (8, 16), fill=0.0).astype(tc.float32)
        C.tile((p * 8, 0), (8, 16)).store(acc)


def _views() -> list[ir.Operation]:
    A = np.zeros((16, 256), np.float16)
    C = np.zeros((16, 16), np.float32)
    m = tc.compile(origins, A, C, 1, target="cpu").module
    fn = next(iter(m.functions))
    return [op for op in fn.walk() if op.name == "view" and op.operand(0) is fn.args[0]]


def _column_divisor(view: ir.Operation) -> int:
    syms = [pow2_divisor(x) for x in view.operands[1:]]
    return affine_pow2_divisor(view.attr("map").results[-1] - ir.d(1), syms)


def test_column_origin_divisors():
    # k counts 4, 8 (a multiple of 4); off is a runtime i32 (a multiple of 1); p of 1
    assert [_column_divisor(v) for v in _views()] == [64, 1, 8, 32, 8, 4]


def test_column_origin_aligned_for_16_bit_elements():
    # a tensor copy of f16 needs a multiple of 8 elements (16 bytes)
    got = [column_origin_aligned(v, ir.f16) for v in _views()]
    assert got == [True, False, True, True, True, False]
    # f32 elements need a multiple of 4: p * 8 + 4 is one
    assert column_origin_aligned(_views()[-1], ir.f32)


def test_constants_and_zero():
    from tilec.ir.dataflow import _lowbit

    assert [_lowbit(c) for c in (0, 1, -6, 96, 1 << 70)] == [0, 1, 2, 32, 1 << 62]
    e = ir.s(0) * 3 + 16
    assert affine_pow2_divisor(e, [0]) == 16  # the symbol is exactly zero
    assert affine_pow2_divisor(e, [8]) == 8
