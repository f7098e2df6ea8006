"""Data-dependent addressing on the GPU: scalar reads of memory (window origins, loop
bounds, ``if``), ``tc.gather``, ``tc.scatter`` and ``tc.scatter_add``.

The GPU side of ``tests/regression/test_data_dependent.py``: each case starts from the
same (poisoned) arrays, runs on the device, and must equal numpy, with indices far out of
range and negative among the data; guard elements around the arrays must stay untouched.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_data_dependent import CASES, embed, scatter_rows

import tilec as tc
from paths import poisoned, to_device, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")

TARGETS = ["cuda:sm_90", "cuda:sm_80"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", list(CASES))
def test_equals_numpy(torch_cuda: Any, target: str, case: str) -> None:
    kernel, make = CASES[case]
    args, at, want = make()
    dev = [to_device(torch_cuda, a) if isinstance(a, np.ndarray) else a for a in args]
    tc.compile(kernel, *dev, target=target)(*dev)
    np.testing.assert_array_equal(to_host(torch_cuda, dev[at]), want)


@pytest.mark.parametrize("target", TARGETS)
def test_bad_indices_touch_nothing_outside_the_arrays(torch_cuda: Any, target: str) -> None:
    ids = np.array([-1, 2 ** 31 - 1, -(2 ** 31), 10, 11, -64, 1_000_000, 3], np.int32)
    pad = 4096
    table = np.full(10 * 16 + 2 * pad, -123.0, np.float32)
    table[pad:-pad] = 1.0
    dev_table = to_device(torch_cuda, table)
    dev_ids = to_device(torch_cuda, ids)
    out = np.full(8 * 16 + 2 * pad, -123.0, np.float32)
    out[pad:-pad] = np.nan
    dev_out = to_device(torch_cuda, out)
    E = dev_table[pad:-pad].view(10, 16)
    Ob = dev_out[pad:-pad].view(8, 16)
    tc.compile(embed, E, dev_ids, Ob, target=target)(E, dev_ids, Ob)
    got = to_host(torch_cuda, dev_out)
    assert (got[:pad] == -123).all() and (got[-pad:] == -123).all()
    rows = got[pad:-pad].reshape(8, 16)
    np.testing.assert_array_equal(rows[:7], 0.0)
    np.testing.assert_array_equal(rows[7], 1.0)
    dst = np.full(10 * 16 + 2 * pad, -123.0, np.float32)
    dst[pad:-pad] = poisoned(10 * 16)
    dev_dst = to_device(torch_cuda, dst)
    D = dev_dst[pad:-pad].view(10, 16)
    V = to_device(torch_cuda, np.full((8, 16), 5.0, np.float32))
    tc.compile(scatter_rows, D, dev_ids, V, target=target)(D, dev_ids, V)
    got = to_host(torch_cuda, dev_dst)
    assert (got[:pad] == -123).all() and (got[-pad:] == -123).all()
    inner = got[pad:-pad].reshape(10, 16)
    assert np.isnan(np.delete(inner, 3, axis=0)).all() and (inner[3] == 5.0).all()
