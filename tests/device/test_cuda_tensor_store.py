"""Tensor stores on the GPU (``LowerOptions.tensor_store``, docs/design/
warp_specialization.md, "Tensor stores"): a warp-specialized group writes its output tile
chunk by chunk into swizzled shared buffers (two, or ``tensor_store_buffers``) and stores
each with
``cp.async.bulk.tensor``; the box clips at the array's edges. Outputs are poisoned with NaN
first and compared with torch in float32; a second launch must agree bit for bit, and the
same kernel storing from registers (``tensor_store=False``) must give the same bits."""

from __future__ import annotations

from typing import Any

import pytest

import tilec as tc
from paths import bf16_matmul_operands, matmul_matches_twice
from tilec.lib import matmul


def _matches(torch: Any, kern: Any, a: Any, b: Any, c: Any, out: str) -> None:
    """Two launches into a NaN-poisoned output agree with torch (an f32 output bit for bit
    across the launches, a bf16 one within its rounding)."""
    if out == "f32":
        matmul_matches_twice(torch, kern, a, b, c)
        return
    want = a.float() @ b.float()
    for _ in range(2):
        c.fill_(float("nan"))
        kern(a, b, c)
        torch.cuda.synchronize()
        assert not bool(torch.isnan(c).any())
        assert float((c.float() - want).abs().max()) <= 2e-2 * float(want.abs().max())


@pytest.mark.parametrize("shape,tiles,persistent,out", [
    ((1000, 1000, 320), (128, 128, 64), None, "f32"),      # ragged: boxes clip
    ((1000, 1000, 320), (128, 256, 64), 8, "bf16"),         # persistent, chunks per tile
    ((4096, 4096, 1024), (128, 256, 64), 132, "bf16"),      # every SM, several tiles each
    ((3968, 4104, 512), (128, 256, 64), 132, "f32"),        # ragged columns, 8 chunks
    ((200, 130, 640), (128, 128, 64), 2, "f32"),            # B fails the guard: registers
    ((64, 64, 128), (64, 64, 64), None, "f32"),             # one consumer warpgroup
    ((1000, 1000, 320), (128, 64, 64), 8, "bf16"),          # one chunk per tile: odd
])
def test_tensor_stores_match_torch(torch_cuda: Any, shape, tiles, persistent, out) -> None:
    torch = torch_cuda
    m, n, k = shape
    a, b, c = bf16_matmul_operands(torch, m, n, k, m + 3 * n + k, out)
    bm, bn, bk = tiles
    results = {}
    for on in (None, False):
        variant: dict = {"warp_specialized": True, "tensor_store": on}
        if persistent is not None:
            variant["persistent"] = persistent
        kern = tc.compile(matmul, a, b, c, target="cuda", BM=bm, BN=bn, BK=bk,
                          variant=variant)
        src = kern.executable().source
        assert ("tc_tma_store_2d(&" in src) == (on is None)
        _matches(torch, kern, a, b, c, out)
        results[on] = c.clone()
    assert torch.equal(results[None], results[False])


@pytest.mark.parametrize("buffers,shape,out", [
    (3, (4096, 4096, 512), "bf16"),     # four chunks a tile, three buffers: tile-start waits
    (4, (4096, 4096, 512), "bf16"),     # a buffer per chunk
    (3, (3968, 4104, 512), "f32"),      # ragged columns, eight chunks a tile
    (4, (1000, 1000, 320), "f32"),      # ragged both ways
])
def test_more_store_buffers_match_torch(torch_cuda: Any, buffers, shape, out) -> None:
    """``tensor_store_buffers``: each chunk's wait leaves ``n - 2`` stores reading; every
    SM walks several tiles, so one tile's stores still read while the next tile's chunks
    are written. The bits equal those of the two-buffer kernel."""
    torch = torch_cuda
    m, n, k = shape
    a, b, c = bf16_matmul_operands(torch, m, n, k, m + 5 * n + k, out)
    results = {}
    for count in (buffers, 2):
        variant = {"warp_specialized": True, "wgmma_stages": 3, "persistent": 132,
                   "tensor_store_buffers": count}
        kern = tc.compile(matmul, a, b, c, target="cuda", BM=128, BN=256, BK=64,
                          variant=variant)
        src = kern.executable().source
        assert f"cp.async.bulk.wait_group.read {count - 2};" in src
        _matches(torch, kern, a, b, c, out)
        results[count] = c.clone()
    assert torch.equal(results[buffers], results[2])


def test_tensor_stores_with_clusters(torch_cuda: Any) -> None:
    """The default plan's fused cast, clusters and tensor stores together (31 row tiles:
    the last pair's second tile stores nothing)."""
    torch = torch_cuda
    gen = torch.Generator(device="cuda").manual_seed(5)
    a = torch.randn(3968, 512, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(512, 2048, device="cuda", dtype=torch.bfloat16, generator=gen)
    c = torch.full((3968, 2048), float("nan"), device="cuda", dtype=torch.float32)
    kern = tc.compile(matmul, a, b, c, target="cuda", BM=128, BN=256, BK=64,
                      variant={"cluster": 2, "persistent": 132})
    src = kern.executable().source
    assert "__cluster_dims__(2, 1, 1)" in src and "tc_tma_store_2d(&" in src
    matmul_matches_twice(torch, kern, a, b, c)


@pytest.mark.parametrize("shape,tiles", [
    ((4096, 4096, 512), (128, 256, 64)),   # the bias and GELU per chunk: 128x256 fits
    ((1000, 1000, 320), (128, 128, 64)),   # ragged
])
def test_a_fused_epilogue_per_chunk_matches_torch(torch_cuda: Any, shape, tiles) -> None:
    from tilec.lib import gemm_bias_act

    torch = torch_cuda
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    bias = torch.randn(n, device="cuda", dtype=torch.float32, generator=gen)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    bm, bn, bk = tiles
    kern = tc.compile(gemm_bias_act, a, b, bias, c, target="cuda", BM=bm, BN=bn, BK=bk,
                      ACT="gelu")
    assert "tc_tma_store_2d(&" in kern.executable().source
    want = torch.nn.functional.gelu(a.float() @ b.float() + bias)
    matmul_matches_twice(torch, lambda x, y, z: kern(x, y, bias, z), a, b, c, want, 1e-3)
