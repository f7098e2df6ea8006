"""Unsigned integer element types on the GPU: the reference's results.

The GPU side of ``tests/regression/test_unsigned.py``: each kernel is launched on
torch ``uint8``/``uint16``/``uint32`` tensors with a poisoned output and compared
with the reference interpreter (which that file checks against a Python-integer
oracle). The simulators run the lowered IR; only here does the emitted CUDA (its
shift, division, min/max and conversion helpers, its 32-bit unsigned atomics) run.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_unsigned import (
    _atomic_case,
    _ops_inputs,
    accumulate,
    conversions,
    divide,
    ops,
    reductions,
    scalar_math,
    shifts,
)

import tilec as tc
from paths import poisoned, reference_run, to_device, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")

TARGETS = ["cuda:sm_90", "cuda:sm_80"]
UNSIGNED = [np.uint8, np.uint16, np.uint32]


def on_device(torch: Any, args: list[Any], out: int) -> list[Any]:
    """Device copies of the arrays, argument ``out`` poisoned on the host first (torch has
    few CUDA kernels for ``uint16``/``uint32``; a copy is one of them)."""
    args = list(args)
    args[out] = poisoned(*args[out].shape, dtype=args[out].dtype)
    return [to_device(torch, a) if isinstance(a, np.ndarray) else a for a in args]


def _same(torch: Any, kernel: Any, args: list[Any], written: int, target: str) -> None:
    _, want = reference_run(kernel, *args, written=written)
    dev = on_device(torch, args, out=written)
    tc.compile(kernel, *dev, target=target)(*dev)
    np.testing.assert_array_equal(to_host(torch, dev[written]), want)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("npdt", UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_elementwise_operations(torch_cuda: Any, target: str, npdt: Any) -> None:
    x, y, c = _ops_inputs(np.iinfo(npdt).bits)
    args = [np.array(v, npdt) for v in (x, y, c)] + [np.zeros((24, 16), npdt)]
    _same(torch_cuda, ops, args, 3, target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("npdt", [np.int8, np.int16, np.int32, np.int64],
                         ids=lambda d: np.dtype(d).name)
def test_signed_shifts(torch_cuda: Any, target: str, npdt: Any) -> None:
    info = np.iinfo(npdt)
    x = np.array([0, 1, -1, info.min, info.max, -5, 5, 100, -100, 3, -3, 7, info.min + 1, 2,
                  -2, 64], npdt)
    c = np.array([0, 1, 1, info.bits - 1, info.bits - 1, info.bits, info.bits, info.bits + 3,
                  -1, -info.bits, 2, info.bits - 2, 1, 0, info.max, info.min], npdt)
    _same(torch_cuda, shifts, [x, c, np.zeros((3, 16), npdt)], 2, target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("npdt", UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_reductions(torch_cuda: Any, target: str, npdt: Any) -> None:
    top = int(np.iinfo(npdt).max)
    x = np.random.default_rng(16).integers(0, top, (4, 16), dtype=np.int64, endpoint=True)
    x[0, :] = top
    x[1, 3], x[1, 9], x[1, 12], x[1, 14] = top, 0, top, 0
    _same(torch_cuda, reductions, [x.astype(npdt), np.zeros((6, 4), npdt)], 1, target)


@pytest.mark.parametrize("target", TARGETS)
def test_conversions(torch_cuda: Any, target: str) -> None:
    u = np.array([0, 1, 255, 256, 65535, 65536, 2**31 - 1, 2**31, 2**32 - 1, 2**24 + 1,
                  2**32 - 129, 2**32 - 128, 12345678, 7, 300, 2**31 + 5], np.uint32)
    f = np.array([0.0, -0.0, 0.5, -0.5, -1.0, -3.7, 255.9, 256.0, 4294967040.0, 4294967296.0,
                  1e20, -1e20, np.nan, np.inf, -np.inf, 2147483648.5], np.float32)
    s = np.array([0, 1, -1, -2, 2**31 - 1, -2**31, 65535, 65536, -65536, 300, -300, 7, -7, 128,
                  -128, 12345], np.int32)
    outs = [np.zeros(16, np.int32), np.zeros(16, np.float32), np.zeros(16, np.float16),
            np.zeros((4, 16), np.uint32), np.zeros(16, np.uint8)]
    args = [u, f, s, *outs]
    wants = [reference_run(conversions, *args, written=k)[1] for k in range(3, 8)]
    dev = [to_device(torch_cuda, a) for a in args[:3]] \
        + [to_device(torch_cuda, poisoned(*o.shape, dtype=o.dtype)) for o in outs]
    tc.compile(conversions, *dev, target=target)(*dev)
    for d, w in zip(dev[3:], wants):
        np.testing.assert_array_equal(to_host(torch_cuda, d), w)


@pytest.mark.parametrize("target", TARGETS)
def test_scalar_arguments(torch_cuda: Any, target: str) -> None:
    args = [np.zeros(12, np.uint32), np.uint32(4000000000), 3000000001, np.uint8(9)]
    _same(torch_cuda, scalar_math, args, 0, target)


@pytest.mark.parametrize("target", TARGETS)
def test_division_above_the_signed_range(torch_cuda: Any, target: str) -> None:
    x = np.arange(16, dtype=np.uint32) + 4294967280
    y = np.array([1, 2, 3, 4294967295, 2**31, 7, 10, 2**31 + 1] * 2, np.uint32)
    _same(torch_cuda, divide, [x, y, np.zeros(16, np.uint32)], 2, target)


@pytest.mark.parametrize("target", TARGETS)
def test_division_by_zero_raises_the_reference_error(torch_cuda: Any, target: str) -> None:
    x = np.arange(16, dtype=np.uint32) + 4000000000
    y = np.full(16, 3, np.uint32)
    y[11] = 0
    args = [x, y, np.zeros(16, np.uint32)]
    text, _ = reference_run(divide, *args, written=2, error=tc.KernelArithmeticError)
    dev = on_device(torch_cuda, args, out=2)
    with pytest.raises(tc.KernelArithmeticError) as info:
        tc.compile(divide, *dev, target=target)(*dev)
        torch_cuda.cuda.synchronize()
    assert str(info.value) == text


@pytest.mark.parametrize("target", TARGETS)
def test_32_bit_unsigned_atomics(torch_cuda: Any, target: str) -> None:
    args, want = _atomic_case(np.uint32)
    dev = [to_device(torch_cuda, a) for a in args]
    tc.compile(accumulate, *dev, target=target)(*dev)
    for d, w in zip(dev[1:], want):
        np.testing.assert_array_equal(to_host(torch_cuda, d), w)
