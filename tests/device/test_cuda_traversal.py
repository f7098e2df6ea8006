"""Grouped program traversal on the GPU (``ir.traversal``): every block computes the tile
the numbering gives it, so a ragged grid with a partial last group still writes every
output element once (outputs poisoned with NaN first)."""

from __future__ import annotations

from typing import Any

import pytest

import tilec as tc
from tilec.lib import batched_matmul, matmul


@pytest.mark.parametrize("shape,tiles,g", [
    ((1000, 1000, 320), (128, 128, 64), 3),  # wgmma + tensor copies, ragged, partial group
    ((200, 136, 160), (64, 64, 32), 8),      # G above the grid's rows
    ((4096, 512, 256), (128, 256, 64), 4),
])
def test_grouped_matmul_matches_torch(torch_cuda: Any, shape, tiles, g) -> None:
    torch = torch_cuda
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    bm, bn, bk = tiles
    # one program per tile (the grid's numbering; a persistent walk numbers its tiles so
    # too, tested with the producer warpgroup)
    kern = tc.compile(matmul, a, b, c, target="cuda", BM=bm, BN=bn, BK=bk,
                      variant={"program_traversal": f"grouped:{g}", "persistent": 0})
    assert f"/ ({g} * " in kern.executable().source
    kern(a, b, c)
    torch.cuda.synchronize()
    want = a.float() @ b.float()
    assert not bool(torch.isnan(c).any())
    assert float((c - want).abs().max()) <= 1e-4 * max(1.0, float(want.abs().max()))


def test_grouped_batched_and_f32_matmul(torch_cuda: Any) -> None:
    torch = torch_cuda
    a = torch.randn(3, 200, 96, device="cuda")
    b = torch.randn(3, 96, 136, device="cuda")
    c = torch.full((3, 200, 136), float("nan"), device="cuda")
    kern = tc.compile(batched_matmul, a, b, c, target="cuda",
                      variant={"program_traversal": "grouped:2"})
    assert "/ (2 * " in kern.executable().source
    kern(a, b, c)
    torch.cuda.synchronize()
    want = torch.bmm(a.double(), b.double()).float()
    assert not bool(torch.isnan(c).any())
    assert float((c - want).abs().max()) < 1e-3
