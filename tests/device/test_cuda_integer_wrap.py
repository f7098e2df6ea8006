"""On the GPU, i32 arithmetic that overflows wraps as on every other path."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import to_device, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")


def test_overflowing_i32_arithmetic_wraps(torch_cuda: Any) -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "regression"))
    from test_integer_wrap import _expected, _inputs, wrap_ops

    x, y = _inputs()
    dx, dy = to_device(torch_cuda, x), to_device(torch_cuda, y)
    tc.compile(wrap_ops, dx, dy, 65537, target="cuda")(dx, dy, 65537)
    np.testing.assert_array_equal(to_host(torch_cuda, dy), _expected(x, 65537))
