"""Every tile-shape class of ``lib.matmul`` on the GPU (the small-tile miscompile).

Tiles with no matrix atom (BN = 4; 16-bit operands with K below the m16n8k16 atom's)
used to stage B over the rows >= BN of A and gave silent wrong answers. The sweep of
the report that found it: BM in {8, 16, 32, 64}, BN in {4, 8, 16, 32, 64}, BK in {4, 8,
16, 32}, f32 / f16 / bf16, three ragged shapes, every output poisoned with NaN and
compared with a float64 product under an f32-accumulation bound.
"""

from __future__ import annotations

import itertools
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import tilec
from paths import poison, to_device, to_host
from tilec.lib.matmul import matmul

pytestmark = pytest.mark.usefixtures("torch_cuda")

NPDT = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
SHAPES = ((37, 21, 29), (10, 8, 8), (70, 45, 50))
TILES = list(itertools.product([8, 16, 32, 64], [4, 8, 16, 32, 64], [4, 8, 16, 32]))


@pytest.mark.parametrize("dtype", sorted(NPDT))
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_every_tile_shape_class(torch_cuda: Any, dtype: str, shape: tuple[int, int, int]
                                ) -> None:
    m, n, k = shape
    rng = np.random.default_rng(m * n + k)
    a = rng.standard_normal((m, k)).astype(NPDT[dtype])
    b = rng.standard_normal((k, n)).astype(NPDT[dtype])
    want = a.astype(np.float64) @ b.astype(np.float64)
    bound = k * 2.0 ** -22 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
    da, db = to_device(torch_cuda, a), to_device(torch_cuda, b)
    wrong = []
    for bm, bn, bk in TILES:
        dc = to_device(torch_cuda, np.empty((m, n), np.float32))
        poison(torch_cuda, dc)
        tilec.compile(matmul, da, db, dc, target="cuda", BM=bm, BN=bn, BK=bk)(da, db, dc)
        got = to_host(torch_cuda, dc)
        bad = np.isnan(got) | (np.abs(got - want) > bound + 1e-30)
        if bad.any():
            wrong.append(f"{bm}x{bn}x{bk}: {int(bad.sum())}/{got.size}")
    assert not wrong, f"{len(wrong)} of {len(TILES)} tiles wrong: {wrong}"
