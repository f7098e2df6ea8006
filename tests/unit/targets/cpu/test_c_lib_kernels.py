"""Every library and example kernel on the C backend against the reference interpreter.

Each demo case runs as declared, and the main kernels also on ragged shapes
(not multiples of the tile sizes), size-1 axes and empty extents. Kernels
whose reductions are ``strict_fold`` (or that only move data) must agree bit
for bit; the others within a relative error of ``1e-5`` (``unordered_tree``
sums and fused multiply-adds regroup rounding).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cir import assert_bitwise

from tilec import lib
from tilec.demo import DemoCase, all_cases

EXAMPLES = Path(__file__).resolve().parents[4] / "examples"
BITWISE = {"lib.row_max", "lib.row_mean_strict", "lib.transpose", "lib.einsum_outer"}
"""Demo cases whose results must match bit for bit."""


def _both(kernel: Any, args: list[Any], **constexprs: Any) -> tuple[list[Any], list[Any]]:
    """Run on ``cpu`` and on ``reference`` with separate copies (outputs poisoned with NaN)."""
    def copies() -> list[Any]:
        return [a.copy() if isinstance(a, np.ndarray) else a for a in args]

    c, r = copies(), copies()
    kernel.compile(*c, target="cpu", **constexprs)(*c)
    kernel.compile(*r, target="reference", **constexprs)(*r)
    return c, r


def _close(c: np.ndarray, r: np.ndarray, rtol: float = 1e-5) -> None:
    c64, r64 = c.astype(np.float64), r.astype(np.float64)
    assert (np.isnan(c64) == np.isnan(r64)).all()
    scale = max(1.0, float(np.nanmax(np.abs(r64)))) if r.size else 1.0
    err = np.nan_to_num(np.abs(c64 - r64), nan=0.0)
    assert err.max(initial=0.0) <= rtol * scale, err.max()


def _cases() -> list[DemoCase]:
    return all_cases(EXAMPLES if EXAMPLES.is_dir() else None)


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c.name)
def test_demo_case_matches_the_reference(case: DemoCase) -> None:
    args = list(case.make_inputs(np.random.default_rng(0)))
    c, r = _both(case.kernel, args, **case.constexprs)
    for a, b in zip(c, r):
        if isinstance(a, np.ndarray):
            if case.name in BITWISE:
                assert_bitwise(a, b, case.name)
            else:
                _close(a, b)


R = np.random.default_rng(7)


def _f32(*shape: int) -> np.ndarray:
    return R.standard_normal(shape).astype(np.float32)


def _out(*shape: int) -> np.ndarray:
    return np.full(shape, np.nan, np.float32)


SHAPED: list[tuple[str, Any, Callable[[tuple], list[Any]], list[tuple], dict, bool]] = [
    ("matmul", lib.matmul, lambda s: [_f32(s[0], s[2]), _f32(s[2], s[1]), _out(s[0], s[1])],
     [(37, 29, 23), (1, 1, 1), (0, 5, 3), (5, 0, 3), (4, 6, 0), (65, 64, 70), (130, 1, 33)],
     {"BM": 32, "BN": 32, "BK": 16}, False),
    ("matmul_tf32", lib.matmul, lambda s: [_f32(s[0], s[2]), _f32(s[2], s[1]), _out(s[0], s[1])],
     [(37, 29, 23), (1, 1, 1)], {"BM": 16, "BN": 16, "BK": 8, "PRECISION": "tf32"}, False),
    ("softmax", lib.softmax, lambda s: [_f32(*s), _out(*s)],
     [(10, 100), (1, 1), (0, 128), (7, 128), (9, 3)], {"BM": 4, "BN": 128}, False),
    ("online_softmax", lib.online_softmax, lambda s: [_f32(*s), _out(*s)],
     [(10, 100), (1, 1), (0, 7), (3, 257)], {}, False),
    ("layernorm", lib.layernorm,
     lambda s: [_f32(*s), _f32(s[1]), _f32(s[1]), _out(*s), 1e-5],
     [(10, 100), (1, 1), (0, 64), (5, 128)], {"BM": 4, "BN": 128}, False),
    ("rmsnorm", lib.rmsnorm, lambda s: [_f32(*s), _f32(s[1]), _out(*s), 1e-6],
     [(10, 100), (1, 1), (3, 128)], {"BM": 4, "BN": 128}, False),
    ("row_mean_strict", lib.row_mean_strict, lambda s: [_f32(*s), _out(s[0])],
     [(19, 75), (1, 1), (0, 10), (9, 128)], {}, True),
    ("row_max", lib.row_max, lambda s: [_f32(*s), _out(s[0])],
     [(19, 75), (1, 1), (0, 10), (17, 0), (9, 33)], {}, True),
    ("row_sum", lib.row_sum, lambda s: [_f32(*s), _out(s[0])],
     [(19, 75), (1, 1), (8, 0), (33, 200)], {}, False),
    ("transpose", lib.transpose, lambda s: [_f32(*s), _out(s[1], s[0])],
     [(19, 75), (1, 1), (0, 3), (64, 33)], {}, True),
    ("flash_attention", lib.flash_attention,
     lambda s: [_f32(s[0], s[1], 32), _f32(s[0], s[2], 32), _f32(s[0], s[2], 32),
                _out(s[0], s[1], 32), np.float32(0.17)],
     [(2, 17, 9), (1, 1, 1), (1, 40, 33)], {}, False),
]


@pytest.mark.parametrize("name,kernel,make,shapes,constexprs,bitwise", SHAPED,
                         ids=[s[0] for s in SHAPED])
def test_library_kernels_on_ragged_unit_and_empty_shapes(name, kernel, make, shapes, constexprs,
                                                         bitwise) -> None:
    for shape in shapes:
        args = make(shape)
        c, r = _both(kernel, args, **constexprs)
        for a, b in zip(c, r):
            if isinstance(a, np.ndarray):
                if bitwise:
                    assert_bitwise(a, b, f"{name}{shape}")
                else:
                    _close(a, b)


def test_special_values_through_row_max_and_strict_mean() -> None:
    x = _f32(9, 40)
    x[0, 3], x[1, :], x[2, 5], x[3, 7], x[4, :] = np.nan, -0.0, np.inf, -np.inf, 0.0
    for kernel in (lib.row_max, lib.row_mean_strict):
        c, r = _both(kernel, [x, _out(9)])
        assert_bitwise(c[1], r[1], kernel.__name__)
