"""Issue 16 (DSL breadth): ``tc.cumsum``, ``tc.cumprod`` and ``tc.associative_scan``.

Scans are compositions of the core rows (``frontend/scans.py``): under the default
``unordered_tree`` policy a recognized law runs ``ceil(log2 n)`` doubling steps (a
``reindex`` shifted by ``d`` with the law's identity as its ``fill``, then the law);
under ``strict_fold`` any combine runs in source order, ``n - 1`` steps. Every path is
compared with numpy on outputs poisoned first: each axis of rank-1, 2 and 3 tiles, extents
that are not powers of two and 1, float and integer types, ``dtype=``, the source-order
results bit for bit, and the errors at the call. The CUDA source is compiled by NVRTC where
it is present; the GPU run is ``tests/device/test_cuda_scans.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import CUDA_TARGETS, PATHS, assert_located, cuda_source, poisoned, run


@tc.kernel
def cumsum2(X, Y, AX: tc.constexpr = 1, POL: tc.constexpr = None, DT: tc.constexpr = None):
    for _p in tc.parallel(1):
        t = X.tile((0, 0), (8, 7)).load()
        Y.tile((0, 0), (8, 7)).store(tc.cumsum(t, axis=AX, policy=POL, dtype=DT))


@tc.kernel
def cumprod2(X, Y, AX: tc.constexpr = 0, POL: tc.constexpr = None):
    for _p in tc.parallel(1):
        t = X.tile((0, 0), (8, 7)).load()
        Y.tile((0, 0), (8, 7)).store(tc.cumprod(t, AX, policy=POL))


@tc.kernel
def methods(X, Y, Z):
    for _p in tc.parallel(1):
        t = X.tile((0, 0), (8, 7)).load()
        Y.tile((0, 0), (8, 7)).store(t.cumsum(1))
        Z.tile((0, 0), (8, 7)).store(t.cumprod(axis=0, policy="strict_fold"))


@tc.kernel
def rows(X, Y, N: tc.constexpr = 16):
    """One program per row: a scan of a window whose tail reads the fill."""
    R = X.shape[0]
    for r in tc.parallel(R):
        t = X.tile((r, 0), (1, N), fill=0.0).load()
        Y.tile((r, 0), (1, N)).store(tc.cumsum(t, axis=1))


@tc.kernel
def cube(X, Y, AX: tc.constexpr = 2):
    for _p in tc.parallel(1):
        t = X.tile((0, 0, 0), (2, 3, 5)).load()
        Y.tile((0, 0, 0), (2, 3, 5)).store(tc.cumsum(t, axis=AX))


@tc.kernel
def line(X, Y, N: tc.constexpr = 1):
    for _p in tc.parallel(1):
        t = X.tile((0,), (N,)).load()
        Y.tile((0,), (N,)).store(tc.cumsum(t))


@tc.kernel
def scan_fn(X, Y, MODE: tc.constexpr = 0):
    for _p in tc.parallel(1):
        t = X.tile((0, 0), (8, 7)).load()
        if MODE == 0:
            r = tc.associative_scan(lambda a, b: tc.maximum(a, b), t, axis=1)
        elif MODE == 1:
            r = tc.associative_scan(lambda a, b: tc.minimum(b, a), t, axis=0)
        elif MODE == 2:
            r = tc.associative_scan(lambda a, b: a + b, t, axis=1, policy="strict_fold")
        else:
            r = tc.associative_scan(lambda a, b: a * 0.5 + b, t, axis=1,
                                    policy="strict_fold")
        Y.tile((0, 0), (8, 7)).store(r)


def _data(shape: tuple[int, ...], dtype: Any, seed: int, small: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f" and not small:
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-3, 4, shape).astype(dtype)


def _serial(x: np.ndarray, axis: int, f: Any) -> np.ndarray:
    """The source-order inclusive scan, in the array's type."""
    y = np.moveaxis(x.copy(), axis, 0)
    for j in range(1, y.shape[0]):
        y[j] = f(y[j - 1], y[j])
    return np.moveaxis(y, 0, axis)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumsum_matches_numpy(path: str, axis: int) -> None:
    x = _data((8, 7), np.float32, 1)
    y = poisoned(8, 7)
    run(path, cumsum2, x, y, AX=axis)
    np.testing.assert_allclose(y, np.cumsum(x, axis=axis), rtol=1e-5, atol=1e-5)
    # integers in floats: every grouping is exact
    xi = _data((8, 7), np.float32, 2, small=True)
    y = poisoned(8, 7)
    run(path, cumsum2, xi, y, AX=axis)
    assert np.array_equal(y, np.cumsum(xi, axis=axis))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("axis", [0, 1])
