"""GEMM epilogues with a bias row or a residual and an activation, fused into the
accumulator's registers, on the GPU against torch.

The GPU side of ``tests/regression/test_bias_epilogue.py``: ``lib.gemm_bias_act`` with f32
and bf16 outputs (the bf16 one is fused since capture merges the activation and the
store's cast into one map), the model's tile pick and the warp-specialized 128x128x64 and
128x256x64 plans, and the residual kernel ``act(A @ B + R)``; each output starts NaN and
is launched twice (bit-identical).
"""

from __future__ import annotations

from typing import Any

import pytest

import tilec as tc
from epilogue_kernels import residual_act
from paths import matmul_matches_twice

pytestmark = pytest.mark.usefixtures("torch_cuda")

WS = {"warp_specialized": True, "wgmma_stages": 4}


def _fused(kern: Any) -> None:
    """The plan reports the scalar epilogue on the direct output."""
    text = kern.plan.render()
    assert "direct output through the scalar epilogue" in text, text


def _act(torch: Any, x: Any, act: str) -> Any:
    return torch.nn.functional.gelu(x) if act == "gelu" else torch.relu(x)


@pytest.mark.parametrize("act", ["gelu", "relu"])
@pytest.mark.parametrize("out", ["f32", "bf16"])
@pytest.mark.parametrize("shape,config", [
    ((4096, 4096, 4096), {}),                                       # the model's pick
    ((1000, 1000, 320), {"BM": 128, "BN": 128, "BK": 64, "variant": WS}),   # ragged
    ((2048, 2048, 1024), {"BM": 128, "BN": 256, "BK": 64, "variant": WS}),
    ((77, 45, 33), {"BM": 64, "BN": 64, "BK": 32}),                 # a bias shorter than BN
], ids=["pick", "ws128", "ws256", "small"])
def test_gemm_bias_act_matches_torch(torch_cuda: Any, act: str, out: str, shape,
                                     config) -> None:
    from tilec.lib import gemm_bias_act

    torch = torch_cuda
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    bias = torch.randn(n, device="cuda", dtype=torch.float32, generator=gen)
    dt = torch.float32 if out == "f32" else torch.bfloat16
    c = torch.full((m, n), float("nan"), device="cuda", dtype=dt)
    kern = tc.compile(gemm_bias_act, a, b, bias, c, target="cuda", ACT=act, **config)
    _fused(kern)
    want = _act(torch, a.float() @ b.float() + bias, act)
    if out == "bf16":
        want = want.to(torch.bfloat16).float()
    tol = 1e-3 if out == "f32" else 1e-2
    matmul_matches_twice(torch, lambda x, y, z: kern(x, y, bias, z), a, b, c, want, tol)


@pytest.mark.parametrize("out", ["f32", "bf16"])
@pytest.mark.parametrize("shape,config", [
    ((1000, 1000, 320), {"BM": 128, "BN": 128, "BK": 64, "variant": WS}),
    ((77, 45, 33), {"BM": 64, "BN": 64, "BK": 32}),
], ids=["ws128", "small"])
def test_a_residual_matches_torch(torch_cuda: Any, out: str, shape, config) -> None:
    torch = torch_cuda
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m * n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    r = torch.randn(m, n, device="cuda", dtype=torch.float32, generator=gen)
    dt = torch.float32 if out == "f32" else torch.bfloat16
    c = torch.full((m, n), float("nan"), device="cuda", dtype=dt)
    kern = tc.compile(residual_act, a, b, r, c, target="cuda", ACT="gelu", **config)
    _fused(kern)
    want = torch.nn.functional.gelu(a.float() @ b.float() + r)
    if out == "bf16":
        want = want.to(torch.bfloat16).float()
    tol = 1e-3 if out == "f32" else 1e-2
    matmul_matches_twice(torch, lambda x, y, z: kern(x, y, r, z), a, b, c, want, tol)
