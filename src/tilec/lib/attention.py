"""Flash-style attention forward: online softmax over key blocks, never materializing scores.

``Q, K, V, Out`` are ``[batch * heads, seq, HEAD_DIM]``. Each program owns
``BM`` query rows; for every block of ``BN`` keys it updates a running row
max ``m``, a rescaled row sum ``l`` and the output accumulator. Keys past the
end (and, with ``CAUSAL``, keys after the query) get a score of ``-inf`` from a mask of
coordinate tiles (``tc.arange``) computed in registers, so ragged sequence lengths are
exact; a causal program stops at the last key block its rows may attend. The head
dimension may be below ``HEAD_DIM`` (the missing columns load as 0 and are not stored),
never above.

Scores are kept in base 2 (scaled by ``scale * log2(e)``, exponentiated with ``exp2``: the
same softmax, one cheaper function per probability). Scores, the running statistics and the
output accumulator are f32 whatever the inputs;
the probabilities are cast to V's type for the second product, so bf16 and f16 inputs take
the 16-bit matrix instructions for both products (``Out`` may be 16-bit too).
"""

from __future__ import annotations

import numpy as np

import tilec as tc
from tilec.demo import DemoCase

__all__ = ["flash_attention", "flash_attention_lse", "DEMOS"]

LOG2E = 1.4426950408889634
"""log2(e): the factor that turns natural-base scores into base-2 ones."""
LN2 = 0.6931471805599453
"""ln(2): the factor that turns a base-2 logarithm into a natural one."""


@tc.func
def _check_shapes(Q, K, V, Out, HEAD_DIM):
    BH, S, D = Q.shape
    SK = K.shape[1]
    assert D <= HEAD_DIM, "the head dimension must fit in HEAD_DIM"
    assert K.shape[0] == BH and V.shape[0] == BH, "Q, K and V must have the same batch-heads"
    assert K.shape[2] == D and V.shape[2] == D, "Q, K and V must have the same head dimension"
    assert V.shape[1] == SK, "V must have one row per key"
    assert Out.shape[0] == BH and Out.shape[1] == S and Out.shape[2] == D, \
        "Out must have Q's shape"


@tc.func
def _block(s, v, m, den, acc, j, SK, pm, BM, BN, CAUSAL):
    """Key block ``j``'s scores ``s`` (scaled, base 2) folded into the running maxima ``m``,
    sums ``den`` and output accumulator ``acc``: keys past the end (and, causal, after the
    query) masked, the online softmax, the probabilities times the value block ``v``."""
    cols = tc.arange(j * BN, j * BN + BN)[None, :]
    # one expression, so that the masks are computed in the scores' own layout; a key block
    # wholly inside the keys (and, causal, below the diagonal) needs none
    if CAUSAL:
        if (j + 1) * BN > min(SK, pm * BM + 1):
            rows = tc.arange(pm * BM, pm * BM + BM)[:, None]
            s = tc.where((cols < SK) & (cols <= rows), s, float("-inf"))
    elif (j + 1) * BN > SK:
        s = tc.where(cols < SK, s, float("-inf"))
    m_new = tc.maximum(m, tc.max(s, axis=1))
    p = tc.exp2(s - m_new[:, None])
    alpha = tc.exp2(m - m_new)
    den = den * alpha + tc.sum(p, axis=1)
    acc = tc.mma(p.to(v.dtype), v, acc * alpha[:, None])
    return m_new, den, acc


