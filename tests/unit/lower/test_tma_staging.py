"""Tensor copies fill the swizzled rings of warpgroup operands (docs/design/hopper.md).

On ``cuda:sm_90`` a staged ``wgmma`` loop issues one ``tma.load`` per 64-column block of
each operand from thread 0, completing on one ``mbarrier`` per ring version; a window
whose array fails the in-kernel guard (a last extent that is not a whole number of
16-byte units) falls back to ``cp.async`` in the same kernel. Each case is simulated
against the reference interpreter with NaN-poisoned outputs.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING, differential

import tilec as tc
from tilec.lib import batched_matmul, matmul
from tilec.lower import LowerOptions, lower

BF16 = ml_dtypes.bfloat16
TILES = {"BM": 128, "BN": 128, "BK": 64}


def _args(m: int, n: int, k: int, seed: int = 0) -> list[np.ndarray]:
    r = np.random.default_rng(seed)
    return [r.standard_normal((m, k)).astype(BF16), r.standard_normal((k, n)).astype(BF16),
            np.zeros((m, n), np.float32)]


def _machine(args: list[np.ndarray], target: str = "cuda:sm_90",
             options: LowerOptions | None = None) -> str:
    module = tc.compile(matmul, *args, target="reference", **TILES).module
    res = lower(module, target, options)
    assert res.machine is not None
    return str(res.machine)


def _count(text: str, cid: str) -> int:
    return text.count(f'catalog_id = "{cid}"')


def test_wgmma_rings_are_filled_by_tensor_copies() -> None:
    text = _machine(_args(256, 256, 256))
    versions = LowerOptions().wgmma_stages
    # A: one 128 x 64 box; B: two 64 x 64 boxes (BN = 128); issued at W - 1 prologue sites
    # and once in the loop
    assert _count(text, "tma.load") == versions * (1 + 2)
    assert "box = [128, 64]" in text and "box = [64, 64]" in text
    assert _count(text, "mbarrier.init") == versions
    assert _count(text, "mbarrier.inval") == versions
    assert _count(text, "mbarrier.wait") == 1
    assert _count(text, "mbarrier.expect_tx") == versions
    # the fallback stays for arrays the guard rejects
    assert _count(text, "cp.async.16") > 0


def test_tma_option_and_profile_decide() -> None:
    args = _args(256, 256, 256)
    off = _machine(args, options=LowerOptions(tma=False))
    assert _count(off, "tma.load") == 0 and _count(off, "mbarrier.init") == 0
    sm80 = _machine(args, target="cuda:sm_80")
    assert _count(sm80, "tma.load") == 0 and _count(sm80, "mbarrier.wait") == 0


@pytest.mark.skipif(SIMULATOR_MISSING is not None, reason=SIMULATOR_MISSING or "")
@pytest.mark.parametrize("shape", [
    (200, 136, 160),   # ragged in every axis: the boxes cross the edges (zero fill)
    (130, 130, 72),    # N = 130 is not a whole number of 16-byte units: B falls back
    (64, 64, 300),     # K = 300 (A's rows of 600 bytes are not): A falls back, many trips
    (128, 128, 64),    # one trip: the loop body never issues ahead
], ids=["ragged", "b_fallback", "a_fallback", "one_trip"])
def test_tensor_copy_staging_matches_the_reference(shape) -> None:
    m, n, k = shape
    differential(matmul, _args(m, n, k, seed=m + n + k), [2], "cuda:sm_90", TILES,
                 rtol=2e-3, atol=2e-3)


@pytest.mark.skipif(SIMULATOR_MISSING is not None, reason=SIMULATOR_MISSING or "")
def test_tensor_copies_of_a_batched_operand() -> None:
    r = np.random.default_rng(5)
    b, m, n, k = 3, 72, 136, 96
    args = [r.standard_normal((b, m, k)).astype(BF16), r.standard_normal((b, k, n)).astype(BF16),
            np.zeros((b, m, n), np.float32)]
    res = differential(batched_matmul, args, [2], "cuda:sm_90", TILES, rtol=2e-3, atol=2e-3)
    text = str(res.machine)
    assert _count(text, "tma.load") > 0 and "box = [1, 128, 64]" in text


@pytest.mark.skipif(SIMULATOR_MISSING is not None, reason=SIMULATOR_MISSING or "")
@pytest.mark.parametrize("shape,stages", [
    ((200, 136, 320), 3),  # ragged, five trips: the refill is one iteration later
    ((130, 130, 200), 4),  # B falls back to cp.async; four versions, two issued ahead
    ((128, 128, 64), 3),   # one trip: the only iteration is the last (waits with 0)
], ids=["ragged3", "b_fallback4", "one_trip"])
def test_tensor_copies_with_a_group_in_flight(shape, stages) -> None:
    """One warpgroup group left in flight per iteration: the tensor-copy ring is refilled one
    iteration later and the product still matches the reference."""
    m, n, k = shape
    opts = LowerOptions(wgmma_in_flight=1, wgmma_stages=stages)
    res = differential(matmul, _args(m, n, k, seed=m * n + k), [2], "cuda:sm_90", TILES,
                       options=opts, rtol=2e-3, atol=2e-3)
    text = str(res.machine)
    assert "in_flight = 1" in text or "pending = 1" in text
    assert _count(text, "tma.load") > 0
    # W - 1 - L iterations are issued before the loop: 3 boxes each (A once, B twice)
    assert _count(text, "tma.load") == (stages - 1 - 1 + 1) * 3
    assert _count(text, "wgmma.wait") == 2  # pending 1, and 0 in the last iteration


def test_in_flight_is_a_plan_variant() -> None:
    """``variant={"wgmma_in_flight": 1}`` reaches the lowering (measured selection explores
    it); an unknown value is refused by the options."""
    from tilec.frontend.tunables import apply_variant

    opts = apply_variant(LowerOptions(), {"wgmma_in_flight": 1, "wgmma_stages": 4})
    assert opts.wgmma_in_flight == 1 and opts.wgmma_stages == 4
    with pytest.raises(ValueError, match="wgmma_in_flight must be 0 or 1"):
        apply_variant(LowerOptions(), {"wgmma_in_flight": 2})
