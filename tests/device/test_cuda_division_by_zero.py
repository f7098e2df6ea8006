"""Integer division by zero on the GPU: the same error as every path, raised by the launch.

The GPU side of ``tests/regression/test_integer_division_by_zero.py``. The
CUDA helpers used to return 0 for a zero divisor (a silent wrong answer).
Now a scalar divisor is checked before the division and an elementwise one
by a group vote after it; the failing program stores nothing after the
division, the other programs run to their end, the launching call raises
``tc.KernelArithmeticError`` with the reference interpreter's text, and the
failure record is cleared for the next launch. Registers that hold no tile
element never count as zero divisors, and divisions by constants leave the
kernel without checks (launched asynchronously).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import on_device, poison, to_device, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")

TARGETS = ["cuda:sm_90", "cuda:sm_80"]


@tc.kernel
def step_floordiv(P, Out, d, BM: tc.constexpr = 4):
    """``Out[p, k] = (P[p] + k) // (d - 3 * p - k)``: with d = 7, program 2 fails at step 1."""
    M = P.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        for k in tc.serial(3):
            x = P.tile((p * BM,), (BM,), fill=0)
            q = (x + k) // (d - 3 * p - k)
            Out.tile((p, k * BM), (1, BM)).store(q[None, :])


@tc.kernel
def step_cdiv(P, Out, d, BM: tc.constexpr = 4):
    M = P.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        for k in tc.serial(3):
            n = tc.cdiv(p + k + 5, d - 3 * p - k)
            x = P.tile((p * BM,), (BM,), fill=0)
            Out.tile((p, k * BM), (1, BM)).store((x + n)[None, :])


