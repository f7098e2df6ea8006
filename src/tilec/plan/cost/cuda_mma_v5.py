"""Cost basis ``cuda_mma_v5``: ``cuda_mma_v4`` with a price for operands whose rows are not
16-byte aligned and a larger fixed cost per warp and K step.

The CUDA lowering stages A and B tiles into shared memory in 16-byte chunks by
``cp.async``; a chunk whose global address is not 16-byte aligned (checked per chunk at
run time) is copied element by element with guarded loads and stores, synchronously.
That happens to every other row or more whenever a row's pitch is not a multiple of 16
bytes (bf16 with K or N not a multiple of 8, f32 not a multiple of 4), and such a kernel
is bound by those copies: bigger tiles, which load less per multiply-add, win there
where v4, which prices every chunk as a ``cp.async``, picks small ones. bf16
1300x1700x900 (both pitches 8 mod 16): 128x256x64 tiles ran fastest, v4's pick
(64x64x64) 44% slower. ``MatrixWorkload.a_aligned_rows`` and ``b_aligned_rows`` (the
fraction ``gcd(pitch, 16) / 16`` of rows that start aligned, read from the memory type of
the operand's load) now reach the basis, and two coefficients of ``CudaV2Coefficients``
price the rest (formulas in ``plan/cost/cuda_mma_v2.py``; 0 leaves v4 as it was):

- ``misaligned_chunk`` = 4 issue slots per misaligned staged chunk, beside the
  ``staging_chunk`` every chunk pays (a chunk of eight bf16 elements is then eight
  guarded loads and stores instead of one asynchronous copy);
- ``misaligned_step`` = 2000 issue slots per K step of a group with misaligned chunks,
  added to ``exposed_step``: the element loads are synchronous, so the group waits for
  them as it waits at its barrier.

The call's own extents (not its shape bucket) are what the model prices since this
basis (``frontend/tunables.call_extents``): a bucket does not keep a pitch's alignment
or the call's program count. The two values are the best of a grid
(``benchmarks/model_regret.py --set``) over the 44 recorded shapes (the fits of v3 and v4
and v4's held-out set): 5.3% mean and 35.7% max regret (the maximum: bf16 512^3, near
the launch floor), v4 at the call's extents 6.4% and 44.0%.

Measured on the 16 shapes of ``HELDOUT3_SHAPES`` (``benchmarks/tune_matmul.py``, at
2175251) with those two set, the replayed regret was 7.6% mean and 30.2% max: bf16
96x6144x3072 picked 32x32x64 tiles at 128 threads (0.0584 ms) over 64x64x64 at 256
(0.0425 ms), at scores within 0.5%. A 32x32 group does four ``mma`` per warp per K
step, so the fixed work of the step (loop, barrier, staging addresses: ``warp_step``,
v2's 55 slots held from its 4096^3 fit) is most of its cost, and

- ``warp_step`` = 80 slots: over those 60 shapes 5.6% mean and 35.7% max (55: 6.2%
  and 37.4%; 65 to 90 alike). v2's fragment-load prices were fitted with it at 55.

``HELDOUT3_SHAPES`` is therefore seen; on ``HELDOUT4_SHAPES``, held out, two runs (at
0acda3a and 693467d) replayed 16.6% and 17.2% mean, 69.7% and 72.6% max regret (bf16
192x6144x2048; v4's values on the same times: 18.7% and 66.9%): where this basis misses,
and why, is in docs/design/planner.md.
"""

from __future__ import annotations

from types import MappingProxyType

from tilec.plan.cost.cuda_mma_v3 import derive
from tilec.plan.cost.cuda_mma_v4 import SM80_V4, SM90_V4

__all__ = ["NAME", "SM90_V5", "SM80_V5", "V5_VALUES"]

NAME = "cuda_mma_v5"
"""This basis's name and version."""

_FIT = ("grid fit to the bf16 and f32 lib.matmul sweeps of 44 shapes x 32 tile "
        "configurations on the H200 at commits b3206a5, 27f09b5 and e200bc0 "
        "(benchmarks/results/tune_matmul-NVIDIA-H200-2026-12-02.json), priced at each "
        "call's extents: the value with the lowest mean regret of the model's replayed "
        "picks (benchmarks/model_regret.py --set)")

_FIT_60 = ("grid fit to the lib.matmul sweeps of 60 shapes on the H200: the 44 at b3206a5, "
           "27f09b5 and e200bc0 and the 16 of HELDOUT3_SHAPES at 2175251 (same file), "
           "with the two coefficients above set")

V5_VALUES = MappingProxyType({"misaligned_chunk": 4.0, "misaligned_step": 2000.0,
                              "warp_step": 80.0})
"""What v5 sets on v4's record."""

_SOURCES = MappingProxyType({
    "misaligned_chunk":
        "a chunk staged by guarded element copies instead of one 16-byte cp.async (bf16 "
        "1300x1700x900: 128x256x64 tiles fastest, v4's 64x64x64 pick 44% slower); " + _FIT
        + " (with misaligned_step 2000: 0: 6.4% mean and 44.0% max regret, 1: 6.5% and "
        "44.0%, 2: 5.9% and 35.7%, 3: 5.5%, 4: 5.3%, 5: 5.6%, 6: 5.6%)",
    "misaligned_step":
        "the synchronous element loads of a group with misaligned chunks, waited for per "
        "K step as its barrier is; " + _FIT + " (with misaligned_chunk 4: 0: 5.7% mean, "
        "1000 to 3000: 5.3%)",
    "warp_step":
        "the fixed work every warp does per K step (loop, barrier, staging addresses) "
        "outweighs a small tile's math: bf16 96x6144x3072, 32x32x64 tiles at 128 threads "
        "0.0584 ms, 64x64x64 at 256 threads 0.0425 ms (v2's 55 picked the first); "
        + _FIT_60 + " (55: 6.2% mean and 37.4% max regret, 65 to 90: 5.6% and 35.7%, "
        "100 and 110: 5.6%, 160: 6.3%)",
})

SM90_V5 = derive(SM90_V4, V5_VALUES, _SOURCES, "measured", "cuda_mma_v4's sm_90 record with "
                 "the v5 coefficients fitted to the H200 tuning sweeps; see facts")
"""Default coefficients for ``cuda:sm_90``."""

SM80_V5 = derive(SM80_V4, V5_VALUES, _SOURCES, "prior", "prior: the sm_90 v5 record carried "
                 "over (not measured on sm_80)")
"""Default coefficients for ``cuda:sm_80``."""
