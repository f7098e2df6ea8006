"""On the GPU, a product over unfilled windows (tests/unit/lower/test_unfilled_staging.py)
takes tensor copies with a NaN-filled map: ragged M and N give the product, a ragged K
gives NaN everywhere, as the reference does."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
from unfilled_cases import unfilled_matmul

import tilec as tc
from paths import on_device, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")
TILES = {"BM": 128, "BN": 128, "BK": 64}


def _run(torch_cuda: Any, m: int, n: int, k: int, variant: dict | None = None
         ) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(m + n + k)
    a = rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((k, n)).astype(ml_dtypes.bfloat16)
    out = np.full((m, n), np.nan, np.float32)
    args = on_device(torch_cuda, [a, b, out])
    extra = {} if variant is None else {"variant": variant}
    c = tc.compile(unfilled_matmul, *args, target="cuda", **TILES, **extra)
    assert "tc_tma_load" in c.source
    c(*args)
    torch_cuda.cuda.synchronize()
    return to_host(torch_cuda, args[2]), a.astype(np.float32) @ b.astype(np.float32)


@pytest.mark.parametrize("variant", [None, {"warp_specialized": False}],
                         ids=["default", "no_ws"])
@pytest.mark.parametrize("shape", [(512, 512, 512), (200, 136, 192)], ids=["whole", "ragged"])
def test_unfilled_product(torch_cuda: Any, shape: tuple[int, int, int],
                          variant: dict | None) -> None:
    got, want = _run(torch_cuda, *shape, variant)
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-2)


def test_a_ragged_k_is_nan_everywhere(torch_cuda: Any) -> None:
    got, _ = _run(torch_cuda, 256, 256, 136, {"warp_specialized": False})
    assert np.isnan(got).all()
