"""``tirx:llvm``: TileIR exported to Apache TVM's ``tvm.tirx`` and run through TVM's LLVM.

Differential against the reference interpreter on outputs poisoned first (NaN, or -7 for
integers): every library demo, ragged windows (a bounded window reads ``fill`` outside the
array and writes nothing there), reductions under each policy, scalar semantics TVM's own
operators get wrong (NaN compares, IEEE max/min, wrapping, saturating casts, ``bf16``), and
the runtime failures, which must be the reference's errors with the reference's text.
"""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from tilec.lib import DEMOS
from tilec.targets.clike import UnsupportedError

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from paths import poisoned  # noqa: E402

TARGET = "tirx:llvm"


def _both(kernel, args, outs, **cx):
    """Run ``kernel`` on the reference and on tirx:llvm, each on its own copies of ``args``
    with the outputs (indices ``outs``) poisoned; returns (reference args, tirx args)."""
    def copies():
        a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        for i in outs:
            a[i] = poisoned(*a[i].shape, dtype=a[i].dtype)
        return a

    ref, got = copies(), copies()
    tc.interpret(kernel, *ref, **cx)
    tc.compile(kernel, *got, target=TARGET, **cx)(*got)
    return ref, got


def _same(r, t):
    r, t = np.asarray(r, np.float64), np.asarray(t, np.float64)
    assert np.array_equal(np.isnan(r), np.isnan(t))
    np.testing.assert_array_equal(r, t)


# ------------------------------------------------------------------ the library


@pytest.mark.parametrize("case", DEMOS, ids=[c.name for c in DEMOS])
def test_library_demo_matches_reference(case):
    args = list(case.make_inputs(np.random.default_rng(0)))
    outs = sorted(case.expected(*args))
    ref, got = _both(case.kernel, args, outs, **case.constexprs)
    for i in outs:
        r = np.asarray(ref[i], np.float64)
        t = np.asarray(got[i], np.float64)
        assert not np.isnan(t).any() or np.array_equal(np.isnan(r), np.isnan(t))
        # sums under unordered_tree fold in order here, in a tree on the reference
        tol = 1e-5 * max(float(np.nanmax(np.abs(r))), 1e-30)
        assert float(np.nanmax(np.abs(r - t))) <= tol, case.name


# ------------------------------------------------------------------ windows


@tc.kernel
def ragged_copy(X, Y, BM: tc.constexpr = 8, BN: tc.constexpr = 16):
    M, N = X.shape
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        x = X.tile((pm * BM, pn * BN), (BM, BN), fill=-1.5)
        Y.tile((pm * BM, pn * BN), (BM, BN)).store(x * 2.0 + 1.0)


@tc.kernel
def ragged_padded(X, Y, B: tc.constexpr = 8):
    """Y[i] = X[i - 1] + X[i] + X[i + 1], zero outside X: windows leaving both ends."""
    n = X.shape[0]
    for p in tc.parallel(tc.cdiv(n, B)):
        left = X.tile((p * B - 1,), (B,), fill=0.0)
        mid = X.tile((p * B,), (B,), fill=0.0)
        right = X.tile((p * B + 1,), (B,), fill=0.0)
        Y.tile((p * B,), (B,)).store(left + mid + right)


@pytest.mark.parametrize("shape", [(13, 37), (8, 16), (1, 1), (0, 5)])
def test_ragged_window_reads_fill_and_writes_nothing_outside(shape):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    ref, got = _both(ragged_copy, [x, np.zeros(shape, np.float32)], [1])
    _same(ref[1], got[1])
    np.testing.assert_array_equal(got[1], x * 2 + 1)


@pytest.mark.parametrize("n", [1, 7, 8, 29])
def test_windows_past_both_ends(n):
    x = np.random.default_rng(2).standard_normal(n).astype(np.float32)
    ref, got = _both(ragged_padded, [x, np.zeros(n, np.float32)], [1])
    _same(ref[1], got[1])


def test_strided_and_dlpack_arguments():
    """A transposed (non-contiguous) input and a DLPack-only output object."""
    base = np.random.default_rng(3).standard_normal((37, 13)).astype(np.float32)
    x = base.T  # (13, 37), Fortran order
    y = poisoned(13, 37)

    class DLPackOnly:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kw):
            return self.a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    tc.compile(ragged_copy, x, y, target=TARGET)(x, DLPackOnly(y))
    np.testing.assert_array_equal(y, x * 2 + 1)


# ------------------------------------------------------------------ reductions


