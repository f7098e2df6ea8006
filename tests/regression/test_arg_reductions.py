"""Issue 16 (DSL breadth): ``tc.argmax``/``tc.argmin`` (and the methods) and ``x.prod(axis)``.

``argmax``/``argmin`` give the ``i32`` position of the first largest (smallest) element,
a NaN counting as larger (smaller) than every number, as numpy does; -0.0 and +0.0 tie. They
are one ``reduce`` of the tile and an ``iota`` of its positions whose update is the pair merge
of ``ir/reductions.py``, so a GPU regroups them over lanes (shuffles) and subgroups (shared
memory) and still finds the first index. Every path is compared with numpy on outputs
poisoned first, with ties, NaNs, signed zeros, infinities, negative numbers, ragged windows
(padded with a fill that never wins), each axis, the whole tile, and integer types; the team
sizes are chosen so the GPU lowering uses each row strategy. The CUDA source is checked to
shuffle, and compiled by NVRTC where it is present; the MSL is type-checked by libclang. The
GPU run is ``tests/device/test_cuda_arg_reductions.py``.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from paths import (
    CUBIN_ARCHS,
    CUDA_TARGETS,
    PATHS,
    assert_located,
    cubin,
    cuda_source,
    needs_nvrtc,
    poisoned,
    run,
)
from tilec.lower import lower_to_scheduled
from tilec.targets.metal.check import check_msl, checker_unavailable

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(np.float32), np.dtype(np.float16), BF16, np.dtype(np.int32),
          np.dtype(np.int8)]
"""Element types of the row kernels (floats with NaNs and signed zeros, integers)."""


def _name(dt: Any) -> str:
    return np.dtype(dt).name


def _is_float(dt: Any) -> bool:
    return np.dtype(dt).kind == "f" or np.dtype(dt) == BF16


def extremes(dt: Any) -> tuple[Any, Any]:
    """The fills that never win an argmax (the lowest value) and an argmin (the highest)."""
    if _is_float(dt):
        return float("-inf"), float("inf")
    info = np.iinfo(dt)
    return int(info.min), int(info.max)


def data(dt: Any, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Few distinct values (many ties), negative numbers, and for floats NaNs, -0.0 beside
    +0.0 and infinities; integers include their extremes."""
    rng = np.random.default_rng(seed)
    if not _is_float(dt):
        lo, hi = extremes(dt)
        return rng.choice(np.array([lo, -5, -1, 0, 3, 3, 9, hi]), size=shape).astype(dt)
    pool = np.array([-3.5, -1.0, -0.0, 0.0, 0.5, 2.0, 7.25, np.inf, -np.inf])
    weights = np.array([3, 3, 4, 4, 2, 3, 1, 0.2, 0.2])
    x = rng.choice(pool, size=shape, p=weights / weights.sum())
    nan = rng.random(shape) < 4.0 / shape[-1]  # a few NaNs in every third row (along axis -2)
    nan[..., 1::3, :] = False
    nan[..., 2::3, :] = False
    x[nan] = np.nan
    return x.astype(np.float32).astype(dt)


def padded(x: np.ndarray, shape: tuple[int, ...], fill: Any) -> np.ndarray:
    """``x`` in the top corner of a ``shape`` array of ``fill`` (what a bounded window reads),
    as float64 or int64 for numpy's argmax (every value is exact there)."""
    wide = np.float64 if _is_float(x.dtype) else np.int64
    out = np.full(shape, fill, wide)
    out[tuple(slice(0, e) for e in x.shape)] = x.astype(wide)
    return out


# --------------------------------------------------------------------------- kernels


