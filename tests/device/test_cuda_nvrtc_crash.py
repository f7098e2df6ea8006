"""On the GPU, the kernel NVRTC 13 crashes on at its default NVVM level builds at a lower
one and computes what the reference computes (tests/regression/test_nvrtc_crash.py)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from test_nvrtc_crash import crash_args, nvvm_crash

import tilec as tc
from paths import on_device, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")


def test_the_crashing_kernel_runs_and_matches_the_reference(torch_cuda: Any) -> None:
    args = crash_args()
    want = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
    tc.compile(nvvm_crash, *want, target="reference")(*want)
    dev = on_device(torch_cuda, args)  # Y0 (the last argument) poisoned with NaN
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the NVRTC crash and its retry
        tc.compile(nvvm_crash, *dev, target="cuda")(*dev)
    np.testing.assert_array_equal(to_host(torch_cuda, dev[10]), want[10])  # Z0: atomic_min
    got, ref = to_host(torch_cuda, dev[-1]), want[-1]
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=0, equal_nan=True)
