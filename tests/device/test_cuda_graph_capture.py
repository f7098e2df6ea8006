"""tilec launches inside a CUDA graph: two kernel calls captured by ``torch.cuda.graph``,
replayed on new input values copied into the captured buffers, checked against torch.

A call launches on the caller's stream (inside ``torch.cuda.graph``: the capture stream)
and allocates, frees, copies and waits for nothing (``targets/cuda/runtime.py``), so the
capture records both kernels and each replay recomputes them from the buffers' contents.
"""

from __future__ import annotations

from typing import Any

import pytest

import tilec as tc
from tilec.lib.matmul import matmul
from tilec.lib.softmax import softmax

pytestmark = pytest.mark.usefixtures("torch_cuda")

N = 128


def _tensors(torch: Any) -> tuple[Any, ...]:
    a = torch.randn(N, N, device="cuda", dtype=torch.float32)
    b = torch.randn(N, N, device="cuda", dtype=torch.float32)
    c = torch.empty(N, N, device="cuda", dtype=torch.float32)
    y = torch.empty(N, N, device="cuda", dtype=torch.float32)
    return a, b, c, y


def _check(torch: Any, a: Any, b: Any, c: Any, y: Any) -> None:
    want = a @ b
    torch.testing.assert_close(c, want, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(y, torch.softmax(want, dim=1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("entry", ["compiled", "kernel"])
def test_two_kernels_in_a_captured_graph_replay_on_new_inputs(torch_cuda: Any,
                                                              entry: str) -> None:
    torch = torch_cuda
    torch.backends.cuda.matmul.allow_tf32 = False
    a, b, c, y = _tensors(torch)
    mm = tc.compile(matmul, a, b, c, target="cuda")
    sm = tc.compile(softmax, c, y, target="cuda", BN=N)

    def step() -> None:
        if entry == "compiled":
            mm(a, b, c)
            sm(c, y)
        else:
            matmul(a, b, c)
            softmax(c, y, BN=N)

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up off the capture: loads the kernels, binds
        for _ in range(2):
            step()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    _check(torch, a, b, c, y)

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    for seed in (1, 2, 3):
        gen = torch.Generator(device="cuda").manual_seed(seed)
        a.copy_(torch.randn(N, N, device="cuda", generator=gen))
        b.copy_(torch.randn(N, N, device="cuda", generator=gen))
        c.fill_(float("nan"))
        y.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        _check(torch, a, b, c, y)


def test_an_explicit_stream_is_the_one_launched_on(torch_cuda: Any) -> None:
    torch = torch_cuda
    a, b, c, _ = _tensors(torch)
    mm = tc.compile(matmul, a, b, c, target="cuda")
    mm(a, b, c)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    c.fill_(float("nan"))
    torch.cuda.synchronize()
    mm(a, b, c, stream=s)  # not the current stream: ordered on s only
    s.synchronize()
    torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)