@tc.kernel
def row_args(X, Amax, Amin, LO: tc.constexpr, HI: tc.constexpr, BM: tc.constexpr = 8,
             BN: tc.constexpr = 64):
    """Along the last axis: a ragged grid of row blocks, each window padded past the
    array's columns with a fill that loses every comparison (and every tie: it comes last)."""
    for p in tc.parallel(tc.cdiv(X.shape[0], BM)):
        a = X.tile((p * BM, 0), (BM, BN), fill=LO)
        b = X.tile((p * BM, 0), (BM, BN), fill=HI)
        Amax.tile((p * BM,), (BM,)).store(tc.argmax(a, 1))
        Amin.tile((p * BM,), (BM,)).store(b.argmin(axis=-1))


@tc.kernel
def col_args(X, Amax, Amin, LO: tc.constexpr, HI: tc.constexpr, BM: tc.constexpr = 16,
             BN: tc.constexpr = 8):
    """Along the first axis (every row of the array in one window), keepdims and the method."""
    for p in tc.parallel(tc.cdiv(X.shape[1], BN)):
        a = X.tile((0, p * BN), (BM, BN), fill=LO)
        b = X.tile((0, p * BN), (BM, BN), fill=HI)
        Amax.tile((0, p * BN), (1, BN)).store(tc.argmax(a, 0, keepdims=True))
        Amin.tile((p * BN,), (BN,)).store(b.argmin(0))


@tc.kernel
def cube_args(X, Mid, Flat, Low, LO: tc.constexpr, HI: tc.constexpr):
    """A rank-3 window: along the middle axis, and over the whole tile (the row-major
    position), as a rank-0 tile and with keepdims."""
    for _p in tc.parallel(1):
        a = X.tile((0, 0, 0), (2, 8, 4), fill=LO)
        b = X.tile((0, 0, 0), (2, 8, 4), fill=HI)
        Mid.tile((0, 0), (2, 4)).store(a.argmax(1))
        Flat.tile((0,), (1,)).store(tc.argmax(a))
        Low.tile((0, 0, 0), (1, 1, 1)).store(tc.argmin(b, keepdims=True))


@tc.kernel
def row_prod(X, P, Q, BM: tc.constexpr = 4, BN: tc.constexpr = 32):
    """``x.prod(axis)`` along each axis of a ragged window padded with ones."""
    for p in tc.parallel(tc.cdiv(X.shape[0], BM)):
        x = X.tile((p * BM, 0), (BM, BN), fill=1)
        P.tile((p * BM,), (BM,)).store(x.prod(1))
        Q.tile((p, 0), (1, BN)).store(x.prod(0)[None, :])


ROW_SHAPES = {"lane": (64, 4, 100, 3), "warp_shuffle": (8, 64, 13, 50),
              "shared": (2, 1024, 3, 1000)}
"""Row strategy -> (BM, BN, rows, columns) of ``row_args`` that the GPU lowering realizes
with it: one thread per row, a subgroup team (shuffles), teams of several subgroups."""


def _row_case(strategy: str, dt: Any, seed: int) -> tuple[list[np.ndarray], dict[str, Any]]:
    bm, bn, m, n = ROW_SHAPES[strategy]
    lo, hi = extremes(dt)
    x = data(dt, (m, n), seed)
    return [x, poisoned(m, dtype=np.int32), poisoned(m, dtype=np.int32)], \
        {"LO": lo, "HI": hi, "BM": bm, "BN": bn}


def want_rows(x: np.ndarray, bn: int) -> tuple[np.ndarray, np.ndarray]:
    """numpy's answers for ``row_args`` with windows ``bn`` wide."""
    lo, hi = extremes(x.dtype)
    m = x.shape[0]
    return (padded(x, (m, bn), lo).argmax(1).astype(np.int32),
            padded(x, (m, bn), hi).argmin(1).astype(np.int32))


# ----------------------------------------------------------------------------- paths


@pytest.mark.parametrize("dt", DTYPES, ids=_name)
@pytest.mark.parametrize("strategy", sorted(ROW_SHAPES))
@pytest.mark.parametrize("path", PATHS)
def test_row_args_on_every_path(path: str, strategy: str, dt: Any) -> None:
    args, consts = _row_case(strategy, dt, seed=len(strategy) + DTYPES.index(dt))
    run(path, row_args, *args, **consts)
    big, small = want_rows(args[0], consts["BN"])
    np.testing.assert_array_equal(args[1], big)
    np.testing.assert_array_equal(args[2], small)