@tc.func
def _attend_pipelined(Q, K, V, scale2, bh, pm, BM, BN, HEAD_DIM, CAUSAL):
    """``_attend`` software-pipelined as FlashAttention-3 orders it: iteration ``n`` issues
    the scores of key block ``n`` and then computes the softmax and second product of block
    ``n - 1``, so that the scores' warpgroup product runs beside the softmax (its result is
    only carried: the lowering retires it at the end of the iteration). One iteration more
    than blocks; the first computes no softmax, the last scores are unused."""
    SK = K.shape[1]
    q = Q.tile((bh, pm * BM, 0), (1, BM, HEAD_DIM), fill=0.0).reshape(BM, HEAD_DIM)
    m = tc.full((BM,), float("-inf"))
    den = tc.zeros((BM,))
    acc = tc.zeros((BM, HEAD_DIM))
    s_next = tc.zeros((BM, BN))
    keys = min(SK, (pm + 1) * BM) if CAUSAL else SK  # the last key a row may attend
    for n in tc.serial(tc.cdiv(keys, BN) + 1):
        k = K.tile((bh, n * BN, 0), (1, BN, HEAD_DIM), fill=0.0).reshape(BN, HEAD_DIM)
        # block n - 1's values (before the array at n = 0: zeros, unused), loaded here, in
        # the loop's body, so that the ring stages them (a window first read inside the if
        # would be loaded there, each iteration, outside the ring)
        v = V.tile((bh, (n - 1) * BN, 0), (1, BN, HEAD_DIM),
                   fill=0.0).reshape(BN, HEAD_DIM).load()
        s = s_next * scale2
        s_next = tc.dot(q, k.T)
        if n > 0:
            m, den, acc = _block(s, v, m, den, acc, n - 1, SK, pm, BM, BN, CAUSAL)
    return acc, den, m


@tc.func
def _attend(Q, K, V, scale2, bh, pm, BM, BN, HEAD_DIM, CAUSAL):
    """One program's ``BM`` query rows: the output accumulator (not yet divided), the row
    sums and the row maxima, in base 2 (scores scaled by ``scale2``)."""
    SK = K.shape[1]
    q = Q.tile((bh, pm * BM, 0), (1, BM, HEAD_DIM), fill=0.0).reshape(BM, HEAD_DIM)
    m = tc.full((BM,), float("-inf"))
    den = tc.zeros((BM,))
    acc = tc.zeros((BM, HEAD_DIM))
    keys = min(SK, (pm + 1) * BM) if CAUSAL else SK  # the last key a row may attend
    for n in tc.serial(tc.cdiv(keys, BN)):
        k = K.tile((bh, n * BN, 0), (1, BN, HEAD_DIM), fill=0.0).reshape(BN, HEAD_DIM)
        v = V.tile((bh, n * BN, 0), (1, BN, HEAD_DIM), fill=0.0).reshape(BN, HEAD_DIM)
        s = tc.dot(q, k.T) * scale2
        m, den, acc = _block(s, v, m, den, acc, n, SK, pm, BM, BN, CAUSAL)
    return acc, den, m


@tc.kernel
def flash_attention(Q, K, V, Out, scale, BM: tc.constexpr = tc.tunable(16, 32, 64, 128),
                    BN: tc.constexpr = tc.tunable(16, 32, 64, 128), HEAD_DIM: tc.constexpr = 32,
                    CAUSAL: tc.constexpr = False, PIPELINE: tc.constexpr = False):
    """``Out = softmax(Q @ K^T * scale) @ V`` per batch-head; with ``CAUSAL`` query ``i``
    attends keys ``j <= i`` only (the top-left aligned mask of torch's ``is_causal``), and
    the key blocks wholly above the diagonal are never visited. ``PIPELINE`` issues each key
    block's scores one iteration ahead of its softmax (``_attend_pipelined``): the same
    result, the scores' product beside the previous block's softmax."""
    _check_shapes(Q, K, V, Out, HEAD_DIM)
    # scores in base 2: exp(x * scale - m) == exp2(x * scale * log2(e) - m'), one exp2 per
    # probability (cheaper than exp on every target) and the same softmax
    scale2 = scale * LOG2E
    for bh, pm in tc.parallel(Q.shape[0], tc.cdiv(Q.shape[1], BM)):
        attend = _attend_pipelined if PIPELINE else _attend
        acc, den, _ = attend(Q, K, V, scale2, bh, pm, BM, BN, HEAD_DIM, CAUSAL)
        Out.tile((bh, pm * BM, 0), (1, BM, HEAD_DIM)).store(acc / den[:, None])


