"""``frontend/map_fusion.py``: a ``map`` whose only use is another ``map`` of the same block
is merged into it after capture (a bound name or a helper's result followed by more
elementwise work, such as the store's cast); a value read twice, or read inside a loop, stays
its own ``map``. Every merged kernel computes what the unmerged one did (the reference and
``cpu`` against numpy)."""

from __future__ import annotations

import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from paths import HOST_PATHS, poisoned, run


@tc.func
def _act(x):
    return tc.maximum(x * 2.0, 0.0)


@tc.kernel
def chained(X, Y, a, B: tc.constexpr = 8):
    """Three maps when captured: ``y``, the helper's result, the store's cast."""
    for p in tc.parallel(tc.cdiv(X.shape[0], B)):
        x = X.tile((p * B,), (B,), fill=0.0)
        y = x * a - 1.0
        Y.tile((p * B,), (B,)).store(_act(y + x))


@tc.kernel
def read_twice(X, Y, Z, B: tc.constexpr = 8):
    """``y`` has two readers: it stays a map of its own."""
    for p in tc.parallel(tc.cdiv(X.shape[0], B)):
        x = X.tile((p * B,), (B,), fill=0.0)
        y = x + 1.0
        Y.tile((p * B,), (B,)).store(y * 2.0)
        Z.tile((p * B,), (B,)).store(y * 3.0)


@tc.kernel
def read_in_a_loop(X, Y, n, B: tc.constexpr = 8):
    """``y`` is read inside a loop: merging would compute it once per step."""
    for p in tc.parallel(tc.cdiv(X.shape[0], B)):
        x = X.tile((p * B,), (B,), fill=0.0)
        y = tc.exp(x)
        acc = tc.zeros((B,), tc.float32)
        for _ in tc.serial(n):
            acc = acc + y
        Y.tile((p * B,), (B,)).store(acc)


def _maps(kernel, *args) -> list[ir.Operation]:
    m = tc.compile(kernel, *args, target="reference").module
    return [op for op in m.walk() if op.name == "map"]


X = np.linspace(-2.0, 2.0, 21).astype(np.float32)


def test_a_chain_is_one_map_with_each_operand_once() -> None:
    (m,) = _maps(chained, X, np.zeros(21, np.float16), 0.5)
    # x is read by y's map and by the sum: one operand, one block argument
    assert sorted(o.name_hint for o in m.operands) == ["a", "x"]
    assert len(m.regions[0].entry.args) == 2
    fns = [op.attr("fn") for op in m.regions[0].entry.operations if op.name == "arith"]
    assert fns == ["mul", "sub", "add", "mul", "max", "cast"]
    assert m.results[0].type.dtype is ir.f16


def test_a_value_read_twice_or_in_a_loop_is_not_merged() -> None:
    z = np.zeros(21, np.float32)
    assert len(_maps(read_twice, X, z, z)) == 3
    maps = _maps(read_in_a_loop, X, z, 3)
    assert len(maps) == 2  # exp(x) before the loop, acc + y in it
    assert maps[0].parent is not maps[1].parent


@pytest.mark.parametrize("path", HOST_PATHS)
def test_merged_maps_compute_what_the_chain_did(path: str) -> None:
    out = poisoned(21, dtype=np.float16)
    run(path, chained, X, out, 0.5)
    want = np.maximum(((X * np.float32(0.5) - 1) + X) * 2, 0).astype(np.float16)
    np.testing.assert_array_equal(out, want)
    y, z = poisoned(21), poisoned(21)
    run(path, read_twice, X, y, z)
    np.testing.assert_allclose(y, (X + 1) * 2, rtol=1e-6)
    np.testing.assert_allclose(z, (X + 1) * 3, rtol=1e-6)
    y = poisoned(21)
    run(path, read_in_a_loop, X, y, 3)
    np.testing.assert_allclose(y, np.exp(X) * 3, rtol=1e-6)
