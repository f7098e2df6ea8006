"""Independent-subgroup barriers on the GPU: the kernels of ``tests/subgroup_kernels.py``
compiled with ``elide_independent_subgroup_barriers`` (``__syncwarp`` where the proof
weakened a barrier, nothing where each thread reads its own writes), each launched with a
NaN-poisoned output and compared with the reference interpreter. The simulated side is
``tests/regression/test_subgroup_barriers.py``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import on_device, reference_run, to_host
from subgroup_kernels import carried, column_sums, inputs, read_own, read_transposed

pytestmark = pytest.mark.usefixtures("torch_cuda")

TARGETS = ["cuda:sm_90", "cuda:sm_80"]


@pytest.mark.parametrize("threads", [32, None], ids=["one_subgroup", "planned"])
@pytest.mark.parametrize("kernel", [read_own, read_transposed, column_sums, carried],
                         ids=lambda k: k.fn.__name__)
@pytest.mark.parametrize("target", TARGETS)
def test_matches_the_reference(torch_cuda: Any, target: str, kernel: Any,
                               threads: int | None) -> None:
    x, out = inputs(kernel, rows=4096, seed=11)
    _, want = reference_run(kernel, x, out, written=1)
    dev = on_device(torch_cuda, [x, out], out=1)
    variant = {"elide_independent_subgroup_barriers": True, "threads": threads}
    tc.compile(kernel, *dev, target=target, variant=variant)(*dev)
    got = to_host(torch_cuda, dev[1])
    if kernel is column_sums:  # an unordered_tree sum: the GPU may add in another order,
        # each grouping within 31 roundings (2^-24 each) of the sum of magnitudes
        mags = np.abs(x).reshape(-1, 32, x.shape[1]).sum(axis=1)
        assert (np.abs(got - want) <= 31 * 2.0**-24 * mags).all()
        return
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