@tc.kernel
def row_reduce(X, S, M_, A, BM: tc.constexpr = 4, BN: tc.constexpr = 64,
               POLICY: tc.constexpr = "strict_fold"):
    M, N = X.shape
    for p in tc.parallel(tc.cdiv(M, BM)):
        x = X.tile((p * BM, 0), (BM, BN), fill=0.0)
        S.tile((p * BM,), (BM,)).store(tc.sum(x, axis=1, policy=POLICY))
        M_.tile((p * BM,), (BM,)).store(tc.max(x, axis=1))
        A.tile((p * BM,), (BM,)).store(tc.argmax(x, axis=1))


@tc.kernel
def custom_fold(X, G, BM: tc.constexpr = 4, BN: tc.constexpr = 32):
    M, N = X.shape
    for p in tc.parallel(tc.cdiv(M, BM)):
        x = X.tile((p * BM, 0), (BM, BN), fill=0.0)
        g = tc.reduce(x, 1, 0.0, lambda s, v: s * 0.5 + v, policy="strict_fold")
        G.tile((p * BM,), (BM,)).store(g)


@pytest.mark.parametrize("policy", ["strict_fold", "unordered_tree"])
def test_reductions_under_each_policy(policy):
    x = np.random.default_rng(4).standard_normal((10, 50)).astype(np.float32)
    x[3, 7] = np.nan
    x[5, :] = 2.0  # ties: the first position wins
    args = [x, np.zeros(10, np.float32), np.zeros(10, np.float32), np.zeros(10, np.int32)]
    ref, got = _both(row_reduce, args, [1, 2, 3], POLICY=policy)
    _same(ref[2], got[2])
    _same(ref[3], got[3])
    if policy == "strict_fold":
        _same(ref[1], got[1])  # bit-identical
    else:
        r, t = ref[1], got[1]
        assert np.array_equal(np.isnan(r), np.isnan(t))
        ok = ~np.isnan(r)
        np.testing.assert_allclose(t[ok], r[ok], rtol=1e-5, atol=1e-5)


def test_custom_fold_is_strict():
    x = np.random.default_rng(5).standard_normal((9, 20)).astype(np.float32)
    ref, got = _both(custom_fold, [x, np.zeros(9, np.float32)], [1])
    _same(ref[1], got[1])


# ------------------------------------------------------------------ scalar semantics


@tc.kernel
def float_semantics(X, Y, O, B: tc.constexpr = 8):  # noqa: E741
    n = X.shape[0]
    for p in tc.parallel(tc.cdiv(n, B)):
        x = X.tile((p * B,), (B,), fill=0.0)
        y = Y.tile((p * B,), (B,), fill=1.0)
        O.tile((0, p * B), (1, B)).store(tc.maximum(x, y)[None, :])
        O.tile((1, p * B), (1, B)).store(tc.minimum(x, y)[None, :])
        O.tile((2, p * B), (1, B)).store(tc.where(x != y, 1.0, 0.0)[None, :])
        O.tile((3, p * B), (1, B)).store((x % y)[None, :])
        O.tile((4, p * B), (1, B)).store(tc.exp(x)[None, :])
        O.tile((5, p * B), (1, B)).store(tc.abs(x)[None, :])


def test_float_semantics_nan_signed_zero():
    x = np.array([np.nan, 1.0, -0.0, 0.0, -3.5, np.inf, 2.0, -7.25, 5.0], np.float32)
    y = np.array([1.0, np.nan, 0.0, -0.0, 2.0, 3.0, -2.0, 0.5, -np.inf], np.float32)
    ref, got = _both(float_semantics, [x, y, np.zeros((6, 9), np.float32)], [2])
    r, t = ref[2], got[2]
    for row in (0, 1, 2, 3, 5):
        np.testing.assert_array_equal(np.signbit(r[row]), np.signbit(t[row]))
        _same(r[row], t[row])
    np.testing.assert_allclose(t[4], r[4], rtol=1e-6)