def test_a_strict_fold_scan_is_the_source_order_bit_for_bit(path: str, axis: int) -> None:
    x = (_data((8, 7), np.float32, 3) * np.float32(1e3)).astype(np.float32)
    y = poisoned(8, 7)
    run(path, cumsum2, x, y, AX=axis, POL="strict_fold")
    assert np.array_equal(y, _serial(x, axis, np.add))
    y = poisoned(8, 7)
    run(path, cumprod2, x, y, AX=axis, POL="strict_fold")
    assert np.array_equal(y, _serial(x, axis, np.multiply), equal_nan=True)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", [np.int32, np.int8])
def test_integer_scans_wrap_in_their_type(path: str, dtype: Any) -> None:
    x = np.random.default_rng(4).integers(-100, 100, (8, 7)).astype(dtype)
    y = poisoned(8, 7, dtype=dtype)
    run(path, cumsum2, x, y)
    want = np.cumsum(x.astype(np.int64), axis=1).astype(dtype)  # two's complement wrap
    assert np.array_equal(y, want)
    y = poisoned(8, 7, dtype=dtype)
    run(path, cumprod2, x, y)
    assert np.array_equal(y, np.cumprod(x.astype(np.int64), axis=0).astype(dtype))


@pytest.mark.parametrize("path", PATHS)
def test_dtype_scans_in_the_named_type(path: str) -> None:
    x = np.full((8, 7), 100, np.int8)
    y = poisoned(8, 7, dtype=np.int32)
    run(path, cumsum2, x, y, DT=tc.int32)
    assert np.array_equal(y, np.cumsum(x.astype(np.int32), axis=1))


@pytest.mark.parametrize("path", PATHS)
def test_the_method_forms(path: str) -> None:
    x = _data((8, 7), np.float32, 8, small=True)
    y, z = poisoned(8, 7), poisoned(8, 7)
    run(path, methods, x, y, z)
    assert np.array_equal(y, np.cumsum(x, axis=1))
    assert np.array_equal(z, _serial(x, 0, np.multiply))


@pytest.mark.parametrize("path", PATHS)
def test_windows_ranks_and_extents(path: str) -> None:
    x = _data((3, 11), np.float32, 5, small=True)
    y = poisoned(3, 16)
    run(path, rows, x, y)
    padded = np.zeros((3, 16), np.float32)
    padded[:, :11] = x
    assert np.array_equal(y[:, :11], np.cumsum(padded, axis=1)[:, :11])
    x3 = _data((2, 3, 5), np.float32, 6, small=True)
    for ax in (0, 1, 2):
        y3 = poisoned(2, 3, 5)
        run(path, cube, x3, y3, AX=ax)
        assert np.array_equal(y3, np.cumsum(x3, axis=ax))
    for n in (1, 2, 5, 33):
        x1 = _data((n,), np.float32, n, small=True)
        y1 = poisoned(n)
        run(path, line, x1, y1, N=n)
        assert np.array_equal(y1, np.cumsum(x1))


