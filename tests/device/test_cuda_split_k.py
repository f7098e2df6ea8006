"""Split-K on the GPU (``LowerOptions.split_k``, docs/design/split_k.md): the K loop split
over programs per output tile, partials in the launcher's per-stream workspace, the last
program of each tile adding them in split order. Outputs are poisoned with NaN first and
compared with torch in float32; repeated launches must give the same bits (the combine
order does not depend on which program finished last) and find the counters zero again."""

from __future__ import annotations

from typing import Any

import pytest

import tilec as tc
from tilec.lib import gemm_bias_act, matmul


def _inputs(torch: Any, m: int, n: int, k: int, dtype: Any, seed: int) -> tuple[Any, Any, Any]:
    gen = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(m, k, device="cuda", dtype=dtype, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=dtype, generator=gen)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    return a, b, c


def _close(torch: Any, got: Any, want: Any, tol: float) -> None:
    assert not bool(torch.isnan(got).any()), "an element was never written"
    assert float((got - want).abs().max()) <= tol * max(1.0, float(want.abs().max()))


@pytest.mark.parametrize("shape,tiles,splits,extra", [
    ((128, 128, 8192), (128, 128, 64), 8, {}),          # the K-heavy bar shape
    ((16, 4096, 4096), (64, 128, 64), 4, {}),           # skinny M
    ((200, 136, 700), (128, 128, 64), 4, {}),           # ragged in every axis
    ((64, 64, 64), (64, 64, 32), 4, {}),                # two splits run no K step
    ((130, 130, 1000), (128, 128, 64), 3, {}),          # B fails the tensor-map guard
    ((256, 256, 4096), (128, 256, 64), 16, {"mbarrier_ring": True}),
    ((128, 128, 8192), (64, 128, 64), 64, {"wgmma_stages": 6}),  # 2 K steps per split
    ((40, 24, 500), (16, 16, 16), 3, {}),               # 2 registers a thread: no float4
    ((128, 128, 8192), (32, 32, 64), 16, {"threads": 256}),  # the model's pick
    ((128, 128, 8192), (64, 32, 64), 32, {"threads": 512}),  # the sweep's fastest
    ((16, 4096, 4096), (32, 64, 64), 8, {"threads": 128}),   # the model's pick
    ((100, 72, 1240), (32, 64, 64), 32, {"threads": 128}),   # 20 K steps over 32 splits
], ids=["k_heavy", "skinny", "ragged", "empty_splits", "fallback", "ring", "deep", "scalar",
        "pick_16", "fastest_32", "skinny_pick", "short_32"])
def test_split_k_matches_torch(torch_cuda: Any, shape, tiles, splits, extra) -> None:
    torch = torch_cuda
    m, n, k = shape
    a, b, c = _inputs(torch, m, n, k, torch.bfloat16, m + 3 * n + k)
    bm, bn, bk = tiles
    kern = tc.compile(matmul, a, b, c, target="cuda", BM=bm, BN=bn, BK=bk,
                      variant={"split_k": splits, **extra})
    assert "atomicAdd(&tc_split_counters[" in kern.executable().source
    want = a.float() @ b.float()
    first = None
    for _ in range(4):  # counters back at zero after each launch; the same bits each time
        c.fill_(float("nan"))
        kern(a, b, c)
        torch.cuda.synchronize()
        _close(torch, c, want, 1e-4)
        if first is None:
            first = c.clone()
        else:
            assert torch.equal(c, first), "split-K results differ between runs"


def test_split_k_exact_f32_and_an_epilogue(torch_cuda: Any) -> None:
    torch = torch_cuda
    a, b, c = _inputs(torch, 96, 80, 3000, torch.float32, 7)
    kern = tc.compile(matmul, a, b, c, target="cuda", BM=32, BN=32, BK=32,
                      variant={"split_k": 5})
    kern(a, b, c)
    torch.cuda.synchronize()
    _close(torch, c, a.double() @ b.double(), 1e-5)
    a, b, c = _inputs(torch, 256, 192, 2048, torch.bfloat16, 8)
    bias = torch.randn(192, device="cuda", dtype=torch.float32)
    kern = tc.compile(gemm_bias_act, a, b, bias, c, target="cuda", BM=128, BN=64, BK=64,
                      ACT="gelu", variant={"split_k": 4})
    kern(a, b, bias, c)
    torch.cuda.synchronize()
    _close(torch, c, torch.nn.functional.gelu(a.float() @ b.float() + bias), 1e-4)


def test_split_k_on_two_streams_and_in_a_graph(torch_cuda: Any) -> None:
    """Each stream has its own workspace, so concurrent launches do not mix partials; a
    launch captured after a first eager one replays correctly."""
    torch = torch_cuda
    a, b, c = _inputs(torch, 128, 256, 8192, torch.bfloat16, 9)
    d = torch.full_like(c, float("nan"))
    kern = tc.compile(matmul, a, b, c, target="cuda", BM=128, BN=128, BK=64,
                      variant={"split_k": 8})
    want = a.float() @ b.float()
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    torch.cuda.synchronize()
    for _ in range(5):
        with torch.cuda.stream(s1):
            kern(a, b, c)
        with torch.cuda.stream(s2):
            kern(a, b, d)
    torch.cuda.synchronize()
    _close(torch, c, want, 1e-4)
    assert torch.equal(c, d)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        kern(a, b, c)  # the stream's workspace exists before capture
        graph = torch.cuda.CUDAGraph()
        c.fill_(float("nan"))
        with torch.cuda.graph(graph, stream=s):
            kern(a, b, c)
    for _ in range(3):
        c.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(c, d)
