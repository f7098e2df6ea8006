"""The CUDA target refuses what the simulator refuses, with the same text.

The GPU side of ``tests/regression/test_gpu_kernel_structure.py``: a kernel
with a second top-level nest, and an atomic on 16-bit memory, are refused by
``tc.compile(..., target="cuda")`` on the device with the ``LoweringError``
that ``tc.simulate`` raises for the device's profile (before, the simulator
ran both); the first nest alone compiles and runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import poison, to_device, to_host
from tilec.lower import LoweringError
from tilec.targets.cuda.backend import CUDABackend

pytestmark = pytest.mark.usefixtures("torch_cuda")


@tc.kernel
def two_nests(X, Y, Z, BM: tc.constexpr = 4):
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        Y.tile((p * BM,), (BM,)).store(X.tile((p * BM,), (BM,)) + 1.0)
    for q in tc.parallel(tc.cdiv(M, BM)):
        Z.tile((q * BM,), (BM,)).store(Y.tile((q * BM,), (BM,)) * 2.0)


@tc.kernel
def one_nest(X, Y, BM: tc.constexpr = 4):
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        Y.tile((p * BM,), (BM,)).store(X.tile((p * BM,), (BM,)) + 1.0)


@tc.kernel
def half_sums(X, Out, BM: tc.constexpr = 4):
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        Out.tile((0,), (BM,)).atomic_add(X.tile((p * BM,), (BM,)))


def _simulated(kernel: Any, *args: Any) -> str:
    profile = CUDABackend("cuda").profile  # the device's, as tc.compile(target="cuda") uses
    with pytest.raises(LoweringError) as info:
        tc.simulate(kernel, *args, target=profile)
    return str(info.value)


def test_a_second_nest_is_refused_with_the_simulators_error(torch_cuda: Any) -> None:
    torch = torch_cuda
    x = np.arange(12, dtype=np.float32)
    want = _simulated(two_nests, x, np.zeros_like(x), np.zeros_like(x))
    dx, dy, dz = (to_device(torch, a) for a in (x, np.zeros_like(x), np.zeros_like(x)))
    with pytest.raises(LoweringError) as info:
        tc.compile(two_nests, dx, dy, dz, target="cuda")(dx, dy, dz)
    assert str(info.value) == want
    poison(torch, dy)
    tc.compile(one_nest, dx, dy, target="cuda")(dx, dy)
    np.testing.assert_array_equal(to_host(torch, dy), x + 1)


def test_a_16_bit_atomic_is_refused_with_the_simulators_error(torch_cuda: Any) -> None:
    torch = torch_cuda
    x = np.arange(12, dtype=np.float16)
    want = _simulated(half_sums, x, np.zeros(4, np.float16))
    dx, dout = to_device(torch, x), to_device(torch, np.zeros(4, np.float16))
    with pytest.raises(LoweringError) as info:
        tc.compile(half_sums, dx, dout, target="cuda")(dx, dout)
    assert str(info.value) == want
