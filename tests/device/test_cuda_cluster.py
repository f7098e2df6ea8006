"""Clusters of two persistent warp-specialized groups on the GPU (``LowerOptions.cluster``,
docs/design/warp_specialization.md, "Clusters"): neighbouring row tiles share B, each
group's producer copies half of its boxes and multicasts them into both groups' rings, both
groups' consumers release every version. Outputs are poisoned with NaN first and compared
with torch in float32; a second launch of the same kernel must agree bit for bit. Odd
numbers of row tiles leave the last pair's second tile outside the grid (its group runs the
ring and stores nothing)."""

from __future__ import annotations

from typing import Any

import pytest

import tilec as tc
from paths import matmul_matches_twice
from tilec.lib import matmul


@pytest.mark.parametrize("shape,tiles,programs,traversal", [
    ((1000, 1000, 320), (128, 128, 64), 6, None),          # ragged; 8 row tiles
    ((3968, 4096, 1024), (128, 256, 64), 132, "grouped:8"),  # 31 row tiles: odd
    ((1000, 1000, 320), (128, 128, 64), 14, "grouped:3"),   # a grouped walk of pairs
    ((512, 512, 4096), (128, 256, 64), 4, None),            # many phases across tiles
    ((200, 130, 640), (128, 128, 64), 2, None),             # B fails the guard: fallback
    ((300, 300, 64), (128, 128, 64), 2, None),              # one trip per tile
    ((64, 64, 128), (128, 128, 64), 132, None),             # one tile: one pair, one idle
    ((2048, 2048, 2048), (128, 256, 64), 132, None),        # 66 clusters, every SM
])
def test_cluster_matches_torch(torch_cuda: Any, shape, tiles, programs, traversal) -> None:
    torch = torch_cuda
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + 7 * n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    bm, bn, bk = tiles
    variant: dict = {"warp_specialized": True, "persistent": programs, "cluster": 2}
    if traversal is not None:
        variant["program_traversal"] = traversal
    kern = tc.compile(matmul, a, b, c, target="cuda", BM=bm, BN=bn, BK=bk, variant=variant)
    src = kern.executable().source
    assert "__cluster_dims__(2, 1, 1)" in src and "tc_mbar_arrive_peer" in src
    matmul_matches_twice(torch, kern, a, b, c)


def test_cluster_with_a_16_bit_output(torch_cuda: Any) -> None:
    """The default plan's fused cast with clusters (bf16 out, as ``lib.matmul`` gives)."""
    torch = torch_cuda
    gen = torch.Generator(device="cuda").manual_seed(11)
    a = torch.randn(2048, 1024, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(1024, 2048, device="cuda", dtype=torch.bfloat16, generator=gen)
    c = torch.full((2048, 2048), float("nan"), device="cuda", dtype=torch.bfloat16)
    kern = tc.compile(matmul, a, b, c, target="cuda", BM=128, BN=256, BK=64,
                      variant={"cluster": 2, "persistent": 132})
    kern(a, b, c)
    torch.cuda.synchronize()
    want = (a.float() @ b.float())
    assert not bool(torch.isnan(c).any())
    assert float((c.float() - want).abs().max()) <= 2e-2 * float(want.abs().max())
