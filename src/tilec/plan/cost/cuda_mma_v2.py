"""Cost basis ``cuda_mma_v2``: issue slots per group, register footprint and occupancy.

``cuda_mma_v1`` divides a group's work by its warp count, so its score falls
with every added warp and it picks 1024 threads; on an H200 that plan is the
slowest one we measured for ``lib.matmul``. This basis instead counts the
issue slots a group spends on one operation, summed over its warps (the SM's
schedulers are shared by every resident warp, so the sum is what costs time
once enough warps are resident), and prices what limits large warp tiles and
few threads: registers and resident warps.

Per operation (E executions, G warps, warp tile rm x rn atoms, Q = mean K / ak)::

    math            U * V * Q * E * issue[atom]
    fragment loads  (G*rm*Q*E) * a_load[atom] + (G*rn*Q*E) * b_load[atom]
                    (one-atom reference: U*V*Q*E of each)
    accumulator     accumulator transfers * accumulator_transfer
                    + direct global stores * direct_global_store
    warp steps      G * E * warp_step          (loop, barrier and per-thread staging address
                                                work: paid by every warp, every execution)
                    (a forwarded candidate: times forwarded_load_scale)
    staging         ceil((A + B bytes) / 16) * E * staging_chunk    (forwarded: none)
                    + misaligned * misaligned_chunk                           (v5)
    misaligned      (ceil(A bytes / 16) * (1 - a_aligned_rows)
                     + ceil(B bytes / 16) * (1 - b_aligned_rows)) * E
                    (chunks staged by element copies: their row is not 16-byte aligned)
    elements        remaining independent elements * element
    issue = the sum of the above

    registers  = fragment scalars + base_registers + registers_per_chunk * chunks per thread
    cap        = min(255, registers per unit // threads)           (spec)
    spill      = 1 + spill_weight * max(0, registers - cap) / cap
    resident   = G * min(registers per unit // (round_up(min(registers, cap), 8) * threads),
                         shared per unit // staged shared bytes, 64 // G, 32)     (warps/SM)
    latency    = max(1, target / resident)    target = target_resident_subgroups
                 (v4, lane FFMA: ffma_target_resident_subgroups)
    tail       = tile m * n * acc bytes * exposed_tail_byte / (resident / G)
                 (v3, when E is known; 0 in v2)
    waits      = E * step / (resident / G)                 (v4, when E is known; 0 before)
                 step = exposed_step + misaligned_step if misaligned > 0 (v5), else
                 exposed_step
    score      = issue * spill * latency + tail + waits

Per thread count (``group_terms``)::

    offset = common elements * element
    small  = max(1, min_group_subgroups / G)
    per    = max(1, P / units)    (v3, whole_waves: ceil(P / units))       (P known only)
    fill   = max(1, target / (G * per))   target = fill_target_subgroups or, in v2,
                                                    target_resident_subgroups
    scale  = max(small, fill) * per

Units are warp issue slots (one warp FFMA = 1). Every coefficient is a
``Fact`` tagged ``spec``, ``measured`` or ``prior`` with its source; the
measured ones are fitted to the H200 plan sweeps that docs/design/planner.md
tabulates (16-bit fragment loads: the sweep at commit 712eac1, with ldmatrix A and B
loads; the rest: the earlier sweep), not to a general benchmark set.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

from tilec.exec import Fact, TargetProfile
from tilec.ir.atoms import mma_atom_for, swizzle_slack, wgmma_of
from tilec.ir.types import scalar_type
from tilec.plan.cost.base import GroupTerms, Priced, scalar_priced
from tilec.plan.matrix import (
    PRODUCER_RING_VERSIONS,
    WGMMA_OTHER_REGISTERS,
    MatrixCandidate,
    Realization,
    fitting_versions,
    register_limit,
    wgmma_operand_rule,
    work_counts,
)
from tilec.plan.work import DTYPE_BYTES, GroupWorkload, MatrixWorkload

__all__ = ["NAME", "AtomPrices", "CudaV2Coefficients", "SM90_V2", "SM80_V2", "CudaMmaV2Basis",
           "register_estimate"]

NAME = "cuda_mma_v2"
"""This basis's name and version."""

STAGING_CHUNK_BYTES = 16
"""Bytes one lane stages per copy (a 16-byte vector or asynchronous copy)."""

_SWEEP = ("H200 plan sweep of lib.matmul 4096^3, 2026-11-30, at commit f063b2b "
          "(benchmarks/gemm_plans.py)")
_SWEEP_FILE = "benchmarks/results/gemm_plans-NVIDIA-H200-2026-11-30.json"
_FRAG_SWEEP = ("H200 plan sweep of lib.matmul 4096^3 at commit 712eac1 (records with that "
               "commit in " + _SWEEP_FILE + "; A fragments by ldmatrix.x4, B fragments in "
               "pairs by ldmatrix.x4.trans)")


