"""Reductions as tile methods (``x.prod(1)`` ...) capture the same TileIR as the functions
(``tc.prod(x, 1)``), so every target's realization of the function covers the method; and
the method's results match numpy on the host paths (outputs poisoned first)."""

from __future__ import annotations

import numpy as np
import pytest

import tilec as tc


@tc.kernel
def by_method(X, Y):
    for p in tc.parallel(2):
        Y.tile((p * 4,), (4,)).store(X.tile((p * 4, 0), (4, 8)).load().prod(1))


@tc.kernel
def by_function(X, Y):
    for p in tc.parallel(2):
        Y.tile((p * 4,), (4,)).store(tc.prod(X.tile((p * 4, 0), (4, 8)).load(), 1))


def _body(kernel, x, y) -> str:
    text = tc.compile(kernel, x, y, target="reference").ir
    return "\n".join(line.split(" loc(")[0] for line in text.splitlines()
                     if "func" not in line)


def test_the_method_is_the_function() -> None:
    x = np.ones((8, 8), np.float32)
    y = np.zeros(8, np.float32)
    assert _body(by_method, x, y) == _body(by_function, x, y)


@pytest.mark.parametrize("target", ["reference", "cpu", "simt:cuda:sm_90"])
def test_prod_method_matches_numpy(target) -> None:
    x = (np.random.default_rng(1).random((8, 8)) + 0.5).astype(np.float32)
    y = np.full(8, np.nan, np.float32)
    tc.compile(by_method, x, y, target=target)(x, y)
    np.testing.assert_allclose(y, x.prod(1), rtol=1e-5)