@tc.kernel
def flash_attention_lse(Q, K, V, Out, LSE, scale,
                        BM: tc.constexpr = tc.tunable(16, 32, 64, 128),
                        BN: tc.constexpr = tc.tunable(16, 32, 64, 128), HEAD_DIM: tc.constexpr = 32,
                        CAUSAL: tc.constexpr = False, PIPELINE: tc.constexpr = False):
    """``flash_attention`` that also writes each query row's log-sum-exp of its scaled
    scores, ``LSE[b, i] = log(sum_j exp(scale * Q[b, i] . K[b, j]))`` (natural log, f32;
    ``-inf`` for a row with no key), which a backward pass recomputes the probabilities
    from. ``LSE`` is ``[batch * heads, seq]``."""
    _check_shapes(Q, K, V, Out, HEAD_DIM)
    assert LSE.shape[0] == Q.shape[0] and LSE.shape[1] == Q.shape[1], \
        "LSE must have one element per query row"
    scale2 = scale * LOG2E
    for bh, pm in tc.parallel(Q.shape[0], tc.cdiv(Q.shape[1], BM)):
        attend = _attend_pipelined if PIPELINE else _attend
        acc, den, m = attend(Q, K, V, scale2, bh, pm, BM, BN, HEAD_DIM, CAUSAL)
        Out.tile((bh, pm * BM, 0), (1, BM, HEAD_DIM)).store(acc / den[:, None])
        # the base-2 statistics back in natural log: log(sum exp) = (m + log2(den)) * ln 2
        LSE.tile((bh, pm * BM), (1, BM)).store(((m + tc.log2(den)) * LN2)[None, :])


def reference_attention(q, k, v, scale, causal: bool = False):
    """Numpy attention in float64 (``causal``: key ``j`` only for queries ``i >= j``)."""
    s = np.einsum("bqd,bkd->bqk", q.astype(np.float64), k) * scale
    if causal:
        s = np.where(np.tril(np.ones(s.shape[1:], bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=2, keepdims=True))
    p /= p.sum(axis=2, keepdims=True)
    return np.einsum("bqk,bkd->bqd", p, v)


def _inputs(rng: np.random.Generator) -> tuple:
    bh, s, sk, d = 3, 37, 29, 32
    q = rng.standard_normal((bh, s, d)).astype(np.float32)
    k = rng.standard_normal((bh, sk, d)).astype(np.float32)
    v = rng.standard_normal((bh, sk, d)).astype(np.float32)
    return q, k, v, np.zeros_like(q), np.float32(1.0 / np.sqrt(d))


def _inputs_bf16(rng: np.random.Generator) -> tuple:
    import ml_dtypes

    bh, s, sk, d = 2, 70, 45, 64
    q, k, v = (rng.standard_normal((bh, n, d)).astype(ml_dtypes.bfloat16)
               for n in (s, sk, sk))
    return q, k, v, np.zeros_like(q), np.float32(1.0 / np.sqrt(d))


def _expected(q, k, v, o, scale, causal: bool = False) -> dict[int, np.ndarray]:
    f = [x.astype(np.float32) for x in (q, k, v)]
    return {3: reference_attention(*f, float(scale), causal).astype(o.dtype)}


def _expected_causal(q, k, v, o, scale) -> dict[int, np.ndarray]:
    return _expected(q, k, v, o, scale, causal=True)


def _expected_lse(q, k, v, o, lse, scale) -> dict[int, np.ndarray]:
    f = [x.astype(np.float64) for x in (q, k, v)]
    s = np.einsum("bqd,bkd->bqk", f[0], f[1]) * float(scale)
    top = s.max(axis=2, keepdims=True)
    row = (top + np.log(np.exp(s - top).sum(axis=2, keepdims=True)))[..., 0]
    return {3: reference_attention(*f, float(scale)).astype(o.dtype), 4: row.astype(lse.dtype)}


def _inputs_lse(rng: np.random.Generator) -> tuple:
    q, k, v, o, scale = _inputs(rng)
    return q, k, v, o, np.zeros(q.shape[:2], np.float32), scale


DEMOS = [
    DemoCase("lib.flash_attention", flash_attention, _inputs, _expected),
    DemoCase("lib.flash_attention_bf16", flash_attention, _inputs_bf16, _expected,
             constexprs={"BM": 64, "BN": 32, "HEAD_DIM": 64}, rtol=3e-2),
    DemoCase("lib.flash_attention_causal", flash_attention, _inputs, _expected_causal,
             constexprs={"BM": 16, "BN": 16, "CAUSAL": True}),
    DemoCase("lib.flash_attention_lse", flash_attention_lse, _inputs_lse, _expected_lse),
]
