"""The default plan on the GPU (docs/design/warp_specialization.md, "The default plan"):
library kernels called with no tile arguments and no variant, and at the tiles where the
default gives the producer warpgroup, a persistent grid and a fused epilogue (a cast, a
bias row with an activation), against torch; outputs poisoned with NaN first."""

from __future__ import annotations

from typing import Any

import pytest

import tilec as tc
from tilec.lib import gemm_bias_act, matmul


@pytest.mark.parametrize("shape,tiles,out", [
    ((1000, 1000, 320), None, "bf16"),              # the model's tiles
    ((2176, 2304, 192), (128, 128, 64), "bf16"),   # more tiles than SMs: programs walk
    ((520, 1030, 200), (128, 256, 64), "f32"),     # ragged edges
    ((300, 260, 200), (64, 64, 64), "f16"),        # one consumer warpgroup: ordinary ring
])
def test_matmul_with_the_default_plan_matches_torch(torch_cuda: Any, shape, tiles, out) -> None:
    torch = torch_cuda
    m, n, k = shape
    dt = {"bf16": torch.bfloat16, "f16": torch.float16}.get(out, torch.bfloat16)
    odt = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[out]
    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", dtype=dt, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=dt, generator=gen)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=odt)
    kw = {} if tiles is None else dict(zip(("BM", "BN", "BK"), tiles))
    kern = tc.compile(matmul, a, b, c, target="cuda", **kw)
    kern(a, b, c)
    torch.cuda.synchronize()
    want = (a.float() @ b.float()).to(odt).float()
    assert not bool(torch.isnan(c).any())
    tol = 1e-4 if odt == torch.float32 else 1e-2
    assert float((c.float() - want).abs().max()) <= tol * max(1.0, float(want.abs().max()))


@pytest.mark.parametrize("shape,tiles,act", [
    ((4096, 4096, 512), None, "gelu"),
    ((1000, 1030, 200), (128, 128, 64), "gelu"),
    ((700, 300, 136), (128, 128, 64), "silu"),
])
def test_bias_and_activation_on_the_accumulator_match_torch(torch_cuda: Any, shape, tiles,
                                                            act) -> None:
    torch = torch_cuda
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    bias = torch.randn(n, device="cuda", dtype=torch.float32, generator=gen)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    kw = {} if tiles is None else dict(zip(("BM", "BN", "BK"), tiles))
    kern = tc.compile(gemm_bias_act, a, b, bias, c, target="cuda", ACT=act, **kw)
    kern(a, b, bias, c)
    torch.cuda.synchronize()
    x = a.float() @ b.float() + bias
    want = torch.nn.functional.gelu(x) if act == "gelu" else torch.nn.functional.silu(x)
    assert not bool(torch.isnan(c).any())
    assert float((c - want).abs().max()) <= 1e-3 * max(1.0, float(want.abs().max()))


@pytest.mark.parametrize("shape,dtype", [
    ((16, 4096, 4096), "bf16"),     # priced split of K on small tiles
    ((128, 128, 8192), "bf16"),
    ((64, 2048, 4096), "bf16"),     # one warpgroup of 64x64 tiles, split
    ((777, 1555, 333), "bf16"),     # rows not 16-byte aligned, split
    ((333, 517, 250), "f32"),       # exact f32 with a split of K
    ((192, 4096, 2048), "f32"),
])
def test_the_models_priced_split_matches_torch(torch_cuda: Any, shape, dtype) -> None:
    """A call with no tile arguments: the model (``cuda_mma_v6``) picks tiles and a split
    of K together (``plan/split_price.py``); the kernel it compiles matches torch."""
    torch = torch_cuda
    m, n, k = shape
    dt = torch.bfloat16 if dtype == "bf16" else torch.float32
    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", dtype=dt, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=dt, generator=gen)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    kern = tc.compile(matmul, a, b, c, target="cuda")
    assert kern.selection.source == "model" and "cuda_mma_v6" in kern.selection.detail
    for _ in range(2):  # the second launch reuses the workspace's counters
        c.fill_(float("nan"))
        kern(a, b, c)
        torch.cuda.synchronize()
        want = a.float() @ b.float()
        assert not bool(torch.isnan(c).any())
        err = float((c - want).abs().max()) / max(1.0, float(want.abs().max()))
        assert err <= (1e-4 if dtype == "bf16" else 1e-5), (kern.selection, err)
