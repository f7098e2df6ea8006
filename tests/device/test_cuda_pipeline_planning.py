"""Pipeline planning before the final group selection (``PlannerOptions.plan_ring_versions``)
on the GPU: the lib.matmul tiles whose plan or program the option changes
(``tests/unit/plan/test_pipeline_planning.py``), launched with NaN-poisoned outputs and
compared with the reference interpreter, with the option off and on."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from paths import on_device, reference_run, to_host
from tilec.lib.matmul import matmul

pytestmark = pytest.mark.usefixtures("torch_cuda")

CASES = [  # (tiles, shape)
    ({"BM": 64, "BN": 64, "BK": 192}, (192, 256, 1152)),     # rectangle -> wgmma ring 2
    ({"BM": 128, "BN": 128, "BK": 64}, (512, 512, 1024)),    # ring 4 as planned
    ({"BM": 128, "BN": 64, "BK": 256}, (260, 130, 1000)),    # ring 2, ragged edges
    ({"BM": 64, "BN": 256, "BK": 64}, (2048, 2048, 512)),    # rectangle -> wgmma ring 2
    ({"BM": 128, "BN": 128, "BK": 192}, (256, 256, 1536)),   # two versions fit, as planned
]


@pytest.mark.parametrize("target", ["cuda:sm_90", "cuda:sm_80"])
@pytest.mark.parametrize("on", [False, True], ids=["off", "on"])
@pytest.mark.parametrize("tiles,shape", CASES, ids=[str(s) for _, s in CASES])
def test_matmul_matches_the_reference(torch_cuda: Any, target: str, on: bool, tiles,
                                      shape) -> None:
    m, n, k = shape
    r = np.random.default_rng(m + n + k)
    args = [r.standard_normal((m, k)).astype(ml_dtypes.bfloat16),
            r.standard_normal((k, n)).astype(ml_dtypes.bfloat16), np.zeros((m, n), np.float32)]
    _, want = reference_run(matmul, *args, written=2, **tiles)
    dev = on_device(torch_cuda, args, out=2)
    kern = tc.compile(matmul, *dev, target=target, variant={"plan_ring_versions": on}, **tiles)
    kern(*dev)
    got = to_host(torch_cuda, dev[2])
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4 * scale)
