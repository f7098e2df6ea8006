"""Quasi-affine expressions: floordiv / mod by a constant move whole multiples out.

``floor((c*q + r) / c) = q + floor(r / c)`` and ``(c*q + r) mod c = r mod c`` for integer
``q``; the canonical form applies them, and every rewritten expression must evaluate like
the original at every point (checked exhaustively on a small box, negatives included).
"""

from __future__ import annotations

import itertools

import pytest

import tilec.ir as ir


def _eval(e: ir.AffineExpr, d: tuple[int, ...]) -> int:
    total = e.constant
    for atom, k in e.terms:
        if atom[0] == "d":
            x = d[atom[1]]
        elif atom[0] == "floordiv":
            x = _eval(atom[1], d) // atom[2]
        elif atom[0] == "mod":
            x = _eval(atom[1], d) % atom[2]
        else:
            raise AssertionError(f"unexpected atom {atom}")
        total += k * x
    return total


def test_multiples_move_out_of_floordiv() -> None:
    e = (ir.d(0) * 8 + 1024).floordiv(32)
    assert e == (ir.d(0) * 8).floordiv(32) + 32
    assert (ir.d(0) * 64 + ir.d(1) * 32).floordiv(32) == ir.d(0) * 2 + ir.d(1)


def test_multiples_drop_out_of_mod() -> None:
    assert (ir.d(0) * 8 + 1024).mod(32) == (ir.d(0) * 8).mod(32)
    assert (ir.d(0) * 64 + 5).mod(32) == ir.const(5)


def test_small_negative_offsets_stay_readable() -> None:
    assert str((ir.d(1) - 1).mod(4)) == "(d1 - 1 mod 4)"
    assert (ir.d(1) - 5).mod(4) == (ir.d(1) - 1).mod(4)
    assert (ir.d(1) - 5).floordiv(4) == (ir.d(1) - 1).floordiv(4) - 1


@pytest.mark.parametrize("c", [1, 2, 3, 4, 8, 32])
@pytest.mark.parametrize("coef", [(1, 0), (8, 1), (32, 3), (-4, 2), (6, -9)])
@pytest.mark.parametrize("const", [-70, -33, -5, -1, 0, 1, 7, 64, 1031])
def test_rewrites_keep_the_value(c: int, coef: tuple[int, int], const: int) -> None:
    e = ir.d(0) * coef[0] + ir.d(1) * coef[1] + const
    q, r = e.floordiv(c), e.mod(c)
    for d in itertools.product(range(-9, 10), range(-5, 6)):
        v = _eval(e, d)
        assert _eval(q, d) == v // c, (e, c, d)
        assert _eval(r, d) == v % c, (e, c, d)
