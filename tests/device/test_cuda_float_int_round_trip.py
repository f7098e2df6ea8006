"""On the GPU, float -> integer -> float of a value that truncates to 0 is +0.0, bit for bit.

The kernels, inputs and the expected values (TileIR's rule computed in Python) are those
of ``tests/regression/test_float_int_round_trip.py``; there the C target gave -0.0.
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
from test_float_int_round_trip import FLOATS, INTS, bits_of, expected, inputs, round_trip  # noqa: E402

pytestmark = pytest.mark.usefixtures("torch_cuda")


@pytest.mark.parametrize("n", [64, 3])
@pytest.mark.parametrize("iname", sorted(INTS))
@pytest.mark.parametrize("fname", sorted(FLOATS))
def test_round_trip_through_every_integer_width(torch_cuda: Any, fname: str, iname: str,
                                                n: int) -> None:
    x = inputs(fname, n)
    dx = to_device(torch_cuda, x)
    dy, dz = to_device(torch_cuda, np.zeros_like(x)), to_device(torch_cuda, np.zeros_like(x))
    poison(torch_cuda, dy)
    poison(torch_cuda, dz)
    it = getattr(tc, iname)
    tc.compile(round_trip, dx, dy, dz, IT=it, N=n, target="cuda")(dx, dy, dz)
    want = expected(x, INTS[iname])
    for name, d in (("store", dy), ("to", dz)):
        got = to_host(torch_cuda, d)
        bad = np.flatnonzero(bits_of(got) != bits_of(want))
        assert not bad.size, f"{name}: x={x[bad][:6]} got={got[bad][:6]} want={want[bad][:6]}"
