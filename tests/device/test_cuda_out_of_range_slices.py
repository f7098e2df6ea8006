"""Tile slices with a runtime start on the GPU: the same error as every path, raised by the launch.

The GPU side of ``tests/regression/test_out_of_range_slices.py``. A slice
that left its tile used to read whatever the registers or the shared-memory
scratch held past it (NaN in the simulator, a silent wrong answer on the
GPU), and a slice of a reshaped tile wrapped around. Now the lowering checks
the start before the slice, uniformly across the group: the failing program
stores nothing after it, the other programs run to their end, the launching
call raises ``tc.KernelIndexError`` with the reference interpreter's text,
and the failure record is cleared for the next launch. Starts proven in
range leave the kernel without checks (launched asynchronously).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import on_device, poison, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")

TARGETS = ["cuda:sm_90", "cuda:sm_80"]


@tc.kernel
def halves(X, Out, s):
    """The issue's kernel: program ``p`` stores ``x[8 * (s + p):8 * (s + p) + 8]``."""
    for p in tc.parallel(2):
        x = X.tile((0,), (16,))
        Out.tile((p * 8,), (8,)).store(x[s * 8 + p * 8: s * 8 + p * 8 + 8])


@tc.kernel
def pick(X, Out, i):
    for _p in tc.parallel(1):
        x = X.tile((0,), (16,))
        Out.tile((0,), (1,)).store(x[i])


@tc.kernel
def steps(X, Out, n):
    """Program ``p`` step ``k`` stores ``x[4 * (k + p * n):4 * (k + p * n) + 4]``."""
    for p in tc.parallel(2):
        x = X.tile((p * 16,), (16,))
        for k in tc.serial(3):
            Out.tile((p, k * 4), (1, 4)).store(x[(k + p * n) * 4:(k + p * n) * 4 + 4][None, :])


@tc.kernel
def slice_of_reshape(X, Out, s):
    for _p in tc.parallel(1):
        x = X.tile((0,), (16,))
        Out.tile((0, 0), (4, 2)).store(x.reshape(4, 4)[:, s:s + 2])


@tc.kernel
def rows(X, Out, s, BM: tc.constexpr = 64):
    """A 64 x 64 tile over 128 threads (a shared-memory repartition): rows ``s .. s + 15``."""
    M = X.shape[0]
    for pm in tc.parallel(tc.cdiv(M, BM), threads=128):
        x = X.tile((pm * BM, 0), (BM, 64), fill=0.0)
        Out.tile((pm * 16, 0), (16, 64)).store(x[s + pm:s + pm + 16, :] * 2.0)


@tc.kernel
def proven(X, Out):
    for p in tc.parallel(2):
        x = X.tile((0,), (16,))
        for k in tc.serial(2):
            Out.tile((p * 8 + k * 4,), (4,)).store(x[p * 8 + k * 4:p * 8 + k * 4 + 4])


def _reference(kernel: Any, *args: Any, written: int) -> tuple[str | None, np.ndarray]:
    """The reference's error text (None if it passes) and what it stored in argument
    ``written`` (poisoned with NaN first)."""
    args_ = list(args)
    args_[written] = np.full_like(args[written], np.nan)
    try:
        tc.interpret(kernel, *args_)
    except tc.KernelIndexError as e:
        return str(e), args_[written]
    return None, args_[written]


@pytest.mark.parametrize("target", TARGETS)
def test_a_slice_past_the_tile_is_raised_by_the_launching_call(torch_cuda: Any, target: str
                                                               ) -> None:
    torch = torch_cuda
    x = np.arange(16, dtype=np.float32)
    out = np.zeros(16, np.float32)
    want, _ = _reference(halves, x, out, 1, written=1)
    assert want is not None and "(start = 16)" in want
    dx, dout = on_device(torch, (x, out), 1)
    exe = tc.compile(halves, dx, dout, 1, target=target)
    assert [c.kind for c in exe.executable().kernel.checks] == ["index"]
    with pytest.raises(tc.KernelIndexError) as info:
        exe(dx, dout, 1)
    assert str(info.value) == want
    got = to_host(torch, dout)
    np.testing.assert_array_equal(got[:8], x[8:])  # program 0 read inside the tile
    assert np.isnan(got[8:]).all(), got  # program 1 stored nothing
    # the record was cleared: a passing launch raises nothing, the next failure is caught
    poison(torch, dout)
    exe(dx, dout, 0)
    np.testing.assert_array_equal(to_host(torch, dout), x)
    with pytest.raises(tc.KernelIndexError) as info:
        exe(dx, dout, -1)
    assert "(start = -8)" in str(info.value)


