"""Issue: a runtime loop step that is not positive hung the cpu target.

``for i in tc.serial(0, 4, step=s)`` with ``s = 0`` or ``-1``: the C loop
``for (iv = 0; iv < 4; iv += s)`` never ends, while the reference and the
simulators raised an internal ``InterpretError``. TileIR now says a step
``<= 0`` is the program's runtime error (docs/design/tileir.md, ``serial``):
every path raises ``tc.KernelLoopError`` (a ``ValueError``) at the loop's
``file:line`` with the step, before the loop's first iteration,
through the runtime-check channels (the C status word, the GPU lowering's
``check {kind = "step"}`` and CUDA's check record). A constant or provably
positive step costs nothing. The GPU run is ``tests/device/test_cuda_loop_step.py``.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import (
    CUBIN_ARCHS,
    CUDA_TARGETS,
    HOST_PATHS,
    PATHS,
    cubin,
    cuda_source,
    line_of,
    needs_nvrtc,
    poisoned,
    raises,
    run,
    unwritten,
)
from tilec.targets.cpu.backend import make_backend as c_backend


def _run_failing(target: str, kernel: Any, *args: Any, **constexprs: Any) -> tc.KernelLoopError:
    """Run a call whose loop step is not positive; the error it raises."""
    if target == "cpu":  # an untested step never ends the C loop: look before running it
        compiled = tc.compile(kernel, *args, target="reference", **constexprs)
        checks = c_backend().emit(compiled.module, compiled.fn_name).checks.values()
        assert [c.kind for c in checks] == ["step"], "the C function does not test the step"
    return raises(tc.KernelLoopError, target, kernel, *args, **constexprs)


# Each program p stores X + 1 in row p, column block 0, before its loop; iteration i stores
# X * i in block 1 + i // s ... (blocks 1..4 for the steps used); after the loop, the count
# of iterations in block 5. Program 1's step is s - 1, so s = 1 fails there only. P programs
# run (the GPU test runs four).


@tc.kernel
def keyword_step(X, Out, s, BM: tc.constexpr = 4, P: tc.constexpr = 2):
    for p in tc.parallel(P):
        x = X.tile((p * BM,), (BM,))
        Out.tile((p, 0), (1, BM)).store((x + 1.0)[None, :])
        n = 0.0
        for i in tc.serial(0, 4, step=s - p):
            Out.tile((p, (1 + i) * BM), (1, BM)).store((x * i)[None, :])
            n = n + 1.0
        Out.tile((p, 5 * BM), (1, BM)).store(tc.full((1, BM), n))


@tc.kernel
def positional_step(X, Out, s, BM: tc.constexpr = 4, P: tc.constexpr = 2):
    for p in tc.parallel(P):
        x = X.tile((p * BM,), (BM,))
        Out.tile((p, 0), (1, BM)).store((x + 1.0)[None, :])
        n = 0.0
        for i in tc.serial(0, 4, s - p):
            Out.tile((p, (1 + i) * BM), (1, BM)).store((x * i)[None, :])
            n = n + 1.0
        Out.tile((p, 5 * BM), (1, BM)).store(tc.full((1, BM), n))


@tc.kernel
def range_step(X, Out, s, BM: tc.constexpr = 4, P: tc.constexpr = 2):
    for p in tc.parallel(P):
        x = X.tile((p * BM,), (BM,))
        Out.tile((p, 0), (1, BM)).store((x + 1.0)[None, :])
        n = 0.0
        for i in range(0, 4, s - p):
            Out.tile((p, (1 + i) * BM), (1, BM)).store((x * i)[None, :])
            n = n + 1.0
        Out.tile((p, 5 * BM), (1, BM)).store(tc.full((1, BM), n))


@tc.kernel
def pipeline_step(X, Out, s, BM: tc.constexpr = 4, P: tc.constexpr = 2):
    for p in tc.parallel(P):
        x = X.tile((p * BM,), (BM,))
        Out.tile((p, 0), (1, BM)).store((x + 1.0)[None, :])
        n = 0.0
        for i in tc.pipeline(0, 4, step=s - p):
            y = x * i
            tc.stage()
            Out.tile((p, (1 + i) * BM), (1, BM)).store(y[None, :])
            n = n + 1.0
        Out.tile((p, 5 * BM), (1, BM)).store(tc.full((1, BM), n))


KERNELS = [keyword_step, positional_step, range_step, pipeline_step]
LOOP_TEXT = {keyword_step: "tc.serial(0, 4, step=s - p)", positional_step: "tc.serial(0, 4, s",
             range_step: "range(0, 4, s - p)", pipeline_step: "tc.pipeline(0, 4, step="}
OPCODE = {keyword_step: "serial", positional_step: "serial", range_step: "serial",
          pipeline_step: "pipeline"}


def _expected(x: np.ndarray, s: int) -> np.ndarray:
    """What the programs store with step ``s - p``; a failing program stops at its loop."""
    out = poisoned(2, 24)
    for p in range(2):
        xs = x[p * 4:(p + 1) * 4]
        out[p, :4] = xs + 1
        if s - p <= 0:
            continue
        steps = range(0, 4, s - p)
        for i in steps:
            out[p, (1 + i) * 4:(2 + i) * 4] = xs * i
        out[p, 20:] = len(steps)
    return out


X = np.arange(8, dtype=np.float32) - 2.5


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("target", PATHS)
def test_positive_steps_count_up(target: str, kernel: Any) -> None:
    for s in (2, 3, 6):
        out = poisoned(2, 24)
        run(target, kernel, X, out, s)
        np.testing.assert_array_equal(out, _expected(X, s), err_msg=f"s = {s}")


@pytest.mark.parametrize("s", [1, 0, -1], ids=lambda s: f"step{s}")
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("target", PATHS)
def test_a_step_that_is_not_positive_raises_at_the_loop(target: str, kernel: Any,
                                                        s: int) -> None:
    out = poisoned(2, 24)
    e = _run_failing(target, kernel, X, out, s)
    line = line_of(kernel.fn, LOOP_TEXT[kernel])
    step = s - 1 if s == 1 else s  # the first failing program, in row-major order
    assert str(e).startswith(f"{__file__}:{line}:"), str(e)
    assert (f"loop step must be positive in @{kernel.__name__}: the step of this "
            f"{OPCODE[kernel]} loop is {step}") in str(e).splitlines()[0]
    assert isinstance(e, ValueError) and isinstance(e, tc.UserError)
    assert (e.filename, e.lineno, e.kernel, e.loop, e.step) == (
        __file__, line, kernel.__name__, OPCODE[kernel], step)
    want = _expected(X, s)
    first = 1 if s == 1 else 0  # the failing program reported
    # it stored what precedes its loop and nothing after; a program that did not fail ran
    # whole; another failing one (unordered) stored at most what precedes its loop
    np.testing.assert_array_equal(out[first, :4], want[first, :4])
    for p in range(2):
        if s - p > 0:
            np.testing.assert_array_equal(out[p], want[p])
            continue
        assert unwritten(out[p, 4:]), (p, out[p])
        assert unwritten(out[p, :4]) or (out[p, :4] == want[p, :4]).all(), out[p]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_the_error_is_the_same_on_every_path(kernel: Any) -> None:
    texts = {str(_run_failing(target, kernel, X, poisoned(2, 24), -1)) for target in PATHS}
    assert len(texts) == 1, texts


def test_the_error_survives_pickling() -> None:
    raised = _run_failing("reference", keyword_step, X, poisoned(2, 24), 0)
    e = pickle.loads(pickle.dumps(raised))
    assert type(e) is tc.KernelLoopError and str(e) == str(raised)
    assert (e.step, e.loop, e.kernel) == (0, "serial", "keyword_step")


# ------------------------------------------------------------------- what it costs


@tc.kernel
def safe_steps(X, Out, s, BM: tc.constexpr = 4, P: tc.constexpr = 2):
    """A constant step and one the value ranges prove positive: no test anywhere."""
    for p in tc.parallel(P):
        x = X.tile((p * BM,), (BM,))
        for i in tc.serial(0, 4, 2):
            Out.tile((p, i * BM), (1, BM)).store((x * i)[None, :])
        for j in tc.serial(1, 4, tc.maximum(s, 1)):
            Out.tile((p, j * BM), (1, BM)).store((x + j)[None, :])


def test_constant_and_provably_positive_steps_cost_nothing() -> None:
    specs = (tc.array((None,), np.float32), tc.array((None, None), np.float32), tc.int32)
    compiled = tc.compile(safe_steps, *specs, target="reference")
    assert c_backend().emit(compiled.module, compiled.fn_name).checks == {}
    for target in CUDA_TARGETS:
        src = cuda_source(safe_steps, *specs, target=target)
        assert src.checks == [] and "tc_check" not in src.text  # launched asynchronously
    for s in (-3, 0, 1, 2):
        want = poisoned(2, 16)
        for p in range(2):
            xs = X[p * 4:(p + 1) * 4]
            for i in range(0, 4, 2):
                want[p, i * 4:(i + 1) * 4] = xs * i
            for j in range(1, 4, max(s, 1)):
                want[p, j * 4:(j + 1) * 4] = xs + j
        for target in PATHS:
            out = poisoned(2, 16)
            run(target, safe_steps, X, out, s)
            np.testing.assert_array_equal(out, want, err_msg=f"{target}, s = {s}")


def test_a_runtime_step_is_a_device_check_on_cuda() -> None:
    specs = (tc.array((None,), np.float32), tc.array((None, None), np.float32), tc.int32)
    for kernel in KERNELS:
        src = cuda_source(kernel, *specs)
        assert [(c.kind, c.message, c.labels) for c in src.checks] == [
            ("step", OPCODE[kernel], ("step",))]
        assert "unsigned long long *__restrict__ tc_check)" in src.text


@needs_nvrtc
@pytest.mark.parametrize("target,arch", CUBIN_ARCHS)
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_guarded_loops_compile_to_cubins(target: str, arch: str, kernel: Any) -> None:
    specs = (tc.array((None,), np.float32), tc.array((None, None), np.float32), tc.int32)
    cubin(cuda_source(kernel, *specs, target=target), arch)


@tc.kernel
def rounds(X, Out, s, BM: tc.constexpr = 4):
    """A top-level loop around the nest (reference and cpu only: GPU kernels have none)."""
    for r in tc.serial(0, 3, s):
        for p in tc.parallel(2):
            Out.tile((r, p * BM), (1, BM)).store(X.tile((p * BM,), (BM,))[None, :] + r)


@pytest.mark.parametrize("target", HOST_PATHS)
def test_a_top_level_loop_fails_before_anything_runs(target: str) -> None:
    out = poisoned(3, 8)
    e = _run_failing(target, rounds, X, out, 0)
    assert e.lineno == line_of(rounds.fn, "for r in") and e.step == 0
    assert unwritten(out)
    run(target, rounds, X, out, 2)
    want = poisoned(3, 8)
    want[0], want[2] = X, X + 2
    np.testing.assert_array_equal(out, want)
