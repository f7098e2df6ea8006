"""Warp-specialized mbarrier rings on the GPU (``LowerOptions.warp_specialized``,
docs/design/warp_specialization.md): a producer warpgroup issues the tensor copies, the
consumers wait, compute and release. Arrays the tensor-map guard rejects run the
consumers' ordinary ring in the same kernel. Outputs are poisoned with NaN first and
compared with torch in float32; a second launch of the same kernel must agree bit for bit
(the barriers are initialized again, the producer's phases start over)."""

from __future__ import annotations

from typing import Any

import pytest

import tilec as tc
from paths import bf16_matmul_operands, matmul_matches_twice
from tilec.lib import matmul


@pytest.mark.parametrize("shape,tiles", [
    ((1000, 1000, 320), (128, 128, 64)),    # ragged: boxes cross every edge
    ((512, 512, 4096), (128, 256, 64)),     # two wide consumers, 64 trips: many phases
    ((500, 300, 700), (64, 64, 64)),        # one consumer warpgroup (no register moves)
    ((200, 130, 640), (128, 128, 64)),      # N = 130: B fails the guard, the fallback loop
    ((128, 128, 64), (128, 128, 64)),       # one trip: nothing is released
    ((300, 300, 128), (128, 128, 64)),      # two trips
    ((2048, 2048, 2048), (128, 128, 64)),   # many groups at once on every SM
])
def test_warp_specialized_ring_matches_torch(torch_cuda: Any, shape, tiles) -> None:
    torch = torch_cuda
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + 5 * n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    bm, bn, bk = tiles
    kern = tc.compile(matmul, a, b, c, target="cuda", BM=bm, BN=bn, BK=bk,
                      variant={"warp_specialized": True})
    src = kern.executable().source
    assert "bar.sync 1, " in src, "the consumers' named barrier"
    if (bm, bn) != (64, 64):  # two consumer warpgroups
        assert "setmaxnreg.inc.sync.aligned.u32 232" in src
    matmul_matches_twice(torch, kern, a, b, c)


@pytest.mark.parametrize("shape,tiles,programs,traversal", [
    ((1000, 1000, 320), (128, 128, 64), 5, None),        # ragged, 64 tiles over 5 programs
    ((1000, 1000, 320), (128, 128, 64), 7, "grouped:3"),  # the grouped order of the walk
    ((2048, 2048, 1024), (128, 256, 64), 132, None),      # one program per SM, 4 waves
    ((512, 512, 4096), (128, 256, 64), 3, None),          # many phases carried across tiles
    ((500, 300, 700), (64, 64, 64), 4, None),             # one consumer warpgroup
    ((200, 130, 640), (128, 128, 64), 2, None),           # B fails the guard: the fallback
    ((300, 300, 64), (128, 128, 64), 2, None),            # one trip per tile
    ((64, 64, 128), (128, 128, 64), 132, None),           # fewer tiles than programs
])
def test_persistent_walk_matches_torch(torch_cuda: Any, shape, tiles, programs,
                                       traversal) -> None:
    """A persistent warp-specialized group (``persistent``): each program walks output
    tiles and both roles carry the ring's phases from tile to tile."""
    torch = torch_cuda
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + 3 * n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    bm, bn, bk = tiles
    variant: dict[str, Any] = {"warp_specialized": True, "persistent": programs}
    if traversal is not None:
        variant["program_traversal"] = traversal
    kern = tc.compile(matmul, a, b, c, target="cuda", BM=bm, BN=bn, BK=bk, variant=variant)
    assert "_program = (int)blockIdx.x" in kern.executable().source
    matmul_matches_twice(torch, kern, a, b, c)


@pytest.mark.parametrize("shape,tiles,programs,out", [
    ((1000, 1000, 320), (64, 128, 64), 5, "f32"),      # ragged, 128 tiles over 5 programs
    ((2048, 2048, 1024), (64, 256, 64), 132, "bf16"),  # one program per SM, fused cast
    ((512, 512, 4096), (64, 256, 64), 3, "f32"),       # many phases carried across tiles
    ((200, 130, 640), (64, 128, 64), 2, "f32"),        # B fails the guard: consumer 0 alone
    ((300, 300, 64), (64, 128, 64), 2, "bf16"),        # one trip per tile
    ((64, 256, 128), (64, 256, 64), 132, "f32"),       # one tile: consumer 1 walks none
    ((192, 256, 640), (64, 256, 64), 1, "f32"),        # one program, odd tile count
])
def test_pingpong_consumers_match_torch(torch_cuda: Any, shape, tiles, programs, out) -> None:
    """Ping-pong consumers (``pingpong``): two consumer warpgroups of a persistent group
    take alternate tiles, their K loops in turn."""
    torch = torch_cuda
    m, n, k = shape
    a, b, c = bf16_matmul_operands(torch, m, n, k, m + 7 * n + k, out)
    bm, bn, bk = tiles
    variant = {"threads": 128, "warp_specialized": True, "persistent": programs,
               "pingpong": True, "fuse_matrix_epilogues": True}
    kern = tc.compile(matmul, a, b, c, target="cuda", BM=bm, BN=bn, BK=bk, variant=variant)
    src = kern.executable().source
    assert "bar.sync 2, 128" in src and "bar.sync 3, 128" in src, "each consumer's barrier"
    assert "turn_barriers" in src
    matmul_matches_twice(torch, kern, a, b, c, tol=1e-4 if out == "f32" else 1e-2)


@pytest.mark.parametrize("shape,tiles,variant", [
    ((1000, 1000, 320), (128, 128, 64), {}),
    ((1000, 1000, 320), (128, 256, 64), {"warp_specialized": True, "wgmma_stages": 4}),
    ((2048, 2048, 1024), (128, 256, 64), {"warp_specialized": True, "wgmma_stages": 4,
                                          "persistent": 132}),
    ((300, 200, 130), (64, 64, 64), {"warp_specialized": True, "persistent": 3}),
])
def test_fused_cast_to_bf16_matches_torch(torch_cuda: Any, shape, tiles, variant) -> None:
    """A bf16 output with the cast fused into the accumulator's registers
    (``fuse_matrix_epilogues``): stored directly, no shared staging of the tile."""
    torch = torch_cuda
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + 7 * n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    bm, bn, bk = tiles
    kern = tc.compile(matmul, a, b, c, target="cuda", BM=bm, BN=bn, BK=bk,
                      variant={**variant, "fuse_matrix_epilogues": True})
    want = (a.float() @ b.float()).bfloat16().float()
    kern(a, b, c)
    torch.cuda.synchronize()
    assert not bool(torch.isnan(c).any())
    err = float((c.float() - want).abs().max())
    assert err <= 1e-2 * max(1.0, float(want.abs().max())), err
