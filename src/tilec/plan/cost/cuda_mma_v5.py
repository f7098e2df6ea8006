"""Cost basis ``cuda_mma_v5``: ``cuda_mma_v4`` with a price for operands whose rows are not
16-byte aligned, and v3's underfill target and tail price refitted on 74 shapes.

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

- ``misaligned_chunk`` = 8 issue slots per misaligned staged chunk, beside the
  ``staging_chunk`` every chunk pays (a chunk of eight bf16 elements is then eight
  guarded loads and stores instead of one asynchronous copy);
- ``misaligned_step`` = 2000 issue slots per K step of a group with misaligned chunks,
  added to ``exposed_step``: the element loads are synchronous, so the group waits for
  them as it waits at its barrier.

Two of v3's values, fitted on its 14 shapes, are refitted:

- ``fill_target_subgroups`` = 12 (v3: 16): three resident 4-warp groups on an SM are not
  underfilled. bf16 192x6144x2048: 64x64x64 tiles at 128 threads (288 groups, two or three
  per SM) ran 0.023 ms, 256x64x64 at 512 (96 groups, one per SM) 0.038 ms; v4 priced the
  first 1.33x for underfill and picked the second. The same in 6144x192x2048 and the
  mid-size squares, where 64x128x64 at 128 threads wins.
- ``exposed_tail_byte`` = 1.0 (v3: 0.6), which the lower target needs: a lone group's
  accumulator tail weighs more once small groups are no longer penalized.

The call's own extents (not its shape bucket) are what the model prices since this
basis (``frontend/tunables.call_extents``): a bucket does not keep a pitch's alignment
or the call's program count. The values are the best of a grid
(``benchmarks/model_regret.py --grid``, which replays them) over the 74 recorded shapes:
the fits of v3 and v4, v4's held-out set and the two sets measured while v5 was made
(``HELDOUT3_SHAPES`` with the two ``misaligned_*`` values at 4 and 2000, then
``HELDOUT4_SHAPES`` with ``warp_step`` 80 as well). A value is judged on the picks the
record timed at the thread count they are priced at (the others are estimates from the
configuration's time at another plan): v5 leaves 3.6% mean and 17.4% max regret on its
54 such picks (5.2% and 65.1% on all 74; the maximum: bf16 512^3, near the launch
floor, an estimate), v4's values 9.5% and 73.0% on 62. ``warp_step`` stays at v2's 55:
80 and 110 replay at 3.3% on 53 and 52 timed picks, 5.2% and 5.3% on all 74.

Held out: on ``HELDOUT5_SHAPES`` (14 shapes no fit has seen; ``benchmarks/tune_matmul.py``
at 94c3bd3, one run) the replayed regret of the model pick is 3.1% mean and 15.1% max
(f32 1333x999x1111).
"""

from __future__ import annotations

from types import MappingProxyType

from tilec.plan.cost.cuda_mma_v3 import derive
from tilec.plan.cost.cuda_mma_v4 import SM80_V4, SM90_V4

__all__ = ["NAME", "SM90_V5", "SM80_V5", "V5_VALUES"]

NAME = "cuda_mma_v5"
"""This basis's name and version."""

_FIT = ("grid fit to the bf16 and f32 lib.matmul sweeps of 74 shapes x 32 tile "
        "configurations on the H200 at commits b3206a5, 27f09b5, e200bc0, 2175251 and "
        "0acda3a (benchmarks/results/tune_matmul-NVIDIA-H200-2026-12-02.json), priced at "
        "each call's extents: the value with the lowest mean regret of the model's replayed "
        "picks the record timed at their priced thread count, the others at v5's "
        "(benchmarks/model_regret.py --grid)")

V5_VALUES = MappingProxyType({"misaligned_chunk": 8.0, "misaligned_step": 2000.0,
                              "fill_target_subgroups": 12, "exposed_tail_byte": 1.0})
"""What v5 sets on v4's record."""

_SOURCES = MappingProxyType({
    "misaligned_chunk":
        "a chunk staged by guarded element copies instead of one 16-byte cp.async (bf16 "
        "1300x1700x900: 128x256x64 tiles fastest, v4's 64x64x64 pick 44% slower); " + _FIT
        + " (0: 5.3% mean and 40.0% max regret, 4: 5.3% and 40.0%, 8: 3.6% and 17.4%, "
        "12: 3.7% and 17.4%)",
    "misaligned_step":
        "the synchronous element loads of a group with misaligned chunks, waited for per "
        "K step as its barrier is; " + _FIT + " (0: 3.8% mean, 2000: 3.6%, 4000: 3.8%)",
    "fill_target_subgroups":
        "three resident 4-warp groups are not underfilled (bf16 192x6144x2048: 64x64x64 at "
        "128 threads 0.023 ms, 256x64x64 at 512 threads 0.038 ms, v4's pick); " + _FIT
        + " (10: 3.8% mean and 17.4% max regret, 12: 3.6% and 17.4%, 14: 6.1% and 37.8%, "
        "16: 7.7% and 56.4%)",
    "exposed_tail_byte":
        "a lone group's accumulator tail, once small groups are not penalized; " + _FIT
        + " (0.6: 4.9% mean and 17.4% max regret, 0.8: 3.7% and 17.4%, 1.0: 3.6% and "
        "17.4%, 1.3: 3.8% and 40.0%)",
})

SM90_V5 = derive(SM90_V4, V5_VALUES, _SOURCES, "measured", "cuda_mma_v4's sm_90 record with "
                 "the v5 coefficients fitted to the H200 tuning sweeps; see facts")
"""Default coefficients for ``cuda:sm_90``."""

SM80_V5 = derive(SM80_V4, V5_VALUES, _SOURCES, "prior", "prior: the sm_90 v5 record carried "
                 "over (not measured on sm_80)")
"""Default coefficients for ``cuda:sm_80``."""
