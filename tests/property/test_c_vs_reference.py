"""Hypothesis: random shapes and values (NaN, infinities, signed zeros included) through kernels on
the C backend and the reference interpreter; under ``strict_fold`` the results are bit-identical.

Tile sizes are fixed per kernel (one compilation each); hypothesis draws the runtime shapes (often
ragged, size 1 or empty) and the values. NaN payloads are not part of the contract, so every NaN
compares equal to every other; signed zeros are distinguished.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import tilec as tc
from tilec.targets.cpu.backend import probe

pytestmark = pytest.mark.skipif(probe() is not None, reason=f"no C compiler: {probe()}")


@pytest.fixture(autouse=True, scope="module")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Compile into a cache directory of this module, not the user's."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TILEC_CACHE_DIR", str(tmp_path_factory.mktemp("tilec-cache")))
    yield
    mp.undo()


@tc.kernel
def strict_matmul(A, B, C, BM: tc.constexpr = 8, BN: tc.constexpr = 16, BK: tc.constexpr = 4):
    """``C = A @ B`` summed in k order without fused multiply-add."""
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc, order="strict_fold")
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def strict_rows(X, W, Y, S, BM: tc.constexpr = 4, BN: tc.constexpr = 8):
    """Elementwise math, then strict row sums / maxima accumulated over column tiles."""
    M, N = X.shape
    for pm in tc.parallel(tc.cdiv(M, BM)):
        s = tc.zeros((BM,))
        m = tc.full((BM,), float("-inf"))
        for j in tc.serial(tc.cdiv(N, BN)):
            x = X.tile((pm * BM, j * BN), (BM, BN), fill=0.0)
            w = W.tile((j * BN,), (BN,), fill=1.0)
            y = tc.maximum(x * w[None, :] - x / 3.0, tc.minimum(x, -x)) + tc.abs(x) * 0.5
            Y.tile((pm * BM, j * BN), (BM, BN)).store(tc.where(x > 0.0, y, tc.sqrt(tc.abs(y))))
            s = s + tc.sum(y, axis=1, policy="strict_fold")
            m = tc.maximum(m, tc.max(y, axis=1, policy="strict_fold"))
        S.tile((pm * BM, 0), (BM, 2)).store(tc.where(tc.zeros((BM, 2)) == 0.0,
                                                      s[:, None] + tc.zeros((BM, 2)),
                                                      m[:, None] + tc.zeros((BM, 2))))


def _floats(shape: tuple[int, ...]) -> st.SearchStrategy[np.ndarray]:
    elems = st.one_of(st.floats(width=32, allow_nan=True, allow_infinity=True),
                      st.sampled_from([0.0, -0.0, 1.0, -1.0, float("inf"), float("-inf"),
                                       float("nan"), 1e-45, -3.4e38]))
    return arrays(np.float32, shape, elements=elems)


def _bits(x: np.ndarray) -> np.ndarray:
    u = x.view(np.uint32)
    return np.where(np.isnan(x), np.uint32(0x7FC00000), u)


def _run(kernel: Any, args: list[Any]) -> tuple[list[Any], list[Any]]:
    c = [a.copy() for a in args]
    r = [a.copy() for a in args]
    kernel.compile(*c, target="cpu")(*c)
    tc.interpret(kernel, *r)
    return c, r


SETTINGS = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(st.tuples(st.integers(0, 20), st.integers(0, 35), st.integers(0, 13)).flatmap(
    lambda s: st.tuples(st.just(s), _floats((s[0], s[2])), _floats((s[2], s[1])))))
def test_strict_matmul_is_bit_identical(data: tuple) -> None:
    (m, n, _k), a, b = data
    c, r = _run(strict_matmul, [a, b, np.zeros((m, n), np.float32)])
    assert (_bits(c[2]) == _bits(r[2])).all()


@SETTINGS
@given(st.tuples(st.integers(0, 13), st.integers(0, 30)).flatmap(
    lambda s: st.tuples(st.just(s), _floats(s), _floats((s[1],)))))
def test_strict_elementwise_and_reductions_are_bit_identical(data: tuple) -> None:
    (m, n), x, w = data
    c, r = _run(strict_rows, [x, w, np.zeros((m, n), np.float32), np.zeros((m, 2), np.float32)])
    assert (_bits(c[2]) == _bits(r[2])).all()
    assert (_bits(c[3]) == _bits(r[3])).all()


@tc.kernel
def narrow_math(X, Y, Z, BN: tc.constexpr = 16):
    """Arithmetic on f16/bf16 tiles: computed in f32 and rounded to the type after each step."""
    N = X.shape[0]
    for p in tc.parallel(tc.cdiv(N, BN)):
        x = X.tile((p * BN,), (BN,), fill=0.0)
        y = Y.tile((p * BN,), (BN,), fill=0.0)
        z = tc.maximum(x * y + x, y - x / y) * tc.sqrt(tc.abs(x))
        Z.tile((p * BN,), (BN,)).store(tc.fma(z, x, y))


@SETTINGS
@given(st.sampled_from(["float16", "bfloat16"]), st.integers(0, 40), st.data())
def test_narrow_float_math_is_bit_identical(dtype: str, n: int, data: st.DataObject) -> None:
    import ml_dtypes

    dt = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(np.float16)
    with np.errstate(over="ignore"):
        x = data.draw(_floats((n,))).astype(dt)
        y = data.draw(_floats((n,))).astype(dt)
    c, r = _run(narrow_math, [x, y, np.zeros(n, dt)])
    cu, ru = c[2].view(np.uint16), r[2].view(np.uint16)
    nan = np.isnan(c[2].astype(np.float32)) & np.isnan(r[2].astype(np.float32))
    assert ((cu == ru) | nan).all()