@pytest.mark.parametrize("target", TARGETS)
def test_a_runtime_index_outside_the_tile(torch_cuda: Any, target: str) -> None:
    torch = torch_cuda
    x = np.arange(16, dtype=np.float32) + 1
    dx, dout = on_device(torch, (x, np.zeros(1, np.float32)), 1)
    exe = tc.compile(pick, dx, dout, 5, target=target)
    exe(dx, dout, 5)
    assert to_host(torch, dout)[0] == 6
    for i in (16, -1):
        want, _ = _reference(pick, x, np.zeros(1, np.float32), i, written=1)
        poison(torch, dout)
        with pytest.raises(tc.KernelIndexError) as info:
            exe(dx, dout, i)
        assert str(info.value) == want
        assert np.isnan(to_host(torch, dout)).all()


@pytest.mark.parametrize("target", TARGETS)
def test_a_loop_stops_at_the_step_that_leaves_the_tile(torch_cuda: Any, target: str) -> None:
    torch = torch_cuda
    x = np.arange(32, dtype=np.float32)
    out = np.zeros((2, 12), np.float32)
    want, ref = _reference(steps, x, out, 2, written=1)
    assert want is not None
    dx, dout = on_device(torch, (x, out), 1)
    exe = tc.compile(steps, dx, dout, 2, target=target)
    with pytest.raises(tc.KernelIndexError) as info:
        exe(dx, dout, 2)
    assert str(info.value) == want
    got = to_host(torch, dout)
    np.testing.assert_array_equal(got[0], x[:12])
    np.testing.assert_array_equal(got[1, :8], x[24:32])
    assert np.isnan(got[1, 8:]).all(), got[1]
    poison(torch, dout)
    exe(dx, dout, 1)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(to_host(torch, dout), np.stack([x[:12], x[20:32]]))


@pytest.mark.parametrize("target", TARGETS)
def test_a_slice_of_a_reshaped_tile_does_not_wrap(torch_cuda: Any, target: str) -> None:
    torch = torch_cuda
    x = np.arange(16, dtype=np.float32)
    dx, dout = on_device(torch, (x, np.zeros((4, 2), np.float32)), 1)
    exe = tc.compile(slice_of_reshape, dx, dout, 1, target=target)
    exe(dx, dout, 1)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(to_host(torch, dout), x.reshape(4, 4)[:, 1:3])
    want, _ = _reference(slice_of_reshape, x, np.zeros((4, 2), np.float32), 3, written=1)
    poison(torch, dout)
    with pytest.raises(tc.KernelIndexError) as info:
        exe(dx, dout, 3)
    assert str(info.value) == want
    assert np.isnan(to_host(torch, dout)).all()


@pytest.mark.parametrize("target", TARGETS)
def test_a_group_of_several_warps_stops_together(torch_cuda: Any, target: str) -> None:
    torch = torch_cuda
    x = np.arange(128 * 64, dtype=np.float32).reshape(128, 64) / 64
    out = np.zeros((32, 64), np.float32)
    ok = _reference(rows, x, out, 40, written=1)
    assert ok[0] is None
    dx, dout = on_device(torch, (x, out), 1)
    exe = tc.compile(rows, dx, dout, 40, target=target)
    exe(dx, dout, 40)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(to_host(torch, dout), ok[1])
    want, ref = _reference(rows, x, out, 48, written=1)  # program 1 reads rows 49 .. 64
    assert want is not None and "(start = 49)" in want
    poison(torch, dout)
    with pytest.raises(tc.KernelIndexError) as info:
        exe(dx, dout, 48)
    assert str(info.value) == want
    got = to_host(torch, dout)
    np.testing.assert_array_equal(got[:16], ref[:16])  # program 0 ran whole
    assert np.isnan(got[16:32]).all()
    exe(dx, dout, 0)  # the record was cleared
    torch.cuda.synchronize()


@pytest.mark.parametrize("target", TARGETS)
def test_starts_proven_in_range_add_no_checks(torch_cuda: Any, target: str) -> None:
    torch = torch_cuda
    x = np.arange(16, dtype=np.float32)
    dx, dout = on_device(torch, (x, np.zeros(16, np.float32)), 1)
    exe = tc.compile(proven, dx, dout, target=target)
    assert exe.executable().kernel.checks == []
    exe(dx, dout)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(to_host(torch, dout), x)
