"""K-major B operands on the GPU (docs/design/lowering.md, "K-major B operands"):
``lib.linear`` (``C = A @ W.T`` with ``W`` N x K) reads each weight tile as the K-major B it
already is, by tensor copies into the ring and ``wgmma`` with the transpose bit clear (and
``ldmatrix`` without ``.trans`` on the ``mma.sync`` path). Outputs are poisoned with NaN
and compared with torch in float32; a second launch must agree bit for bit. Attention reads
its key tile the same way (``test_cuda_attention.py``)."""

from __future__ import annotations

from typing import Any

import pytest

import tilec as tc
from paths import matmul_matches_twice
from tilec.lib import linear


def _linear_matches_twice(torch: Any, kern: Any, a: Any, w: Any, c: Any) -> None:
    tol = 1e-4 if c.dtype == torch.float32 else 1e-2
    matmul_matches_twice(torch, kern, a, w, c, a.float() @ w.float().T, tol)


@pytest.mark.parametrize("shape,tiles,variant", [
    ((1000, 1000, 320), (128, 128, 64), None),      # ragged: boxes cross every edge
    ((512, 512, 4096), (128, 256, 64), None),       # two wide consumers, the producer
    ((500, 300, 700), (64, 64, 64), None),          # one warpgroup, the ordinary ring
    ((200, 130, 644), (128, 128, 64), None),        # K = 644: W's rows fail the guard
    ((300, 300, 128), (128, 128, 64), {"warp_specialized": False}),
    ((256, 256, 256), (64, 64, 32), None),          # K tiles of 32: mma.sync, ldmatrix
    ((4096, 4096, 4096), None, None),               # the model's tiles, the default plan
])
def test_linear_matches_torch(torch_cuda: Any, shape, tiles, variant) -> None:
    torch = torch_cuda
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + 3 * n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    c = torch.empty(m, n, device="cuda", dtype=torch.float32)
    sizes = {} if tiles is None else dict(zip(("BM", "BN", "BK"), tiles))
    kern = tc.compile(linear, a, w, c, target="cuda", variant=variant, **sizes)
    src = kern.executable().source
    if tiles is not None and tiles[2] == 32:  # no warpgroup instruction takes K = 32
        assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in src and ".trans" not in src
    else:
        assert "p, 1, 1, 0, 0;" in src, "a K-major B (transpose bit clear)"
    _linear_matches_twice(torch, kern, a, w, c)


def test_linear_bf16_output_matches_torch(torch_cuda: Any) -> None:
    torch = torch_cuda
    gen = torch.Generator(device="cuda").manual_seed(11)
    a = torch.randn(777, 512, device="cuda", dtype=torch.bfloat16, generator=gen)
    w = torch.randn(384, 512, device="cuda", dtype=torch.bfloat16, generator=gen)
    c = torch.empty(777, 384, device="cuda", dtype=torch.bfloat16)
    _linear_matches_twice(torch, tc.compile(linear, a, w, c, target="cuda"), a, w, c)