def col_case(dt: Any) -> tuple[list[np.ndarray], dict[str, Any]]:
    """``col_args`` on a 13 x 21 array (windows of 16 rows) and its constexprs."""
    lo, hi = extremes(dt)
    return [data(dt, (13, 21), 7), poisoned(1, 21, dtype=np.int32),
            poisoned(21, dtype=np.int32)], {"LO": lo, "HI": hi}


def check_cols(x: np.ndarray, amax: np.ndarray, amin: np.ndarray) -> None:
    """``col_args``'s outputs are numpy's."""
    lo, hi = extremes(x.dtype)
    np.testing.assert_array_equal(amax[0], padded(x, (16, 21), lo).argmax(0))
    np.testing.assert_array_equal(amin, padded(x, (16, 21), hi).argmin(0))


def cube_case(dt: Any) -> tuple[list[np.ndarray], dict[str, Any]]:
    """``cube_args`` on a 2 x 7 x 3 array (a 2 x 8 x 4 window) and its constexprs."""
    lo, hi = extremes(dt)
    return [data(dt, (2, 7, 3), 11), poisoned(2, 4, dtype=np.int32),
            poisoned(1, dtype=np.int32), poisoned(1, 1, 1, dtype=np.int32)], \
        {"LO": lo, "HI": hi}


def check_cube(x: np.ndarray, mid: np.ndarray, flat: np.ndarray, low: np.ndarray) -> None:
    """``cube_args``'s outputs are numpy's."""
    lo, hi = extremes(x.dtype)
    a, b = padded(x, (2, 8, 4), lo), padded(x, (2, 8, 4), hi)
    np.testing.assert_array_equal(mid, a.argmax(1))
    assert flat[0] == a.argmax() and low[0, 0, 0] == b.argmin()


def prod_case(dt: Any) -> list[np.ndarray]:
    """``row_prod`` on products of +-1, +-2, +-0.0 (and NaN, inf, 0.5 for floats): exact in
    every grouping, so every path matches numpy bit for bit (integers wrap alike)."""
    pool = [1, -1, 2, -2, 1, 1, -1, 0] if not _is_float(dt) else \
        [1.0, -1.0, 2.0, -2.0, 0.5, -0.0, 1.0, -1.0, np.nan, np.inf]
    x = np.random.default_rng(5).choice(np.array(pool, float), size=(10, 29)).astype(dt)
    return [x, poisoned(10, dtype=dt), poisoned(3, 32, dtype=dt)]


def check_prod(x: np.ndarray, p: np.ndarray, q: np.ndarray) -> None:
    """``row_prod``'s outputs are numpy's (the window pads with ones)."""
    pad = np.ones((12, 32), x.dtype)
    pad[:10, :29] = x
    with np.errstate(invalid="ignore"):  # inf * 0
        want_p = pad[:10].prod(1, dtype=x.dtype)
        want_q = pad.reshape(3, 4, 32).prod(1, dtype=x.dtype)
    np.testing.assert_array_equal(p, want_p)
    np.testing.assert_array_equal(q, want_q)


@tc.kernel
def two_pools(X, C, Y):
    """The fuzzer's race (seed 16, program 389): an i32 reduction in shared memory, then two
    arg-reductions along axis 0, whose values (bf16) and positions (i32) go to two scratch
    pools; the barrier the positions' store needed once cleared the record of the values'
    reads, so the second reduction overwrote values the first was still reading."""
    for p in tc.parallel(2):
        s = tc.sum(X.tile((p * 5, 0, 0), (5, 4, 8), fill=-1).load(), axis=1, policy="strict_fold")
        c = C.tile((0, 0, 0), (2, 5, 8)).load()
        Y.tile((p * 5, 0), (5, 8)).store(s + tc.argmax(c, axis=0) * tc.argmin(c * 2.0, axis=0))


