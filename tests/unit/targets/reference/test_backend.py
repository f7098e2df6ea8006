"""The reference target's calling convention: argument checks, shape symbols, in-place writes."""

from __future__ import annotations

import numpy as np
import pytest
from refir import K, mem, poisoned

import tilec.ir as ir
from tilec.runtime import get_backend
from tilec.targets.reference import make_backend


def scaled_copy(bindings=((0, 0), (0, 1))) -> K:
    """Y = alpha * X for X, Y of M x N (one program)."""
    k = K("scale", [("X", mem(["M", "N"])), ("Y", mem(["M", "N"])), ("alpha", ir.f32),
                    ("n", ir.i32)],
          shape_symbols=("M", "N"), shape_bindings=bindings)
    X, Y, alpha, n, M, N = k.args
    x = k.load(k.view(X, [k.idx(0), k.idx(0)], [8, 8]))
    (y,) = k.map([8, 8], [x, alpha], lambda a, s: [k.arith("mul", a, s)])
    k.store(k.view(Y, [k.idx(0), k.idx(0)], [8, 8]), y)
    k.ret()
    return k


def test_registry_and_compile():
    backend = get_backend("reference")
    assert backend.name == "reference"
    k = scaled_copy()
    exe = backend.compile(k.module, "scale")
    assert exe.source.startswith("module {") and "func @scale" in exe.source
    with pytest.raises(KeyError, match="no function @nope"):
        backend.compile(k.module, "nope")


def test_call_writes_in_place_including_strided_outputs():
    x = np.arange(30, dtype=np.float32).reshape(5, 6)
    base = poisoned((6, 5))
    out = base.T  # a non-contiguous view: writes must land in ``base``
    scaled_copy().run(x, out, 2.0, 3)
    np.testing.assert_array_equal(base.T, 2 * x)


@pytest.mark.parametrize("args, exc, pattern", [
    ((np.zeros((2, 2), np.float32),), TypeError, r"takes 4 arguments \(X, Y, alpha, n\), got 1"),
    (([[1.0]], np.zeros((1, 1), np.float32), 1.0, 1), TypeError,
     r"argument 0 \('X'\) of @scale must be an array \(numpy .*got list"),
    ((np.zeros((2, 2)), np.zeros((2, 2), np.float32), 1.0, 1), TypeError,
     r"argument 0 \('X'\) of @scale has dtype float64; expected float32"),
    ((np.zeros(4, np.float32), np.zeros(4, np.float32), 1.0, 1), ValueError,
     r"argument 0 \('X'\) of @scale has rank 1 .*expected rank 2"),
    ((np.zeros((2, 3), np.float32), np.zeros((2, 4), np.float32), 1.0, 1), ValueError,
     r"shape symbol N is 3 from argument 0 \('X'\) of @scale axis 1 but 4 from argument 1"),
    ((np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32), "x", 1), TypeError,
     r"argument 2 \('alpha'\) of @scale must be a real number for a f32 parameter, got str"),
    ((np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32), 1.0, 1.5), TypeError,
     r"argument 3 \('n'\) of @scale = 1.5 is not an integer"),
    ((np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32), 1.0, 2**40), ValueError,
     r"argument 3 \('n'\) of @scale = 1099511627776 does not fit in i32"),
])
def test_argument_errors_name_the_parameter(args, exc, pattern):
    with pytest.raises(exc, match=pattern):
        scaled_copy().run(*args)


def test_static_extents_and_scalar_kinds():
    k = K("s", [("X", mem([2, 3])), ("b", ir.i1), ("h", ir.bf16)])
    k.ret()
    exe = k.compile()
    exe(np.zeros((2, 3), np.float32), True, 0.1)
    exe(np.zeros((2, 3), np.float32), np.bool_(False), np.float32(0.1))
    with pytest.raises(ValueError, match=r"has shape \(2, 4\); axis 1 must be 3"):
        exe(np.zeros((2, 4), np.float32), True, 0.1)


def test_shape_bindings_and_fallback_to_types():
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    for bindings in (((0, 0), (0, 1)), ((1, 0), (1, 1)), None):
        y = poisoned((3, 4))
        scaled_copy(bindings).run(x, y, 0.5, 0)
        np.testing.assert_array_equal(y, 0.5 * x)
    with pytest.raises(ValueError, match=r"shape_bindings\[1\] = \(2, 0\) for symbol N does not"):
        scaled_copy(((0, 0), (2, 0))).run(x, poisoned((3, 4)), 0.5, 0)


def test_unbound_shape_symbol():
    k = K("u", [("X", mem([4]))], shape_symbols=("Q",))
    k.ret()
    with pytest.raises(ValueError, match="shape symbol Q appears in no parameter's type"):
        k.run(np.zeros(4, np.float32))


def test_results_are_returned():
    k = K("r", [("a", ir.i64), ("b", ir.i64)], results=[ir.i64, ir.i64], grid=False)
    a, b = k.args
    k.ret(k.arith("add", a, b), k.arith("floordiv", a, b))
    assert make_backend("reference").compile(k.module, "r")(-7, 2) == (-5, -4)
