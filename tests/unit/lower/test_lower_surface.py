"""The frontend's one-construct kernels (tests/unit/frontend/golden_kernels.py) through the
lowering: runtime branches, break/continue, snapshots, multi-state and custom reductions,
views, pipelines with several stages, ancestor updates, manual memory and atomics, f16
stores, static shapes, einsum, mma policies, runtime asserts that pass. Each runs on the
simulator against the reference interpreter for every target."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING, TARGETS, differential

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "frontend"))
import golden_kernels as gk  # noqa: E402

pytestmark = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                reason=SIMULATOR_MISSING or "")


def f32(r, *shape):
    return r.standard_normal(shape).astype(np.float32)


# name -> (make args from a generator, output positions, options for differential)
CASES = {
    "matmul": (lambda r: [f32(r, 37, 23), f32(r, 23, 29), np.zeros((37, 29), np.float32)],
               [2], {}),
    "mma_policies": (lambda r: [f32(r, 16, 8), f32(r, 8, 16), np.zeros((16, 16), np.float32)],
                     [2], {"rtol": 1e-2, "atol": 1e-2}),
    "elementwise": (lambda r: [f32(r, 21), np.zeros(21, np.float16), np.float32(0.7)], [1],
                    {"rtol": 2e-3, "atol": 2e-3}),
    "views": (lambda r: [f32(r, 4, 8), np.zeros((8, 4), np.float32)], [1], {}),
    "reductions": (lambda r: [f32(r, 4, 8), np.zeros(4, np.float32)], [1], {}),
    "reduction_loop": (lambda r: [f32(r, 4, 8), np.zeros(4, np.float32)], [1], {}),
    "if_else_big": (lambda r: [f32(r, 8), np.zeros(16, np.float32), np.int32(5)], [1], {}),
    "if_else_zero": (lambda r: [f32(r, 8), np.zeros(16, np.float32), np.int32(0)], [1], {}),
    "break_continue": (lambda r: [f32(r, 64), np.zeros(8, np.float32), np.int32(9)], [1], {}),
    "pipeline": (lambda r: [f32(r, 37, 20), f32(r, 20, 16), np.zeros((37, 16), np.float32)],
                 [2], {}),
    "ancestor_update": (lambda r: [f32(r, 40, 6), np.zeros((40, 8), np.float32)], [1], {}),
    "update_call": (lambda r: [f32(r, 8, 8), np.zeros((8, 8), np.float32)], [1], {}),
    "memory_atomic": (lambda r: [f32(r, 21), f32(r, 21), f32(r, 1)], [1, 2],
                      {"poison": False}),
    # the cas compares random values with X's: it never matches, so the result is one
    "memory_exchange": (lambda r: [f32(r, 21), f32(r, 8)], [0, 1], {"poison": False}),
    "static_and_func": (lambda r: [f32(r, 4), np.zeros(4, np.float32)], [1], {}),
    "einsum": (lambda r: [f32(r, 4, 3), f32(r, 3, 5), np.zeros((4, 5), np.float32)], [2], {}),
    "static_shapes": (lambda r: [f32(r, 8, 16), np.zeros((8, 16), np.float32)], [1], {}),
    "snapshots": (lambda r: [f32(r, 4), np.zeros(4, np.float32), np.int32(3)], [1], {}),
    "nested_pipelines": (lambda r: [f32(r, 3, 4), np.zeros(4, np.float32)], [1], {}),
    "seed_partial_update": (lambda r: [f32(r, 16, 10), f32(r, 10, 8),
                                       np.zeros((16, 8), np.float32)], [2], {}),
    "runtime_assert": (lambda r: [f32(r, 20), np.zeros(20, np.float32), np.int32(3)], [1], {}),
}


def _kernel(name):
    key = name.rsplit("_", 1)[0] if name.startswith("if_else") else name
    kernel, specs, cx = gk.GOLDENS[key]
    static = key == "static_shapes"
    return kernel, cx, static


def test_every_golden_kernel_has_a_case():
    covered = {n.rsplit("_", 1)[0] if n.startswith("if_else") else n for n in CASES}
    assert covered == set(gk.GOLDENS)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_surface_kernel(name, target):
    make, outs, opts = CASES[name]
    kernel, cx, static = _kernel(name)
    args = make(np.random.default_rng(11))
    if name == "memory_atomic" and target.startswith("metal"):
        from tilec.lower import LoweringError

        # the metal profile has no atomic operations: the lowering refuses them, named
        with pytest.raises(LoweringError, match="metal:m1 has no atomic operations"):
            differential(kernel, args, outs, target, cx, static_shapes=static, **opts)
        return
    differential(kernel, args, outs, target, cx, static_shapes=static, **opts)
