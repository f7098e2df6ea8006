"""Shared SSA values on the GPU (``PlannerOptions.shared_ssa``): the kernels of
``tests/shared_value_kernels.py`` in each mode, launched with NaN-poisoned outputs and
compared with the reference interpreter. The simulated side is
``tests/regression/test_shared_values.py``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import on_device, reference_run, to_host
from shared_value_kernels import looped, masked_twice, softmax_inputs, softmax_parts
from tilec.plan.options import SHARED_SSA_MODES

pytestmark = pytest.mark.usefixtures("torch_cuda")

TARGETS = ["cuda:sm_90", "cuda:sm_80"]


def _args(kernel: Any) -> tuple[list[np.ndarray], list[int]]:
    if kernel is softmax_parts:
        return softmax_inputs(rows=4000, seed=7), [2, 3, 4]
    x = np.random.default_rng(8).standard_normal((4000, 32)).astype(np.float32)
    return [x, np.zeros_like(x), np.zeros_like(x)], [1, 2]


@pytest.mark.parametrize("mode", SHARED_SSA_MODES)
@pytest.mark.parametrize("kernel", [softmax_parts, masked_twice, looped],
                         ids=lambda k: k.fn.__name__)
@pytest.mark.parametrize("target", TARGETS)
def test_matches_the_reference(torch_cuda: Any, target: str, kernel: Any, mode: str) -> None:
    args, outs = _args(kernel)
    for k in outs:
        _, want = reference_run(kernel, *args, written=k)
        dev = on_device(torch_cuda, args, out=k)
        for j in outs:  # every output poisoned, the checked one last
            if j != k:
                dev[j].fill_(float("nan"))
        tc.compile(kernel, *dev, target=target, variant={"shared_ssa": mode})(*dev)
        np.testing.assert_allclose(to_host(torch_cuda, dev[k]), want, rtol=2e-6, atol=1e-6)