def pools_case() -> list[np.ndarray]:
    """``two_pools``'s arguments."""
    x = np.arange(10 * 4 * 8, dtype=np.int32).reshape(10, 4, 8) % 7 - 3
    return [x, data(BF16, (2, 5, 8), 3), poisoned(10, 8, dtype=np.int32)]


def check_pools(x: np.ndarray, c: np.ndarray, y: np.ndarray) -> None:
    """``two_pools``'s output is numpy's."""
    wide = c.astype(np.float64)
    want = x.sum(1) + np.tile(wide.argmax(0) * (wide * 2).argmin(0), (2, 1))
    np.testing.assert_array_equal(y, want.astype(np.int32))


@pytest.mark.parametrize("dt", [np.dtype(np.float32), np.dtype(np.int16)], ids=_name)
@pytest.mark.parametrize("path", PATHS)
def test_col_args_on_every_path(path: str, dt: Any) -> None:
    args, consts = col_case(dt)
    run(path, col_args, *args, **consts)
    check_cols(*args)


@pytest.mark.parametrize("dt", [np.dtype(np.float32), np.dtype(np.int64)], ids=_name)
@pytest.mark.parametrize("path", PATHS)
def test_cube_args_on_every_path(path: str, dt: Any) -> None:
    args, consts = cube_case(dt)
    run(path, cube_args, *args, **consts)
    check_cube(*args)


@pytest.mark.parametrize("path", PATHS)
def test_a_nan_wins_and_ties_take_the_first_index(path: str) -> None:
    """The rules, row by row: the first of several NaNs, the first of equal maxima, -0.0
    before +0.0 (they tie), -inf rows, and a NaN after the maximum."""
    nan, inf = np.nan, np.inf
    rows = [[1.0, nan, 3.0, nan, -2.0], [2.0, 5.0, 5.0, -1.0, 5.0],
            [-0.0, 0.0, -0.0, 0.0, -1.0], [-1.0, -0.0, 0.0, -0.0, -1.0],
            [-inf, -inf, -inf, -inf, -inf], [9.0, 1.0, 1.0, nan, 9.0],
            [inf, 2.0, nan, inf, -inf], [-5.0, -4.0, -5.0, -4.0, -3.0]]
    x = np.array(rows, np.float32)
    args = [x, poisoned(8, dtype=np.int32), poisoned(8, dtype=np.int32)]
    run(path, row_args, *args, LO=-inf, HI=inf, BM=8, BN=8)
    np.testing.assert_array_equal(args[1], [1, 1, 0, 1, 0, 3, 2, 4])
    np.testing.assert_array_equal(args[2], [1, 3, 4, 0, 0, 3, 2, 0])
    np.testing.assert_array_equal(args[1], x.argmax(1))  # numpy's rules
    np.testing.assert_array_equal(args[2], x.argmin(1))


@pytest.mark.parametrize("dt", [np.dtype(np.float32), np.dtype(np.int32)], ids=_name)
@pytest.mark.parametrize("path", PATHS)
def test_prod_method_along_each_axis(path: str, dt: Any) -> None:
    args = prod_case(dt)
    run(path, row_prod, *args)
    check_prod(*args)


@pytest.mark.parametrize("path", PATHS)
def test_arg_reductions_through_two_scratch_pools(path: str) -> None:
    args = pools_case()
    run(path, two_pools, *args)
    check_pools(*args)


# ----------------------------------------------------------------- GPU realizations


def _strategies(kernel: Any, args: list[Any], consts: dict[str, Any]) -> set[str]:
    module = tc.compile(kernel, *args, target="reference", **consts).module
    scheduled = lower_to_scheduled(module, "cuda:sm_90")
    return {op.attr("strategy") for op in scheduled.walk() if op.name == "reduce"}


