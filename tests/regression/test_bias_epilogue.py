"""GEMM epilogues with a bias row or a residual tile and an activation, fused into the
accumulator's registers (``plan/proofs/scalar_epilogue.py``; capture merges the activation
and the store's cast into one ``map``, ``frontend/map_fusion.py``).

``lib.gemm_bias_act`` (``act(A @ B + bias[None, :])``) and ``residual_act``
(``act(A @ B + R)``, ``R`` a window of the output's shape) on ragged shapes whose edge tiles
are partial and whose bias is shorter than one tile, f32 and bf16 outputs, on every host
path and the CUDA simulators (the plain direct output, and the warp-specialized one whose
tensor stores compute the epilogue part by part). Outputs start NaN-poisoned; every path
must match the reference interpreter, which must match numpy. The GPU run is
``tests/device/test_cuda_bias_epilogue.py``.
"""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from epilogue_kernels import residual_act
from paths import poisoned, run
from tilec.lib import gemm_bias_act

BF16 = ml_dtypes.bfloat16
PATHS = ("reference", "cpu", "sim:cuda:sm_90", "sim:cuda:sm_80")


def _act(x: np.ndarray, act: str) -> np.ndarray:
    if act == "relu":
        return np.maximum(x, 0.0)
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def _inputs(m: int, n: int, k: int, residual: bool, seed: int) -> list[np.ndarray]:
    r = np.random.default_rng(seed)
    a = r.standard_normal((m, k)).astype(BF16)
    b = r.standard_normal((k, n)).astype(BF16)
    extra = r.standard_normal((m, n) if residual else (n,)).astype(np.float32)
    return [a, b, extra]


def _numpy(a: np.ndarray, b: np.ndarray, extra: np.ndarray, act: str) -> np.ndarray:
    acc = a.astype(np.float64) @ b.astype(np.float64)
    return _act(acc + (extra if extra.ndim == 2 else extra[None, :]), act)


def _tolerance(out: Any) -> dict[str, float]:
    return {"rtol": 1e-2, "atol": 2e-2} if out is BF16 else {"rtol": 2e-5, "atol": 2e-5}


CASES = [(kernel, act, out) for kernel in ("bias", "residual") for act in ("gelu", "relu")
         for out in (np.float32, BF16)]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kernel,act,out", CASES,
                         ids=[f"{k}-{a}-{'bf16' if o is BF16 else 'f32'}" for k, a, o in CASES])
def test_ragged_tiles_match_the_reference(path: str, kernel: str, act: str, out: Any) -> None:
    fn = gemm_bias_act if kernel == "bias" else residual_act
    m, n, k = 77, 45, 33  # one partial edge tile each way; the bias (45) is shorter than BN
    a, b, extra = _inputs(m, n, k, kernel == "residual", seed=m + n + k)
    tiles = {"BM": 64, "BN": 64, "BK": 32, "ACT": act}
    ref = poisoned(m, n, dtype=out)
    tc.interpret(fn, a, b, extra, ref, **tiles)
    np.testing.assert_allclose(ref.astype(np.float64), _numpy(a, b, extra, act),
                               **_tolerance(out))
    got = poisoned(m, n, dtype=out)
    run(path, fn, a, b, extra, got, **tiles)
    np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64),
                               **_tolerance(out))


@pytest.mark.parametrize("kernel", ["bias", "residual"])
def test_the_warp_specialized_tensor_stores_match_the_reference(kernel: str) -> None:
    """128x128x64 with a producer warpgroup: the epilogue is computed chunk by chunk where
    the tensor stores write it (``lower/machine_epilogue.py``), its loads read through
    their windows in the accumulator's layout."""
    fn = gemm_bias_act if kernel == "bias" else residual_act
    m, n, k = 130, 150, 72
    a, b, extra = _inputs(m, n, k, kernel == "residual", seed=3)
    tiles = {"BM": 128, "BN": 128, "BK": 64, "ACT": "gelu"}
    ref = poisoned(m, n, dtype=BF16)
    tc.interpret(fn, a, b, extra, ref, **tiles)
    got = poisoned(m, n, dtype=BF16)
    tc.simulate(fn, a, b, extra, got, target="cuda:sm_90",
                variant={"warp_specialized": True, "wgmma_stages": 4}, **tiles)
    np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64),
                               **_tolerance(BF16))