@tc.kernel
def tile_quotient(X, Y, Out, BM: tc.constexpr = 8):
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        x = X.tile((p * BM,), (BM,))
        y = Y.tile((p * BM,), (BM,))
        Out.tile((0, p * BM), (1, BM)).store((x // y)[None, :])
        Out.tile((1, p * BM), (1, BM)).store((x % y)[None, :])


@tc.kernel
def blocks_of(X, Out, d):
    M = X.shape[0]
    per = M // d
    for p in tc.parallel(per):
        Out.tile((p,), (1,)).store(X.tile((p * d,), (1,)))


@tc.kernel
def safe_divisions(X, Out, BM: tc.constexpr = 16):
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        for k in tc.serial(2):
            x = X.tile((p * BM,), (BM,), fill=0)
            Out.tile((k * M + p * BM,), (BM,)).store(x // 4 + x % 3 + tc.cdiv(p, k + 1)
                                                     + x // (k + 1))


@tc.kernel
def staged_steps(A, B, Out, n, BM: tc.constexpr = 16, BN: tc.constexpr = 16,
                 BK: tc.constexpr = 16):
    """Operand origins dividing by ``n - k``; the loop's operands are fetched a step ahead."""
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            kk = ((n - k) * k * BK) // (n - k)
            a = A.tile((pm * BM, kk), (BM, BK), fill=0.0)
            b = B.tile((kk, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
            Out.tile((pm * BM, k * BN), (BM, BN)).store(acc)


@tc.kernel
def product_quotient(A, B, Y, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32,
                     BK: tc.constexpr = 32):
    """``(A @ B) // Y`` on int8 operands: the divided tile is a matrix accumulator."""
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.int32)
        for k in tc.serial(tc.cdiv(K, BK)):
            acc = tc.mma(A.tile((pm * BM, k * BK), (BM, BK), fill=0),
                         B.tile((k * BK, pn * BN), (BK, BN), fill=0), acc)
        y = Y.tile((pm * BM, pn * BN), (BM, BN), fill=1)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc // y)


def _reference(kernel: Any, *args: Any, written: int) -> tuple[str | None, np.ndarray]:
    """The reference's error text (None if it passes) and what it stored in argument
    ``written`` (poisoned with NaN first)."""
    args_ = list(args)
    args_[written] = np.full_like(args[written], np.nan)
    try:
        tc.interpret(kernel, *args_)
    except tc.KernelArithmeticError as e:
        return str(e), args_[written]
    return None, args_[written]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kernel", [step_floordiv, step_cdiv], ids=["floordiv", "cdiv"])
def test_zero_scalar_divisor_is_raised_by_the_launching_call(torch_cuda: Any, target: str,
                                                             kernel: Any) -> None:
    torch = torch_cuda
    p = np.arange(1, 17, dtype=np.int32) * 5
    out = np.zeros((4, 12), np.float32)
    want, ok = _reference(kernel, p, out, 7, written=1)  # ok: what the reference stored
    assert want is not None
    dp, dout = on_device(torch, (p, out), 1)
    exe = tc.compile(kernel, dp, dout, 7, target=target)
    assert [c.kind for c in exe.executable().kernel.checks] == ["zerodiv"]
    with pytest.raises(tc.KernelArithmeticError) as info:
        exe(dp, dout, 7)
    assert str(info.value) == want
    got = to_host(torch, dout)
    full = _reference(kernel, p, out, 100, written=1)[1]
    # program 2 stored step 0 only; programs 0, 1 and 3 are independent and ran whole
    assert np.isnan(got[2, 4:]).all(), got[2]
    np.testing.assert_array_equal(got[2, :4], ok[2, :4])
    np.testing.assert_array_equal(got[:2], ok[:2])
    assert not np.isnan(got[3]).any()
    # the record was cleared: a passing launch raises nothing, the next failure is caught
    poison(torch, dout)
    exe(dp, dout, 100)
    np.testing.assert_array_equal(to_host(torch, dout), full)
    with pytest.raises(tc.KernelArithmeticError):
        exe(dp, dout, 2)


@pytest.mark.parametrize("target", TARGETS)
def test_zero_element_of_a_tile_divisor(torch_cuda: Any, target: str) -> None:
    torch = torch_cuda
    x = np.arange(32, dtype=np.int32) * 3 - 40
    y = np.where(np.arange(32) % 5 == 0, 3, -4).astype(np.int32)
    bad = y.copy()
    bad[21] = 0  # program 2, element 5
    out = np.zeros((2, 32), np.float32)
    want, _ = _reference(tile_quotient, x, bad, out, written=2)
    assert want is not None
    dx, dbad, dout = on_device(torch, (x, bad, out), 2)
    exe = tc.compile(tile_quotient, dx, dbad, dout, target=target)
    with pytest.raises(tc.KernelArithmeticError) as info:
        exe(dx, dbad, dout)
    assert str(info.value) == want
    got = to_host(torch, dout)
    assert np.isnan(got[:, 16:24]).all(), "program 2 stored after its failed division"
    keep = np.r_[0:16, 24:32]
    np.testing.assert_array_equal(got[0, keep], (x // y)[keep])
    np.testing.assert_array_equal(got[1, keep], (x % y)[keep])
    # every divisor nonzero: an 8-element tile over a group of threads leaves most registers
    # without an element, and those must not count as zero divisors
    dy = to_device(torch, y)
    poison(torch, dout)
    exe(dx, dy, dout)
    np.testing.assert_array_equal(to_host(torch, dout), np.stack([x // y, x % y]))


def test_top_level_division_is_refused_before_the_launch(torch_cuda: Any) -> None:
    torch = torch_cuda
    x = np.arange(12, dtype=np.float32)
    want, _ = _reference(blocks_of, x, np.zeros(12, np.float32), 0, written=1)
    dx = to_device(torch, x)
    out = torch.empty(12, dtype=torch.float32, device="cuda")
    poison(torch, out)
    exe = tc.compile(blocks_of, dx, out, 0, target="cuda")
    assert exe.executable().kernel.checks == []  # the host evaluates it, the kernel cannot fail
    with pytest.raises(tc.KernelArithmeticError) as info:
        exe(dx, out, 0)
    assert str(info.value) == want
    torch.cuda.synchronize()
    assert np.isnan(to_host(torch, out)).all()
    exe(dx, out, 3)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(to_host(torch, out)[:4], x[::3])


@pytest.mark.parametrize("target", TARGETS)
def test_divisions_by_constants_add_no_checks(torch_cuda: Any, target: str) -> None:
    torch = torch_cuda
    x = np.arange(64, dtype=np.int32) - 30
    want = _reference(safe_divisions, x, np.zeros(128, np.float32), written=1)[1]
    dx = to_device(torch, x)
    out = torch.empty(128, dtype=torch.float32, device="cuda")
    poison(torch, out)
    exe = tc.compile(safe_divisions, dx, out, target=target)
    assert exe.executable().kernel.checks == []
    exe(dx, out)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(to_host(torch, out), want)


@pytest.mark.parametrize("target", TARGETS)
def test_a_step_fetched_ahead_fails_in_its_own_step(torch_cuda: Any, target: str) -> None:
    torch = torch_cuda
    rng = np.random.default_rng(5)
    a = rng.integers(-3, 4, (16, 48)).astype(np.float32)
    b = rng.integers(-3, 4, (48, 16)).astype(np.float32)
    want, ref = _reference(staged_steps, a, b, np.zeros((16, 48), np.float32), 2, written=2)
    assert want is not None
    da, db, dout = on_device(torch, (a, b, np.zeros((16, 48), np.float32)), 2)
    exe = tc.compile(staged_steps, da, db, dout, 2, target=target)
    with pytest.raises(tc.KernelArithmeticError) as info:
        exe(da, db, dout, 2)
    assert str(info.value) == want
    got = to_host(torch, dout)
    np.testing.assert_array_equal(got[:, :32], ref[:, :32])  # steps 0 and 1 stored
    assert np.isnan(got[:, 32:]).all()
    exe(da, db, dout, 5)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(to_host(torch, dout)[:, 32:], a @ b)


@pytest.mark.parametrize("target", TARGETS)
def test_division_of_a_matrix_accumulator(torch_cuda: Any, target: str) -> None:
    torch = torch_cuda
    rng = np.random.default_rng(1)
    a = rng.integers(-5, 5, (64, 32)).astype(np.int8)
    b = rng.integers(-5, 5, (32, 32)).astype(np.int8)
    y = (rng.integers(1, 5, (64, 32)) * np.where(rng.random((64, 32)) < .5, 1, -1)
         ).astype(np.int32)
    want = (a.astype(np.int32) @ b.astype(np.int32)) // y
    c = np.zeros((64, 32), np.float32)
    da, db, dy, dc = on_device(torch, (a, b, y, c), 3)
    exe = tc.compile(product_quotient, da, db, dy, dc, target=target)
    exe(da, db, dy, dc)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(to_host(torch, dc), want)
    bad = y.copy()
    bad[40, 7] = 0  # program 1
    err, _ = _reference(product_quotient, a, b, bad, c, written=3)
    dbad = to_device(torch, bad)
    poison(torch, dc)
    with pytest.raises(tc.KernelArithmeticError) as info:
        exe(da, db, dbad, dc)
    assert str(info.value) == err
    got = to_host(torch, dc)
    assert np.isnan(got[32:]).all()
    np.testing.assert_array_equal(got[:32], want[:32])
