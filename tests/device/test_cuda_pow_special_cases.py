"""On the GPU, ``pow`` follows C99 in every special case, as the other paths now do.

Kernels, the table and the C99 expectation (``math.pow``, NaN for a domain error, the
signed infinity for a pole) come from ``tests/regression/test_pow_special_cases.py``.
Special results (zeros with their sign, infinities, NaN, one) must match bit for bit;
CUDA's ``powf``/``pow`` may be up to 2 ulp from the correctly rounded value elsewhere
(the transcendental tolerance of docs/design/tileir.md), which the finite table values
are compared with.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import poison, to_device, to_host

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "regression"))
from test_pow_special_cases import (  # noqa: E402
    BASES,
    CONSTANTS,
    EXPONENTS,
    FLOATS,
    N,
    bases,
    pow_constants,
    pow_reduced,
    pow_tiles,
    want,
)

pytestmark = pytest.mark.usefixtures("torch_cuda")


def close(x: np.ndarray, e: Any, got: np.ndarray, what: str) -> None:
    """Specials bit for bit; other values within 2 ulp of the type."""
    exp = want(x, e)
    g, w = got.astype(np.float64), exp.astype(np.float64)
    special = ~np.isfinite(w) | (w == 0) | (w == 1)
    nan_ok = np.isnan(g) == np.isnan(w)
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[got.itemsize]
    exact = np.isnan(w) | (got.view(u) == exp.view(u))
    ulp = np.abs(np.spacing(exp.astype(np.float64) if got.dtype == np.float64
                            else exp.astype(np.float32)).astype(np.float64))
    with np.errstate(invalid="ignore"):  # inf - inf where both are infinite
        near = np.abs(g - w) <= 2 * ulp
    ok = nan_ok & np.where(special, exact, near | exact)
    ee = np.broadcast_to(np.asarray(e, np.float64), x.shape)
    bad = np.flatnonzero(~ok)
    assert not bad.size, what + ": " + ", ".join(
        f"pow({x[i]}, {ee[i]}) = {got[i]}, want {exp[i]}" for i in bad[:8])


@pytest.mark.parametrize("fname", sorted(FLOATS))
def test_every_pair_of_the_table(torch_cuda: Any, fname: str) -> None:
    x = np.repeat(np.array(BASES, np.float64), len(EXPONENTS)).astype(FLOATS[fname])
    e = np.tile(np.array(EXPONENTS, np.float64), len(BASES)).astype(FLOATS[fname])
    dx, de, dy = to_device(torch_cuda, x), to_device(torch_cuda, e), to_device(torch_cuda, x)
    poison(torch_cuda, dy)
    tc.compile(pow_tiles, dx, de, dy, NX=x.size, target="cuda")(dx, de, dy)
    close(x, e, to_host(torch_cuda, dy), fname)


@pytest.mark.parametrize("fname", sorted(FLOATS))
def test_constant_exponents(torch_cuda: Any, fname: str) -> None:
    x = bases(fname)
    y = np.zeros((len(CONSTANTS), N), x.dtype)
    dx, dy, dz = to_device(torch_cuda, x), to_device(torch_cuda, y), to_device(torch_cuda, y)
    poison(torch_cuda, dy)
    poison(torch_cuda, dz)
    tc.compile(pow_constants, dx, dy, PS=tuple(CONSTANTS), NX=N, target="cuda")(dx, dy)
    tc.compile(pow_reduced, dx, dz, PS=tuple(CONSTANTS), target="cuda")(dx, dz)
    hy, hz = to_host(torch_cuda, dy), to_host(torch_cuda, dz)
    for k, p in enumerate(CONSTANTS):
        close(x, float(p), hy[k], f"x ** {p!r}")
        close(x, float(p), hz[k], f"reduced ** {p!r}")
