"""Runtime asserts on the GPU: host checks before the launch, the device record after it.

The GPU side of ``tests/regression/test_runtime_asserts.py``: the issue's
``lib.matmul`` with ``A: 70x50``, ``B: 40x45`` is refused before the launch;
an assert inside the nest fails in exactly one program, is reported by the
call that launched it with the same text as the reference interpreter's, and
the failing program stores nothing after it; the record is cleared, so the
next launch of the same kernel runs normally.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import poison, to_device, to_host
from tilec import lib

pytestmark = pytest.mark.usefixtures("torch_cuda")


@tc.kernel
def stepped(X, Out, bad, BM: tc.constexpr = 8):
    """``Out[p, k] = sum of program p's block`` for k < 3, asserting the step isn't ``bad``."""
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        for k in tc.serial(3):
            assert p * 3 + k != bad, "step reached the bad value"
            x = X.tile((p * BM,), (BM,), fill=0.0)
            Out.tile((p, k), (1, 1)).store(tc.sum(x)[None, None] + tc.zeros((1, 1)))


@tc.kernel
def checked_after(X, Y, n, BM: tc.constexpr = 8):
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        Y.tile((p * BM,), (BM,)).store(X.tile((p * BM,), (BM,), fill=0.0))
    assert n < M, "n must index X"


def _reference_error(kernel: Any, *args: Any) -> str:
    with pytest.raises(tc.KernelAssertionError) as info:
        tc.interpret(kernel, *args)
    return str(info.value)


@pytest.mark.parametrize("target", ["cuda:sm_90", "cuda:sm_80"])
def test_issue_matmul_is_refused_before_the_launch(torch_cuda: Any, target: str) -> None:
    torch = torch_cuda
    rng = np.random.default_rng(7)
    a = rng.standard_normal((70, 50)).astype(np.float32)
    b = rng.standard_normal((40, 45)).astype(np.float32)
    want = _reference_error(lib.matmul, a, b, np.full((70, 45), np.nan, np.float32))
    da, db = to_device(torch, a), to_device(torch, b)
    dc = torch.empty((70, 45), dtype=torch.float32, device="cuda")
    poison(torch, dc)
    exe = tc.compile(lib.matmul, da, db, dc, target=target)
    with pytest.raises(tc.KernelAssertionError) as info:
        exe(da, db, dc)
    assert str(info.value) == want
    torch.cuda.synchronize()
    assert np.isnan(to_host(torch, dc)).all()
    # the matching shapes still run
    b2 = rng.standard_normal((50, 45)).astype(np.float32)
    db2 = to_device(torch, b2)
    exe(da, db2, dc)
    torch.cuda.synchronize()
    np.testing.assert_allclose(to_host(torch, dc), a.astype(np.float64) @ b2, rtol=1e-4,
                               atol=1e-4)


@pytest.mark.parametrize("target", ["cuda:sm_90", "cuda:sm_80"])
def test_assert_in_a_nest_is_reported_by_the_launching_call(torch_cuda: Any, target: str
                                                            ) -> None:
    torch = torch_cuda
    x = np.arange(32, dtype=np.float32)
    want = _reference_error(stepped, x, np.full((4, 3), np.nan, np.float32), 7)
    dx = to_device(torch, x)
    out = torch.empty((4, 3), dtype=torch.float32, device="cuda")
    poison(torch, out)
    exe = tc.compile(stepped, dx, out, 7, target=target)
    assert len(exe.executable().kernel.checks) == 1
    with pytest.raises(tc.KernelAssertionError) as info:
        exe(dx, out, 7)
    assert str(info.value) == want
    assert "(p * 3 + k = 7, bad = 7)" in want
    got = to_host(torch, out)
    assert got[2, 0] == x[16:24].sum() and np.isnan(got[2, 1:]).all(), got
    for p in (0, 1, 3):  # the other programs are independent: they ran to their end
        np.testing.assert_array_equal(got[p], np.full(3, x[8 * p:8 * p + 8].sum()))
    # the record was cleared: a passing launch of the same kernel raises nothing
    poison(torch, out)
    exe(dx, out, 100)
    np.testing.assert_array_equal(to_host(torch, out),
                                  np.repeat(x.reshape(4, 8).sum(1)[:, None], 3, axis=1))
    with pytest.raises(tc.KernelAssertionError):  # and it still catches the next failure
        exe(dx, out, 0)


def test_assert_after_the_nest_raises_after_its_stores(torch_cuda: Any) -> None:
    torch = torch_cuda
    x = np.arange(16, dtype=np.float32)
    want = _reference_error(checked_after, x, np.full(16, np.nan, np.float32), 16)
    dx = to_device(torch, x)
    y = torch.empty(16, dtype=torch.float32, device="cuda")
    poison(torch, y)
    with pytest.raises(tc.KernelAssertionError) as info:
        tc.compile(checked_after, dx, y, 16, target="cuda")(dx, y, 16)
    assert str(info.value) == want
    torch.cuda.synchronize()
    np.testing.assert_array_equal(to_host(torch, y), x)


def test_softmax_refuses_a_row_longer_than_its_tile(torch_cuda: Any) -> None:
    torch = torch_cuda
    x = to_device(torch, np.ones((4, 200), np.float32))
    y = torch.empty((4, 200), dtype=torch.float32, device="cuda")
    poison(torch, y)
    with pytest.raises(tc.KernelAssertionError, match=r"N = 200, BN = 128"):
        tc.compile(lib.softmax, x, y, target="cuda", BN=128)(x, y)
    torch.cuda.synchronize()
    assert np.isnan(to_host(torch, y)).all()
