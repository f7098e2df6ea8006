"""Coordinate tiles (``tc.arange``) and a causal mask on the GPU: the reference's results.

The GPU side of ``tests/regression/test_arange.py``: each kernel is launched with a
NaN- (or -7-) poisoned output and compared with the reference interpreter.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_arange import causal_scores, grid_coords, ramps

import tilec as tc
from paths import on_device, reference_run, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")

TARGETS = ["cuda:sm_90", "cuda:sm_80"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt,npdt", [(tc.int32, np.int32), (tc.float16, np.float16),
                                     (tc.int8, np.int8)], ids=["i32", "f16", "i8"])
def test_ramps(torch_cuda: Any, target: str, dt: Any, npdt: Any) -> None:
    args = [np.zeros((2, 24), npdt), 120]
    _, want = reference_run(ramps, *args, written=0, DT=dt)
    dev = on_device(torch_cuda, args, out=0)
    tc.compile(ramps, *dev, target=target, DT=dt)(*dev)
    np.testing.assert_array_equal(to_host(torch_cuda, dev[0]), want)


@pytest.mark.parametrize("target", TARGETS)
def test_two_dimensional_coordinates(torch_cuda: Any, target: str) -> None:
    args = [np.zeros((12, 40), np.int32)]
    _, want = reference_run(grid_coords, *args, written=0)
    dev = on_device(torch_cuda, args, out=0)
    tc.compile(grid_coords, *dev, target=target)(*dev)
    np.testing.assert_array_equal(to_host(torch_cuda, dev[0]), want)


@pytest.mark.parametrize("target", TARGETS)
def test_a_causal_mask(torch_cuda: Any, target: str) -> None:
    s = np.random.default_rng(5).standard_normal((20, 24)).astype(np.float32)
    args = [s, np.zeros((20, 24), np.float32)]
    _, want = reference_run(causal_scores, *args, written=1)
    dev = on_device(torch_cuda, args, out=1)
    tc.compile(causal_scores, *dev, target=target)(*dev)
    got = to_host(torch_cuda, dev[1])
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)
    i, j = np.indices(s.shape)
    assert (got[j > i] == 0).all()
