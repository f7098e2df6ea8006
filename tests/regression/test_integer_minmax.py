"""CUDA integer max/min select through PTX that ptxas does not fuse.

The GPU fuzz campaign found ``tc.max(-X.tile(...), axis=1)`` on i32 wrong on the H200
(11 of 51 elements): ptxas of CUDA 13.0 turned the reduction tree
``max(max(-a, -b), max(-c, -d))`` into one two-input and one three-input VIMNMX3 and
dropped the negation of one VIMNMX3 operand. The PTX NVVM wrote was right; ``ptxas -O0``
and no vector loads hid it. The CUDA emitter now writes integer max/min of 32 bits and
narrower as ``tc_imax_*``/``tc_imin_*`` (``setp``/``selp`` in inline PTX), which ptxas does
not fuse. Here: every path computes the kernels right, and the CUDA source uses the
helpers (and NVRTC compiles it where NVRTC is present). The GPU run is
``tests/device/test_cuda_integer_minmax.py``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tilec as tc
from paths import PATHS, cubin, cuda_source, needs_nvrtc, poisoned, run

DTYPES = [np.int8, np.int16, np.int32, np.int64]


@tc.kernel
def negated_row_max(X, Y, BM: tc.constexpr = 8, BN: tc.constexpr = 8):
    """The fuzzer's kernel: a ragged, negative-origin window, negated, max over rows."""
    for p0, p1 in tc.parallel(tc.cdiv(Y.shape[0], BM), Y.shape[1]):
        x = X.tile((p0 * BM - 7, p1 * BN), (BM, BN), fill=0)
        Y.tile((p0 * BM, p1), (BM, 1)).store(
            tc.max(-x, axis=1, keepdims=True, policy="unordered_tree"))


@tc.kernel
def negated_minmax(X, Y):
    """Elementwise and reduced max/min of negated and offset values, both signs."""
    for i in tc.parallel(tc.cdiv(Y.shape[0], 16)):
        x = X.tile((i * 16, 0), (16, 8), fill=0)
        a = tc.maximum(-x, x - 3)
        b = tc.minimum(-x, 5 - x)
        Y.tile((i * 16, 0), (16, 1)).store(
            tc.max(-a, axis=1, keepdims=True) + tc.min(-b, axis=1, keepdims=True))


def _data(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    hi = 20 if dtype is np.int8 else 1000
    return rng.integers(-hi, hi, shape).astype(dtype)


def _want_row_max(x: np.ndarray, rows: int, cols: int) -> np.ndarray:
    w = x.astype(np.int64)
    out = np.empty((rows, cols), np.int64)
    for r in range(rows):
        src = r - 7  # row p0 * BM + k reads window row p0 * BM - 7 + k
        for c in range(cols):
            win = np.zeros(8, np.int64)
            if 0 <= src < w.shape[0]:
                seg = w[src, c * 8:c * 8 + 8]
                win[:seg.size] = seg
            out[r, c] = (-win).max()
    return out


def _want_minmax(x: np.ndarray, rows: int) -> np.ndarray:
    w = np.zeros((rows + 16, 8), np.int64)
    w[:x.shape[0], :min(8, x.shape[1])] = x[:, :8]
    a = np.maximum(-w, w - 3)
    b = np.minimum(-w, 5 - w)
    return ((-a).max(axis=1) + (-b).min(axis=1))[:rows, None]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("path", PATHS)
def test_negated_row_max_on_every_path(path: str, dtype) -> None:
    x = _data(dtype, (18, 30), 3)
    y = poisoned(17, 3, dtype=dtype)
    run(path, negated_row_max, x, y)
    np.testing.assert_array_equal(y, _want_row_max(x, 17, 3).astype(dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("path", PATHS)
def test_negated_minmax_on_every_path(path: str, dtype) -> None:
    x = _data(dtype, (37, 8), 4)
    y = poisoned(37, 1, dtype=dtype)
    run(path, negated_minmax, x, y)
    np.testing.assert_array_equal(y, _want_minmax(x, 37).astype(dtype))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32], ids=lambda d: np.dtype(d).name)
def test_cuda_selects_narrow_integers_through_the_helpers(dtype) -> None:
    x = _data(dtype, (18, 30), 3)
    src = cuda_source(negated_row_max, x, poisoned(17, 3, dtype=dtype))
    body = src.text[src.text.index("__global__"):]
    name = np.dtype(dtype).name.replace("int", "i")
    assert f"tc_imax_{name}(" in body
    # no integer max left as a C conditional (which NVVM turns into max.s32)
    ctype = f"{np.dtype(dtype).name}_t"
    assert not re.search(rf"const {ctype} \w+ = \(\w+(\[\d+\])? > \w+(\[\d+\])? \?", body), body


@needs_nvrtc
def test_the_helpers_compile() -> None:
    x = _data(np.int32, (37, 8), 4)
    src = cuda_source(negated_minmax, x, poisoned(37, 1, dtype=np.int32))
    assert "tc_imin_i32(" in src.text and "tc_imax_i32(" in src.text
    cubin(src, "sm_90")
