"""Issue: ``tc.full((1,), t)`` with a rank-0 tile ``t`` was rejected ("got a tile<f32>").

A full reduction (``x.min(axis=None)``) gives a rank-0 tile, which
arithmetic, comparisons and ``tc.where`` already took as one value
broadcast to every shape, but ``tc.full`` accepted only numbers and
scalars. It now takes a rank-0 tile too (with ``dtype=`` converting it), as
docs/guide/dsl.md describes rank-0 tiles; a tile of higher rank is still an
error, which names ``tc.broadcast``. Every target computes the same values.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import PATHS, line_of, poisoned, run


@tc.kernel
def fills(X, Out, s, BM: tc.constexpr = 8):
    """Per program: the issue's ``tc.full((1,), t)``, ``dtype=``, an expression of ``t`` and a
    2-D fill, with ``t`` the minimum (or maximum) of the program's block."""
    for p in tc.parallel(2):
        x = X.tile((p * BM,), (BM,))
        t = x.min(axis=None)
        Out.tile((p, 0), (1, 1)).store(tc.full((1,), t)[None, :])
        Out.tile((p, 1), (1, BM)).store(tc.full((1, BM), t, tc.float16).to(tc.float32))
        Out.tile((p, 1 + BM), (1, BM)).store(tc.full((BM,), x.max(axis=None) * s - t)[None, :])
        Out.tile((p, 1 + 2 * BM), (1, BM)).store(tc.full((2, BM // 2), t).reshape(1, BM))


@tc.kernel
def mixed(X, Out, s, BM: tc.constexpr = 8):
    """A rank-0 tile with tiles, scalars and numbers in the other elementwise builtins."""
    for p in tc.parallel(2):
        x = X.tile((p * BM,), (BM,))
        t = x.max(axis=None)
        row = tc.where(x > t * 0.5, t, s) + tc.maximum(t, s) + tc.fma(t, s, x)
        Out.tile((p, 0), (1, BM)).store(row[None, :])
        Out.tile((p, BM), (1, BM)).store(tc.where(t > s, x, -x)[None, :] * tc.exp(t - t))


def _blocks(x: np.ndarray) -> np.ndarray:
    return x.reshape(2, 8)


@pytest.mark.parametrize("target", PATHS)
def test_full_takes_a_rank0_tile(target: str) -> None:
    x = np.array([3.5, -1.25, 7.0, 0.5, 2.0, -6.0, 1.0, 4.0,
                  9.0, 8.5, 10.0, 12.25, 11.0, 9.5, 13.0, 8.75], np.float32)
    out = poisoned(2, 25)
    s = np.float32(3.0)
    run(target, fills, x, out, s)
    b = _blocks(x)
    lo, hi = b.min(1), b.max(1)
    want = np.concatenate([lo[:, None],
                           np.repeat(lo.astype(np.float16).astype(np.float32)[:, None], 8, 1),
                           np.repeat((hi * s - lo)[:, None], 8, 1),
                           np.repeat(lo[:, None], 8, 1)], axis=1)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("target", PATHS)
def test_rank0_tiles_mix_with_scalars_in_every_elementwise_builtin(target: str) -> None:
    x = np.array([3.5, -1.25, 7.0, 0.5, 2.0, -6.0, 1.0, 4.0,
                  1.0, 0.5, 2.0, 1.25, 1.5, 0.75, 2.5, 0.25], np.float32)
    out = poisoned(2, 16)
    s = np.float32(3.0)
    run(target, mixed, x, out, s)
    b = _blocks(x)
    t = b.max(1, keepdims=True)
    row = np.where(b > t * 0.5, t, s) + np.maximum(t, s) + (t * s + b)
    flip = np.where(t > s, b, -b)
    np.testing.assert_array_equal(out, np.concatenate([row, flip], axis=1))


@tc.kernel
def full_of_a_row(X, Out):
    for _p in tc.parallel(1):
        x = X.tile((0,), (8,))
        Out.tile((0,), (8,)).store(tc.full((8,), x))


@tc.kernel
def rank0_origin(X, Out):
    for _p in tc.parallel(1):
        t = X.tile((0,), (8,)).to(tc.int32).max(axis=None)
        Out.tile((t,), (1,)).store(1.0)


@tc.kernel
def rank0_bound(X, Out):
    for _p in tc.parallel(1):
        t = X.tile((0,), (8,)).to(tc.int32).max(axis=None)
        for i in tc.serial(t):
            Out.tile((i,), (1,)).store(1.0)


@pytest.mark.parametrize("kernel,text,message", [
    (full_of_a_row, "tc.full((8,), x)", "full() fills with a number, a scalar or a rank-0 "
                                        "tile, got a tile<8xf32> (tc.broadcast(x, shape)"),
    (rank0_origin, "Out.tile((t,)", "a view origin must be an integer scalar, got a tile<i32>"),
    (rank0_bound, "tc.serial(t)", "a loop bound must be an integer scalar, got a tile<i32>"),
], ids=["full_of_a_row", "origin", "loop_bound"])
def test_where_a_scalar_is_needed_a_rank0_tile_is_a_located_error(kernel: Any, text: str,
                                                                  message: str) -> None:
    with pytest.raises(tc.TileSyntaxError) as info:
        run("reference", kernel, np.arange(8, dtype=np.float32), np.zeros(8, np.float32))
    e = info.value
    assert (e.filename, e.lineno) == (__file__, line_of(kernel.fn, text))
    assert message in str(e), str(e)