@dataclass(frozen=True)
class AtomPrices:
    """Issue slots of one atom instruction and of loading its A and B fragments."""

    atom: str
    """The catalog atom id."""
    issue: float
    """Issue slots one atom instruction occupies (math pipe time in warp-FFMA units)."""
    a_load: float
    """Warp instructions that bring one A fragment from shared memory into registers."""
    b_load: float
    """Warp instructions that bring one B fragment from shared memory into registers."""


@dataclass(frozen=True)
class CudaV2Coefficients:
    """Replaceable coefficients of ``cuda_mma_v2``; ``facts`` tags every number."""

    atoms: tuple[AtomPrices, ...]
    """Per-atom math and fragment-load prices."""
    accumulator_transfer: float
    """Warp instructions per accumulator fragment moved between shared memory and registers."""
    direct_global_store: float
    """Warp instructions per accumulator fragment stored straight to global memory."""
    warp_step: float
    """Issue slots every warp spends per execution outside math and fragment loads."""
    staging_chunk: float
    """Issue slots per 16-byte chunk of A/B staged into shared memory."""
    element: float
    """Issue slots per scalar element of independent (non-matrix) work."""
    scalar_fma: float
    """Issue slots per scalar multiply-add of the checked scalar reference."""
    base_registers: float
    """Registers per lane beside fragments and staging (indices, loop state)."""
    registers_per_chunk: float
    """Registers per lane for each 16-byte chunk a lane stages per execution."""
    spill_weight: float
    """Score growth per register over the cap, as a fraction of the cap."""
    target_resident_subgroups: int
    """Resident warps per SM below which latency is not hidden."""
    min_group_subgroups: int
    """Warps per group below which a group is penalized (few warps per barrier domain)."""
    staging_versions: int
    """Shared-memory versions of A/B staging (double buffering) for the occupancy estimate."""
    wgmma_issue: float
    """Issue slots per m16n8k16-equivalent atom of a warpgroup instruction (``wgmma``
    realization; it loads no fragments: both operands are read from shared memory)."""
    wgmma_registers: bool
    """Registers of a ``wgmma`` candidate are its accumulators plus
    ``WGMMA_OTHER_REGISTERS`` and its operands have ``wgmma_staging_versions`` versions, as
    the lowering asks the compiler for (``min_groups``); False in v2, which estimates them
    as for ``mma.sync``."""
    wgmma_staging_versions: int
    """Shared-memory versions of the operands of a ``wgmma`` group (``wgmma_stages``), for
    its occupancy when ``wgmma_registers``."""
    whole_waves: bool
    """The busiest compute unit runs ``ceil(P / units)`` groups (v3); v2 priced ``P / units``,
    so 144 groups on 132 units cost 1.09 groups' time instead of 2."""
    exposed_tail_byte: float
    """Issue slots per accumulator byte a group drains after its last K step, divided by
    the groups resident per unit (a second resident group computes while one drains; with
    one, the drain is exposed); 0 in v2."""
    fill_target_subgroups: int
    """Resident warps per unit below which an underfilled device is penalized
    (``group_terms``: warps per group times groups on the busiest unit); 0 = the
    ``target_resident_subgroups`` of v2."""
    ffma_target_resident_subgroups: int
    """Resident warps per unit below which a lane-FFMA candidate's latency is not hidden
    (its fragments come from shared memory every K step, with no matrix instruction to
    overlap them); 0 = ``target_resident_subgroups``, as in v2 and v3."""
    exposed_step: float
    """Issue slots per K step that a group waits (its barrier and the operands' arrival)
    with nothing else to run, divided by the groups resident per unit (another resident
    group computes meanwhile); priced when the trip count is known; 0 in v2 and v3."""
    misaligned_chunk: float
    """Issue slots per staged 16-byte chunk whose row does not start 16-byte aligned
    (``MatrixWorkload.a_aligned_rows``): the copy falls back to guarded element loads and
    stores; 0 before v5."""
    misaligned_step: float
    """Issue slots per K step that a group with such chunks waits for its element loads
    (synchronous, unlike ``cp.async``), shared among resident groups as the exposed waits
    are; 0 before v5."""
    producer_subgroups: int
    """Warps of the producer warpgroup that the default Hopper plan adds to a group of two
    consumer warpgroups (``ring_plan``), counted among the group's warps by the underfill
    term; 0 before v6 (the producer was not the default)."""
    ring_tail_scale: float
    """Factor on the exposed tail of a ``ring_plan`` candidate (its producer fills the ring
    for the next tile while the consumers drain); 1 before v6."""
    ring_step_scale: float
    """Factor on the exposed waits per K step of a ``ring_plan`` candidate (a deeper ring,
    filled by one producer's tensor copies); 1 before v6."""
    wgmma_fill_target_subgroups: int
    """The underfill term's target for a group whose every operation can be issued as
    warpgroup instructions at its thread count (``wgmma_tile``: asynchronous instructions
    and copies need fewer resident warps to stay busy); 0 = ``fill_target_subgroups``, as
    before v6."""
    programs_share_units: bool
    """The groups that share a unit's exposed tail and waits are at most the programs per
    unit, ``ceil(P / units)``, when the program count is known (v6); before, always as
    many as fit (128 programs of 32x32 tiles priced as five per SM on 132 SMs)."""
    split_partial_byte: float
    """Issue slots per accumulator byte of a split of K (``split_combine``): every program
    stores its partial accumulator and the last of a tile reads all of them back, divided
    by the groups resident per unit as the tail is; 0 before v6, where the basis prices no
    split."""
    forwarded_load_scale: float
    """Factor on the fragment-load price of a forwarded candidate (``MatrixCandidate.
    forwarded``: each lane loads its fragment elements from global memory, element by
    element, where a staged one takes one ``ldmatrix``); such a candidate stages no chunk
    and holds no staging registers."""
    ring_version_scale: tuple[tuple[int, float], ...] = ()
    """Per ring version count, the factor on the score of a ``wgmma`` candidate whose
    versions the planner chose (``MatrixCandidate.ring_versions``,
    ``PlannerOptions.plan_ring_versions``): what a shallower ring exposes of each K step's
    copies. Measured with one group per SM; with more resident groups the excess over 1 is
    divided among them (another group computes while one waits). A count not listed: 1."""
    facts: tuple[Fact, ...] = ()
    """Kind and source of every number above (one fact per field; per atom ``<field>[<id>]``)."""
    provenance: str = ""
    """Summary of where the numbers come from."""

    def __post_init__(self) -> None:
        names = {f.name for f in self.facts}
        wanted = {f.name for f in fields(self) if f.name not in ("atoms", "facts", "provenance")}
        wanted |= {f"{k}[{a.atom}]" for a in self.atoms for k in ("issue", "a_load", "b_load")}
        missing = sorted(wanted - names)
        if missing:
            raise ValueError(f"cuda_mma_v2 coefficients without a fact: {', '.join(missing)}")
        for f in self.facts:
            if f.name in wanted and "[" not in f.name and getattr(self, f.name) != f.value:
                raise ValueError(f"fact {f.name}={f.value} disagrees with the coefficient "
                                 f"{getattr(self, f.name)}")

    def prices(self, atom_id: str) -> AtomPrices:
        """The prices of ``atom_id`` (``KeyError`` when the record has none)."""
        for a in self.atoms:
            if a.atom == atom_id:
                return a
        raise KeyError(f"no prices for atom {atom_id!r}")


