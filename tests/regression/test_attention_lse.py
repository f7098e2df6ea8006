"""Issue 16 (attention): ``tilec.lib.flash_attention_lse`` writes the log-sum-exp of each
query row's scaled scores beside the output (what a backward pass recomputes the
probabilities from). The kernel shares its body with ``flash_attention`` (one ``@tc.func``:
that kernel's IR is unchanged); every path is compared with float64 numpy on outputs
poisoned first. The GPU run is ``tests/device/test_cuda_attention.py``."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from paths import PATHS, poisoned, run
from tilec.lib.attention import flash_attention_lse, reference_attention

CASES = [  # (bh, s, sk, d, bm, bn)
    (2, 37, 29, 32, 16, 16),
    (1, 40, 70, 32, 16, 32),
]


def _inputs(bh, s, sk, d, dtype=np.float32, seed=3):
    r = np.random.default_rng(seed + s * sk)
    return [r.standard_normal((bh, n, d)).astype(dtype) for n in (s, sk, sk)]


def reference_lse(q, k, scale, causal):
    s = np.einsum("bqd,bkd->bqk", q.astype(np.float64), k.astype(np.float64)) * scale
    if causal:
        s = np.where(np.tril(np.ones(s.shape[1:], bool)), s, -np.inf)
    top = s.max(axis=2, keepdims=True)
    return (top + np.log(np.exp(s - top).sum(axis=2, keepdims=True)))[..., 0]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c)))
def test_lse_matches_numpy(path: str, causal: bool, case: tuple) -> None:
    bh, s, sk, d, bm, bn = case
    q, k, v = _inputs(bh, s, sk, d)
    out, lse = poisoned(*q.shape), poisoned(bh, s)
    run(path, flash_attention_lse, q, k, v, out, lse, np.float32(0.2), BM=bm, BN=bn,
        HEAD_DIM=d, CAUSAL=causal)
    assert not np.isnan(out).any() and not np.isnan(lse).any()
    np.testing.assert_allclose(out, reference_attention(q, k, v, 0.2, causal), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(lse, reference_lse(q, k, 0.2, causal), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("path", ["reference", "sim:cuda:sm_90"])
def test_16_bit_lse(path: str) -> None:
    bf16 = ml_dtypes.bfloat16
    q, k, v = _inputs(2, 70, 45, 64, bf16)
    out, lse = poisoned(*q.shape, dtype=bf16), poisoned(2, 70)
    run(path, flash_attention_lse, q, k, v, out, lse, np.float32(0.125), BM=64, BN=32,
        HEAD_DIM=64, CAUSAL=True)
    f = [x.astype(np.float32) for x in (q, k)]
    np.testing.assert_allclose(lse, reference_lse(*f, 0.125, True), rtol=1e-4, atol=1e-4)


def test_lse_shape_is_checked() -> None:
    import tilec as tc

    q, k, v = _inputs(1, 8, 8, 32)
    with pytest.raises(tc.KernelAssertionError, match="one element per query row"):
        tc.interpret(flash_attention_lse, q, k, v, np.zeros_like(q), np.zeros((1, 7),
                     np.float32), np.float32(0.2), BM=16, BN=16, HEAD_DIM=32)
