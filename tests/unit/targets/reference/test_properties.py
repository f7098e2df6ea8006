"""Hypothesis: elementwise maps and reductions over drawn shapes and values (NaN, inf, -0.0)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from refir import K, bits, mem, poisoned

import tilec.ir as ir

F32_VALUES = st.floats(width=32, allow_nan=True, allow_infinity=True) | st.sampled_from(
    [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0])


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit-equal, except that any NaN matches any NaN (payloads are not specified)."""
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    nan = np.isnan(a)
    return bool((nan == np.isnan(b)).all() and (bits(a)[~nan] == bits(b)[~nan]).all())


def py_max(x: np.float32, y: np.float32) -> np.float32:
    """IEEE maximum written out per element."""
    if math.isnan(x) or math.isnan(y):
        return np.float32(math.nan)
    if x == y:
        return y if math.copysign(1, x) < 0 else x
    return x if x > y else y


def py_min(x: np.float32, y: np.float32) -> np.float32:
    """IEEE minimum written out per element."""
    if math.isnan(x) or math.isnan(y):
        return np.float32(math.nan)
    if x == y:
        return x if math.copysign(1, x) < 0 else y
    return x if x < y else y


ORACLES = {
    "add": lambda x, y: np.float32(x + y), "sub": lambda x, y: np.float32(x - y),
    "mul": lambda x, y: np.float32(x * y), "div": lambda x, y: np.float32(x / y),
    "max": py_max, "min": py_min,
}


@st.composite
def two_arrays(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6))
    gen = hnp.arrays(np.float32, shape, elements=F32_VALUES)
    return draw(gen), draw(gen)


@settings(max_examples=80, deadline=None)
@given(two_arrays(), st.sampled_from(sorted(ORACLES)))
def test_elementwise_map(arrays, fn):
    a, b = arrays
    shape = list(a.shape)
    k = K("ew", [("A", mem(shape)), ("B", mem(shape)), ("Y", mem(shape))])
    A, B, Y = k.args
    (r,) = k.map(shape, [k.load(A), k.load(B)], lambda x, y: [k.arith(fn, x, y)])
    k.store(Y, r)
    k.ret()
    y = poisoned(a.shape)
    k.run(a, b, y)
    with np.errstate(all="ignore"):
        want = np.array([ORACLES[fn](x, z) for x, z in zip(a.reshape(-1), b.reshape(-1))],
                        np.float32).reshape(a.shape)
    assert same(y, want)


def fold(values, seed, f):
    acc = np.float32(seed)
    for v in values:
        acc = np.float32(f(acc, np.float32(v)))
    return acc


def tree(values, seed, f):
    level = [np.float32(v) for v in values]
    if not level:
        return np.float32(seed)
    while len(level) > 1:
        nxt = [np.float32(f(level[i], level[i + 1])) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return np.float32(f(np.float32(seed), level[0]))


@settings(max_examples=80, deadline=None)
@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=9),
                  elements=F32_VALUES),
       st.sampled_from([(0,), (1,), (0, 1)]), st.sampled_from(["add", "max", "min"]),
       st.sampled_from(["strict_fold", "unordered_tree"]), F32_VALUES)
def test_reduce(x, axes, fn, policy, seed):
    kept = [e for i, e in enumerate(x.shape) if i not in axes]
    k = K("red", [("X", mem(list(x.shape))), ("Y", mem(kept))])
    X, Y = k.args
    (r,) = k.reduce([k.load(X)], [k.const(float(seed))], axes,
                    lambda s, e: [k.arith(fn, s, e)], policy)
    k.store(Y, r)
    k.ret()
    y = poisoned(kept)
    k.run(x, y)
    order = fold if policy == "strict_fold" else tree
    with np.errstate(all="ignore"):
        if axes == (0, 1):
            want = np.array(order(x.reshape(-1), seed, ORACLES[fn]), np.float32)
        elif axes == (1,):
            want = np.array([order(row, seed, ORACLES[fn]) for row in x], np.float32)
        else:
            want = np.array([order(col, seed, ORACLES[fn]) for col in x.T], np.float32)
    assert same(y, want)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_ragged_tiled_copy_writes_exactly_the_array(m, n, seed):
    """A 4x4-tiled bounded copy of an m x n array writes every element once and nothing else."""
    k = K("copy", [("X", mem(["M", "N"])), ("Y", mem(["M", "N"]))], shape_symbols=("M", "N"),
          shape_bindings=((0, 0), (0, 1)), grid=False)
    X, Y, M, N = k.args
    four = k.idx(4)

    def program(i, j):
        oi, oj = k.arith("mul", i, four), k.arith("mul", j, four)
        t = k.load(k.view(X, [oi, oj], [4, 4]))
        k.store(k.view(Y, [oi, oj], [4, 4]), t)
        return []

    k.parallel([k.arith("cdiv", M, four), k.arith("cdiv", N, four)], [], program)
    k.ret()
    x = np.random.default_rng(seed).standard_normal((m, n)).astype(np.float32)
    y = poisoned((m, n))
    k.run(x, y)
    np.testing.assert_array_equal(y, x)


def test_reduce_in_bf16_with_cast_wrapped_merge_is_recognized():
    """``cast(add(cast(state), cast(e)))`` is an add merge; the tree rounds to bf16 per merge."""
    from tilec.targets.numerics import BF16

    k = K("bfsum", [("X", mem([3, 13], ir.bf16)), ("Y", mem([3], ir.bf16))])
    X, Y = k.args

    def upd(s, e):
        wide = k.arith("add", k.arith("cast", s, rtype=ir.f32), k.arith("cast", e, rtype=ir.f32))
        return [k.arith("cast", wide, rtype=ir.bf16)]

    (r,) = k.reduce([k.load(X)], [k.const(0.0, ir.bf16)], [1], upd, "unordered_tree")
    k.store(Y, r)
    k.ret()
    x = np.random.default_rng(9).standard_normal((3, 13)).astype(BF16)
    y = np.zeros(3, BF16)
    k.run(x, y)
    add = lambda a, b: np.float32(a + b).astype(BF16).astype(np.float32)  # noqa: E731
    want = np.array([tree([np.float32(v) for v in row], 0.0, add) for row in x]).astype(BF16)
    assert np.array_equal(bits(y), bits(want))


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=2, max_side=7),
                  elements=F32_VALUES), st.sampled_from(["add", "mul", "max", "min"]))
def test_bf16_elementwise_is_f32_then_rounded(x, fn):
    from tilec.targets.numerics import BF16

    a = x.astype(BF16)
    b = a[..., ::-1].copy()
    shape = list(a.shape)
    k = K("bf", [("A", mem(shape, ir.bf16)), ("B", mem(shape, ir.bf16)),
                 ("Y", mem(shape, ir.bf16))])
    A, B, Y = k.args
    (r,) = k.map(shape, [k.load(A), k.load(B)], lambda p, q: [k.arith(fn, p, q)])
    k.store(Y, r)
    k.ret()
    y = np.zeros(a.shape, BF16)
    k.run(a, b, y)
    with np.errstate(all="ignore"):
        want = np.array([ORACLES[fn](np.float32(p), np.float32(q))
                         for p, q in zip(a.reshape(-1), b.reshape(-1))],
                        np.float32).astype(BF16).reshape(a.shape)
    assert same(y.astype(np.float32), want.astype(np.float32))
