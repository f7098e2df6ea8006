"""Copy batching on the GPU (``max_copy_batch``, ``lower/machine_copies.py``): staged
operands copied synchronously, several chunks loaded before their ring stores, against
torch with the output poisoned with NaN first. Rows of a K that is not a multiple of 8 are
not 16-byte aligned, so ``cp.async`` and tensor copies give way to the synchronous
fallback (every K step); ``async_copies=False`` copies both operands so, batched together."""

from __future__ import annotations

from typing import Any

import pytest

import tilec as tc
from tilec.lib import matmul


@pytest.mark.parametrize("shape,tiles,variant", [
    ((200, 136, 150), (64, 64, 32), {"max_copy_batch": 3}),       # misaligned K fallback
    ((1000, 520, 333), (128, 128, 64), {"max_copy_batch": 8}),    # wgmma rings, fallback
    ((1000, 520, 336), (128, 128, 64), {"max_copy_batch": 16, "async_copies": False}),
    ((257, 130, 72), (64, 64, 32), {"max_copy_batch": 1, "async_copies": False}),
], ids=["fallback", "wgmma_fallback", "sync_16", "reference_sequence"])
def test_batched_copies_match_torch(torch_cuda: Any, shape, tiles, variant) -> None:
    torch = torch_cuda
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    bm, bn, bk = tiles
    kern = tc.compile(matmul, a, b, c, target="cuda", BM=bm, BN=bn, BK=bk, variant=variant)
    default = tc.compile(matmul, a, b, c, target="cuda", BM=bm, BN=bn, BK=bk,
                         variant={k: v for k, v in variant.items() if k != "max_copy_batch"})
    assert kern.executable().source != default.executable().source
    kern(a, b, c)
    torch.cuda.synchronize()
    want = a.float() @ b.float()
    assert not bool(torch.isnan(c).any())
    assert float((c - want).abs().max()) <= 1e-4 * max(1.0, float(want.abs().max()))
