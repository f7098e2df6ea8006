"""The bad-input catalogue on the GPU: device arrays the cuda target refuses by name.

Host arrays, CPU tensors, non-contiguous and misaligned tensors, dtype mismatches,
outputs aliasing inputs, and zero-size tensors (an empty tensor is contiguous whatever
its strides: the call runs no program and succeeds).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from tilec.lib.matmul import matmul

pytestmark = pytest.mark.usefixtures("torch_cuda")


@tc.kernel
def copy2d(X, Y, B: tc.constexpr = 4):
    M, N = X.shape
    for i, j in tc.parallel(tc.cdiv(M, B), tc.cdiv(N, B)):
        Y.tile((i * B, j * B), (B, B)).store(X.tile((i * B, j * B), (B, B), fill=0.0))


def _refused(call: Any, *fragments: str) -> None:
    with pytest.raises(tc.ArgumentError) as info:
        call()
    for f in fragments:
        assert f in str(info.value), str(info.value)


def test_device_argument_mistakes(torch_cuda: Any) -> None:
    torch = torch_cuda
    x = torch.arange(36, dtype=torch.float32, device="cuda").reshape(6, 6)
    y = torch.zeros(6, 6, dtype=torch.float32, device="cuda")
    k = tc.compile(copy2d, x, y, target="cuda")
    _refused(lambda: k(x.cpu(), y), "argument 0 ('X')", "cpu")
    _refused(lambda: k(np.zeros((6, 6), np.float32), y), "host memory")
    _refused(lambda: k(x.t(), y), "not C-contiguous")
    _refused(lambda: k(x, x), "overlaps")
    _refused(lambda: k(x.half(), y), "float16")
    k(x, y)
    torch.cuda.synchronize()
    assert torch.equal(x, y)


def test_zero_size_tensors(torch_cuda: Any) -> None:
    torch = torch_cuda
    for shape in ((0, 6), (6, 0), (0, 0)):
        x = torch.empty(shape, dtype=torch.float32, device="cuda")
        y = torch.empty(shape, dtype=torch.float32, device="cuda")
        tc.compile(copy2d, x, y, target="cuda")(x, y)
        e = torch.empty((0, 6), dtype=torch.float32, device="cuda").t()  # strides (1, 6): empty
        tc.compile(copy2d, e, e.clone(), target="cuda")(e, e.clone())
    a = torch.empty((0, 8), dtype=torch.float32, device="cuda")
    b = torch.ones((8, 5), dtype=torch.float32, device="cuda")
    c = torch.empty((0, 5), dtype=torch.float32, device="cuda")
    tc.compile(matmul, a, b, c, target="cuda")(a, b, c)
    torch.cuda.synchronize()


@tc.kernel
def shifted_grid(X, n: tc.int32):
    for i in tc.parallel(n - 5):
        X.tile((i,), (1,)).store(1.0)


def test_a_negative_grid_extent_runs_no_program(torch_cuda: Any) -> None:
    """As on every path: tc.parallel(n - 5) with n = 2 runs nothing (it raised before)."""
    x = torch_cuda.zeros(8, dtype=torch_cuda.float32, device="cuda")
    tc.compile(shifted_grid, x, 2, target="cuda")(x, 2)
    tc.compile(shifted_grid, x, 8, target="cuda")(x, 8)
    torch_cuda.cuda.synchronize()
    assert x.tolist() == [1.0, 1.0, 1.0, 0, 0, 0, 0, 0]
