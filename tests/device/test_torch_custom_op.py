"""``tc.torch.custom_op`` on CUDA: a ``torch.compile``d module calling tilec ops matches eager.

A module computes ``softmax(x @ w)`` with a tilec GEMM op (bf16 and f16 operands,
f32 accumulation and output, as ``lib.matmul`` takes them) and a tilec softmax op;
compiled with ``aot_eager`` and with inductor (where triton is installed) it gives
eager's result, and both agree with torch's own float32 product and softmax. A call
on a side stream is ordered after the work that made its inputs on that stream (the
CUDA launcher takes torch's current stream). Skipped without a GPU or torch's CUDA.
"""

from __future__ import annotations

from typing import Any

import pytest

import tilec as tc
from tilec import lib

pytestmark = pytest.mark.usefixtures("torch_cuda")

TILE = {"BM": 128, "BN": 128, "BK": 64}
"""A tile of the CUDA GEMM benchmark (wgmma on sm_90, mma.sync elsewhere)."""


@pytest.fixture(scope="module")
def ops(torch_cuda: Any) -> Any:
    """The registered ops (registered here: importing this module must not need torch)."""
    torch = torch_cuda
    mm = tc.torch.custom_op(
        "tilec_device_test::matmul", lib.matmul, constexprs=TILE,
        outputs={"C": lambda A, B: ((A.shape[0], B.shape[1]), torch.float32)})
    sm = tc.torch.custom_op("tilec_device_test::softmax", lib.softmax, outputs={"Y": "X"},
                            constexprs={"BN": 256})
    return mm, sm


def _module(torch: Any) -> Any:
    class SoftmaxOfProduct(torch.nn.Module):
        """``softmax(x @ w)`` through the two tilec ops."""

        def __init__(self, w: Any) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(w, requires_grad=False)

        def forward(self, x: Any) -> Any:
            c = torch.ops.tilec_device_test.matmul(x, self.w)
            return torch.ops.tilec_device_test.softmax(c * 0.25)

    return SoftmaxOfProduct


def _inputs(torch: Any, dtype: Any, m: int, k: int, n: int, seed: int) -> tuple[Any, Any]:
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(m, k, device="cuda", generator=g).to(dtype)
    w = torch.randn(k, n, device="cuda", generator=g).to(dtype)
    return x, w


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_compiled_module_matches_eager(torch_cuda: Any, ops: Any, backend: str,
                                       dtype: str) -> None:
    torch = torch_cuda
    if backend == "inductor":
        from torch.utils._triton import has_triton

        if not has_triton():
            pytest.skip("inductor on CUDA needs triton, which is not installed")
    dt = getattr(torch, dtype)
    x, w = _inputs(torch, dt, 333, 256, 200, seed=1)
    model = _module(torch)(w).cuda()
    eager = model(x)
    assert eager.dtype == torch.float32 and eager.shape == (333, 200)
    torch._dynamo.reset()
    compiled = torch.compile(model, backend=backend, fullgraph=True)
    for xi in (x, _inputs(torch, dt, 128, 256, 200, seed=2)[0]):  # and a second shape
        got = compiled(xi)
        torch.testing.assert_close(got, model(xi), rtol=1e-5, atol=1e-6)
        want = torch.softmax((xi.float() @ w.float()) * 0.25, dim=1)
        torch.testing.assert_close(got, want, rtol=1e-3, atol=1e-4)
    c = ops[0](x, w)
    torch.testing.assert_close(c, x.float() @ w.float(), rtol=1e-3, atol=1e-3)


def test_side_stream_orders_after_its_inputs(torch_cuda: Any, ops: Any) -> None:
    torch = torch_cuda
    mm, _ = ops
    side = torch.cuda.Stream()
    x, w = _inputs(torch, torch.bfloat16, 512, 512, 512, seed=3)
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        x2 = x * 2  # made on the side stream; the op must run after it, on it
        c = mm(x2, w)
    side.synchronize()
    torch.testing.assert_close(c, 2 * (x.float() @ w.float()), rtol=1e-3, atol=2e-2)
