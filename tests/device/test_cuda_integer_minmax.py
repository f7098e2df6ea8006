"""On the GPU, integer max/min over negated values are right (ptxas once dropped a negation
it fused into a three-input VIMNMX3; tests/regression/test_integer_minmax.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_integer_minmax import (
    DTYPES,
    _data,
    _want_minmax,
    _want_row_max,
    negated_minmax,
    negated_row_max,
)

import tilec as tc
from paths import on_device, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_negated_row_max(torch_cuda: Any, dtype, seed: int) -> None:
    x = _data(dtype, (18, 30), seed)
    args = on_device(torch_cuda, [x, np.zeros((17, 3), dtype)])
    tc.compile(negated_row_max, *args, target="cuda")(*args)
    np.testing.assert_array_equal(to_host(torch_cuda, args[1]),
                                  _want_row_max(x, 17, 3).astype(dtype))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_negated_minmax(torch_cuda: Any, dtype, seed: int) -> None:
    x = _data(dtype, (37, 8), seed)
    args = on_device(torch_cuda, [x, np.zeros((37, 1), dtype)])
    tc.compile(negated_minmax, *args, target="cuda")(*args)
    np.testing.assert_array_equal(to_host(torch_cuda, args[1]), _want_minmax(x, 37).astype(dtype))
