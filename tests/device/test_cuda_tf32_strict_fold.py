"""A strict-order tf32 ``mma`` on the GPU is bit-identical to the reference interpreter.

The strict order keeps the TF32 atom out (it sums in hardware order), so the GPU runs
the lane-FMA or the scalar realization; both used to skip the operands' TF32
rounding and returned plain f32 products. Every realization the planner offers is
forced in turn; the operands have the low mantissa bits TF32 drops set, and ties.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import poison, to_device, to_host
from tilec.lower import LowerOptions, lower, matrix_candidates
from tilec.targets.cuda.backend import CUDABackend

pytestmark = pytest.mark.usefixtures("torch_cuda")


@tc.kernel
def strict_mm_gpu(A, B, C, BM: tc.constexpr = 32, BN: tc.constexpr = 16,
                  BK: tc.constexpr = 8):
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc, precision="tf32", order="strict_fold")
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


def _operand(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Signed f32 with the 13 bits TF32 drops set; a fifth of them exact TF32 ties."""
    mant = rng.integers(1, 2**23, shape, dtype=np.uint32)
    tie = rng.random(shape) < 0.2
    mant = np.where(tie, (mant & ~np.uint32(0x1FFF)) | np.uint32(0x1000), mant)
    exp = rng.integers(120, 131, shape, dtype=np.uint32)
    sign = rng.integers(0, 2, shape, dtype=np.uint32)
    return ((sign << 31) | (exp << 23) | mant).astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("profile", ["cuda:sm_90", "cuda:sm_80"])
@pytest.mark.parametrize("shape", [(33, 20, 24), (130, 70, 96)],
                         ids=lambda s: "x".join(map(str, s)))
def test_every_realization_is_bit_identical(torch_cuda: Any, profile: str,
                                            shape: tuple[int, int, int]) -> None:
    torch = torch_cuda
    m, n, k = shape
    rng = np.random.default_rng(m + n + k)
    a, b = _operand(rng, (m, k)), _operand(rng, (k, n))
    want = np.full((m, n), np.nan, np.float32)
    tc.interpret(strict_mm_gpu, a, b, want)
    exact = np.full((m, n), np.nan, np.float32)
    np.matmul(a, b, out=exact)
    assert not np.array_equal(want, exact)  # the TF32 rounding shows in these products
    module = tc.compile(strict_mm_gpu, a, b, want, target="reference").module
    seen, realizations = set(), set()
    da, db = to_device(torch, a), to_device(torch, b)
    for entry in matrix_candidates(module, profile):
        cand = entry["candidate"]
        key = (cand.atom.id if cand.atom else None, cand.realization, cand.accumulator)
        if key in seen:
            continue
        seen.add(key)
        low = lower(module, profile, LowerOptions(force_matrix={"mma#0": cand}))
        realizations |= {c.realization for c in low.groups[0].mma.values()}
        exe = CUDABackend(profile).compile(low.machine, "strict_mm_gpu")
        dc = to_device(torch, np.empty((m, n), np.float32))
        poison(torch, dc)
        exe(da, db, dc, sync=True)
        got = to_host(torch, dc)
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32),
                                      err_msg=cand.label)
    assert {"reference", "ffma"} <= realizations