def _atom_facts(p: AtomPrices, kinds: tuple[str, str, str], sources: tuple[str, str, str]
                ) -> tuple[Fact, ...]:
    return tuple(Fact(f"{k}[{p.atom}]", getattr(p, k), kind, src)
                 for k, kind, src in zip(("issue", "a_load", "b_load"), kinds, sources))


_MMA16 = ("least-squares fit of the " + _FRAG_SWEEP + ": bf16 128x128x32 at 128 and 256 "
          "threads over 7 warp grids (0.495 to 0.569 ms), with a_load = 2 b_load (one "
          "ldmatrix.x4 per A fragment, one ldmatrix.x4.trans per two B fragments) and "
          "warp_step held at 55, gives A : B fragment = 1.9 : 0.95 per mma = 7 (residuals "
          "within 7%; fitted freely 1.99 : 0.90). 128x32 and 32x128 warp tiles at 128 threads "
          "measured 0.5096 and 0.5097 ms: 8a + 4b = 2a + 16b, i.e. a = 2b")
_MMA16_OLD = ("least-squares fit of the " + _SWEEP + ": bf16 128x128x32 at 128, 256 and 512 "
              "threads over 8 warp grids (0.641 to 0.968 ms) gives, per group K step, mma : A "
              "fragment : B fragment : warp step = 7 : 1 : 5 : 55 (residuals within 6%; B "
              "fragments were packed from 16-bit loads then)")
_WARP_STEP = (_MMA16_OLD + "; kept in the refit to the " + _FRAG_SWEEP + ": fitted freely "
              "there to the 128- and 256-thread plans it comes out near 0, to all 14 plans "
              "(with 512 and 1024 threads at 0.743 and 0.998 ms) near 80, because plans with "
              "one resident group per SM pay exposed barriers this basis has no term for; 55 "
              "keeps every plan ordered as measured and the exact-f32 fit, which shares it, "
              "unchanged")
