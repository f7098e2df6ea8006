"""Forwarded matrix operands on the GPU (``forward_snapshots``, ``plan/proofs/
snapshot_forwarding.py``): each lane loads its ``mma.sync`` fragment elements from global
memory, nothing is staged in shared memory. Skinny-M GEMMs (the forwarded plan is the
model's pick there), ragged edges and a transposed B, on the device's own profile and on
sm_80's (``mma.sync`` runs on sm_90 too), against torch with the output poisoned first."""

from __future__ import annotations

from typing import Any

import pytest

import tilec as tc
from tilec.lib import linear, matmul

ON = {"forward_snapshots": True}


@pytest.mark.parametrize("target", ["cuda", "cuda:sm_80"])
@pytest.mark.parametrize("shape", [(16, 4096, 4096), (20, 1000, 777)], ids=["skinny", "ragged"])
@pytest.mark.parametrize("kernel", [matmul, linear], ids=["matmul", "linear"])
def test_forwarded_operands_match_torch(torch_cuda: Any, target: str, shape, kernel) -> None:
    torch = torch_cuda
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    if kernel is linear:
        b = b.t().contiguous()  # N x K: the kernel reads it transposed
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    kern = tc.compile(kernel, a, b, c, target=target, BM=16, BN=64, BK=64, variant=ON)
    (choice,) = kern.plan.groups[0].selected.choices
    assert choice.candidate.forwarded, choice.candidate.label
    kern(a, b, c)
    torch.cuda.synchronize()
    want = a.float() @ (b.float().t() if kernel is linear else b.float())
    assert not bool(torch.isnan(c).any())
    assert float((c - want).abs().max()) <= 1e-4 * max(1.0, float(want.abs().max()))
