"""The mbarrier ring on the GPU (``LowerOptions.mbarrier_ring``, lowering.md): versions
released through per-version empty barriers, one wgmma group in flight; arrays the
tensor-map guard rejects run the ordinary ring in the same kernel. Outputs are poisoned
with NaN first and compared with torch in float32."""

from __future__ import annotations

from typing import Any

import pytest

import tilec as tc
from tilec.lib import matmul


@pytest.mark.parametrize("shape,tiles", [
    ((1000, 1000, 320), (128, 128, 64)),    # ragged: boxes cross every edge
    ((512, 512, 4096), (128, 256, 64)),     # two warpgroups, 64 trips: many phases
    ((256, 264, 1024), (256, 128, 64)),     # 256-row tiles
    ((200, 130, 640), (128, 128, 64)),      # N = 130: B fails the guard, the fallback loop
    ((128, 128, 64), (128, 128, 64)),       # one trip: nothing is released
    ((300, 300, 128), (128, 128, 64)),      # two trips
])
def test_mbarrier_ring_matches_torch(torch_cuda: Any, shape, tiles) -> None:
    torch = torch_cuda
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + 3 * n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    bm, bn, bk = tiles
    kern = tc.compile(matmul, a, b, c, target="cuda", BM=bm, BN=bn, BK=bk,
                      variant={"mbarrier_ring": True})
    assert "tc_mbar_arrive_p(tc_smem_addr(" in kern.executable().source
    for _ in range(3):  # the same launch again finds its barriers re-initialized
        c.fill_(float("nan"))
        kern(a, b, c)
        torch.cuda.synchronize()
        want = a.float() @ b.float()
        assert not bool(torch.isnan(c).any())
        assert float((c - want).abs().max()) <= 1e-4 * max(1.0, float(want.abs().max()))