@tc.kernel
def int_semantics(A, B, O, N: tc.constexpr = 8):  # noqa: E741
    for _ in tc.parallel(1):
        a = A.tile((0,), (N,))
        b = B.tile((0,), (N,))
        O.tile((0, 0), (1, N)).store((a + b)[None, :])
        O.tile((1, 0), (1, N)).store((a * b)[None, :])
        O.tile((2, 0), (1, N)).store((a // b)[None, :])
        O.tile((3, 0), (1, N)).store((a % b)[None, :])
        O.tile((4, 0), (1, N)).store((a >> (b & 7))[None, :])


def test_integer_semantics_wrap_and_floor():
    a = np.array([2**31 - 1, -7, 7, -2**31, 100, -1, 0, 13], np.int32)
    b = np.array([1, 2, -2, -1, 7, 3, 5, -4], np.int32)
    ref, got = _both(int_semantics, [a, b, np.zeros((5, 8), np.int32)], [2])
    np.testing.assert_array_equal(ref[2], got[2])


@tc.kernel
def casts(X, I, U, H, N: tc.constexpr = 8):  # noqa: E741
    for _ in tc.parallel(1):
        x = X.tile((0,), (N,))
        I.tile((0,), (N,)).store(x.to(tc.int32))
        U.tile((0,), (N,)).store(x.to(tc.uint8))
        H.tile((0,), (N,)).store(x.to(tc.bfloat16))


def test_saturating_and_bf16_casts():
    x = np.array([np.nan, 3e9, -3e9, 300.7, -1.5, 1.00390625, 1.0117188, 3.4e38], np.float64)
    args = [x, np.zeros(8, np.int32), np.zeros(8, np.uint8), np.zeros(8, ml_dtypes.bfloat16)]
    ref, got = _both(casts, args, [1, 2, 3])
    for i in (1, 2):
        np.testing.assert_array_equal(ref[i], got[i])
    _same(ref[3], got[3])


# ------------------------------------------------------------------ failures


@tc.kernel
def checked(X, k):
    for p in tc.parallel(2):
        assert k < 3 + p, "k too large"
        X.tile((p * 4,), (4,)).store(X.tile((p * 4,), (4,)).load() // k)


def _error_text(error, kernel, *args):
    texts = []
    for path in ("reference", TARGET):
        a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        with pytest.raises(error) as info:
            if path == "reference":
                tc.interpret(kernel, *a)
            else:
                tc.compile(kernel, *a, target=TARGET)(*a)
        texts.append(str(info.value))
    assert texts[0] == texts[1]
    return texts[0]


def test_failed_check_and_zero_division_are_the_references_errors():
    x = np.arange(8, dtype=np.int32)
    assert "k too large" in _error_text(tc.KernelAssertionError, checked, x, 5)
    assert "floordiv" in _error_text(tc.KernelArithmeticError, checked, x, 0)


@tc.kernel
def tile_slice(X, Y, s):
    for _ in tc.parallel(1):
        t = X.tile((0,), (8,)).load()
        Y.tile((0,), (4,)).store(t[s:s + 4])


def test_reindex_leaving_its_tile():
    x = np.arange(8, dtype=np.float32)
    text = _error_text(tc.KernelIndexError, tile_slice, x, np.zeros(4, np.float32), 6)
    assert "start = 6" in text


# ------------------------------------------------------------------ the target


def test_tirx_text_and_cli_form(tmp_path, capsys):
    x = np.ones((5, 6), np.float32)
    c = tc.compile(ragged_copy, x, x.copy(), target=TARGET)
    assert "T.prim_func" in c.tirx and "def ragged_copy" in c.tirx
    assert c.tirx == c.source
    assert "T.prim_func" in tc.compile(ragged_copy, x, x.copy(), target="reference").tirx
    f = tmp_path / "k.py"
    f.write_text("import numpy as np\nimport tilec as tc\n\n@tc.kernel\ndef twice(X, Y):\n"
                 "    for _ in tc.parallel(1):\n"
                 "        Y.tile((0,), (4,)).store(X.tile((0,), (4,)).load() * 2.0)\n\n"
                 "def make_inputs(rng):\n    return [np.ones(4, np.float32), "
                 "np.zeros(4, np.float32)]\n")
    from tilec.cli import main

    assert main(["ir", str(f), "--form", "tirx"]) == 0
    out = capsys.readouterr().out
    assert "tirx:llvm" in out and "T.prim_func" in out


def test_unsupported_construct_is_located():
    m = ir.parse("""
module {
  func @g(%x: index) -> () {
    return()
  }
  func @f(%x: index) -> () {
    call(%x) {callee = "g"}
    return()
  }
}
""")
    from tilec.targets.tirx.backend import make_backend

    with pytest.raises(UnsupportedError, match="no translation of 'call'"):
        make_backend().emit(m, "f")


def test_targets_lists_tirx():
    from tilec.runtime import available_targets

    found = {info.name: why for info, why in available_targets()}
    assert found["tirx:llvm"] is None
    assert "source only" in found["tirx:metal"]
    x = np.ones((2, 2), np.float32)
    c = tc.compile(ragged_copy, x, x.copy(), target="tirx:cuda")
    if found["tirx:cuda"] is not None:  # no GPU here: the source builds, the call says why
        with pytest.raises(tc.TargetUnavailable, match="tirx:cuda"):
            c(x, x.copy())
    with pytest.raises(tc.TargetUnavailable, match="'tirx:llvm', 'tirx:cuda' and 'tirx:metal'"):
        tc.compile(ragged_copy, x, x.copy(), target="tirx:rocm")


def test_probe_without_tvm(monkeypatch):
    """Runs with or without TVM: a missing TVM is reported with the install line."""
    from tilec.targets.tirx import backend

    monkeypatch.setitem(sys.modules, "tvm", None)
    backend.probe.cache_clear()
    try:
        why = backend.probe()
    finally:
        backend.probe.cache_clear()
    assert why is not None and "pip install 'tilec[tvm]'" in why


# ------------------------------------------------------- findings of the fuzz path


@tc.kernel
def nan_args(X, A, C, F):
    for _p in tc.parallel(1):
        x = X.tile((0, 0), (4, 3)).load()
        A.tile((0,), (4,)).store(tc.argmin(x, axis=1))
        # x == x, x <= x and x >= x are false on NaN (TVM's simplifier folds them to true)
        C.tile((0, 0), (4, 3)).store(tc.where((x == x) | (x <= x) | (x >= x), 1, 0))
        F.tile((0, 0), (4, 3)).store(tc.fma(x, x, -x * x))


@pytest.mark.parametrize("dt", [np.float16, np.float32])
def test_nan_comparisons_and_argmin(dt):
    """The tirx:llvm fuzz path's first campaign (seed 1207): an argmin over a row with NaN
    picked the last index, and tc.fma did not compile (TVM finds no llvm.fma declaration)."""
    x = np.full((4, 3), np.nan, dt)
    x[1, 1], x[2, 0], x[3, 2] = 1, 2, 3
    x[0, 0] = np.float32(1 + 2 ** -10).astype(dt)  # x * x is inexact: fma keeps the residue
    args = [x, np.zeros(4, np.int32), np.zeros((4, 3), np.int32), np.zeros((4, 3), dt)]
    ref, got = _both(nan_args, args, [1, 2, 3])
    for i in (1, 2, 3):
        _same(ref[i], got[i])


@tc.kernel
def zero_constants(X, Y, Z, U, V):
    for _p in tc.parallel(1):
        x = X.tile((0,), (4,)).load()
        # x * 0.0 keeps -0.0 and NaN (TVM's simplifier folded it to 0.0); x / -0.0 is an
        # infinity or NaN (TVM refused to fold it); a remainder by a computed unsigned
        # divisor compiles (TVM rewrote its zero test u + 1 == 0 to u == -1)
        Y.tile((0,), (4,)).store(x * 0.0)
        Z.tile((0,), (4,)).store(x / -0.0)
        u = U.tile((0,), (4,)).load()
        V.tile((0,), (4,)).store(u % (u + 1))


def test_zero_constants_and_unsigned_divisors():
    """Findings of the tirx:llvm fuzz path's second campaign (seed 1208)."""
    x = np.array([-2.0, np.nan, np.inf, 3.0], np.float32)
    u = np.array([5, 6, 4000000000, 0], np.uint32)
    args = [x, np.zeros(4, np.float32), np.zeros(4, np.float32), u, np.zeros(4, np.uint32)]
    ref, got = _both(zero_constants, args, [1, 2, 4])
    for i in (1, 2):
        _same(ref[i], got[i])
        assert np.array_equal(np.signbit(ref[i]), np.signbit(got[i]))
    np.testing.assert_array_equal(ref[4], got[4])


@tc.kernel
def narrow_constants(U, S):
    for _p in tc.parallel(1):
        # constant operands TVM folds: the sums wrap (255 + 1 is 0, 127 + 1 is -128) instead
        # of becoming literals out of the narrow range, which TVM refused to compile
        U.tile((0,), (2,)).store(tc.full((2,), 255, tc.uint8) + tc.full((2,), 1, tc.uint8))
        S.tile((0,), (2,)).store(tc.full((2,), 127, tc.int8) + tc.full((2,), 1, tc.int8))


def test_narrow_constant_arithmetic_wraps():
    ref, got = _both(narrow_constants, [np.zeros(2, np.uint8), np.zeros(2, np.int8)], [0, 1])
    np.testing.assert_array_equal(got[0], [0, 0])
    np.testing.assert_array_equal(got[1], [-128, -128])
    np.testing.assert_array_equal(ref[0], got[0])
    np.testing.assert_array_equal(ref[1], got[1])