_FFMA = ("fit of the " + _SWEEP + ": for exact f32 warp grids at equal thread counts the "
         "times follow shared loads per FFMA (1/rm + 1/rn), 0.5 to 0.9 issue slots per loaded "
         "value (e.g. 64x16 vs 32x32 warp tiles at 128 threads: 4.23 vs 3.85 ms); warp tiles "
         "with 16 B atoms per lane (4.95 and 8.93 ms) are slower than this predicts")
_WGMMA = ("a hand-written kernel with this lowering's structure (cp.async ring of 3 "
          "versions, 128-byte swizzled operands, 2 warpgroups of m64n128k16, one wait per K "
          "step) ran bf16 4096^3 at 128x128x64 in 0.242 ms on the H200, 2026-11-30, against "
          "0.50 ms for the best mma.sync plan of the same size: 7 * 0.242 / 0.50")
RING_VERSION_SCALE = ((2, 0.497 / 0.375), (3, 0.391 / 0.375), (4, 1.0))
"""``ring_version_scale``: 2, 3 and 4 ring versions against 4 (see ``_RING_VERSIONS``)."""
_RING_VERSIONS = ("benchmarks/gemm_stages.py on the H200, bf16 4096^3 at 128x128x64 with "
                  "wgmma and one group per SM (before 9004717, docs/perf/h200-notes.md): 2 "
                  "versions 0.497 ms, 3 0.391, 4 0.375; the scale is each time over 4 "
                  "versions'. Read only by PlannerOptions.plan_ring_versions (default off)")
_V2_ONLY = "v2 as measured (cuda_mma_v3 sets it: see plan/cost/cuda_mma_v3.py)"
_BEFORE_V4 = "v2 and v3 as measured (cuda_mma_v4 sets it: see plan/cost/cuda_mma_v4.py)"

_BEFORE_V5 = "v2 to v4 as measured (cuda_mma_v5 sets it: see plan/cost/cuda_mma_v5.py)"

_BEFORE_V6 = "v2 to v5 as measured (cuda_mma_v6 sets it: see plan/cost/cuda_mma_v6.py)"

_ATOMS = (
    AtomPrices("mma.m16n8k16.bf16", 7.0, 1.9, 0.95),
    AtomPrices("mma.m16n8k16.f16", 7.0, 1.9, 0.95),
    AtomPrices("mma.m16n8k8.tf32", 7.0, 2.0, 2.0),
    AtomPrices("ffma", 1.0, 0.75, 0.75),
)
_ATOM_FACTS = (
    _atom_facts(_ATOMS[0], ("prior", "measured", "measured"),
                ("cuda_mma_v1's prior (2048 MACs at about 9x the FP32 rate); the unit the "
                 "fit below is scaled to", _MMA16, _MMA16))
    + _atom_facts(_ATOMS[1], ("prior",) * 3,
                  ("the bf16 numbers: same fragment layouts and ldmatrix loads",) * 3)
    + _atom_facts(_ATOMS[2], ("prior",) * 3,
                  ("half the MACs of m16n8k16 at half the 16-bit rate: the same time",
                   "four 32-bit shared loads per A fragment, no packing",
                   "two 32-bit shared loads per B fragment, no packing"))
    + _atom_facts(_ATOMS[3], ("prior", "measured", "measured"),
                  ("the unit of this basis: one warp FFMA issue", _FFMA, _FFMA))
)