@pytest.mark.parametrize("strategy", sorted(ROW_SHAPES))
def test_each_row_shape_takes_its_strategy(strategy: str) -> None:
    args, consts = _row_case(strategy, np.float32, 0)
    assert _strategies(row_args, args, consts) == {strategy}


def test_other_axes_fold_in_shared_memory() -> None:
    assert _strategies(col_args, *col_case(np.float32)) == {"serial"}


@pytest.mark.parametrize("target", CUDA_TARGETS)
def test_cuda_shuffles_value_and_index_together(target: str) -> None:
    args, consts = _row_case("warp_shuffle", np.float32, 0)
    text = cuda_source(row_args, *args, target=target, **consts).text
    body = text[text.index("__global__"):]
    assert "(float)__shfl_xor_sync(" in body and "(int32_t)__shfl_xor_sync(" in body


@needs_nvrtc
@pytest.mark.parametrize("dt", [np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.int8)],
                         ids=_name)
@pytest.mark.parametrize("strategy", sorted(ROW_SHAPES))
@pytest.mark.parametrize(("target", "arch"), CUBIN_ARCHS)
def test_cuda_compiles(target: str, arch: str, strategy: str, dt: Any) -> None:
    args, consts = _row_case(strategy, dt, 0)
    cubin(cuda_source(row_args, *args, target=target, **consts), arch)


@needs_nvrtc
def test_cuda_compiles_the_other_kernels() -> None:
    for kernel, (args, consts) in ((col_args, col_case(np.float32)),
                                   (cube_args, cube_case(np.float32)),
                                   (row_prod, (prod_case(np.float32), {})),
                                   (two_pools, (pools_case(), {}))):
        cubin(cuda_source(kernel, *args, **consts), "sm_90")


@pytest.mark.skipif(checker_unavailable() is not None, reason=str(checker_unavailable()))
@pytest.mark.parametrize("strategy", sorted(ROW_SHAPES))
def test_metal_source_type_checks(strategy: str) -> None:
    args, consts = _row_case(strategy, np.float32, 0)
    exe = tc.compile(row_args, *args, target="metal:m1", **consts).executable()
    check_msl(exe.source, exe.metal.buffer.origin_of_line, exe.metal.kernel)


# ------------------------------------------------------------------------- bad input


@tc.kernel
def bool_arg(X, Y):
    for _p in tc.parallel(1):
        m = X.tile((0, 0), (4, 8)) > 0.0
        Y.tile((0,), (4,)).store(tc.argmax(m, 1))  # err


@tc.kernel
def axis_out_of_range(X, Y):
    for _p in tc.parallel(1):
        x = X.tile((0, 0), (4, 8))
        Y.tile((0,), (4,)).store(x.argmin(axis=2))  # err


@tc.kernel
def two_axes(X, Y):
    for _p in tc.parallel(1):
        x = X.tile((0, 0), (4, 8))
        Y.tile((0,), (1,)).store(tc.argmax(x, (0, 1)))  # err


@tc.kernel
def rank0(X, Y):
    for _p in tc.parallel(1):
        t = X.tile((0, 0), (1, 8)).max(axis=None)
        Y.tile((0,), (1,)).store(tc.argmax(t))  # err


@pytest.mark.parametrize(("kernel", "needle", "fragments"), [
    (bool_arg, "tc.argmax", ["argmax() of a bool tile is not supported", "x.to(tc.int8)"]),
    (axis_out_of_range, "2", ["axis 2 is out of range for a rank-2 tile"]),
    (two_axes, "tc.argmax", ["argmax() takes one axis (an int) or None"]),
    (rank0, "tc.argmax", ["argmax() of a rank-0 tile"]),
], ids=["bool", "axis", "two_axes", "rank0"])
def test_bad_input_is_located(kernel: Any, needle: str, fragments: list[str]) -> None:
    with pytest.raises(tc.TileSyntaxError) as info:
        tc.compile(kernel, np.zeros((4, 8), np.float32), np.zeros(4, np.int32),
                   target="reference")
    assert_located(info.value, kernel, needle, fragments)
