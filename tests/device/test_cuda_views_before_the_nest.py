"""Views taken before the ``tc.parallel`` nest, on the GPU: the reference's results.

The GPU side of ``tests/regression/test_views_before_the_nest.py``: a
transposed operand named before the nest (``Bt = B.T``) and a chain of views
with a runtime origin, each launched with a NaN-poisoned output and compared
with the reference interpreter.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_views_before_the_nest import chained, transposed_before

import tilec as tc
from paths import on_device, reference_run, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")

TARGETS = ["cuda:sm_90", "cuda:sm_80"]


@pytest.mark.parametrize("target", TARGETS)
def test_a_transposed_operand_taken_before_the_nest(torch_cuda: Any, target: str) -> None:
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, (40, 24)).astype(np.float32)
    b = rng.integers(-4, 5, (20, 24)).astype(np.float32)
    args = [a, b, np.zeros((40, 20), np.float32)]
    _, want = reference_run(transposed_before, *args, written=2)
    dev = on_device(torch_cuda, args)
    tc.compile(transposed_before, *dev, target=target)(*dev)
    np.testing.assert_array_equal(to_host(torch_cuda, dev[2]), want)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("off", [0, 2, 3])
def test_a_chain_of_views_with_a_runtime_origin(torch_cuda: Any, target: str, off: int) -> None:
    x = np.arange(6 * 8 * 3, dtype=np.float32).reshape(6, 8, 3)
    args = [x, np.zeros((8, 8), np.float32), off]
    _, want = reference_run(chained, *args, written=1)
    dev = on_device(torch_cuda, args, out=1)
    tc.compile(chained, *dev, target=target)(*dev)
    np.testing.assert_array_equal(to_host(torch_cuda, dev[1]), want)