def _coefficients(units_note: str, fit_kind: str) -> CudaV2Coefficients:
    facts = _ATOM_FACTS + (
        Fact("accumulator_transfer", 2.0, "prior",
             "two 32-bit shared accesses per accumulator fragment register pair"),
        Fact("direct_global_store", 2.0, "prior", "cuda_mma_v1's price, not measured"),
        Fact("warp_step", 55.0, fit_kind, _WARP_STEP if fit_kind == "measured"
             else "the sm_90 measurement (same code shape)"),
        Fact("staging_chunk", 0.3, "prior",
             "about 10 lane instructions (address, guard, 16-byte copy) per chunk, over 32 lanes"),
        Fact("element", 1.0 / 8.0, "prior", "about 4 lane instructions per element, over 32 lanes"),
        Fact("scalar_fma", 3.0 / 32.0, "prior",
             "one FMA and two shared reads per scalar multiply-add, over 32 lanes"),
        Fact("base_registers", 15.3, fit_kind,
             "least-squares fit of ptxas register counts of the 20 plans of the " + _SWEEP
             + ": registers - fragment scalars = 15.3 + 7.5 * chunks per thread "
             "(residuals up to 40 registers)"),
        Fact("registers_per_chunk", 7.5, fit_kind, "the same fit"),
        Fact("spill_weight", 1.0, "prior",
             "a plan estimated over the cap is built at the cap with no room left; the exact "
             "f32 128-thread plans (estimated 287-299 registers, built with 255) measured "
             "3.73-4.95 ms against 3.78-3.82 for 256 threads (" + _SWEEP + "); weights "
             "above 0.4 prefer 256 threads"),
        Fact("target_resident_subgroups", 8, "prior",
             "latency hiding needs 8-16 resident warps per SM (2-4 per scheduler); "
             "the lower end"),
        Fact("min_group_subgroups", 4, "prior",
             "CUDA C++ Best Practices Guide: blocks of 128-256 threads are a good start; "
             "measured against it: bf16 64x64x32 tiles ran 14% faster with 1-2 warps "
             "(0.856 ms) than with 4 (0.999 ms) in the " + _SWEEP + "; kept because the "
             "program count is often unknown when a group is planned"),
        Fact("staging_versions", 2, "prior",
             "the lowering double-buffers matrix operands by default"),
        Fact("wgmma_issue", 3.4, "measured" if fit_kind == "measured" else "prior",
             _WGMMA if fit_kind == "measured" else "the sm_90 number; sm_80 has no wgmma"),
        Fact("wgmma_registers", False, "prior", _V2_ONLY),
        Fact("wgmma_staging_versions", 3, "prior", "LowerOptions.wgmma_stages (default)"),
        Fact("whole_waves", False, "prior", _V2_ONLY),
        Fact("exposed_tail_byte", 0.0, "prior", _V2_ONLY),
        Fact("fill_target_subgroups", 0, "prior", _V2_ONLY),
        Fact("ffma_target_resident_subgroups", 0, "prior", _BEFORE_V4),
        Fact("exposed_step", 0.0, "prior", _BEFORE_V4),
        Fact("misaligned_chunk", 0.0, "prior", _BEFORE_V5),
        Fact("misaligned_step", 0.0, "prior", _BEFORE_V5),
        Fact("producer_subgroups", 0, "prior", _BEFORE_V6),
        Fact("ring_tail_scale", 1.0, "prior", _BEFORE_V6),
        Fact("ring_step_scale", 1.0, "prior", _BEFORE_V6),
        Fact("wgmma_fill_target_subgroups", 0, "prior", _BEFORE_V6),
        Fact("programs_share_units", False, "prior", _BEFORE_V6),
        Fact("split_partial_byte", 0.0, "prior", _BEFORE_V6),
        Fact("forwarded_load_scale", 4.0, "prior",
             "an A fragment of m16n8k16 is 8 16-bit elements per lane: loaded from global "
             "memory (L1/L2 latency) element by element against one ldmatrix.x4 from shared "
             "memory; not measured (PlannerOptions.forward_snapshots is off by default)"),
        Fact("ring_version_scale", RING_VERSION_SCALE,
             "measured" if fit_kind == "measured" else "prior",
             _RING_VERSIONS if fit_kind == "measured" else "the sm_90 numbers; sm_80 has no "
             "wgmma"),
    )
    return CudaV2Coefficients(
        atoms=_ATOMS, accumulator_transfer=2.0, direct_global_store=2.0, warp_step=55.0,
        staging_chunk=0.3, element=1.0 / 8.0, scalar_fma=3.0 / 32.0, base_registers=15.3,
        registers_per_chunk=7.5, spill_weight=1.0, target_resident_subgroups=8,
        min_group_subgroups=4, staging_versions=2, wgmma_issue=3.4, wgmma_registers=False,
        wgmma_staging_versions=3, whole_waves=False, exposed_tail_byte=0.0,
        fill_target_subgroups=0, ffma_target_resident_subgroups=0, exposed_step=0.0,
        misaligned_chunk=0.0, misaligned_step=0.0, producer_subgroups=0,
        ring_tail_scale=1.0, ring_step_scale=1.0,
        wgmma_fill_target_subgroups=0, programs_share_units=False,
        split_partial_byte=0.0, forwarded_load_scale=4.0,
        ring_version_scale=RING_VERSION_SCALE, facts=facts,
        provenance=units_note)


SM90_V2 = _coefficients(f"measured and prior: fitted to the {_SWEEP}; see facts", "measured")
"""Default coefficients for ``cuda:sm_90``."""

SM80_V2 = _coefficients("prior: the sm_90 fit carried over (not measured on sm_80); see facts",
                        "prior")
"""Default coefficients for ``cuda:sm_80``."""


def register_estimate(fragment_scalars: int, staged_bytes: int, threads: int,
                      k: CudaV2Coefficients) -> float:
    """Estimated registers per lane: fragments plus a fitted overhead per staged chunk."""
    chunks = math.ceil(math.ceil(staged_bytes / STAGING_CHUNK_BYTES) / threads)
    return fragment_scalars + k.base_registers + k.registers_per_chunk * chunks


