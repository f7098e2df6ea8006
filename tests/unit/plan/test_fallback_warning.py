"""A group whose matrix products no plan fits still compiles (the checked scalar reference
realizes them) but says so: a ``PerformanceWarning`` naming the operation's source line and
the planner's reason."""

from __future__ import annotations

import warnings
from dataclasses import replace

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from tilec.lib import matmul


def test_the_scalar_fallback_of_a_gemm_warns_with_the_reason() -> None:
    with pytest.warns(tc.PerformanceWarning, match=r"no matrix plan for cuda:sm_90 fits .*"
                      r"group-memory capacity") as seen:
        _lower(256, ml_dtypes.bfloat16, bk=128)
    (w,) = [w for w in seen if issubclass(w.category, tc.PerformanceWarning)]
    # attributed to the mma's line of the kernel's source, which Python's display shows
    assert w.filename.endswith("matmul.py")
    import linecache
    assert "tc.mma(" in linecache.getline(w.filename, w.lineno)


def test_a_plan_that_fits_does_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", tc.PerformanceWarning)
        _lower(128, ml_dtypes.bfloat16)


def _lower(bn: int, out: type, bk: int = 64) -> None:
    """Lower a bf16 GEMM of ``128 x bn x bk`` tiles, its accumulator through shared memory.
    (128 x 256 x 64 fits: 230656 bytes placed, which the planner counts since the swizzled
    base's alignment is paid once; 128 x 256 x 128 does not.)"""
    from tilec.driver import compile_module
    from tilec.lower import LowerOptions

    a = np.ones((512, 512), ml_dtypes.bfloat16)
    c = np.zeros((512, 512), out)
    module = tc.compile(matmul, a, a, c, target="reference", BM=128, BN=bn, BK=bk).module
    trip = LowerOptions()  # the accumulator's trip through shared memory, not the fused cast
    trip = replace(trip, planner=replace(trip.planner, fuse_matrix_epilogues=False))
    compile_module(module, "matmul", "cuda:sm_90", "allocate", trip)
