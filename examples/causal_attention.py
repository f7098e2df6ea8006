"""Causal attention forward: each query attends only the keys at or before it.

The scores of a block of ``BM`` queries against a block of ``BN`` keys are masked with
coordinate tiles (``tc.arange``): key ``j`` of query ``i`` keeps its score when
``j <= i`` (and ``j`` is a real key), else it becomes ``-inf``, which the online softmax
turns into a zero weight. A program stops at the last key block its rows may attend:
its loop runs ``cdiv(min(SK, (pm + 1) * BM), BN)`` times, a trip count that depends on
the program's own coordinate, so the blocks wholly above the diagonal cost nothing. The
mask is top-left aligned, as torch's ``scaled_dot_product_attention(is_causal=True)``.
``tilec.lib.flash_attention`` has the same loop behind ``CAUSAL=True``.
Run ``python examples/causal_attention.py``.
"""

from __future__ import annotations

import numpy as np

import tilec as tc
from tilec.demo import DemoCase


@tc.kernel
def causal_attention(Q, K, V, Out, scale, BM: tc.constexpr = 16, BN: tc.constexpr = 16,
                     HEAD_DIM: tc.constexpr = 32):
    """``Out = softmax(mask(Q @ K^T * scale)) @ V`` for ``[batch*heads, seq, HEAD_DIM]``
    arrays, key ``j`` masked out for query ``i < j``."""
    BH, S = Q.shape[0], Q.shape[1]
    SK = K.shape[1]
    assert Q.shape[2] <= HEAD_DIM, "the head dimension must fit in HEAD_DIM"
    assert K.shape[0] == BH and V.shape[0] == BH, "Q, K and V must have the same batch-heads"
    assert K.shape[2] == Q.shape[2] and V.shape[2] == Q.shape[2], "one head dimension"
    assert V.shape[1] == SK, "V must have one row per key"
    for bh, pm in tc.parallel(BH, tc.cdiv(S, BM)):
        q = Q.tile((bh, pm * BM, 0), (1, BM, HEAD_DIM), fill=0.0).reshape(BM, HEAD_DIM)
        m = tc.full((BM,), float("-inf"))
        den = tc.zeros((BM,))
        acc = tc.zeros((BM, HEAD_DIM))
        rows = tc.arange(pm * BM, pm * BM + BM)[:, None]      # query positions, BM x 1
        for n in tc.serial(tc.cdiv(min(SK, (pm + 1) * BM), BN)):
            k = K.tile((bh, n * BN, 0), (1, BN, HEAD_DIM), fill=0.0).reshape(BN, HEAD_DIM)
            v = V.tile((bh, n * BN, 0), (1, BN, HEAD_DIM), fill=0.0).reshape(BN, HEAD_DIM)
            cols = tc.arange(n * BN, n * BN + BN)[None, :]    # key positions, 1 x BN
            s = tc.where((cols <= rows) & (cols < SK), tc.dot(q, k.T) * scale,
                         float("-inf"))
            m_new = tc.maximum(m, tc.max(s, axis=1))
            p = tc.exp(s - m_new[:, None])
            alpha = tc.exp(m - m_new)
            den = den * alpha + tc.sum(p, axis=1)
            acc = tc.mma(p, v, acc * alpha[:, None])
            m = m_new
        Out.tile((bh, pm * BM, 0), (1, BM, HEAD_DIM)).store(acc / den[:, None])


def make_inputs(rng: np.random.Generator) -> tuple:
    """``Q`` (2 x 50 x 32), ``K``/``V`` (2 x 45 x 32): more queries than keys and ragged
    blocks; the output and the softmax scale."""
    q = rng.standard_normal((2, 50, 32)).astype(np.float32)
    k = rng.standard_normal((2, 45, 32)).astype(np.float32)
    v = rng.standard_normal((2, 45, 32)).astype(np.float32)
    return q, k, v, np.zeros_like(q), np.float32(32 ** -0.5)


def reference(q, k, v, out, scale) -> dict[int, np.ndarray]:
    """The expected value of each output argument, by position (float64 numpy)."""
    s = np.einsum("bqd,bkd->bqk", q.astype(np.float64), k) * float(scale)
    s = np.where(np.tril(np.ones(s.shape[1:], bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=2, keepdims=True))
    return {3: np.einsum("bqk,bkd->bqd", p / p.sum(axis=2, keepdims=True), v)}


DEMOS = [DemoCase("examples.causal_attention", causal_attention, make_inputs, reference)]

if __name__ == "__main__":
    from _common import run_example

    raise SystemExit(0 if run_example(DEMOS[0]) else 1)