def wgmma_tile(profile: TargetProfile, threads: int, work: MatrixWorkload) -> bool:
    """Whether ``work``'s tile can be issued as warpgroup instructions at ``threads``
    (``plan.matrix.wgmma_rule`` for the planner's rectangle: 16 rows per warp in whole
    warpgroups, so ``m = threads / 2``; ``n`` a multiple of 64 up to 256, ``k`` a multiple
    of one 128-byte swizzle row (64 of a 16-bit type, 32 of f32); operands with a warpgroup
    instruction (16-bit, or f32 under ``tf32`` with a K-major B) on a profile that has them)."""
    if not profile.warpgroup_mma:
        return False
    atom = mma_atom_for(scalar_type(work.dtype), work.precision)
    wg = None if atom is None else wgmma_of(atom.catalog_id)
    return (wg is not None and threads % 128 == 0 and work.m * 2 == threads
            and wgmma_operand_rule(work, wg, work.n) is None)


RING_PLAN_THREADS = 256
"""Threads (two consumer warpgroups) of a group that the default Hopper plan gives a
producer warpgroup and a four-version ring (``lower/schedule_staging._auto_roles_blocker``)."""


def ring_plan(profile: TargetProfile, threads: int, work: MatrixWorkload) -> bool:
    """Whether a warpgroup (``wgmma``) realization of ``work`` at ``threads`` gets the
    default Hopper plan: two consumer warpgroups of a tile that warpgroup instructions
    issue (``wgmma_tile``), operand rows that all start 16-byte aligned (otherwise the
    tensor copies fall back and the schedule keeps the ordinary ring) and an unsplit K
    loop (a split's protocol meets every thread after the loop, so a split group keeps the
    ordinary ring)."""
    return (threads == RING_PLAN_THREADS and wgmma_tile(profile, threads, work)
            and work.split_k == 1 and work.a_aligned_rows == 1.0
            and work.b_aligned_rows == 1.0)


def ring_depth(profile: TargetProfile, candidate: MatrixCandidate, work: MatrixWorkload
               ) -> int:
    """The ring versions the lowering places for a ``ring_plan`` candidate that leaves the
    count to it: ``PRODUCER_RING_VERSIONS``, fewer (down to 2) where that many versions of the
    operands copied every execution (``work.ring_bytes()``) would not fit the group's shared
    memory beside the candidate's other bytes (``schedule_staging._ring_versions``; the
    group's common allocations, which the lowering also counts, are not known here). A TF32
    tile of 256 x 128 x 64 holds 96 KB per version and gets 2."""
    per = work.ring_bytes()
    cap = profile.shared_bytes_per_group
    if cap is None or not per:
        return PRODUCER_RING_VERSIONS
    st = work.staging_bytes()
    ringed = [x for x, how in (("A", work.a_staging), ("B", work.b_staging)) if how == "ring"]
    limit = cap - (candidate.shared_bytes - sum(st[x] for x in ringed))
    return fitting_versions(PRODUCER_RING_VERSIONS, 2, per, swizzle_slack(len(ringed)), limit)


