"""On the GPU, a kernel with products whose results are never read runs and writes what it
stores (GPU fuzz campaign 20261202, program 249, shrunk: its launch once ended in "an
illegal instruction"; capture now drops the dead loops, tests/regression/
test_dead_matrix_loops.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_dead_matrix_loops import _args, dead_products

import tilec as tc
from paths import on_device, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")


def test_dead_products_run(torch_cuda: Any) -> None:
    want = _args()
    tc.interpret(dead_products, *want)
    args = on_device(torch_cuda, _args())
    tc.compile(dead_products, *args, target="cuda")(*args)
    torch_cuda.cuda.synchronize()
    got = to_host(torch_cuda, args[2])
    np.testing.assert_array_equal(got, want[2])
