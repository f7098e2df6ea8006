"""Issue: no runtime checks, so wrong shapes gave silent wrong answers.

``lib.matmul`` with ``A: 70x50`` and ``B: 40x45`` computed ``A[:, :40] @ B``
(bounded windows read the missing rows of ``B`` as 0), and a one-tile
softmax with ``BN < N`` normalized only the first ``BN`` columns. An
``assert`` on runtime scalars was refused. Now such an assert is a ``check``
that every target evaluates, raising ``tc.KernelAssertionError`` with the
assert's ``file:line``, its message and the compared values; the library
kernels assert their shape contracts. The GPU run of the same cases is in
``tests/device/test_cuda_asserts.py``.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import HOST_PATHS, PATHS, line_of, one_error, poisoned, raises, run, unwritten
from tilec import lib


def _raises(path: str, kernel: Any, *args: Any, **constexprs: Any) -> tc.KernelAssertionError:
    return raises(tc.KernelAssertionError, path, kernel, *args, **constexprs)


def _source_line(fn: Any, text: str) -> tuple[str, int]:
    """File and line of the first source line of ``fn`` containing ``text``."""
    return inspect.getsourcefile(fn) or "", line_of(fn, text)


# ------------------------------------------------------------------ the issue's matmul


def _issue_inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    return (rng.standard_normal((70, 50)).astype(np.float32),
            rng.standard_normal((40, 45)).astype(np.float32), poisoned(70, 45))


@pytest.mark.parametrize("target", PATHS)
def test_issue_matmul_refuses_mismatched_k(target: str) -> None:
    a, b, c = _issue_inputs()
    e = _raises(target, lib.matmul, a, b, c, BM=32, BN=32, BK=16)
    file, line = _source_line(lib.matmul.fn, "assert B.shape[0] == K")
    assert str(e).startswith(f"{file}:{line}:"), str(e)
    assert (Path(e.filename), e.lineno) == (Path(file), line)
    assert "A is M x K, so B must be K x N" in str(e)
    assert "B.shape[0] = 40" in str(e) and "K = 50" in str(e)
    assert e.values == (("B.shape[0]", "40"), ("K", "50"))
    assert isinstance(e, AssertionError) and e.kernel == "matmul"
    assert unwritten(c), "the kernel ran although its shape contract failed"


def test_issue_matmul_error_is_the_same_on_every_target() -> None:
    one_error(tc.KernelAssertionError, lib.matmul, *_issue_inputs(), BM=32, BN=32, BK=16)


def test_issue_matmul_with_static_shapes_is_refused_while_compiling() -> None:
    a, b, c = _issue_inputs()
    with pytest.raises(tc.TileSyntaxError) as info:
        tc.compile(lib.matmul, a, b, c, target="reference", static_shapes=True)
    _, line = _source_line(lib.matmul.fn, "assert B.shape[0] == K")
    assert info.value.lineno == line
    assert "static assertion failed: A is M x K, so B must be K x N" in info.value.message


def test_issue_softmax_refuses_rows_longer_than_the_tile() -> None:
    x = np.random.default_rng(1).standard_normal((6, 200)).astype(np.float32)
    for target in HOST_PATHS:
        y = poisoned(6, 200)
        e = _raises(target, lib.softmax, x, y, BN=128)
        assert "N = 200" in str(e) and "BN = 128" in str(e), str(e)
        assert unwritten(y)
    y = poisoned(6, 200)
    tc.compile(lib.softmax, x, y, target="cpu", BN=256)(x, y)  # a tile that holds the row
    want = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, want / want.sum(1, keepdims=True), rtol=1e-5)


# ------------------------------------------------------------ an assert inside a nest


@tc.kernel
def stepped(X, Out, bad, BM: tc.constexpr = 8):
    """``Out[p, k] = sum of program p's block`` for k < 3, asserting the step isn't ``bad``."""
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        for k in tc.serial(3):
            assert p * 3 + k != bad, "step reached the bad value"
            x = X.tile((p * BM,), (BM,), fill=0.0)
            Out.tile((p, k), (1, 1)).store(tc.sum(x)[None, None] + tc.zeros((1, 1)))


@pytest.mark.parametrize("target", PATHS)
def test_assert_in_a_nest_raises_before_what_follows_it(target: str) -> None:
    x = np.arange(32, dtype=np.float32)
    out = poisoned(4, 3)
    e = _raises(target, stepped, x, out, 7)  # program 2, step 1
    file, line = _source_line(stepped.fn, "assert p * 3 + k != bad")
    assert str(e).startswith(f"{file}:{line}:"), str(e)
    assert "step reached the bad value (p * 3 + k = 7, bad = 7)" in str(e)
    # program 2 stored step 0 and nothing after its failed assert
    assert out[2, 0] == x[16:24].sum()
    assert unwritten(out[2, 1:])


def test_assert_in_a_nest_is_the_same_on_every_target() -> None:
    one_error(tc.KernelAssertionError, stepped, np.arange(32, dtype=np.float32), poisoned(4, 3),
              7)


@tc.kernel
def scaled(X, Y, alpha, BM: tc.constexpr = 16):
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        Y.tile((p * BM,), (BM,)).store(X.tile((p * BM,), (BM,), fill=0.0) * alpha)


@tc.kernel
def scaled_checked(X, Y, alpha, BM: tc.constexpr = 16):
    M = X.shape[0]
    assert Y.shape[0] == M, "Y must have X's length"
    assert alpha > 0.0
    for p in tc.parallel(tc.cdiv(M, BM)):
        assert p * BM < M
        for k in tc.serial(1):
            assert k == 0
        Y.tile((p * BM,), (BM,)).store(X.tile((p * BM,), (BM,), fill=0.0) * alpha)


@pytest.mark.parametrize("target", PATHS)
def test_passing_asserts_change_nothing(target: str) -> None:
    x = np.random.default_rng(3).standard_normal(50).astype(np.float32)
    plain, checked = poisoned(50), poisoned(50)
    run(target, scaled, x, plain, np.float32(1.5))
    run(target, scaled_checked, x, checked, np.float32(1.5))
    np.testing.assert_array_equal(checked, plain)
    np.testing.assert_array_equal(checked, x * np.float32(1.5))


@pytest.mark.parametrize("target", PATHS)
def test_assert_on_a_scalar_argument(target: str) -> None:
    x = np.ones(20, np.float32)
    e = _raises(target, scaled_checked, x, poisoned(20), np.float32(-0.25))
    assert "assertion failed in @scaled_checked: alpha > 0.0 (alpha = -0.25)" in str(e)


@tc.kernel
def checked_after(X, Y, n, BM: tc.constexpr = 8):
    """A top-level assert after the nest: the nest's stores happen, then it fails."""
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        Y.tile((p * BM,), (BM,)).store(X.tile((p * BM,), (BM,), fill=0.0))
    assert n < M, "n must index X"


