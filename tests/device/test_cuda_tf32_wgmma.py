"""TF32 products on the warpgroup instruction, on the GPU (``wgmma.m64k8.tf32``; the
operand swap of ``lower/operand_swap.py`` for an N-major B).

The instruction rounds its register operand to TF32 (to nearest: the lowering's
``cvt.rna``) and reads its shared operand truncated (the hardware drops 13 mantissa bits),
which the ``tf32`` policy allows (docs/design/tileir.md). For ``lib.matmul`` the shared
operand is A (the swapped product's B), for ``lib.linear`` the weight. Each result is
compared with the float64 product of the operands reduced that way: the products of TF32
values are exact in f32, so only the f32 accumulation differs, bounded by ``K + 2``
roundings of the sum of magnitudes, which holds only if the reductions are the ones
stated. Outputs are poisoned with NaN first; repeated launches must give the same bits."""

from __future__ import annotations

from typing import Any

import pytest

import tilec as tc
from tilec.lib.matmul import linear, matmul


def _tf32(torch: Any, x: Any) -> Any:
    """``x`` rounded to TF32: nearest, ties away from zero (``cvt.rna.tf32.f32``)."""
    bits = x.contiguous().view(torch.int32)
    return ((bits + 0x1000) & ~0x1FFF).view(torch.float32)


def _cut(torch: Any, x: Any) -> Any:
    """``x`` truncated to TF32 (what the hardware reads of a shared operand)."""
    return (x.contiguous().view(torch.int32) & ~0x1FFF).view(torch.float32)


def _check(torch: Any, got: Any, a: Any, b: Any, shared_a: bool) -> None:
    """``got`` against ``a @ b`` with the shared operand (A where ``shared_a``, else B)
    truncated and the other rounded."""
    assert not bool(torch.isnan(got).any()), "an element was never written"
    ta = (_cut if shared_a else _tf32)(torch, a).double()
    tb = (_tf32 if shared_a else _cut)(torch, b).double()
    want = ta @ tb
    bound = (ta.abs() @ tb.abs()) * (a.shape[1] + 2) * 2.0**-24
    err = (got.double() - want).abs()
    assert bool((err <= bound + 1e-30).all()), float((err - bound).max())


@pytest.mark.parametrize("shape,tiles,variant", [
    ((1024, 1024, 1024), None, {}),                     # the model's pick
    ((1000, 1000, 1000), None, {}),                     # ragged, rows not 16-byte multiples
    ((512, 384, 256), (128, 128, 32), {"warp_specialized": False}),
    ((300, 520, 96), (256, 128, 32), {}),
    ((256, 256, 512), (128, 128, 64), {"warp_specialized": False, "mbarrier_ring": False}),
], ids=["pick", "ragged", "ring", "wide", "plain"])
def test_matmul_tf32_matches_the_rounded_product(torch_cuda: Any, shape, tiles, variant) -> None:
    torch = torch_cuda
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", generator=gen)
    b = torch.randn(k, n, device="cuda", generator=gen)
    c = torch.full((m, n), float("nan"), device="cuda")
    tiles_kw = {} if tiles is None else dict(zip(("BM", "BN", "BK"), tiles))
    kern = tc.compile(matmul, a, b, c, target="cuda", PRECISION="tf32", **tiles_kw,
                      **({"variant": variant} if variant else {}))
    src = kern.executable().source
    assert "k8.f32.tf32.tf32" in src, "the product runs on the TF32 warpgroup instruction"
    first = None
    for _ in range(3):
        c.fill_(float("nan"))
        kern(a, b, c)
        torch.cuda.synchronize()
        _check(torch, c, a, b, shared_a=True)
        if first is None:
            first = c.clone()
        assert torch.equal(c, first)


def test_linear_tf32_keeps_its_k_major_b(torch_cuda: Any) -> None:
    torch = torch_cuda
    gen = torch.Generator(device="cuda").manual_seed(7)
    a = torch.randn(384, 320, device="cuda", generator=gen)
    w = torch.randn(256, 320, device="cuda", generator=gen)
    c = torch.full((384, 256), float("nan"), device="cuda")
    kern = tc.compile(linear, a, w, c, target="cuda", PRECISION="tf32", BM=128, BN=128, BK=32)
    assert "k8.f32.tf32.tf32" in kern.executable().source
    kern(a, w, c)
    torch.cuda.synchronize()
    _check(torch, c, a, w.T, shared_a=False)
