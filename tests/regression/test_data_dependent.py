"""Issue 16: data-dependent addressing (seed 001: "gather is a load whose index map is a
value; scatter is an indexed store or atomic").

* ``M[i, j]`` (one integer per axis) reads one element of memory as a scalar: a window
  origin (varlen rows from ``cu_seqlens``, a paged lookup through a block table), a loop
  bound (zero-trip loops included) and a runtime ``if`` condition;
* ``tc.gather(M, idx, axis, fill=)`` reads each element at its own coordinates with the
  one along ``axis`` from ``idx`` (an embedding lookup);
* ``tc.scatter`` / ``tc.scatter_add`` write (add) at those coordinates.

Every address computed from data is bounded: an index far out of range or negative
reads the fill and writes nothing, so no path reads or writes outside an array (checked
on guard rows around the arrays). Outputs start poisoned; every path must equal the
reference, which must equal numpy. The GPU run is
``tests/device/test_cuda_data_dependent.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import (
    CUBIN_ARCHS,
    PATHS,
    assert_located,
    cubin,
    cuda_source,
    needs_nvrtc,
    one_error,
    poisoned,
    run,
)
from tilec.targets.metal.check import check_msl, checker_unavailable

# ----------------------------------------------------------------------------- kernels


@tc.kernel
def rows_at(X, L, Y):
    """``Y[b] = X[L[b]]`` through a window whose origin is read from memory."""
    B = Y.shape[0]
    for b in tc.parallel(B):
        o = L[b]
        Y.tile((b, 0), (1, 8)).store(X.tile((o, 0), (1, 8), fill=-1.0))


@tc.kernel
def varlen_rowsum(X, CU, Out, BN: tc.constexpr = 4):
    """``Out[b]`` = the sum of rows ``CU[b]:CU[b+1]`` of ``X`` (a varlen batch) in blocks of
    ``BN`` rows: a loop bound read from memory; an empty sequence runs no iteration and
    stores nothing (a runtime ``if`` on a value read from memory)."""
    B = Out.shape[0]
    for b in tc.parallel(B):
        start = CU[b]
        n = CU[b + 1] - start
        acc = tc.zeros((1, 8), tc.float32)
        for j in tc.serial(tc.cdiv(n, BN)):
            rows = X.tile((start + j * BN, 0), (BN, 8), fill=0.0)
            r = tc.arange(BN)[:, None] + j * BN
            acc = acc + tc.where(r < n, rows, 0.0).sum(0)[None, :]
        if n > 0:
            Out.tile((b, 0), (1, 8)).store(acc)


@tc.kernel
def paged(K, BT, Out, PS: tc.constexpr = 4, D: tc.constexpr = 8):
    """``Out[b, j*PS:(j+1)*PS] = K[BT[b, j]]``: pages of a KV cache through a block table."""
    B, NB = BT.shape
    for b, j in tc.parallel(B, NB):
        page = BT[b, j]
        Out.tile((b, j * PS, 0), (1, PS, D)).store(K.tile((page, 0, 0), (1, PS, D), fill=0.0))


@tc.kernel
def paged_matmul(A, B, BT, C, BM: tc.constexpr = 16, BN: tc.constexpr = 16,
                 BK: tc.constexpr = 16):
    """``C = A' @ B`` where K-block ``k`` of ``A'`` is block ``BT[k]`` of ``A``'s columns: a
    pipelined matrix loop whose window origin is read from memory in each iteration."""
    M, N = C.shape
    K = B.shape[0]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for kk in tc.pipeline(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, BT[kk] * BK), (BM, BK), fill=0.0)
            b = B.tile((kk * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def embed(E, ids, Out, BT: tc.constexpr = 8, D: tc.constexpr = 16):
    """An embedding lookup: ``Out[t] = E[ids[t]]``, zeros for an id outside ``E``."""
    T = ids.shape[0]
    for p in tc.parallel(tc.cdiv(T, BT)):
        t = ids.tile((p * BT,), (BT,), fill=-1)
        rows = tc.gather(E, tc.broadcast(t[:, None], (BT, D)), axis=0)
        Out.tile((p * BT, 0), (BT, D)).store(rows)


@tc.kernel
def gather_cols(X, Ix, Out):
    """``torch.gather(X, 1, Ix)`` on a window: ``Out[i, j] = X[i, Ix[i, j]]``; -5 outside the
    window ``X[:, 2:6]``."""
    for _p in tc.parallel(1):
        w = X.tile((0, 2), (4, 4))
        Out.tile((0, 0), (4, 6)).store(tc.gather(w, Ix.tile((0, 0), (4, 6)), 1, fill=-5))


@tc.kernel
def scatter_rows(Out, ids, V, BT: tc.constexpr = 8, D: tc.constexpr = 16):
    """``Out[ids[t]] = V[t]``; ids outside ``Out`` write nothing."""
    T = ids.shape[0]
    for p in tc.parallel(tc.cdiv(T, BT)):
        t = ids.tile((p * BT,), (BT,), fill=-1)
        tc.scatter(Out, tc.broadcast(t[:, None], (BT, D)), 0, V.tile((p * BT, 0), (BT, D)))


@tc.kernel
def histogram(Hist, ids, BT: tc.constexpr = 8):
    """``Hist[ids[t]] += 1`` (repeated ids included; ids outside ``Hist`` count nothing)."""
    T = ids.shape[0]
    for p in tc.parallel(tc.cdiv(T, BT)):
        t = ids.tile((p * BT,), (BT,), fill=-1)
        tc.scatter_add(Hist, t, 0, 1)


@tc.kernel
def embed_rows(E, ids, Out, BT: tc.constexpr = 8, D: tc.constexpr = 4):
    """``Out[t] = E[ids[t]]`` with ids of any integer type (no fill: whole tiles of ids)."""
    T = ids.shape[0]
    for p in tc.parallel(tc.cdiv(T, BT)):
        t = ids.tile((p * BT,), (BT,))
        Out.tile((p * BT, 0), (BT, D)).store(tc.gather(E, tc.broadcast(t[:, None], (BT, D)), 0))


@tc.kernel
def scatter_ids(Out, ids, V, BT: tc.constexpr = 8, D: tc.constexpr = 4):
    """``Out[ids[t]] = V[t]`` with ids of any integer type."""
    T = ids.shape[0]
    for p in tc.parallel(tc.cdiv(T, BT)):
        t = ids.tile((p * BT,), (BT,))
        tc.scatter(Out, tc.broadcast(t[:, None], (BT, D)), 0, V.tile((p * BT, 0), (BT, D)))


@tc.kernel
def scalar_uses(X, L, Out):
    """A scalar read as a value (stored), in index arithmetic, outside the array (0), of a
    float, and as a runtime ``if`` condition."""
    for b in tc.parallel(4):
        Out.tile((b, 0), (1, 1)).store(L[b, 1] * 10 + L[b, 0])
        Out.tile((b, 1), (1, 1)).store(L[b, 2])      # outside L: 0
        Out.tile((b, 2), (1, 1)).store(X[L[b, 0] + 1] * 1)
        Out.tile((b, 3), (1, 1)).store(L[b + 3, 0])  # outside L from row 3 on: 0
        if L[b, 1] > 3:
            Out.tile((b, 4), (1, 1)).store(X[0])


# ------------------------------------------------------------------------------ data

RNG = np.random.default_rng(16)
BAD = [-1, -(2 ** 31), 2 ** 31 - 1, 1_000_000]
"""Indices far out of range, and negative."""


def _rows_at_case() -> tuple[list[Any], int, np.ndarray]:
    X = np.arange(80, dtype=np.float32).reshape(10, 8)
    L = np.array([3, -1, 9, 10, 0] + BAD, np.int32)
    Y = np.stack([X[i] if 0 <= i < 10 else np.full(8, -1.0, np.float32) for i in L])
    return [X, L, poisoned(len(L), 8)], -1, Y


def _varlen_case() -> tuple[list[Any], int, np.ndarray]:
    X = RNG.integers(-8, 9, (23, 8)).astype(np.float32)  # exact sums in any order
    CU = np.array([0, 3, 3, 10, 10, 23], np.int32)  # two empty sequences
    out = poisoned(5, 8)
    for b in range(5):
        if CU[b + 1] > CU[b]:
            out[b] = X[CU[b]:CU[b + 1]].sum(0)
    return [X, CU, poisoned(5, 8)], -1, out


def _paged_case() -> tuple[list[Any], int, np.ndarray]:
    K = RNG.standard_normal((6, 4, 8)).astype(np.float32)
    BT = np.array([[5, 0, 2], [1, 1, -3], [4, 99, 3]], np.int32)
    out = np.zeros((3, 12, 8), np.float32)
    for b in range(3):
        for j in range(3):
            if 0 <= BT[b, j] < 6:
                out[b, 4 * j:4 * j + 4] = K[BT[b, j]]
    return [K, BT, poisoned(3, 12, 8)], -1, out


def _paged_matmul_case() -> tuple[list[Any], int, np.ndarray]:
    A = RNG.integers(-3, 4, (32, 64)).astype(np.float32)  # exact products and sums
    B = RNG.integers(-3, 4, (64, 32)).astype(np.float32)
    BT = np.array([3, 0, -2, 1], np.int32)  # a block outside A reads zeros
    Ap = np.concatenate([A[:, 16 * k:16 * k + 16] if 0 <= k < 4 else np.zeros((32, 16),
                                                                              np.float32)
                         for k in BT], axis=1)
    return [A, B, BT, poisoned(32, 32)], -1, Ap @ B


def _embed_case() -> tuple[list[Any], int, np.ndarray]:
    E = RNG.standard_normal((10, 16)).astype(np.float32)
    ids = np.array([3, 0, 9, 10, 2, 4, 4, 7, 1] + BAD, np.int32)
    out = np.stack([E[i] if 0 <= i < 10 else np.zeros(16, np.float32) for i in ids])
    return [E, ids, poisoned(len(ids), 16)], -1, out


def _gather_cols_case() -> tuple[list[Any], int, np.ndarray]:
    X = np.arange(40, dtype=np.int32).reshape(4, 10)
    Ix = np.array([[0, 3, 1, 4, -1, 2], [2, 2, 2, 2, 2, 2], [3, 9, -7, 0, 1, 1],
                  [1, 0, 3, 2, 8, 4]], np.int64)
    out = np.where((Ix >= 0) & (Ix < 4), np.take_along_axis(X[:, 2:6], np.clip(Ix, 0, 3), 1), -5)
    return [X, Ix, poisoned(4, 6, dtype=np.int32)], -1, out.astype(np.int32)


def _scatter_case() -> tuple[list[Any], int, np.ndarray]:
    ids = np.array([3, 0, 9, 10, 2, 6, 5, 7, 1] + BAD, np.int32)  # distinct where valid
    V = RNG.standard_normal((len(ids), 16)).astype(np.float32)
    out = poisoned(10, 16)
    for t, i in enumerate(ids):
        if 0 <= i < 10:
            out[i] = V[t]
    return [poisoned(10, 16), ids, V], 0, out


def _histogram_case() -> tuple[list[Any], int, np.ndarray]:
    ids = np.array([3, 0, 3, 3, 12, 2, 0, 7, 11, 11] + BAD, np.int32)
    hist = np.zeros(12, np.int32)
    for i in ids:
        if 0 <= i < 12:
            hist[i] += 1
    return [np.zeros(12, np.int32), ids], 0, hist


def _scalar_uses_case() -> tuple[list[Any], int, np.ndarray]:
    X = np.arange(10, dtype=np.float32) * 0.5 + 1
    L = np.array([[0, 1], [3, 4], [8, -2], [-1, 7], [2, 2], [5, 5]], np.int32)
    out = poisoned(4, 5)
    for b in range(4):
        out[b, 0] = L[b, 1] * 10 + L[b, 0]
        out[b, 1] = 0
        i = L[b, 0] + 1
        out[b, 2] = X[i] if 0 <= i < 10 else 0.0
        out[b, 3] = L[b + 3, 0] if b + 3 < 6 else 0
        if L[b, 1] > 3:
            out[b, 4] = X[0]
    return [X, L, poisoned(4, 5)], -1, out


UNSIGNED_IDS = {np.uint8: [200, 255, 128], np.uint16: [40000, 65535, 32768],
                np.uint32: [2 ** 31, 2 ** 32 - 1, 2 ** 31 + 5]}
"""Unsigned indices with the top bit set: zero-extended, the u8 and u16 ones lie inside an
array of 210 or 40010 rows (sign-extended they would be negative and read the fill); the
u32 ones lie far outside."""


def _unsigned_ids(dt: Any) -> tuple[np.ndarray, int]:
    """Ids of type ``dt`` (8 of them, three with the top bit set) and a row count that holds
    the u8/u16 ones."""
    n = {np.uint8: 210, np.uint16: 40010, np.uint32: 10}[dt]
    return np.array([3, 0, 9, 1, *UNSIGNED_IDS[dt], 5], dt), n


def _embed_unsigned_case(dt: Any) -> Callable[[], tuple[list[Any], int, np.ndarray]]:
    def make() -> tuple[list[Any], int, np.ndarray]:
        ids, n = _unsigned_ids(dt)
        E = np.arange(n * 4, dtype=np.float32).reshape(n, 4)
        out = np.stack([E[i] if i < n else np.zeros(4, np.float32) for i in ids.tolist()])
        return [E, ids, poisoned(8, 4)], -1, out
    return make


def _scatter_unsigned_case(dt: Any) -> Callable[[], tuple[list[Any], int, np.ndarray]]:
    def make() -> tuple[list[Any], int, np.ndarray]:
        ids, n = _unsigned_ids(dt)
        V = np.arange(32, dtype=np.float32).reshape(8, 4) + 1000
        out = poisoned(n, 4)
        for t, i in enumerate(ids.tolist()):
            if i < n:
                out[i] = V[t]
        return [poisoned(n, 4), ids, V], 0, out
    return make


def _rows_at_unsigned_case() -> tuple[list[Any], int, np.ndarray]:
    """Window origins read from u8 memory: 200 and 255 are rows of X (zero-extended)."""
    X = np.arange(260 * 8, dtype=np.float32).reshape(260, 8)
    L = np.array([3, 200, 255, 128, 0], np.uint8)
    return [X, L, poisoned(5, 8)], -1, X[L.astype(np.int64)]


def _rows_at_u32_case() -> tuple[list[Any], int, np.ndarray]:
    """Window origins read from u32 memory, the top bit set: far outside X, the fill."""
    X = np.arange(80, dtype=np.float32).reshape(10, 8)
    L = np.array([3, 2 ** 32 - 1, 2 ** 31, 9, 2 ** 31 + 3], np.uint32)
    Y = np.stack([X[i] if i < 10 else np.full(8, -1.0, np.float32) for i in L.tolist()])
    return [X, L, poisoned(5, 8)], -1, Y


def _histogram_u32_case() -> tuple[list[Any], int, np.ndarray]:
    """scatter_add into u32 memory (CUDA's unsigned atomicAdd): 2**32 - 1 + 1 wraps to 0."""
    ids = np.array([3, 0, 3, 3, 12, 2, 0, 7, 11, 11, 1, -1, 1, 2 ** 31 - 1, 1, 1], np.int32)
    hist = np.array([0, 2 ** 32 - 1, 5] + [2 ** 31] * 9, np.uint32)
    want = hist.astype(np.int64)
    for i in ids:
        if 0 <= i < 12:
            want[i] += 1
    return [hist, ids], 0, (want % 2 ** 32).astype(np.uint32)


CASES = {
    "rows_at": (rows_at, _rows_at_case),
    "varlen": (varlen_rowsum, _varlen_case),
    "paged": (paged, _paged_case),
    "paged_matmul": (paged_matmul, _paged_matmul_case),
    "embed": (embed, _embed_case),
    "gather_cols": (gather_cols, _gather_cols_case),
    "scatter": (scatter_rows, _scatter_case),
    "histogram": (histogram, _histogram_case),
    "scalar_uses": (scalar_uses, _scalar_uses_case),
    "embed_u8": (embed_rows, _embed_unsigned_case(np.uint8)),
    "embed_u16": (embed_rows, _embed_unsigned_case(np.uint16)),
    "embed_u32": (embed_rows, _embed_unsigned_case(np.uint32)),
    "scatter_u8": (scatter_ids, _scatter_unsigned_case(np.uint8)),
    "scatter_u32": (scatter_ids, _scatter_unsigned_case(np.uint32)),
    "rows_at_u8": (rows_at, _rows_at_unsigned_case),
    "rows_at_u32": (rows_at, _rows_at_u32_case),
    "histogram_u32": (histogram, _histogram_u32_case),
}

NO_ATOMICS = {("histogram", "sim:metal:m1"), ("histogram_u32", "sim:metal:m1")}
"""metal:m1 has no atomics: refused with a located error (below)."""


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", list(CASES))
def test_every_path_equals_numpy(case: str, path: str) -> None:
    if (case, path) in NO_ATOMICS:
        pytest.skip("metal:m1 has no atomic operations (test_metal_refuses_scatter_add)")
    kernel, make = CASES[case]
    args, at, want = make()
    run(path, kernel, *args)
    np.testing.assert_array_equal(args[at], want)


def _guarded(a: np.ndarray, pad: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """``a`` inside a larger buffer with ``pad`` guard elements on both sides: (buffer, the
    view of ``a`` in it)."""
    flat = np.full(a.size + 2 * pad, a.dtype.type(-123), a.dtype)
    inner = flat[pad:pad + a.size].reshape(a.shape)
    inner[...] = a
    return flat, inner


@pytest.mark.parametrize("path", PATHS)
def test_bad_indices_touch_nothing_outside_the_arrays(path: str) -> None:
    """Reads at indices far out of range read the fill (not a neighbour of the array);
    writes there write nothing: the guard elements around every array stay as they were."""
    ids = np.array([-1, 2 ** 31 - 1, -(2 ** 31), 10, 11, -64, 1_000_000, 3], np.int32)
    ebuf, E = _guarded(np.ones((10, 16), np.float32))
    obuf, out = _guarded(poisoned(8, 16))
    run(path, embed, E, ids, out)
    assert (ebuf[:64] == -123).all() and (ebuf[-64:] == -123).all()
    assert (obuf[:64] == -123).all() and (obuf[-64:] == -123).all()
    np.testing.assert_array_equal(out[:7], 0.0)
    np.testing.assert_array_equal(out[7], 1.0)
    sbuf, dst = _guarded(poisoned(10, 16))
    run(path, scatter_rows, dst, ids, np.full((8, 16), 5.0, np.float32))
    assert (sbuf[:64] == -123).all() and (sbuf[-64:] == -123).all()
    assert np.isnan(np.delete(dst, 3, axis=0)).all() and (dst[3] == 5.0).all()
    xbuf, X = _guarded(np.zeros((10, 8), np.float32))
    ybuf, Y = _guarded(poisoned(len(ids), 8))
    run(path, rows_at, X, ids, Y)
    assert (xbuf[:64] == -123).all() and (ybuf[:64] == -123).all() and (ybuf[-64:] == -123).all()
    np.testing.assert_array_equal(Y[:7], -1.0)


@tc.kernel
def checked(L, Y):
    """An ``assert`` and a division whose divisor is read from memory: value ranges must not
    assume anything of a scalar read (the zero test stays)."""
    for b in tc.parallel(4):
        v = L[b]
        assert v >= 0, "negative length"
        Y.tile((b,), (1,)).store(v // (L[b + 1] + 1))


def test_values_read_from_memory_are_checked_at_run_time() -> None:
    y = np.zeros(4, np.int32)
    for path in PATHS:
        run(path, checked, np.array([1, 2, 3, 4, 5], np.int32), y)
        assert (y == 0).all()
    e = one_error(tc.KernelAssertionError, checked, np.array([1, -2, 3, 4, 5], np.int32), y)
    assert "negative length (v = -2)" in e
    e = one_error(tc.KernelArithmeticError, checked, np.array([1, 2, 3, 4, -1], np.int32), y)
    assert "'//' (floordiv) has a zero divisor" in e


@tc.kernel
def write_then_read(X, Y, Out):
    """Scalar reads see the instance's earlier writes (on GPUs, other threads' elements: the
    lowering puts a barrier between), of shared scratch memory and of a global array."""
    for b in tc.parallel(2):
        m = tc.memory((8,), tc.int32)
        m.store(X.tile((b * 8,), (8,)) * 2)
        Y.tile((b * 8,), (8,)).store(X.tile((b * 8,), (8,)) + 1)
        Out.tile((b, 0), (1, 1)).store(m[7 - b])
        Out.tile((b, 1), (1, 1)).store(Y[b * 8 + 5 - b])


def test_scalar_reads_follow_earlier_writes() -> None:
    x = np.arange(16, dtype=np.int32) * 3
    for path in PATHS:
        y, out = poisoned(16, dtype=np.int32), poisoned(2, 2, dtype=np.int32)
        run(path, write_then_read, x, y, out)
        np.testing.assert_array_equal(out, [[x[7] * 2, x[5] + 1], [x[14] * 2, x[12] + 1]])


@pytest.mark.parametrize("case,name", [(_histogram_case, "i32"), (_histogram_u32_case, "u32")])
def test_metal_refuses_scatter_add(case: Any, name: str) -> None:
    args, _, _ = case()
    with pytest.raises(tc.UserError, match=f"metal:m1 has no atomic add on {name} memory"):
        run("sim:metal:m1", histogram, *args)


# ----------------------------------------------------------------------------- emission

EMITTED = list(CASES)


@needs_nvrtc
@pytest.mark.parametrize("target,arch", CUBIN_ARCHS)
@pytest.mark.parametrize("case", EMITTED)
def test_cuda_source_compiles(case: str, target: str, arch: str) -> None:
    kernel, make = CASES[case]
    cubin(cuda_source(kernel, *make()[0], target=target), arch)


@pytest.mark.skipif(checker_unavailable() is not None, reason=str(checker_unavailable()))
@pytest.mark.parametrize("case", [c for c in EMITTED if (c, "sim:metal:m1") not in NO_ATOMICS])
def test_metal_source_passes_the_check(case: str) -> None:
    kernel, make = CASES[case]
    exe = tc.compile(kernel, *make()[0], target="metal:m1").executable()
    check_msl(exe.source, exe.metal.buffer.origin_of_line, exe.metal.kernel)


def test_an_unused_scalar_read_is_erased() -> None:
    @tc.kernel
    def unused(L, Y):
        for b in tc.parallel(2):
            _x = L[b]
            Y.tile((b,), (1,)).store(1.0)

    m = tc.compile(unused, np.zeros(2, np.int32), np.zeros(2, np.float32),
                   target="reference").module
    assert "load_scalar" not in str(m)


# ------------------------------------------------------------------------------ errors


@tc.kernel
def tile_origin(X, L, Y):
    for b in tc.parallel(4):
        o = L.tile((b,), (1,)).load()
        Y.tile((b, 0), (1, 8)).store(X.tile((o[0], 0), (1, 8)))  # err


@tc.kernel
def float_indices(E, F, Out):
    for _p in tc.parallel(1):
        f = F.tile((0, 0), (4, 4))
        Out.tile((0, 0), (4, 4)).store(tc.gather(E, f, 0))  # err


@tc.kernel
def literal_out_of_range(L, Out):
    for _p in tc.parallel(1):
        m = tc.memory((8,), tc.int32)
        m.store(L.tile((0,), (8,)))
        Out.tile((0,), (1,)).store(m[8])  # err


@tc.kernel
def read_before_the_nest(L, Out):
    n = L[0]  # err
    for p in tc.parallel(n):
        Out.tile((p,), (1,)).store(1)


@tc.kernel
def rank_mismatch(E, ids, Out):
    for _p in tc.parallel(1):
        t = ids.tile((0,), (4,))
        Out.tile((0, 0), (4, 4)).store(tc.gather(E, t, 0))  # err


ERRORS = [
    (tile_origin, "X.tile", ["a view origin must be an integer scalar, got a tile<i32>",
                             "read as a scalar by indexing the array", "(L[b])"]),
    (float_indices, "f", ["gather() indices must be an integer tile, got a tile<4x4xf32>"]),
    (literal_out_of_range, "m[8]", ["index 8 is out of range for axis 0"]),
    (read_before_the_nest, "L[0]", ["reading an element of memory (M[i]) is tile work, "
                                    "which must happen inside a tc.parallel nest"]),
    (rank_mismatch, "t", ["takes rank-2 indices, got a tile<4xf32>"
                          .replace("f32", "i32"), "broadcast them"]),
]


@pytest.mark.parametrize("kernel,needle,fragments", ERRORS,
                         ids=[k.fn.__name__ for k, _, _ in ERRORS])
def test_errors_are_located(kernel: Any, needle: str, fragments: list[str]) -> None:
    specs = {"tile_origin": (np.zeros((10, 8), np.float32), np.zeros(4, np.int32),
                             np.zeros((4, 8), np.float32)),
             "float_indices": (np.zeros((4, 4), np.float32), np.zeros((4, 4), np.float32),
                               np.zeros((4, 4), np.float32)),
             "literal_out_of_range": (np.zeros(8, np.int32), np.zeros(1, np.int32)),
             "read_before_the_nest": (np.zeros(8, np.int32), np.zeros(8, np.int32)),
             "rank_mismatch": (np.zeros((4, 4), np.float32), np.zeros(4, np.int32),
                               np.zeros((4, 4), np.float32))}[kernel.fn.__name__]
    with pytest.raises(tc.TileSyntaxError) as info:
        tc.compile(kernel, *specs, target="reference")
    assert_located(info.value, kernel, needle, fragments)