@pytest.mark.parametrize("target", HOST_PATHS)
def test_assert_after_the_nest_runs_after_it(target: str) -> None:
    x = np.arange(16, dtype=np.float32)
    y = poisoned(16)
    e = _raises(target, checked_after, x, y, 16)
    assert "n must index X (n = 16, M = 16)" in str(e)
    np.testing.assert_array_equal(y, x)


# ------------------------------------------------------------ library shape contracts


def _f(*shape: int) -> np.ndarray:
    return np.ones(shape, np.float32)


CONTRACTS = [
    # (kernel, arguments, constexprs, fragments of the message)
    (lib.matmul, lambda: (_f(8, 6), _f(6, 5), poisoned(8, 4)), {}, ["C must be M x N", "N = 5"]),
    (lib.pipelined_matmul, lambda: (_f(8, 6), _f(5, 5), poisoned(8, 5)), {},
     ["B.shape[0] = 5", "K = 6"]),
    (lib.batched_matmul, lambda: (_f(2, 8, 6), _f(3, 6, 5), poisoned(2, 8, 5)), {},
     ["same number of matrices", "B.shape[0] = 3", "NB = 2"]),
    (lib.batched_matmul, lambda: (_f(2, 8, 6), _f(2, 7, 5), poisoned(2, 8, 5)), {},
     ["B[b] must be K x N", "B.shape[1] = 7"]),
    (lib.batched_matmul, lambda: (_f(2, 8, 6), _f(2, 6, 5), poisoned(2, 8, 4)), {},
     ["C must be NB x M x N", "C.shape[2] = 4"]),
    (lib.linear, lambda: (_f(8, 6), _f(5, 7), poisoned(8, 5)), {},
     ["W must be N x K", "W.shape[1] = 7", "K = 6"]),
    (lib.linear, lambda: (_f(8, 6), _f(5, 6), poisoned(8, 4)), {}, ["C must be M x N", "N = 5"]),
    (lib.gemm_bias_act, lambda: (_f(8, 6), _f(6, 5), _f(4), poisoned(8, 5)), {},
     ["bias must have one element per column", "bias.shape[0] = 4", "N = 5"]),
    (lib.outer, lambda: (_f(8), _f(5), poisoned(5, 8)), {}, ["Z must be len(x) x len(y)"]),
    (lib.einsum_matmul, lambda: (_f(8, 6), _f(7, 5), poisoned(8, 5)), {}, ["B.shape[0] = 7"]),
    (lib.row_dot, lambda: (_f(8, 6), _f(8, 7), poisoned(8)), {}, ["B must have A's shape"]),
    (lib.row_dot, lambda: (_f(8, 6), _f(8, 6), poisoned(9)), {}, ["out.shape[0] = 9", "M = 8"]),
    (lib.softmax, lambda: (_f(4, 130), poisoned(4, 130)), {"BN": 128},
     ["pass BN >= N or use online_softmax", "N = 130", "BN = 128"]),
    (lib.softmax, lambda: (_f(4, 100), poisoned(4, 99)), {}, ["Y must have X's shape"]),
    (lib.online_softmax, lambda: (_f(4, 100), poisoned(5, 100)), {}, ["Y.shape[0] = 5"]),
    (lib.layernorm, lambda: (_f(4, 130), _f(130), _f(130), poisoned(4, 130), 1e-5), {"BN": 128},
     ["layernorm holds a row in one tile", "N = 130"]),
    (lib.layernorm, lambda: (_f(4, 100), _f(99), _f(100), poisoned(4, 100), 1e-5), {},
     ["W and B must have one element per column", "W.shape[0] = 99"]),
    (lib.rmsnorm, lambda: (_f(4, 130), _f(130), poisoned(4, 130), 1e-5), {"BN": 128},
     ["rmsnorm holds a row in one tile", "BN = 128"]),
    (lib.rmsnorm, lambda: (_f(4, 100), _f(100), poisoned(4, 101), 1e-5), {},
     ["Y must have X's shape", "Y.shape[1] = 101"]),
    (lib.flash_attention, lambda: (_f(2, 9, 40), _f(2, 7, 40), _f(2, 7, 40), poisoned(2, 9, 40),
                                   np.float32(0.1)), {"HEAD_DIM": 32},
     ["must fit in HEAD_DIM", "D = 40", "HEAD_DIM = 32"]),
    (lib.flash_attention, lambda: (_f(2, 9, 32), _f(2, 7, 32), _f(2, 6, 32), poisoned(2, 9, 32),
                                   np.float32(0.1)), {},
     ["one row per key", "V.shape[1] = 6", "SK = 7"]),
    (lib.flash_attention, lambda: (_f(2, 9, 32), _f(3, 7, 32), _f(2, 7, 32), poisoned(2, 9, 32),
                                   np.float32(0.1)), {}, ["same batch-heads"]),
    (lib.row_sum, lambda: (_f(8, 6), poisoned(7)), {}, ["out.shape[0] = 7", "M = 8"]),
    (lib.row_max, lambda: (_f(8, 6), poisoned(9)), {}, ["out must have one element per row"]),
    (lib.row_mean_strict, lambda: (_f(8, 130), poisoned(8)), {"BN": 128},
     ["row_mean_strict holds a row in one tile", "N = 130"]),
    (lib.transpose, lambda: (_f(8, 6), poisoned(8, 6)), {},
     ["Y must have X's shape reversed", "Y.shape[0] = 8", "N = 6"]),
]


