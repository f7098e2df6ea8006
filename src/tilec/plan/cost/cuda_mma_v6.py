"""Cost basis ``cuda_mma_v6``: ``cuda_mma_v5`` with a price for the default Hopper plan, for
the groups a grid actually puts on a unit, and for a split of K.

Since the schedule gives a staged warpgroup (``wgmma``) loop of two consumer warpgroups a
producer warpgroup, a four-version ring filled by tensor copies and a persistent grid
(``lower/schedule_staging._auto_roles_blocker``, docs/design/warp_specialization.md, "The default
plan"), the candidates at 256 threads with 16-bit operands whose rows start 16-byte
aligned (``cuda_mma_v2.ring_plan``) run a different kernel from the one v5 was fitted to
(the H200 sweeps before that plan existed). Replayed on the H100 sweep of the plan as it
is now (``benchmarks/tune_matmul.py --shapes fit --threads-per-config 2`` at 7baa1f9),
v5's picks leave 14.2% mean and 51.6% max regret on the 14 fit shapes: it priced
128x256x64 tiles at 2048^3 (128 programs, one per SM) 1.5x for underfill, as if their
eight consumer warps were alone on the SM, with a full tile's exposed drain, which the
producer overlaps with the next tile's loads; and it priced 128 programs of 32x32x64
tiles on 132 SMs as five groups per SM sharing their waits, which only a grid five times
larger puts there. Seven coefficients of ``CudaV2Coefficients`` change that (formulas in
``plan/cost/cuda_mma_v2.py``; v5's values leave v5 as it was):

- ``producer_subgroups`` = 4: the producer's warps count in the underfill term of a group
  whose every operation has the plan;
- ``ring_tail_scale`` = 0.25 and ``ring_step_scale`` = 0.25: a quarter of the exposed
  tail and of the exposed waits per K step of such a candidate;
- ``programs_share_units``: the groups that share a unit's tail and waits are at most
  ``ceil(P / units)``;
- ``wgmma_fill_target_subgroups`` = 4: the underfill target of a group whose tiles are
  issued as warpgroup instructions (one warpgroup of asynchronous instructions and copies
  keeps a unit busy; the H100 split sweep ran 16x4096x4096 fastest at 64x64x64 tiles with
  one warpgroup: 0.025 ms with 4 splits);
- ``split_partial_byte`` = 0.125: the model prices a split of K (``plan/split_price.py``)
  and picks the tiles and the split together; before, a rule of the CUDA backend split
  the pick's K where its grid had at most one program per SM.

The values were chosen on the fit shapes (``benchmarks/model_regret.py --grid`` replays
each changed alone) and the H100 split sweep (``benchmarks/cuda_split_k.py --stages
default --shapes 128x128x8192,16x4096x4096,64x2048x4096`` at a1cade7), from grids of the
coefficients together. The replays count only the picks the record timed (a pick with a
split the sweep did not time, 2 or 16, is left out): on the fit shapes v6 leaves 0.8%
mean and 3.9% max regret over its 6 timed picks (v5: 14.2% and 51.6% over 14); on the
14 shapes of ``HELDOUT5_SHAPES``, measured in the same H100 session and not used to
choose, 0.5% and 5.1% over 11 (v5: 21.0% and 68.2% over 14).

Measured as a user gets it (``benchmarks/cuda_model_pick.py`` on the H100 at dbcec89 and,
for the four shapes whose pick changed after it, d82b5b5; each pick against v5's with its
rule split, in one run): v6's picks ran 1.15x faster in geometric mean over 29 shapes,
up to 1.90x (bf16 64x2048x4096) and 1.64x (16x4096x4096, 0.84x torch); slower at three,
all where the model is weakest: bf16 777x1555x333 and 3000x500x2000 (rows not 16-byte
aligned: 0.86x and 0.90x of v5's) and 512^3 (0.90x, near the launch floor).
"""

from __future__ import annotations

from types import MappingProxyType

