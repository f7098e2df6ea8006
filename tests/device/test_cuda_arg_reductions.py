"""On the GPU, ``tc.argmax``/``tc.argmin`` find numpy's first position (ties, NaNs, signed
zeros) with each row strategy (one thread per row, subgroup shuffles, teams of subgroups
through shared memory) and along other axes, and ``x.prod(axis)`` matches numpy
(tests/regression/test_arg_reductions.py has the kernels and runs them on every host path)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_arg_reductions import (
    DTYPES,
    ROW_SHAPES,
    _name,
    _row_case,
    check_cols,
    check_cube,
    check_pools,
    check_prod,
    col_args,
    col_case,
    cube_args,
    cube_case,
    pools_case,
    prod_case,
    row_args,
    row_prod,
    two_pools,
    want_rows,
)

import tilec as tc
from paths import on_device, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")


def _on_gpu(torch: Any, kernel: Any, host: list[np.ndarray], consts: dict[str, Any]
            ) -> list[np.ndarray]:
    """Run ``kernel`` on device copies of ``host`` (outputs poisoned there as here); the
    arguments back on the host, the inputs as they were."""
    args = on_device(torch, host)
    tc.compile(kernel, *args, target="cuda", **consts)(*args)
    return [host[0], *(to_host(torch, a) for a in args[1:])]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dt", DTYPES, ids=_name)
@pytest.mark.parametrize("strategy", sorted(ROW_SHAPES))
def test_row_args(torch_cuda: Any, strategy: str, dt: Any, seed: int) -> None:
    host, consts = _row_case(strategy, dt, seed)
    _, big, small = _on_gpu(torch_cuda, row_args, host, consts)
    want_big, want_small = want_rows(host[0], consts["BN"])
    np.testing.assert_array_equal(big, want_big)
    np.testing.assert_array_equal(small, want_small)


@pytest.mark.parametrize("dt", [np.dtype(np.float32), np.dtype(np.int16)], ids=_name)
def test_col_args(torch_cuda: Any, dt: Any) -> None:
    check_cols(*_on_gpu(torch_cuda, col_args, *col_case(dt)))


def test_cube_args(torch_cuda: Any) -> None:
    check_cube(*_on_gpu(torch_cuda, cube_args, *cube_case(np.float32)))


@pytest.mark.parametrize("dt", [np.dtype(np.float32), np.dtype(np.int32)], ids=_name)
def test_row_prod(torch_cuda: Any, dt: Any) -> None:
    check_prod(*_on_gpu(torch_cuda, row_prod, prod_case(dt), {}))


def test_two_scratch_pools(torch_cuda: Any) -> None:
    check_pools(*_on_gpu(torch_cuda, two_pools, pools_case(), {}))
