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