from tilec.plan.cost.cuda_mma_v3 import derive
from tilec.plan.cost.cuda_mma_v5 import SM80_V5, SM90_V5

__all__ = ["NAME", "SM90_V6", "SM80_V6", "V6_VALUES"]

NAME = "cuda_mma_v6"
"""This basis's name and version."""

_FIT = ("chosen on the H100 sweep of lib.matmul's 14 fit shapes x 32 tile configurations at "
        "their two best-priced thread counts, at commit 7baa1f9 (benchmarks/results/"
        "tune_matmul-NVIDIA-H100-80GB-HBM3-2026-12-06.json, shape_set 'fit'), by the mean "
        "regret of the replayed model picks (benchmarks/model_regret.py --grid, each value "
        "changed alone from v6's)")

V6_VALUES = MappingProxyType({"producer_subgroups": 4, "ring_tail_scale": 0.25,
                              "ring_step_scale": 0.25,
                              "programs_share_units": True, "wgmma_fill_target_subgroups": 4,
                              "split_partial_byte": 0.125})
"""What v6 sets on v5's record."""

_SOURCES = MappingProxyType({
    "producer_subgroups":
        "the default plan's producer warpgroup (4 warps) is resident beside the two "
        "consumer warpgroups; " + _FIT + " (0: 4.9% mean regret, 4 and 8: 5.2%; on the "
        "split sweep 0 picks 32x32x64 at 384 threads with 8 splits for 128x128x8192 and "
        "32x128x64 at 512 with 4 for 16x4096x4096, neither timed there)",
    "ring_tail_scale":
        "the producer fills the ring for the next tile while the consumers drain the "
        "accumulator; " + _FIT + " (1: 9.5% mean and 27.5% max, held-out 8.2% and 45.3%; "
        "0.5: 8.6%, held-out 2.8% and 23.6%; 0.25 and 0: 5.2%, held-out 0.8% and 5.1%: "
        "the largest value at the minimum)",
    "ring_step_scale":
        "the producer keeps four versions in flight, so a consumer waits out a fraction "
        "of each step; " + _FIT + " (1 and 0.5: 6.3% mean regret; 0.25 and 0.125: 5.2%)",
    "programs_share_units":
        "a grid of P programs puts at most ceil(P / SMs) groups on an SM; " + _FIT
        + " (off: 18.5% mean and 93.2% max regret)",
    "wgmma_fill_target_subgroups":
        "one warpgroup of asynchronous warpgroup instructions keeps an SM busy; the H100 "
        "split sweep at a1cade7 (64x2048x4096: 64x64x64 at 128 threads with 4 splits "
        "0.019 ms, v6's pick with this value; without it 32x64x64 at 256 with 4 splits, "
        "0.026 ms); on the fit shapes 0: 4.8% mean regret, 4 to 8: 5.2%",
    "split_partial_byte":
        "the partial accumulators a split stores and its last program reads back through "
        "L2; the H100 split sweep at a1cade7 (0.03125 to 0.125 pick 16 splits of 32x32x64 "
        "at 128x128x8192, 0.015 ms, the sweep's fastest; 0.25 picks 4 splits of 32x64x64 "
        "at 16x4096x4096, 22% over the fastest, 0.5 two of 32x32x64, 66%); on the fit "
        "shapes 0 (no split priced): 11.4% mean and 51.6% max regret",
})

SM90_V6 = derive(SM90_V5, V6_VALUES, _SOURCES, "measured", "cuda_mma_v5's sm_90 record with "
                 "the v6 coefficients chosen on the H100 sweep of the default Hopper plan; "
                 "see facts")
"""Default coefficients for ``cuda:sm_90``."""

SM80_V6 = derive(SM80_V5, V6_VALUES, _SOURCES, "prior", "prior: the sm_90 v6 record carried "
                 "over (sm_80 has no warpgroup instructions, so its plans never take the "
                 "two new prices)")
"""Default coefficients for ``cuda:sm_80``."""