@pytest.mark.parametrize("path", PATHS)
def test_associative_scan(path: str) -> None:
    x = _data((8, 7), np.float32, 7)
    x[2, 3] = np.nan
    wants = {0: np.maximum.accumulate(x, axis=1), 1: np.minimum.accumulate(x, axis=0),
             2: _serial(x, 1, np.add),
             3: _serial(x, 1, lambda a, b: a * np.float32(0.5) + b)}
    for mode, want in wants.items():
        y = poisoned(8, 7)
        run(path, scan_fn, x, y, MODE=mode)
        assert np.array_equal(y, want, equal_nan=True), mode


@tc.kernel
def bad_combine(X, Y):
    for _p in tc.parallel(1):
        t = X.tile((0, 0), (4, 4)).load()
        f = lambda a, b: a * 0.5 + b  # noqa: E731
        Y.tile((0, 0), (4, 4)).store(tc.associative_scan(f, t, axis=1))  # err


@tc.kernel
def bad_axis(X, Y):
    for _p in tc.parallel(1):
        t = X.tile((0, 0), (4, 4)).load()
        Y.tile((0, 0), (4, 4)).store(tc.cumsum(t, axis=2))  # err


@tc.kernel
def bad_bool(X, Y):
    for _p in tc.parallel(1):
        t = X.tile((0, 0), (4, 4)).load()
        Y.tile((0, 0), (4, 4)).store(tc.cumsum(t > 0.0))  # err


@tc.kernel
def bad_policy(X, Y):
    for _p in tc.parallel(1):
        t = X.tile((0, 0), (4, 4)).load()
        Y.tile((0, 0), (4, 4)).store(tc.cumsum(t, policy="sorted"))  # err


@pytest.mark.parametrize("kernel,needle,message", [
    (bad_combine, "tc.associative_scan(", "regroups only a recognized combine"),
    (bad_axis, "2", "axis 2 is out of range"),
    (bad_bool, "tc.cumsum(", "bool tile"),
    (bad_policy, '"sorted"', "policy must be one of"),
])
def test_bad_scans_are_located_errors(kernel: Any, needle: str, message: str) -> None:
    x = np.zeros((4, 4), np.float32)
    with pytest.raises(tc.TileSyntaxError) as e:
        tc.interpret(kernel, x, np.zeros((4, 4), np.float32))
    assert_located(e.value, kernel, needle, [message])


@pytest.mark.parametrize("target", CUDA_TARGETS)
def test_the_cuda_source_of_a_scan(target: str) -> None:
    x = np.zeros((8, 7), np.float32)
    src = cuda_source(cumsum2, x, x, target=target)
    assert "__global__" in src.text


@tc.kernel
def scan_under_subgroups(X0, Y0):
    for p0, p1 in tc.parallel(2, 4):
        acc2 = X0.tile((p0 * 8 - 5, 0), (8, 8), fill=float("inf")).load()
        for i3 in tc.parallel(3, level="subgroup"):
            v = tc.cumsum(tc.full((24,), 1.0, tc.float32), axis=0).reshape(3, 8)
            acc2 = tc.update(acc2, (i3 * 3, 0), v)
        Y0.tile((p0 * 8, p1 * 8), (8, 8)).store(acc2)


@pytest.mark.parametrize("path", PATHS)
def test_a_replicated_scan_under_subgroup_parallelism(path: str) -> None:
    """Found by the fuzzer (the scan family's first campaign, seed 11): the GPU lowering
    moves the scan's replicated reshape through scratch memory, and no owner-thread
    predicate of the power-of-two form fitted its layout (24 elements held by the first six
    of 32 threads), a ``LoweringBug``; ``ir.dist_layout.owner_predicate`` now takes any
    prefix of the owners."""
    x = np.zeros((32, 32), np.float32)
    want = poisoned(32, 32)
    tc.interpret(scan_under_subgroups, x, want)
    y = poisoned(32, 32)
    run(path, scan_under_subgroups, x, y)
    assert np.array_equal(y, want, equal_nan=True)
