"""Issue: the SIMT simulator ran programs that the CUDA target refuses.

A kernel with a second top-level ``tc.parallel`` nest: the CUDA emitter
refused it ("a kernel has one grid parallel") but ``tc.simulate(...,
target="cuda:sm_90")`` ran both nests, so the simulator vouched for a program
the target cannot compile. The same held for a kernel without a nest and for
atomics on 8- and 16-bit memory, and a loop or runtime ``if`` around the nest
crashed both with an internal verifier error. GPU lowering now refuses each
before scheduling (``lower/top_level.py``; atomics from the profile's
``atomic_dtypes``) with a located ``LoweringError``, which the simulator and
the CUDA backend raise alike, with the same text. ``reference`` and ``cpu``
run such top levels in program order. The CUDA side is
``tests/device/test_cuda_kernel_structure.py``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from tilec.driver import compile_module
from tilec.lower import LoweringError

GPU = ["cuda:sm_90", "cuda:sm_80"]
HOST = ["reference", "cpu"]


def _line_of(fn: Callable[..., Any], text: str) -> int:
    lines, start = inspect.getsourcelines(fn)
    for k, line in enumerate(lines):
        if text in line:
            return start + k
    raise AssertionError(f"{text!r} is not in {fn.__name__}")


def _run(target: str, kernel: Any, *args: Any) -> None:
    tc.compile(kernel, *args, target=target)(*args)


def _refusals(target: str, kernel: Any, *args: Any) -> tuple[str, str]:
    """The simulator's and the CUDA backend's errors for ``kernel`` on ``target``."""
    with pytest.raises(LoweringError) as simulated:
        tc.simulate(kernel, *args, target=target)
    compiled = tc.compile(kernel, *args, target="reference")
    with pytest.raises(LoweringError) as emitted:
        compile_module(compiled.module, compiled.fn_name, target, until="emit")
    return str(simulated.value), str(emitted.value)


def _nan(*shape: int) -> np.ndarray:
    return np.full(shape, np.nan, np.float32)


# ---------------------------------------------------------------------- top levels


@tc.kernel
def two_nests(X, Y, Z, BM: tc.constexpr = 4):
    """``Y = X + 1`` by one nest, then ``Z = 2 * Y`` by a second one (it reads the first)."""
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        Y.tile((p * BM,), (BM,)).store(X.tile((p * BM,), (BM,)) + 1.0)
    for q in tc.parallel(tc.cdiv(M, BM)):
        Z.tile((q * BM,), (BM,)).store(Y.tile((q * BM,), (BM,)) * 2.0)


@tc.kernel
def no_nest(X, Y, n):
    """Only a host check."""
    assert n == X.shape[0], "n is the length of X"


@tc.kernel
def loop_around_nest(X, Y, n, BM: tc.constexpr = 4):
    """``Y += 1`` in each of ``n`` rounds of a nest."""
    M = X.shape[0]
    for _k in tc.serial(n):
        for p in tc.parallel(tc.cdiv(M, BM)):
            Y.tile((p * BM,), (BM,)).store(Y.tile((p * BM,), (BM,)) + 1.0)


@tc.kernel
def if_around_nest(X, Y, n, BM: tc.constexpr = 4):
    M = X.shape[0]
    if n > 0:
        for p in tc.parallel(tc.cdiv(M, BM)):
            Y.tile((p * BM,), (BM,)).store(X.tile((p * BM,), (BM,)))


@tc.kernel
def if_for_the_grid(X, Y, n, BM: tc.constexpr = 4):
    """A runtime ``if`` choosing the program count."""
    M = X.shape[0]
    if n > 0:
        programs = tc.cdiv(M, BM)
    else:
        programs = 1
    for p in tc.parallel(programs):
        Y.tile((p * BM,), (BM,)).store(X.tile((p * BM,), (BM,)))


X = np.arange(12, dtype=np.float32) - 4.0


@pytest.mark.parametrize("target", HOST)
def test_host_targets_run_several_top_level_nests_in_order(target: str) -> None:
    y, z = _nan(12), _nan(12)
    _run(target, two_nests, X, y, z)
    np.testing.assert_array_equal(y, X + 1)
    np.testing.assert_array_equal(z, 2 * (X + 1))
    y = np.zeros(12, np.float32)
    _run(target, loop_around_nest, X, y, 3)
    np.testing.assert_array_equal(y, np.full(12, 3, np.float32))
    for kernel in (if_around_nest, if_for_the_grid):
        y = _nan(12)
        _run(target, kernel, X, y, 1)
        np.testing.assert_array_equal(y, X)
    _run(target, no_nest, X, _nan(1), 12)
    with pytest.raises(tc.KernelAssertionError):
        _run(target, no_nest, X, _nan(1), 5)


@pytest.mark.parametrize("target", GPU + ["metal:m1"])
def test_a_second_nest_is_refused_at_it_by_simulator_and_emitter(target: str) -> None:
    y, z = _nan(12), _nan(12)
    with pytest.raises(LoweringError) as info:
        tc.simulate(two_nests, X, y, z, target=target)
    text = str(info.value)
    first, second = (_line_of(two_nests.fn, t) for t in ("for p in", "for q in"))
    assert text.startswith(f"{__file__}:{second}:5: error: {target} runs one tc.parallel nest "
                           "per kernel (a kernel is one launch), and this is a second one in "
                           f"@two_nests (the first is at {__file__}:{first}:5)"), text
    assert np.isnan(y).all() and np.isnan(z).all()
    if target in GPU:
        assert _refusals(target, two_nests, X, y, z) == (text, text)


@pytest.mark.parametrize("target", GPU)
@pytest.mark.parametrize("kernel,where,what", [
    (no_nest, "def no_nest", "has no tc.parallel nest"),
    (loop_around_nest, "for _k in tc.serial(n)", "cannot run a loop ('serial') outside"),
    (if_around_nest, "if n > 0", "cannot run a runtime if ('if') outside"),
    (if_for_the_grid, "if n > 0", "choose a scalar with tc.where(cond, a, b)"),
], ids=["no_nest", "loop", "if", "if_for_the_grid"])
def test_other_top_levels_are_refused_alike(target: str, kernel: Any, where: str,
                                            what: str) -> None:
    simulated, emitted = _refusals(target, kernel, X, _nan(12), 1)
    assert simulated == emitted
    assert simulated.startswith(f"{__file__}:{_line_of(kernel.fn, where)}:"), simulated
    assert what in simulated.splitlines()[0] and target in simulated.splitlines()[0]


# ------------------------------------------------------------------------- atomics


@tc.kernel
def scatter(X, Out, BM: tc.constexpr = 4):
    """Every program adds, maxes and mins its block of X into the same three rows."""
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        x = X.tile((p * BM,), (BM,))
        Out.tile((0, 0), (1, BM)).atomic_add(x[None, :])
        Out.tile((1, 0), (1, BM)).atomic_max(x[None, :])
        Out.tile((2, 0), (1, BM)).atomic_min(x[None, :])


NARROW = [np.float16, ml_dtypes.bfloat16, np.int8, np.int16, np.bool_]
WIDE = [np.int32, np.int64, np.float32, np.float64]


def _scatter_inputs(dt: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = (np.arange(12) % 2 == 1) if dt is np.bool_ else (np.arange(12) * 5 % 7 - 3)
    x = x.astype(dt)
    out = np.zeros((3, 4), dt)
    out[2] = x.max() if dt is not np.bool_ else True  # min starts at the top
    blocks = x.reshape(3, 4).astype(np.float64)
    want = out.astype(np.float64).copy()
    want[0] = blocks.sum(0) if dt is not np.bool_ else blocks.sum(0) % 2  # i1 adds modulo 2
    want[1] = np.maximum(want[1], blocks.max(0))
    want[2] = np.minimum(want[2], blocks.min(0))
    return x, out, want


@pytest.mark.parametrize("dt", NARROW, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("target", GPU)
def test_cuda_atomics_on_narrow_memory_are_refused_by_the_simulator_too(target: str,
                                                                        dt: Any) -> None:
    x, out, _ = _scatter_inputs(dt)
    simulated, emitted = _refusals(target, scatter, x, out)
    assert simulated == emitted
    line = _line_of(scatter.fn, "atomic_add")
    name = {np.bool_: "i1", ml_dtypes.bfloat16: "bf16"}.get(dt, np.dtype(dt).name
                                                          .replace("float", "f")
                                                          .replace("int", "i"))
    assert simulated.startswith(f"{__file__}:{line}:9: error: {target} has no atomic add on "
                                f"{name} memory (its atomics update i32, i64, f32, f64, u32)"), \
        simulated


@pytest.mark.parametrize("dt", [np.float32, np.int32], ids=lambda d: np.dtype(d).name)
def test_metal_atomics_are_refused_by_the_simulator_too(dt: Any) -> None:
    """metal:m1 lists no atomic types (its emitter prints none): both refuse, alike."""
    x, out, _ = _scatter_inputs(dt)
    simulated, emitted = _refusals("metal:m1", scatter, x, out)
    assert simulated == emitted
    line = _line_of(scatter.fn, "atomic_add")
    assert simulated.startswith(f"{__file__}:{line}:9: error: metal:m1 has no atomic "
                                "operations (atomic add on"), simulated


@pytest.mark.parametrize("dt", NARROW + WIDE, ids=lambda d: np.dtype(d).name)
def test_atomics_where_the_target_has_them(dt: Any) -> None:
    """The reference takes every type, the CUDA simulator the types CUDA has (the C target
    has no 16-bit float or i1 atomics and refuses them itself; metal:m1 has none)."""
    targets = ["reference"] + ([f"sim:{t}" for t in GPU] if dt in WIDE else [])
    if dt not in (np.float16, ml_dtypes.bfloat16, np.bool_):
        targets.append("cpu")
    for target in targets:
        x, out, want = _scatter_inputs(dt)
        if target.startswith("sim:"):
            tc.simulate(scatter, x, out, target=target[4:])
        else:
            _run(target, scatter, x, out)
        np.testing.assert_array_equal(out.astype(np.float64), want, err_msg=target)
