"""Every legal candidate of the matrix mapping family, not just the selected one, is correct.

For a few small, ragged GEMM shapes per target, each candidate the planner
enumerates (thread count, subgroup factorization, one-atom or rectangle,
accumulator residency) is forced through ``LowerOptions.force_matrix``,
lowered, simulated and compared with the reference interpreter. For 16-bit
operands the rectangles with two or more 8-column B blocks per subgroup load
their B fragments with ``ldmatrix.x4.trans`` (on by default), so the
simulator's transposed delivery is checked on ragged shapes too.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING, differential

import tilec as tc
from tilec.lib import matmul
from tilec.lower import LowerOptions, matrix_candidates

pytestmark = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                reason=SIMULATOR_MISSING or "")

SHAPES = [
    # name, target, dtype, precision, (M, N, K), (BM, BN, BK)
    ("bf16_sm90", "cuda:sm_90", ml_dtypes.bfloat16, "exact", (40, 19, 20), (32, 16, 16)),
    ("f16_sm80", "cuda:sm_80", np.float16, "exact", (17, 30, 33), (16, 32, 16)),
    ("tf32_sm90", "cuda:sm_90", np.float32, "tf32", (33, 17, 12), (32, 16, 8)),
    ("f32_sm80", "cuda:sm_80", np.float32, "exact", (33, 20, 9), (32, 16, 8)),
    ("f32_m1", "metal:m1", np.float32, "exact", (20, 33, 9), (16, 32, 8)),
]


def _args(shape, dt, seed):
    m, n, k = shape
    r = np.random.default_rng(seed)
    return [r.standard_normal((m, k)).astype(dt), r.standard_normal((k, n)).astype(dt),
            np.zeros((m, n), np.float32)]


@pytest.mark.parametrize("name,target,dt,precision,shape,tile", SHAPES,
                         ids=[s[0] for s in SHAPES])
def test_every_legal_candidate(name, target, dt, precision, shape, tile):
    bm, bn, bk = tile
    cx = {"BM": bm, "BN": bn, "BK": bk, "PRECISION": precision}
    module = tc.compile(matmul, *_args(shape, dt, 0), target="reference", **cx).module
    cands = [c["candidate"] for c in matrix_candidates(module, target)]
    assert len(cands) >= 4
    seen = set()
    trans = 0
    for i, cand in enumerate(cands):
        opts = LowerOptions(force_matrix={"mma#0": cand})
        # every realization rounds tf32 operands as the reference does: only the summation
        # order differs
        res = differential(matmul, _args(shape, dt, i + 1), [2], target, cx, options=opts,
                           rtol=3e-4, atol=3e-4)
        (choice,) = res.groups[0].mma.values()
        assert res.groups[0].threads == cand.threads
        seen.add((choice.realization, choice.distribution, choice.accumulator))
        trans += "ldmatrix.x4.trans" in str(res.machine)
    kinds = {d for _, d, _ in seen}
    assert {"rectangle", "one_atom"} <= kinds, seen
    assert (trans > 0) == (np.dtype(dt).itemsize == 2), trans
