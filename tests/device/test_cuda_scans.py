"""Scans on the GPU (``tests/regression/test_scans.py`` runs them on every host path):
``tc.cumsum``, ``tc.cumprod`` and ``tc.associative_scan`` under both policies, against
numpy, outputs poisoned with NaN first; one program per row of a ragged array."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc


@tc.kernel
def row_scans(X, Y, N: tc.constexpr = 64, KIND: tc.constexpr = 0, POL: tc.constexpr = None):
    R = X.shape[0]
    for r in tc.parallel(R):
        t = X.tile((r, 0), (1, N), fill=0.0).load()
        if KIND == 0:
            s = tc.cumsum(t, axis=1, policy=POL)
        elif KIND == 1:
            s = tc.cumprod(t, axis=1, policy=POL)
        else:
            s = tc.associative_scan(lambda a, b: tc.maximum(a, b), t, axis=1, policy=POL)
        Y.tile((r, 0), (1, N)).store(s)


@pytest.mark.parametrize("kind", [0, 1, 2])
@pytest.mark.parametrize("policy", [None, "strict_fold"])
def test_row_scans_match_numpy(torch_cuda: Any, kind: int, policy: Any) -> None:
    torch = torch_cuda
    rng = np.random.default_rng(kind)
    x = rng.integers(-2, 3, (37, 50)).astype(np.float32) if kind != 1 else \
        rng.choice(np.array([-1.0, 1.0, 2.0, 0.5], np.float32), (37, 50))
    padded = np.zeros((37, 64), np.float32)
    padded[:, :50] = x
    want = {0: np.cumsum, 1: np.cumprod}.get(kind, np.maximum.accumulate)(padded, axis=1)
    xd = torch.from_numpy(x).cuda()
    yd = torch.full((37, 64), float("nan"), device="cuda")
    row_scans(xd, yd, KIND=kind, POL=policy)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(yd.cpu().numpy(), want)