@dataclass(frozen=True)
class CudaMmaV2Basis:
    """Issue slots per group with register and occupancy factors (see the module docstring)."""

    profile: TargetProfile
    """The target whose limits and priors are used."""
    coefficients: CudaV2Coefficients = SM90_V2
    """The coefficient record."""
    name: str = NAME
    """Name and version."""
    families: tuple[str, ...] = ("mma_sync", "lane_ffma")
    """Atom families it prices."""
    summary: tuple[str, ...] = ("math", "fragment_loads", "warp_steps", "registers",
                                "resident_subgroups", "spill", "latency")
    """Features the text report shows per candidate."""

    def price(self, candidate: MatrixCandidate, work: MatrixWorkload,
              programs: int | None = None) -> Priced:
        """Features and additive score of one candidate; ``programs``, the group's program
        count when known, bounds the groups that share a unit (``programs_share_units``)."""
        k = self.coefficients
        wc = work_counts(candidate, work)
        e = work.executions
        if candidate.realization == Realization.SCALAR:
            score = wc.scalar_fmas * k.scalar_fma + candidate.remaining_elements * k.element
            return scalar_priced(candidate, wc, score)
        assert candidate.atom is not None and candidate.distribution is not None
        d = candidate.distribution
        ap = k.prices(candidate.atom.id)
        g, t = d.subgroups, candidate.threads
        loads = float(wc.physical_input_transfers)
        if candidate.realization == Realization.ONE_ATOM:
            a_loads = b_loads = loads / 2
        elif candidate.realization == Realization.WGMMA:
            a_loads = b_loads = 0.0  # the instruction reads both operands from shared memory
        else:
            a_loads, b_loads = loads * d.rm / (d.rm + d.rn), loads * d.rn / (d.rm + d.rn)
        st = work.staging_bytes()
        fwd = candidate.forwarded
        staged = 0 if fwd else st["A"] + st["B"]
        every, once = (0, 0) if fwd else work.copied_bytes()  # a once-copy: one per program
        chunks = math.ceil(every / STAGING_CHUNK_BYTES) * e + math.ceil(once / STAGING_CHUNK_BYTES)
        wg = candidate.realization == Realization.WGMMA
        issue_cost = k.wgmma_issue if wg else ap.issue
        math_issue = float(wc.physical_matrix_issues) * issue_cost
        frag = (a_loads * ap.a_load + b_loads * ap.b_load) * \
            (k.forwarded_load_scale if fwd else 1.0)
        acc = (float(wc.accumulator_transfers) * k.accumulator_transfer
               + float(wc.direct_global_stores) * k.direct_global_store)
        steps = g * e * k.warp_step
        staging = chunks * k.staging_chunk
        misaligned = 0.0 if fwd else (
            math.ceil(st["A"] / STAGING_CHUNK_BYTES) * (1.0 - work.a_aligned_rows)
            + math.ceil(st["B"] / STAGING_CHUNK_BYTES) * (1.0 - work.b_aligned_rows)) * e
        staging += misaligned * k.misaligned_chunk
        ring = wg and ring_plan(self.profile, t, work)
        # the depth the lowering places where the planner left it the count
        depth = ring_depth(self.profile, candidate, work) \
            if ring and candidate.ring_versions is None else 0
        if depth and work.ring_versions is None and depth < 3:
            # two versions leave none to spare: every group retires in the iteration that
            # issued it and the producer runs one version ahead, so the plan's discount on
            # the exposed tail and waits (measured with four) does not apply
            ring = False
        elements = candidate.remaining_elements * k.element
        issue = math_issue + frag + acc + steps + staging + elements
        wg_regs = wg and k.wgmma_registers
        regs = float(candidate.fragment_scalars + WGMMA_OTHER_REGISTERS) if wg_regs \
            else register_estimate(candidate.fragment_scalars, staged, t, k)
        cap = register_limit(self.profile, t)
        spill = 1.0 if cap is None else 1.0 + k.spill_weight * max(0.0, regs - cap) / cap
        planned = candidate.ring_versions
        versions = planned or work.ring_versions or (k.wgmma_staging_versions if wg_regs
                                                     else k.staging_versions)
        # the ring's bytes (matrix.ring_extra) already hold the fewest versions, or the
        # planner's count
        extra = 0 if planned is not None else \
            max(0, versions - work.min_ring_versions) * work.ring_bytes()
        shared = candidate.shared_bytes + candidate.ring_bytes + extra
        resident = self._resident(g, t, regs, cap, shared)
        target = (k.ffma_target_resident_subgroups or k.target_resident_subgroups) \
            if candidate.atom.family == "lane_ffma" else k.target_resident_subgroups
        latency = max(1.0, target / resident)
        # a per-group cost weighs against E executions only when E is known: a shape-generic
        # plan prices one, and the tail would outweigh the issue it is compared with
        alone = max(1, resident // g)  # groups resident per unit
        units = self.profile.compute_units
        if k.programs_share_units and programs is not None and units:
            alone = min(alone, -(-programs // units))  # no more than the grid puts there
        known = work.executions_known
        tail = work.m * work.n * DTYPE_BYTES[work.acc_dtype] * k.exposed_tail_byte / alone \
            if known else 0.0
        step = k.exposed_step + (k.misaligned_step if misaligned else 0.0)
        waits = e * step / alone if known else 0.0
        if ring:
            tail *= k.ring_tail_scale
            waits *= k.ring_step_scale
        # a shallower ring than the deepest measured exposes part of each K step's copies
        # (planned versions only: otherwise the lowering chooses after the plan)
        shallow = dict(k.ring_version_scale).get(planned, 1.0) \
            if wg and planned is not None and work.ring_versions is None else 1.0
        shallow = 1.0 + (shallow - 1.0) / alone
        score = (issue * spill * latency + tail + waits) * shallow
        matrix = float(wc.physical_matrix_issues)
        feats = (("matrix_issues", matrix), ("issue_cost", issue_cost), ("math", math_issue),
                 ("a_fragment_loads", a_loads), ("b_fragment_loads", b_loads),
                 ("fragment_loads", frag),
                 ("fragment_loads_per_mma", (a_loads + b_loads) / matrix),
                 ("accumulator_transfers", float(wc.accumulator_transfers)),
                 ("direct_global_stores", float(wc.direct_global_stores)),
                 ("accumulator", acc), ("warp_steps", steps),
                 ("warp_steps_per_mma", steps / matrix),
                 ("staged_chunks", float(chunks)),
                 ("staged_chunks_per_thread", math.ceil(staged / STAGING_CHUNK_BYTES) / t),
                 ("misaligned_chunks", misaligned),
                 ("staging", staging),
                 ("independent_elements", float(candidate.remaining_elements)),
                 ("elided_independent_elements", float(candidate.elided_elements)),
                 ("issue", issue),
                 ("fragment_registers_per_lane", float(candidate.fragment_scalars)),
                 ("registers", regs), ("register_cap", float(cap or 0)),
                 ("spill", spill), ("group_shared_bytes", float(shared)),
                 ("resident_subgroups", float(resident)),
                 ("sharing_groups", float(alone)), ("latency", latency),
                 ("exposed_tail", tail), ("exposed_steps", waits))
        if planned is not None:
            feats += (("ring_versions", float(planned)), ("shallow_ring", shallow))
        elif depth:
            feats += (("ring_depth", float(depth)),)
        feats += (("score", score),)
        return Priced(candidate, wc, feats, score)

    def _resident(self, g: int, threads: int, regs: float, cap: int | None, shared: int
                  ) -> int:
        """Warps per SM when every SM is filled with groups of this candidate (at least G)."""
        p = self.profile
        limits = []
        if p.registers_per_unit is not None:
            unit = p.register_allocation_unit or 1
            alloc = math.ceil(regs / unit) * unit
            if cap is not None:
                alloc = min(alloc, cap)
            limits.append(p.registers_per_unit // (alloc * threads))
        if p.shared_bytes_per_unit is not None and shared > 0:
            limits.append(p.shared_bytes_per_unit // shared)
        if p.max_resident_subgroups_per_unit is not None:
            limits.append(p.max_resident_subgroups_per_unit // g)
        if p.max_resident_groups_per_unit is not None:
            limits.append(p.max_resident_groups_per_unit)
        return g * max(1, min(limits, default=1))

    def group_terms(self, threads: int, group: GroupWorkload) -> GroupTerms:
        """Common elements (offset); few-warp and underfilled-device factors times waves."""
        k, p = self.coefficients, self.profile
        g = max(1, -(-threads // p.subgroup_width))
        small = max(1.0, k.min_group_subgroups / g)
        units = p.compute_units or 1
        # the default plan's producer warpgroup is resident beside the consumers
        ring = bool(group.ops) and all(ring_plan(p, threads, w) for w in group.ops)
        producer = k.producer_subgroups if ring else 0
        if group.programs is not None:
            per_unit = float(math.ceil(group.programs / units)) if k.whole_waves \
                else max(1.0, group.programs / units)
            target = k.fill_target_subgroups or k.target_resident_subgroups
            if k.wgmma_fill_target_subgroups and group.ops \
                    and all(wgmma_tile(p, threads, w) for w in group.ops):
                target = k.wgmma_fill_target_subgroups
            fill = max(1.0, target / ((g + producer) * per_unit))
            waves = per_unit
        else:
            fill, waves = 1.0, 1.0
        offset = group.common_elements * k.element
        feats = (("common_independent_elements", float(group.common_elements)),
                 ("subgroups", float(g)), ("small_group", small),
                 ("programs", float(group.programs) if group.programs is not None else -1.0),
                 ("producer_subgroups", float(producer)),
                 ("compute_units", float(units)), ("underfill", fill), ("waves", waves))
        return GroupTerms(offset, max(small, fill) * waves, feats)

    def split_combine(self, priced: Priced, work: MatrixWorkload, splits: int
                      ) -> float | None:
        """Issue slots that splitting ``work``'s K loop over ``splits`` programs adds to
        its priced candidate (``priced``, priced on the split workload, whose executions
        are a split's): a partial accumulator stored by every program and ``splits`` of
        them read by the last, at ``split_partial_byte`` per byte, divided by the groups
        that share a unit (``sharing_groups``); None when this record prices no split."""
        k = self.coefficients
        if not k.split_partial_byte:
            return None
        return ((splits + 1) * work.m * work.n * DTYPE_BYTES[work.acc_dtype]
                * k.split_partial_byte / priced.feature("sharing_groups"))

    def coefficients_json(self) -> dict[str, Any]:
        """Coefficient values, each fact's kind and source, and the provenance summary."""
        k = self.coefficients
        out: dict[str, Any] = {f.name: getattr(k, f.name) for f in fields(k)
                               if f.name not in ("atoms", "facts")}
        out["atoms"] = {a.atom: {"issue": a.issue, "a_load": a.a_load, "b_load": a.b_load}
                        for a in k.atoms}
        out["facts"] = [{"name": f.name, "value": f.value, "kind": f.kind, "source": f.source}
                        for f in k.facts]
        return out