@pytest.mark.parametrize("kernel,make,constexprs,fragments", CONTRACTS,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CONTRACTS)])
def test_library_kernel_asserts_its_shape_contract(kernel: Any, make: Any, constexprs: dict,
                                                    fragments: list[str]) -> None:
    args = make()
    e = _raises("reference", kernel, *args, **constexprs)
    for frag in fragments:
        assert frag in str(e), str(e)
    # the assert may stand in a @tc.func of the kernel's module (flash_attention's shapes)
    assert e.filename == inspect.getsourcefile(kernel.fn) and e.kernel == kernel.__name__
    for a in args:
        if isinstance(a, np.ndarray) and np.isnan(a).any():
            assert unwritten(a), "an output was written although the contract failed"


@pytest.mark.parametrize("case", [c for c in CONTRACTS if c[0] in (lib.softmax, lib.matmul)],
                         ids=lambda c: c[0].__name__)
def test_library_contracts_on_the_cpu(case: Any) -> None:
    kernel, make, constexprs, fragments = case
    e = _raises("cpu", kernel, *make(), **constexprs)
    assert all(f in str(e) for f in fragments), str(e)


def test_every_library_kernel_has_a_contract_case() -> None:
    kernels = {getattr(lib, n) for n in lib.__all__ if isinstance(getattr(lib, n), tc.Kernel)}
    assert kernels == {c[0] for c in CONTRACTS}
