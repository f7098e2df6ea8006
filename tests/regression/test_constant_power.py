"""Issue: ``2 ** 2`` in a kernel was rejected ("** needs floating-point operands, got i32").

Capture applied the type rules of runtime values (a Python int is a weak
``i32``, ``**`` needs floats) before folding an expression of compile-time
numbers, so ``X.tile((2 ** 2,), (4,))`` failed, and so did ``7 / 2``. The
DSL says compile-time values behave like Python (docs/guide/dsl.md): such an
expression is now computed by Python first (``2 ** -1`` is the float
``0.5``). A runtime integer ``**`` keeps its rule: exponents 2 and 3 are
wrapping products, anything else is a located error.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import PATHS, line_of, poisoned, run


@tc.kernel
def powers(X, Out, K: tc.constexpr = 3):
    """The issue's window origin, a constexpr power, a negative exponent and true division."""
    for _p in tc.parallel(1):
        x = X.tile((2 ** 2,), (2 ** K,))
        Out.tile((0,), (8,)).store(x * 2 ** -1 + 7 / 2 + 2.0 ** K + (-2) ** 3)
        Out.tile((8,), (2 ** 2,)).store(X.tile((0,), (4,)) * (3 // 2 ** 1))


@pytest.mark.parametrize("target", PATHS)
def test_compile_time_powers_fold_like_python(target: str) -> None:
    x = np.arange(16, dtype=np.float32) - 3.5
    out = poisoned(12)
    run(target, powers, x, out)
    k = 3
    want = np.concatenate([x[2 ** 2:2 ** 2 + 2 ** k] * 2 ** -1 + 7 / 2 + 2.0 ** k + (-2) ** 3,
                           x[:4] * (3 // 2 ** 1)]).astype(np.float32)
    np.testing.assert_array_equal(out, want)


@tc.kernel
def window(X, Out, K: tc.constexpr = 1):
    """A window of ``2 ** K`` elements at ``2 ** 2``, scaled by ``2 ** -K``."""
    for _p in tc.parallel(1):
        Out.tile((0,), (2 ** K,)).store(X.tile((2 ** 2,), (2 ** K,)) * 2 ** -K)


@pytest.mark.parametrize("k", [0, 1, 3])
@pytest.mark.parametrize("target", PATHS)
def test_a_constexpr_exponent_sizes_a_window(target: str, k: int) -> None:
    x = np.arange(16, dtype=np.float32)
    out = poisoned(8)
    run(target, window, x, out, K=k)
    want = poisoned(8)
    want[:2 ** k] = x[4:4 + 2 ** k] * 2.0 ** -k
    np.testing.assert_array_equal(out, want)


@tc.kernel
def int_powers(X, Out, n):
    """Runtime integer powers that are products: ``x ** 2``, ``x ** 3``, ``n ** 2``."""
    for _p in tc.parallel(1):
        x = X.tile((0,), (8,))
        Out.tile((0,), (8,)).store(x ** 2 + x ** 3 + n ** 2)


@pytest.mark.parametrize("target", PATHS)
def test_runtime_integer_squares_and_cubes_wrap(target: str) -> None:
    x = np.array([3, -7, 1290, -1291, 0, 1, 50000, -46341], np.int32)
    out = np.full(8, -1, np.int32)
    run(target, int_powers, x, out, 3)
    with np.errstate(over="ignore"):
        want = x * x + x * x * x + np.int32(9)
    np.testing.assert_array_equal(out, want)


@tc.kernel
def int_fourth(X, Out):
    for _p in tc.parallel(1):
        Out.tile((0,), (8,)).store(X.tile((0,), (8,)) ** 4)


@tc.kernel
def int_runtime_exponent(X, Out, n):
    for _p in tc.parallel(1):
        Out.tile((0,), (8,)).store(X.tile((0,), (8,)) ** n)


@tc.kernel
def complex_constant(X, Out):
    for _p in tc.parallel(1):
        Out.tile((0,), (8,)).store(X.tile((0,), (8,)) + (-8) ** 0.5)


@pytest.mark.parametrize("kernel,args,text,message", [
    (int_fourth, (), "** 4", "** needs floating-point operands, got i32 (an integer ** takes "
                             "the constant exponent 2 or 3"),
    (int_runtime_exponent, (2,), "** n", "** needs floating-point operands, got i32"),
    (complex_constant, (), "(-8) ** 0.5", "constant expression fails: its value"),
], ids=["fourth", "runtime_exponent", "complex"])
def test_other_powers_are_located_errors(kernel: Any, args: tuple[Any, ...], text: str,
                                         message: str) -> None:
    x = np.arange(8, dtype=np.int32)
    with pytest.raises(tc.TileSyntaxError) as info:
        run("reference", kernel, x, np.zeros(8, np.int32), *args)
    e = info.value
    assert e.lineno == line_of(kernel.fn, text) and e.filename == __file__
    assert message in str(e), str(e)
