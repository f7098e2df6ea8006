"""``tilec.lib.flash_attention`` with 16-bit inputs on the GPU: the probabilities are cast to
V's type for the second product, statistics stay f32; matches torch's
``scaled_dot_product_attention`` on ragged query and key lengths (outputs poisoned first)."""

from __future__ import annotations

from typing import Any

import pytest

import tilec as tc
from tilec.lib.attention import flash_attention, flash_attention_lse


def _matches_sdpa(torch: Any, dtype: str, bh: int, s: int, sk: int, d: int, bm: int,
                  bn: int, seed: int, causal: bool, variant: dict | None = None,
                  pipeline: bool = False) -> None:
    """``lib.flash_attention`` on random 16-bit inputs into a NaN-poisoned output, against
    sdpa in float32 (with the top-left causal mask where ``causal``; plan ``variant``)."""
    dt = getattr(torch, dtype)
    gen = torch.Generator(device="cuda").manual_seed(seed)
    q = torch.randn(bh, s, d, device="cuda", dtype=dt, generator=gen)
    k = torch.randn(bh, sk, d, device="cuda", dtype=dt, generator=gen)
    v = torch.randn(bh, sk, d, device="cuda", dtype=dt, generator=gen)
    out = torch.full_like(q, float("nan"))
    scale = d ** -0.5
    extra = {"CAUSAL": True} if causal else {}
    if pipeline:
        extra["PIPELINE"] = True
    kern = tc.compile(flash_attention, q, k, v, out, scale, target="cuda", BM=bm, BN=bn,
                      HEAD_DIM=d, variant=variant, **extra)
    kern(q, k, v, out, scale)
    torch.cuda.synchronize()
    mask = torch.ones(s, sk, device="cuda", dtype=torch.bool).tril() if causal else None
    want = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                             attn_mask=mask, scale=scale)
    assert not bool(torch.isnan(out).any())
    assert float((out.float() - want).abs().max()) <= 2e-2


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("bh,s,sk,d,bm,bn", [
    (3, 200, 150, 64, 64, 64),
    (2, 130, 257, 128, 64, 32),
    (2, 64, 64, 128, 128, 64),
    (3, 300, 221, 64, 128, 64),
    # more 128-row tiles than SMs: each persistent program of the producer ring walks
    # several, the query buffer refilled after the previous tile's last release
    (48, 1024, 700, 64, 128, 64),
    (40, 1000, 1000, 128, 128, 64),
])
def test_16_bit_attention_matches_sdpa(torch_cuda: Any, dtype: str, bh: int, s: int, sk: int,
                                       d: int, bm: int, bn: int) -> None:
    _matches_sdpa(torch_cuda, dtype, bh, s, sk, d, bm, bn, s * sk + d, causal=False)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("bh,s,sk,d,bm,bn", [
    (3, 200, 200, 64, 64, 64),
    (2, 130, 257, 128, 64, 32),
    (2, 300, 77, 64, 64, 64),
    (2, 333, 333, 64, 128, 64),
])
def test_causal_attention_matches_sdpa(torch_cuda: Any, dtype: str, bh: int, s: int, sk: int,
                                       d: int, bm: int, bn: int) -> None:
    """``CAUSAL=True`` against sdpa's ``is_causal`` (top-left aligned) on ragged lengths,
    more keys than queries and the reverse."""
    _matches_sdpa(torch_cuda, dtype, bh, s, sk, d, bm, bn, s * sk + d + 1, causal=True)


@pytest.mark.parametrize("causal", [False, True])
def test_lse_matches_torch(torch_cuda: Any, causal: bool) -> None:
    """``flash_attention_lse``: the row log-sum-exp against torch's ``logsumexp`` of the
    scaled (masked) scores, and the output against sdpa."""
    torch = torch_cuda
    gen = torch.Generator(device="cuda").manual_seed(7)
    bh, s, sk, d = 4, 333, 250, 64
    q, k, v = (torch.randn(bh, n, d, device="cuda", dtype=torch.bfloat16, generator=gen)
               for n in (s, sk, sk))
    out = torch.full_like(q, float("nan"))
    lse = torch.full((bh, s), float("nan"), device="cuda")
    scale = d ** -0.5
    kern = tc.compile(flash_attention_lse, q, k, v, out, lse, scale, target="cuda", BM=128,
                      BN=64, HEAD_DIM=d, CAUSAL=causal)
    kern(q, k, v, out, lse, scale)
    torch.cuda.synchronize()
    scores = torch.einsum("bqd,bkd->bqk", q.float(), k.float()) * scale
    if causal:
        scores = scores.masked_fill(~torch.ones(s, sk, device="cuda").tril().bool(),
                                    float("-inf"))
    want = torch.logsumexp(scores, dim=2)
    assert not bool(torch.isnan(lse).any()) and not bool(torch.isnan(out).any())
    assert float((lse - want).abs().max()) <= 1e-3


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("bh,s,sk", [
    (2, 200, 180),  # ragged, one tile of keys and a partial one
    (40, 1000, 1000),  # more tiles than SMs: persistent programs walk several
])
def test_128x128_tiles_at_head_dimension_128(torch_cuda: Any, causal: bool, bh: int, s: int,
                                             sk: int) -> None:
    """128 x 128 tiles at head dimension 128 take the warpgroup plan (no scalar-reference
    fallback warning: they ran the scalar reference before) and match sdpa."""
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", tc.PerformanceWarning)
        _matches_sdpa(torch_cuda, "bfloat16", bh, s, sk, 128, 128, 128, s + sk, causal)
    assert not [w for w in seen if "no matrix plan" in str(w.message)]


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("bh,s,sk,d,bn", [
    (2, 200, 180, 128, 128),  # ragged, one tile of keys and a partial one
    (40, 1000, 1000, 128, 128),  # persistent programs walk several tiles
    (3, 300, 77, 64, 64),  # one key block, head dimension 64
])
def test_warpgroup_turns_match_sdpa(torch_cuda: Any, causal: bool, bh: int, s: int, sk: int,
                                    d: int, bn: int) -> None:
    """The two consumer warpgroups of 128-row tiles taking turns at the products
    (``warpgroup_turns``): the skewed schedule computes what sdpa does, and hangs nowhere
    (a tile whose key loop is empty takes no turn)."""
    for dtype in ("bfloat16", "float16"):
        _matches_sdpa(torch_cuda, dtype, bh, s, sk, d, 128, bn, s + sk + d, causal,
                      {"warpgroup_turns": True})


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("bh,s,sk,d,bn", [
    (2, 200, 180, 128, 64),  # ragged; the scores one iteration ahead of the softmax
    (40, 1000, 1000, 128, 64),  # persistent programs walk several tiles
    (3, 300, 77, 64, 64),  # one key block: one iteration of scores alone, one of softmax
    (2, 200, 180, 128, 128),
])
def test_pipelined_attention_matches_sdpa(torch_cuda: Any, causal: bool, bh: int, s: int,
                                          sk: int, d: int, bn: int) -> None:
    """``PIPELINE=True``: each key block's scores are issued one iteration before their
    softmax and stay in flight beside it (the lowering retires them before the yield)."""
    for dtype in ("bfloat16", "float16"):
        _matches_sdpa(torch_cuda, dtype, bh, s, sk, d, 128, bn, s + sk + d + 1, causal,
                      pipeline=True)
