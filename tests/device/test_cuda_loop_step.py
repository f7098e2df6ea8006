"""A loop step that is not positive on the GPU: the same error as every path, raised by the launch.

The GPU side of ``tests/regression/test_loop_step.py``. Before, the CUDA
kernel ran ``for (iv = lb; iv < ub; iv += step)`` with the step it was given:
a zero step never ended, a negative one ran until the counter wrapped. Now
the lowering checks the step before the loop (``check {kind = "step"}``):
the failing program stores nothing after the check, programs with a positive
step run to their end, the launching call raises ``tc.KernelLoopError`` with
the reference interpreter's text, and the failure record is cleared for the
next launch. A constant or provably positive step leaves the kernel without
checks (launched asynchronously).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import poison, to_device, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")

TARGETS = ["cuda:sm_90", "cuda:sm_80"]


@tc.kernel
def stepped(X, Out, s, BM: tc.constexpr = 4):
    """Program p: ``X + 1`` in block 0, then ``X * i`` in block ``1 + i`` for ``i`` in
    ``range(0, 4, s - p)``, then the iteration count in block 5."""
    for p in tc.parallel(4):
        x = X.tile((p * BM,), (BM,))
        Out.tile((p, 0), (1, BM)).store((x + 1.0)[None, :])
        n = 0.0
        for i in tc.serial(0, 4, step=s - p):
            Out.tile((p, (1 + i) * BM), (1, BM)).store((x * i)[None, :])
            n = n + 1.0
        Out.tile((p, 5 * BM), (1, BM)).store(tc.full((1, BM), n))


@tc.kernel
def piped(X, Out, s, BM: tc.constexpr = 4):
    """The same as a two-stage pipeline."""
    for p in tc.parallel(4):
        x = X.tile((p * BM,), (BM,))
        Out.tile((p, 0), (1, BM)).store((x + 1.0)[None, :])
        n = 0.0
        for i in tc.pipeline(0, 4, step=s - p):
            y = x * i
            tc.stage()
            Out.tile((p, (1 + i) * BM), (1, BM)).store(y[None, :])
            n = n + 1.0
        Out.tile((p, 5 * BM), (1, BM)).store(tc.full((1, BM), n))


@tc.kernel
def safe(X, Out, s, BM: tc.constexpr = 4):
    """Steps 2 and ``max(s, 1)``: nothing to check."""
    for p in tc.parallel(4):
        x = X.tile((p * BM,), (BM,))
        for i in tc.serial(0, 4, 2):
            Out.tile((p, i * BM), (1, BM)).store((x * i)[None, :])
        for j in tc.serial(1, 4, tc.maximum(s, 1)):
            Out.tile((p, j * BM), (1, BM)).store((x + j)[None, :])


X = np.arange(16, dtype=np.float32) - 5.5


def _reference(kernel: Any, s: int, width: int = 24) -> tuple[str | None, np.ndarray]:
    """The reference's error text (None if it passes) and its output (NaN-poisoned first)."""
    out = np.full((4, width), np.nan, np.float32)
    try:
        tc.interpret(kernel, X, out, s)
    except tc.KernelLoopError as e:
        return str(e), out
    return None, out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kernel", [stepped, piped], ids=["serial", "pipeline"])
def test_a_step_that_is_not_positive_is_raised_by_the_launching_call(
        torch_cuda: Any, target: str, kernel: Any) -> None:
    torch = torch_cuda
    dx = to_device(torch, X)
    dout = torch.empty((4, 24), dtype=torch.float32, device="cuda")
    exe = tc.compile(kernel, dx, dout, 2, target=target)
    assert [c.kind for c in exe.executable().kernel.checks] == ["step"]
    full = _reference(kernel, 5)[1]  # steps 5, 4, 3, 2: nothing fails
    for s in (2, 0, -1):  # s = 2: programs 2 and 3 fail; s <= 0: all four
        want, _ = _reference(kernel, s)
        assert want is not None
        poison(torch, dout)
        with pytest.raises(tc.KernelLoopError) as info:
            exe(dx, dout, s)
        e = info.value
        # the programs are unordered: any failing one may be the one reported
        failing = [p for p in range(4) if s - p <= 0]
        assert e.step in [s - p for p in failing], e.step
        assert str(e) == want.replace(f"loop is {s - failing[0]}", f"loop is {e.step}")
        got = to_host(torch, dout)
        ran = _reference(kernel, s + 10)[1]  # what every program stores before its loop
        for p in range(4):
            if p in failing:
                assert np.isnan(got[p, 4:]).all(), (p, got[p])
                assert np.isnan(got[p, :4]).all() or (got[p, :4] == ran[p, :4]).all()
            else:
                np.testing.assert_array_equal(got[p], _reference(kernel, s)[1][p])
        # the record was cleared: a passing launch raises nothing
        poison(torch, dout)
        exe(dx, dout, 5)
        np.testing.assert_array_equal(to_host(torch, dout), full)


@pytest.mark.parametrize("target", TARGETS)
def test_safe_steps_have_no_check(torch_cuda: Any, target: str) -> None:
    torch = torch_cuda
    dx = to_device(torch, X)
    dout = torch.empty((4, 16), dtype=torch.float32, device="cuda")
    exe = tc.compile(safe, dx, dout, 1, target=target)
    assert exe.executable().kernel.checks == []  # launched asynchronously
    for s in (-2, 0, 1, 2):
        poison(torch, dout)
        exe(dx, dout, s)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(to_host(torch, dout), _reference(safe, s, 16)[1])
