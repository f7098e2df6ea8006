"""Shared SSA values on every path (``PlannerOptions.shared_ssa``): the kernels of
``tests/shared_value_kernels.py`` in each mode (retained, recomputed per consumer,
materialized in shared memory, or recomputed only when cheap) against the reference
interpreter, outputs NaN-poisoned first, and the reference against numpy. The GPU run is
``tests/device/test_cuda_shared_ssa.py``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import PATHS, poisoned
from shared_value_kernels import (
    looped,
    masked_twice,
    numpy_softmax_parts,
    softmax_inputs,
    softmax_parts,
)
from tilec.plan.options import SHARED_SSA_MODES
from tilec.targets.cpu.backend import probe as c_compiler_problem
from tilec.targets.reference.simt import simulate_module


def _args(kernel: Any) -> tuple[list[np.ndarray], list[int]]:
    """Fresh inputs and the positions of the outputs."""
    if kernel is softmax_parts:
        return softmax_inputs(rows=40, seed=3), [2, 3, 4]
    x = np.random.default_rng(4).standard_normal((40, 32)).astype(np.float32)
    return [x, np.zeros_like(x), np.zeros_like(x)], [1, 2]


def _run(path: str, kernel: Any, mode: str, args: list[Any]) -> None:
    if path == "reference":
        tc.interpret(kernel, *args)
    elif path == "cpu":
        why = c_compiler_problem()
        if why is not None:
            pytest.skip(f"no C compiler: {why}")
        tc.compile(kernel, *args, target="cpu", variant={"shared_ssa": mode})(*args)
    else:
        compiled = kernel.compile(*args, target="simt:" + path.removeprefix("sim:"),
                                  variant={"shared_ssa": mode})
        simulate_module(compiled.executable().module, compiled.fn_name, list(args))


@pytest.mark.parametrize("mode", SHARED_SSA_MODES)
@pytest.mark.parametrize("kernel", [softmax_parts, masked_twice, looped],
                         ids=lambda k: k.fn.__name__)
@pytest.mark.parametrize("path", PATHS)
def test_matches_the_reference(path: str, kernel: Any, mode: str) -> None:
    args, outs = _args(kernel)
    want = [a.copy() for a in args]
    got = [a.copy() for a in args]
    for k in outs:
        want[k] = poisoned(*args[k].shape)
        got[k] = poisoned(*args[k].shape)
    tc.interpret(kernel, *want)
    _run(path, kernel, mode, got)
    for k in outs:
        assert not np.isnan(want[k]).any()
        np.testing.assert_allclose(got[k], want[k], rtol=2e-6, atol=1e-6)


def test_the_reference_is_numpy() -> None:
    args, _ = _args(softmax_parts)
    tc.interpret(softmax_parts, *args)
    for got, want in zip(args[2:], numpy_softmax_parts(args[0], args[1])):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
