"""Issue 16 (attention): ``tilec.lib.flash_attention(..., CAUSAL=True)`` on every path.

Query ``i`` attends keys ``j <= i`` (the top-left aligned mask of torch's ``is_causal``):
the scores are masked with coordinate tiles and a program's loop stops at the last key
block its rows may attend (a trip count that depends on the program). Every path is
compared with float64 numpy on outputs poisoned first, for more queries than keys, more
keys than queries, ragged blocks, one block, and 16-bit inputs; the non-causal kernel,
whose ragged-key mask is now a coordinate tile too, is checked beside it. The GPU run is
``tests/device/test_cuda_attention.py``.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from paths import PATHS, cuda_source, poisoned, run
from tilec.lib.attention import flash_attention, reference_attention

CASES = [  # (bh, s, sk, d, bm, bn)
    (2, 37, 29, 32, 16, 16),
    (1, 40, 70, 32, 16, 32),
    (2, 50, 50, 32, 32, 16),
    (1, 9, 9, 32, 16, 16),
]


def _inputs(bh, s, sk, d, dtype=np.float32, seed=0):
    r = np.random.default_rng(seed + s * sk)
    return [r.standard_normal((bh, n, d)).astype(dtype) for n in (s, sk, sk)]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c)))
def test_causal_attention_matches_numpy(path: str, causal: bool, case: tuple) -> None:
    bh, s, sk, d, bm, bn = case
    q, k, v = _inputs(bh, s, sk, d)
    out = poisoned(*q.shape)
    run(path, flash_attention, q, k, v, out, np.float32(0.2), BM=bm, BN=bn, HEAD_DIM=d,
        CAUSAL=causal)
    want = reference_attention(q, k, v, 0.2, causal)
    assert not np.isnan(out).any()
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("path", ["reference", "sim:cuda:sm_90", "sim:cuda:sm_80"])
def test_16_bit_causal_attention(path: str) -> None:
    bf16 = ml_dtypes.bfloat16
    q, k, v = _inputs(2, 70, 45, 64, bf16)
    out = poisoned(*q.shape, dtype=bf16)
    run(path, flash_attention, q, k, v, out, np.float32(0.125), BM=64, BN=32, HEAD_DIM=64,
        CAUSAL=True)
    want = reference_attention(*(x.astype(np.float32) for x in (q, k, v)), 0.125, True)
    got = out.astype(np.float32)
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got, want, rtol=3e-2, atol=3e-2)


def test_the_causal_loop_stops_at_the_diagonal() -> None:
    """The key loop's trip count reads the program's row block: cdiv(min(SK, (pm+1)*BM), BN)
    (the CUDA source computes it per program, not once for the grid)."""
    q, k, v = _inputs(1, 64, 64, 32)
    out = np.zeros_like(q)
    causal = cuda_source(flash_attention, q, k, v, out, np.float32(0.2), BM=16, BN=16,
                         HEAD_DIM=32, CAUSAL=True).text
    plain = cuda_source(flash_attention, q, k, v, out, np.float32(0.2), BM=16, BN=16,
                        HEAD_DIM=32).text
    # the trip count: min(SK, (pm + 1) * 16) inside the program, absent without CAUSAL
    assert "_keys = tc_imin_index(" in causal and "_keys = tc_imin_index(" not in plain
