"""The matrix mapping family: thread counts, subgroup factorizations and realizations.

For an output tile ``M x N`` with contraction ``K`` and an atom ``(am, an, ak)``:

    U = M / am,  V = N / an,  Q = K / ak,  G = threads / width
    gm * gn = G,  gm * rm = U,  gn * rn = V      (all positive integers)

``gm x gn`` subgroups each own an ``rm x rn`` rectangle of resident atoms; the
distribution is ``tilec.exec.matrix_distribution``. The one-atom reference
(round-robin atoms with uniform subgroup job tails) is always a candidate for
fragment atoms. An exact thread request that is not a whole number of
subgroups uses the checked scalar reference instead of partially participating
matrix operations.

Everything that can make a candidate illegal is checked here, before any cost
basis sees it: exact coverage, the atom's descriptor rule, the thread limit, the
realization's fragment budget and, where the profile knows it, the register
file. A cost coefficient can never reach this code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Any

from tilec.exec import (
    MatrixAtom,
    MatrixDistribution,
    TargetProfile,
    matrix_distribution,
    one_atom_distribution,
)
from tilec.ir.atoms import (
    MMA_ATOMS,
    SIMDGROUP_ATOM,
    SIMDGROUP_BLOCK,
    SWIZZLE_ALIGN,
    WgmmaAtom,
    row_pad,
    swizzle_cols,
    wgmma_of,
)

from .options import PlannerOptions
from .threads import ThreadSearch, factorizations, thread_search
from .work import DTYPE_BYTES, GroupWorkload, MatrixWorkload, elided_elements

__all__ = ["REALIZATIONS",
           "Realization", "MatrixCandidate", "Rejection", "WorkCounts", "work_counts",
           "fragment_scalars", "minimum_fragment_budget", "OpEnumeration", "Enumeration",
           "enumerate_group", "atoms_for", "mpp_descriptor_rule", "WGMMA_ATOM_IDS",
           "WGMMA_OTHER_REGISTERS", "wgmma_rule", "PIPELINE_VERSIONS", "ring_extra"]

class Realization(StrEnum):
    """How a matrix operation is realized: a closed set (members equal their names, so
    reports and JSON read the same)."""

    ONE_ATOM = "one_atom"
    """The one-atom reference: each subgroup issues one atom at a time."""
    RECTANGLE = "rectangle"
    """A fragment rectangle of atoms per subgroup, in registers."""
    WGMMA = "wgmma"
    """A fragment rectangle issued by warpgroup instructions reading shared memory."""
    SIMDGROUP = "simdgroup"
    """A fragment rectangle of MSL ``simdgroup_matrix`` instructions on opaque fragments
    (metal:m1): A, B and C cross into the fragments through group memory in every
    execution, the accumulator stays in the lane-FMA layout between executions."""
    MPP = "mpp"
    """An MPP rectangle (memory operands): one ``matmul2d`` per subgroup on its
    rectangle, or one of the whole group (the atom's scope); A, B and C cross into it
    through group memory in every execution (``lower/machine_mpp.py``)."""
    SCALAR = "scalar"
    """The checked scalar path (no atom)."""


REALIZATIONS = tuple(Realization)
"""Every realization kind, in a fixed order."""

FORWARDED_FAMILY = "mma_sync"
"""The atom family whose rectangles have a forwarded realization (fragments loaded by each
lane from the operands' source windows: ``MatrixCandidate.forwarded``)."""

WGMMA_ATOM_IDS = tuple(i for i in MMA_ATOMS if wgmma_of(i) is not None)
"""Atoms whose rectangles a warpgroup instruction (64 x n x 16, or 64 x n x 8 for TF32)
can realize (``ir.atoms.wgmma_of``)."""

WGMMA_EPILOGUE_PART = 4
"""Registers of one canonical part of a warpgroup accumulator (two rows by two columns of
an 8-column block): what each operand of a fused epilogue holds at a time where the tile
leaves through tensor stores, which compute the epilogue part by part. (A plan variant
without them holds the operand whole, one register per accumulator, and may spill.)"""

WGMMA_OTHER_REGISTERS = 64
"""Registers per lane a warpgroup-instruction kernel needs beside its accumulators (indices,
descriptors, copy addresses): ptxas fits the 128x128x64 bf16 kernel (64 accumulators) in
128 registers with no spill when asked for two groups per SM (CUDA 13, sm_90a), and refuses
a 256x256x64 kernel at 512 threads (128 accumulators, 128 registers per lane) outright."""


def wgmma_rule(w: MatrixWorkload, atom: MatrixAtom, g: int, gm: int, gn: int, rm: int,
               rn: int) -> str | None:
    """Why the rectangle ``gm x gn / rm x rn`` of ``atom`` at ``g`` subgroups cannot be issued
    as warpgroup instructions, or None when it can.

    A warpgroup instruction covers 64 rows (4 warps of 16) and ``n = rn * an`` columns of the
    accumulator, which is the rectangle layout exactly when every warp owns one 16-row band
    (``gn = 1``, ``rm = 1``) and warps come in whole warpgroups; its operands live in the
    128-byte swizzled canonical layout, whose column blocks are 128 bytes wide (64 elements
    of a 16-bit type, 32 of f32; K for A, N for B), and ``n`` is at most 256. The TF32
    instruction has no transpose bit: its B must be K-major (``b_major = "k"``), and the
    lowering takes its A from registers, loaded from a staged A read as it is or
    transposed."""
    am, an, _ = atom.shape
    wg = wgmma_of(atom.id)
    if wg is None:
        return f"{atom.id} has no warpgroup instruction"
    if gn != 1 or rm != 1:
        return "every warp must own one 16-row band of the tile (gn = 1, rm = 1)"
    if g % 4:
        return f"{g} subgroups are not whole warpgroups of 4"
    return wgmma_operand_rule(w, wg, rn * an)


def wgmma_operand_rule(w: MatrixWorkload, wg: WgmmaAtom, n: int) -> str | None:
    """Why warpgroup instruction ``wg`` cannot take ``w``'s operands at ``n`` accumulator
    columns, or None: ``n`` a multiple of 64 up to 256 and K a multiple of one 128-byte
    swizzle row (the operands' column blocks), B in a layout it reads (``wgmma_rule``; the
    cost basis's ``cuda_mma_v2.wgmma_tile`` asks the same of a whole tile)."""
    if n % 64 or n > 256:
        return f"N = {n} must be a multiple of 64 up to 256 (swizzled operand blocks)"
    block = swizzle_cols(wg.in_dtype)
    if w.k % block:
        return f"K = {w.k} must be a multiple of {block} (swizzled operand blocks)"
    if w.b_major not in wg.b_majors:
        return ("a TF32 warpgroup instruction reads B K-major only (32-bit operands have no "
                "transpose bit): B must be x.T of a loaded N x K tile")
    return None


SIMDGROUP_MAX_K_STEPS = 32
"""Most 8-deep K steps one execution of the simdgroup realization issues (the lowering
unrolls them: opaque fragments are never carried through a Machine loop)."""


def simdgroup_rule(w: MatrixWorkload, rm: int, rn: int) -> str | None:
    """Why the simdgroup realization cannot realize ``w`` (None when it can): f32 operands
    and accumulator under exact precision (``simdgroup_float8x8`` only: the profile catalogs
    no half or bfloat variant), at most ``SIMDGROUP_MAX_K_STEPS`` K steps per execution."""
    if w.dtype != "f32" or w.acc_dtype != "f32":
        return f"simdgroup_float8x8 takes f32 operands and accumulator, not {w.dtype}"
    if w.k // SIMDGROUP_BLOCK > SIMDGROUP_MAX_K_STEPS:
        return (f"K = {w.k} is {w.k // SIMDGROUP_BLOCK} steps of 8; the unrolled realization "
                f"issues at most {SIMDGROUP_MAX_K_STEPS}")
    return None


def mpp_descriptor_rule(atom: MatrixAtom, tm: int, tn: int, k: int) -> str | None:
    """Why a ``tm x tn x k`` operation of a descriptor atom (MPP ``matmul2d``) is illegal,
    or None. A K that is not a multiple of the static step is issued as a dynamic K, legal
    where the rule allows dynamic K tails; the reason names the scope's local tile."""
    rule = atom.descriptor
    assert rule is not None
    why = rule.check(tm, tn, k, k_is_static=k % rule.static_k_multiple == 0)
    if why is None:
        return None
    where = "the whole group tile" if atom.scope == "group" else "each subgroup's rectangle"
    return f"MPP matmul2d on {where}: {why}"


def fragment_scalars(atom: MatrixAtom, realization: Realization, rm: int = 1, rn: int = 1) -> int:
    """Explicit state per lane: the atom's own counts over the realization's rectangle."""
    if realization == Realization.SCALAR:
        return 0
    return atom.fragments.rectangle(rm, rn)


def minimum_fragment_budget(atom: MatrixAtom) -> int:
    """The smallest budget any realization of ``atom`` fits (reference 8x8: 6; MPP 8x16: 4)."""
    return atom.minimum_fragment_scalars


def atoms_for(profile: TargetProfile, families: tuple[str, ...], dtype: str,
              precision: str) -> tuple[MatrixAtom, ...]:
    """Catalog atoms of these families accepting ``dtype`` under ``precision``, in catalog order."""
    return tuple(a for a in profile.atoms if a.family in families and a.accepts(dtype, precision))


@dataclass(frozen=True)
class MatrixCandidate:
    """One legal realization of one operation at one thread count (not yet priced)."""

    op: str
    """The operation's identity."""
    threads: int
    """Threads per group."""
    subgroups: int
    """G; for the scalar reference, the subgroups its threads occupy (rounded up)."""
    realization: Realization
    """One of ``REALIZATIONS``."""
    accumulator: str
    """One of ``ACCUMULATOR_MODES``."""
    atom: MatrixAtom | None
    """The catalog atom (None for the scalar reference)."""
    distribution: MatrixDistribution | None
    """Subgroup/fragment to atom map (None for the scalar reference)."""
    fragment_scalars: int
    """Explicit fragment scalars per lane (the budgeted compiler state)."""
    overwrite: bool
    """True when realized as D = A*B (no accumulator initialization)."""
    shared_bytes: int
    """Group-shared bytes this operation still needs."""
    released_bytes: int
    """Group-shared bytes released relative to the reference staging (A+B+C+D); the bytes of
    ``pool_bytes`` count as released here and are paid through the pool."""
    ring_bytes: int
    """Group-shared bytes the lowering's ring needs beyond that staging (``ring_extra``: a
    second version of A and B, swizzle slack or row padding, barriers); the capacity check
    counts them, the seed's footprint (``shared_bytes``) does not."""
    elided_elements: int
    """Scalar elements this realization removes."""
    remaining_elements: int
    """Scalar elements of the operation's removable domains that remain."""
    forwarded: bool = False
    """A and B are read from their source windows with no shared staging (the snapshot
    forwarding proof, ``MatrixWorkload.inputs_forwardable``): each lane loads its fragment
    elements from global memory where the atom runs (``mma_sync``), or the MPP operation
    reads them as device tensors (``mpp``). Their bytes are released and no ring is
    placed."""
    pool_bytes: int = 0
    """Of ``shared_bytes``, the transient bytes in the group's reused scratch pool (a register
    accumulator crossing shared memory to change layout, its C and D at different times):
    the group pays the largest pool of its chosen candidates once, not their sum
    (``solver.Option.pool``; the lowering's ``SharedAllocator.pool``)."""
    register_a: int = 0
    """A's staging bytes (counted in ``shared_bytes``) that this warpgroup candidate does not
    need when the operation ``MatrixWorkload.a_from`` is realized by warpgroup instructions
    too: A is then that operation's accumulator in registers (``solver.Option.bonus``)."""
    ring_versions: int | None = None
    """Versions of the ring its ``ring`` operands are copied into, as the planner chose them
    (``PlannerOptions.plan_ring_versions``: one candidate per count of
    ``PIPELINE_VERSIONS``, or a ``pipeline``'s window) and counted in ``ring_bytes``; the
    lowering places this many. None: the lowering chooses (at least
    ``MatrixWorkload.min_ring_versions``, which ``ring_bytes`` counts)."""

    @property
    def label(self) -> str:
        """A short human-readable name."""
        if self.realization == Realization.SCALAR:
            return f"scalar reference @ {self.threads} threads"
        assert self.distribution is not None and self.atom is not None
        d = self.distribution
        shape = "one-atom" if self.realization == Realization.ONE_ATOM else \
            f"{d.gm}x{d.gn}/{d.rm}x{d.rn}"
        mode = self.accumulator + (" overwrite" if self.overwrite else "") \
            + (" forwarded" if self.forwarded else "") \
            + (f" ring {self.ring_versions}" if self.ring_versions is not None else "")
        return f"{self.realization} {shape} {mode} @ {self.threads}"

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description (no score; see the cost basis)."""
        return {
            "op": self.op, "threads": self.threads, "subgroups": self.subgroups,
            "realization": self.realization, "accumulator": self.accumulator,
            "overwrite": self.overwrite, "forwarded": self.forwarded,
            "atom": None if self.atom is None else self.atom.id,
            "distribution": None if self.distribution is None else self.distribution.to_json(),
            "footprint": {"shared_bytes": self.shared_bytes, "released_bytes": self.released_bytes,
                          "ring_bytes": self.ring_bytes, "pool_bytes": self.pool_bytes,
                          "register_a_bytes": self.register_a,
                          "ring_versions": self.ring_versions,
                          "fragment_scalars_per_lane": self.fragment_scalars},
            "elided_elements": self.elided_elements,
            "remaining_elements": self.remaining_elements,
        }


@dataclass(frozen=True)
class Rejection:
    """A realization that was considered and is illegal or disabled, with the reason."""

    op: str
    """The operation's identity."""
    threads: int | None
    """Thread count (None when the rejection does not depend on it)."""
    realization: Realization
    """Realization kind."""
    atom: str | None
    """Atom id, if any."""
    params: tuple[tuple[str, Any], ...]
    """Distinguishing parameters (gm, gn, accumulator, ...)."""
    reason: str
    """Why it was rejected."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description."""
        return {"op": self.op, "threads": self.threads, "realization": self.realization,
                "atom": self.atom, "params": dict(self.params), "reason": self.reason}


@dataclass(frozen=True)
class WorkCounts:
    """Derived work of one candidate (counts, not timings)."""

    matrix_issues: Fraction
    """Atom issues with nominal K: U * V * Q * E."""
    physical_matrix_issues: Fraction
    """Atom issues with the proved mean physical K (equal to nominal when unproved)."""
    input_transfers: Fraction
    """A/B fragment transfers: G*(rm+rn)*Q*E for rectangles, 2*U*V*Q*E for one-atom."""
    physical_input_transfers: Fraction
    """The same with mean physical K."""
    accumulator_transfers: Fraction
    """C/D shared fragment transfers: 2UVE, 2UVE/L resident, 0 direct."""
    direct_global_stores: Fraction
    """Fragment stores straight to global memory: U*V*E/L for direct output, else 0."""
    live_fragment_scalars: int
    """Explicit live fragment scalars per lane."""
    scalar_fmas: int
    """Scalar multiply-adds of the scalar reference (0 for atom realizations)."""

    def to_json(self) -> dict[str, float | int]:
        """A JSON-serializable description."""
        return {k: (float(v) if isinstance(v, Fraction) else v)
                for k, v in self.__dict__.items()}


def work_counts(c: MatrixCandidate, w: MatrixWorkload) -> WorkCounts:
    """The seed's derived counts for candidate ``c`` of operation ``w``."""
    zero = Fraction(0)
    e = w.executions
    if c.realization == Realization.SCALAR or c.atom is None or c.distribution is None:
        # no fragments at all: only scalar multiply-adds (with their reads) remain
        return WorkCounts(zero, zero, zero, zero, zero, zero, 0, w.m * w.n * w.k * e)
    am, an, ak = c.atom.shape
    u, v = w.m // am, w.n // an
    q = Fraction(w.k, ak)
    q_phys = w.mean_k / ak
    d = c.distribution
    issues = u * v * q * e
    phys = u * v * q_phys * e
    if c.realization == Realization.ONE_ATOM:
        inputs, phys_inputs = 2 * u * v * q * e, 2 * u * v * q_phys * e
    else:
        inputs = d.subgroups * (d.rm + d.rn) * q * e
        phys_inputs = d.subgroups * (d.rm + d.rn) * q_phys * e
    per = Fraction(u * v * e)
    # the simdgroup and MPP realizations move every accumulator block into and out of
    # their opaque state (fragments, a cooperative destination) through group memory: once
    # per execution, unless the accumulator is resident or direct, when that state stays
    # resident across the recurrence (lower/machine_simdgroup.py, lower/machine_mpp.py:
    # once per loop; an MPP operation on direct operands keeps one destination per
    # execution)
    if c.realization in (Realization.MPP, Realization.SIMDGROUP):
        once_per_loop = c.accumulator != "nonresident" \
            and not (c.realization == Realization.MPP and c.forwarded)
        crossing = 2 * per / (w.recurrence or 1) if once_per_loop else 2 * per
    else:
        crossing = zero
    if c.accumulator == "nonresident":
        acc, direct = 2 * per, zero
    elif c.accumulator == "resident":
        acc, direct = 2 * per / (w.recurrence or 1), zero
    else:
        acc, direct = zero, per / (w.recurrence or 1)
    return WorkCounts(issues, phys, inputs, phys_inputs, acc + crossing, direct,
                      c.fragment_scalars, 0)


@dataclass
class OpEnumeration:
    """Candidates of one operation at one thread count."""

    op: MatrixWorkload
    """The operation."""
    candidates: list[MatrixCandidate] = field(default_factory=list)
    """Legal candidates in deterministic order."""


@dataclass
class Enumeration:
    """Everything the family produced for one group."""

    search: ThreadSearch
    """The thread counts searched."""
    by_threads: dict[int, list[OpEnumeration]] = field(default_factory=dict)
    """Per thread count, one entry per operation (workload order)."""
    rejections: list[Rejection] = field(default_factory=list)
    """Every rejected realization with its reason, in enumeration order."""
    budget: int = 0
    """The fragment budget used."""
    enumerated: int = 0
    """Realizations examined (candidates plus rejections)."""


RING_BARRIER_BYTES = 8
"""Bytes of one ring version's ``full`` barrier (its ``empty`` one is as large)."""

PRODUCER_RING_VERSIONS = 4
"""Ring versions a warpgroup loop with a producer warpgroup gets when nothing fixes the
count (``schedule_staging.plan_staging``), before it is trimmed to fit the group's shared
memory (down to 2)."""


def fitting_versions(versions: int, fewest: int, version_bytes: int, slack: int,
                     limit: int) -> int:
    """``versions`` of a ring whose versions hold ``version_bytes`` of tiles each (plus
    ``RING_BARRIER_BYTES``) and ``slack`` bytes of alignment in all, fewer (down to
    ``fewest``) where that many would not fit ``limit`` bytes: the lowering's trim
    (``schedule_staging._ring_versions``), which the cost basis repeats to price the depth
    the lowering will place (``cuda_mma_v2.ring_depth``)."""
    while versions > fewest and versions * (version_bytes + RING_BARRIER_BYTES) + slack > limit:
        versions -= 1
    return versions

RING_BARRIER_ALIGN = 128
"""Where each of a ring's two barrier arrays starts: the warpgroup targets' shared-memory
alignment (``TargetProfile.shared_alignment`` of cuda:sm_90). Counted per operation: two
products of one loop share its barriers, so this over-counts them by one pair."""

PIPELINE_VERSIONS = (2, 3, 4)
"""Ring versions the planner enumerates for a warpgroup candidate with
``PlannerOptions.plan_ring_versions``: the ``LowerOptions.wgmma_stages`` the lowering
places (2 at least; 4 by default with a producer warpgroup, 3 without)."""


def ring_extra(w: MatrixWorkload, realization: Realization,
               versions: int | None = None) -> int:
    """Shared bytes a realization that stages A and B needs beyond one copy of them: the
    lowering double-buffers the operands it copies every execution (``w.ring_bytes()``;
    ``schedule_staging.plan_staging``: two versions at least; a warpgroup ring trims
    ``wgmma_stages`` down to 2, never below; a ``pipeline``'s window places exactly its
    count, ``MatrixWorkload.ring_versions``), not one copied once or computed in registers
    (``MatrixWorkload.a_staging``). Warpgroup buffers are 128-byte swizzled and placed
    first, one after another (``ir.allocation``): each adds what it leaves of its last
    ``SWIZZLE_ALIGN`` block (0 for every tile a warpgroup instruction takes), and the
    group's base alignment is paid once by the solver (``report._option``); a ring has a
    barrier pair per version; the others pad every row of each version (the rows as the
    lowering stages them: ``MatrixWorkload.staged_rows``). ``versions``: the
    count the planner chose (``MatrixCandidate.ring_versions``), else the fewest the
    lowering may place."""
    ring = w.ring_bytes()
    versions = versions or w.min_ring_versions
    if realization == Realization.WGMMA:
        barriers = 2 * -(-RING_BARRIER_BYTES * versions // RING_BARRIER_ALIGN) \
            * RING_BARRIER_ALIGN if ring else 0
        st = w.staging_bytes()
        pad = sum(-(st[x] * (versions if how == "ring" else 1)) % SWIZZLE_ALIGN
                  for x, how in (("A", w.a_staging), ("B", w.b_staging)))
        return (versions - 1) * ring + pad + barriers
    if realization in (Realization.RECTANGLE, Realization.ONE_ATOM, Realization.SIMDGROUP,
                       Realization.MPP):
        # every row of each staged tile is padded: A's M rows, B's K rows, or N for a
        # K-major B (the N x K tile it was loaded as, ``MatrixWorkload.staged_rows``)
        pad = row_pad(DTYPE_BYTES[w.dtype]) * DTYPE_BYTES[w.dtype]
        rows = sum(r for r, _ in w.staged_rows().values())
        extra = (versions - 1) * ring + versions * pad * rows
        if realization in (Realization.SIMDGROUP, Realization.MPP):
            # the accumulator's crossing into the fragments: one padded M x N buffer
            extra += (w.n + row_pad(DTYPE_BYTES[w.acc_dtype])) * w.m \
                * DTYPE_BYTES[w.acc_dtype]
        return extra
    return 0


REGISTER_ACCUMULATORS = (Realization.RECTANGLE, Realization.WGMMA, Realization.SIMDGROUP,
                         Realization.MPP)
"""Realizations whose accumulator rectangles live in lane registers whether or not a
recurrence is proved: C and D reach shared memory only to change layout (a repartition
through the group's scratch pool, which is reused). The one-atom reference keeps the
seed's accounting (its non-resident accumulator is a shared-memory round trip per step)."""


def _footprint(w: MatrixWorkload, accumulator: str,
               realization: Realization) -> tuple[int, int, int]:
    """(remaining shared bytes, released bytes, pool bytes) relative to the A+B+C+D
    reference staging (A and B staged; ``_candidate`` releases them for a forwarded
    candidate, which reads them from their source views). A register accumulator's carry and
    result cross shared memory at different times through the group's reused scratch pool,
    so a non-resident one counts one accumulator tile, and that tile is pool bytes: released
    here and paid once for the group by its largest pool (``solver.Option.pool``)."""
    st = w.staging_bytes()
    released, pool = 0, 0
    if accumulator in ("resident", "direct"):
        released += st["D"]
    if accumulator == "direct" or (accumulator == "nonresident"
                                   and realization in REGISTER_ACCUMULATORS):
        released += st["C"]
    if accumulator == "nonresident" and realization in REGISTER_ACCUMULATORS:
        released, pool = released + st["D"], st["D"]
    return sum(st.values()) - released + pool, released, pool


def register_limit(profile: TargetProfile, threads: int) -> int | None:
    """Registers one lane may use at ``threads`` per group (per-lane cap and register
    file share), or None when the profile states neither."""
    caps = []
    if profile.max_registers_per_lane is not None:
        caps.append(profile.max_registers_per_lane)
    if profile.registers_per_unit is not None:
        caps.append(profile.registers_per_unit // threads)
    return min(caps) if caps else None


def _accumulator_modes(w: MatrixWorkload, options: PlannerOptions, atom_id: str | None,
                       realization: Realization, rej: list[Rejection]) -> list[str]:
    """Eligible accumulator modes; records one thread-independent rejection per ineligible mode."""
    modes = ["nonresident"]

    def no(mode: str, reason: str) -> None:
        rej.append(Rejection(w.op, None, realization, atom_id, (("accumulator", mode),), reason))

    if w.recurrence is None:
        no("resident", "no proved closed recurrence (the MMA result is not the sole carry "
           "update of a flat serial loop)")
        no("direct", "no proved closed recurrence")
        return modes
    if not options.accumulator_residency:
        no("resident", "disabled by PlannerOptions.accumulator_residency")
        no("direct", "a direct output needs a resident accumulator, which is disabled")
        return modes
    modes.append("resident")
    if not w.direct_output:
        no("direct", "no direct-output proof (literal fill and exactly one global sink)")
    elif not options.direct_accumulator_store:
        no("direct", "disabled by PlannerOptions.direct_accumulator_store")
    else:
        modes.append("direct")
    return modes


def _candidate(w: MatrixWorkload, threads: int, realization: Realization, accumulator: str,
               atom: MatrixAtom | None, dist: MatrixDistribution | None, scalars: int,
               options: PlannerOptions, subgroups: int = 0,
               forwarded: bool = False, versions: int | None = None) -> MatrixCandidate:
    shared, released, pool = _footprint(w, accumulator, realization)
    ring = ring_extra(w, realization, versions)
    register_a = w.staging_bytes()["A"] if realization == Realization.WGMMA \
        and w.a_from is not None and w.a_staging == "value" and not forwarded else 0
    if forwarded:  # A and B are read where they are: no staging, no ring
        st = w.staging_bytes()
        shared, released, ring = shared - st["A"] - st["B"], released + st["A"] + st["B"], 0
    elided = elided_elements(w.domains, accumulator)
    overwrite = (realization == Realization.MPP and accumulator == "direct" and w.overwrite)
    return MatrixCandidate(w.op, threads, subgroups if dist is None else dist.subgroups,
                           realization,
                           accumulator, atom, dist, scalars, overwrite, shared, released,
                           ring, elided, w.domains.total - elided, forwarded,
                           pool, register_a, None if forwarded else versions)


def _enumerate_atom(w: MatrixWorkload, atom: MatrixAtom, threads: int, profile: TargetProfile,
                    options: PlannerOptions, budget: int, modes: list[str],
                    out: OpEnumeration, rej: list[Rejection]) -> int:
    """Candidates of ``atom`` at ``threads``; returns how many realizations were examined."""
    am, an, _ = atom.shape
    u, v = w.m // am, w.n // an
    g = threads // profile.subgroup_width
    reg_limit = register_limit(profile, threads)
    realization = Realization.MPP if atom.realization == "memory_operands" \
        else Realization.RECTANGLE
    examined = 0
    # the forwarded rectangles: mma.sync fragments loaded by each lane from global memory
    # (lower/machine_matrix) or MPP operations reading device tensors (lower/machine_mpp),
    # where the snapshot proof holds and the option asks for them
    forwarding = (options.forward_snapshots and w.inputs_forwardable
                  and ((atom.family == FORWARDED_FAMILY and realization == Realization.RECTANGLE)
                       or (atom.family == "mpp" and realization == Realization.MPP)))
    if atom.scope == "group" and g == 1:
        # execution_simdgroups<1> is execution_simdgroup: the subgroup atom's candidates
        rej.append(Rejection(w.op, threads, realization, atom.id, (),
                             "a whole-group operation of one SIMD-group is the subgroup "
                             "operation"))
        return 1

    def legal_state(kind: str, scalars: int, params: tuple[tuple[str, Any], ...],
                    rm: int = 1, rn: int = 1) -> bool:
        acc = rm * rn * atom.fragments.c
        split = f"({acc} accumulator + {scalars - acc} A/B fragment)"
        if scalars > budget:
            rej.append(Rejection(w.op, threads, kind, atom.id, params,
                                 f"fragment budget: {scalars} explicit scalars per lane {split} "
                                 f"exceed the budget of {budget}"))
            return False
        if reg_limit is not None and scalars > reg_limit:
            rej.append(Rejection(w.op, threads, kind, atom.id, params,
                                 f"register file: {scalars} fragment registers per lane {split} "
                                 f"exceed the {reg_limit} available to each of {threads} threads"))
            return False
        return True

    if realization == Realization.RECTANGLE:
        examined += 1
        scalars = fragment_scalars(atom, Realization.ONE_ATOM)
        if atom.id == SIMDGROUP_ATOM and options.simdgroup_matrix == "only" \
                and simdgroup_rule(w, 1, 1) is None:
            rej.append(Rejection(w.op, threads, Realization.ONE_ATOM, atom.id, (),
                                 "PlannerOptions.simdgroup_matrix = 'only' keeps the simdgroup "
                                 "realization"))
        elif legal_state(Realization.ONE_ATOM, scalars, ()):
            dist = one_atom_distribution(g, u, v)
            out.candidates.append(_candidate(w, threads, Realization.ONE_ATOM, "nonresident",
                                             atom, dist, scalars, options))
    for gm, gn in factorizations(g):
        params: tuple[tuple[str, Any], ...] = (("gm", gm), ("gn", gn))
        examined += 1
        if u % gm or v % gn:
            what = f"gm={gm} does not divide U={u}" if u % gm else f"gn={gn} does not divide V={v}"
            rej.append(Rejection(w.op, threads, realization, atom.id, params,
                                 f"nonexact coverage: {what}"))
            continue
        rm, rn = u // gm, v // gn
        params += (("rm", rm), ("rn", rn))
        if atom.descriptor is not None:
            tm, tn = (w.m, w.n) if atom.scope == "group" else (rm * am, rn * an)
            why = mpp_descriptor_rule(atom, tm, tn, w.k)
            if why is not None:
                rej.append(Rejection(w.op, threads, realization, atom.id, params, why))
                continue
        scalars = fragment_scalars(atom, realization, rm, rn)
        dist = matrix_distribution(gm, gn, rm, rn)
        lane_only = atom.id == SIMDGROUP_ATOM and options.simdgroup_matrix == "only" \
            and simdgroup_rule(w, rm, rn) is None
        if lane_only:
            rej.append(Rejection(w.op, threads, realization, atom.id, params,
                                 "PlannerOptions.simdgroup_matrix = 'only' keeps the simdgroup "
                                 "realization of this rectangle"))
        elif legal_state(realization, scalars, params, rm, rn):
            for mode in modes:
                if _epilogue_registers_exceed(w, mode, rm * rn * atom.fragments.c, scalars,
                                              reg_limit, threads, realization, atom.id,
                                              params, rej):
                    continue
                out.candidates.append(_candidate(w, threads, realization, mode, atom, dist,
                                                 scalars, options))
                if forwarding:
                    out.candidates.append(_candidate(w, threads, realization, mode, atom,
                                                     dist, scalars, options, forwarded=True))
        if atom.id == SIMDGROUP_ATOM and realization == Realization.RECTANGLE \
                and options.simdgroup_matrix != "off":
            examined += 1
            why = simdgroup_rule(w, rm, rn)
            if why is not None:
                rej.append(Rejection(w.op, threads, Realization.SIMDGROUP, atom.id, params, why))
            elif legal_state(Realization.SIMDGROUP, scalars, params, rm, rn):
                for mode in modes:
                    if _epilogue_registers_exceed(w, mode, rm * rn * atom.fragments.c, scalars,
                                                  reg_limit, threads, Realization.SIMDGROUP,
                                                  atom.id, params, rej):
                        continue
                    out.candidates.append(_candidate(w, threads, Realization.SIMDGROUP, mode,
                                                     atom, dist, scalars, options))
        if profile.warpgroup_mma and options.warpgroup_mma \
                and realization == Realization.RECTANGLE and atom.id in WGMMA_ATOM_IDS:
            examined += 1
            why = wgmma_rule(w, atom, g, gm, gn, rm, rn)
            if why is not None:
                rej.append(Rejection(w.op, threads, "wgmma", atom.id, params, why))
                continue
            acc = rm * rn * atom.fragments.c  # A and B stay in shared memory
            if not legal_state(Realization.WGMMA, acc, params, rm, rn):
                continue
            if reg_limit is not None and acc + WGMMA_OTHER_REGISTERS > reg_limit:
                rej.append(Rejection(w.op, threads, "wgmma", atom.id, params,
                                     f"register file: {acc} accumulators + "
                                     f"{WGMMA_OTHER_REGISTERS} other registers per lane exceed "
                                     f"the {reg_limit} available to each of {threads} threads"))
                continue
            for mode in modes:
                # the default plan's tensor stores compute a fused epilogue one register
                # part at a time (lower/machine_epilogue.py): an operand holds a part's
                # WGMMA_EPILOGUE_PART registers, not a whole fragment's
                if _epilogue_registers_exceed(w, mode, WGMMA_EPILOGUE_PART,
                                              acc + WGMMA_OTHER_REGISTERS,
                                              reg_limit, threads, Realization.WGMMA, atom.id,
                                              params, rej):
                    continue
                for versions in ring_choices(w, options):
                    out.candidates.append(_candidate(w, threads, Realization.WGMMA, mode, atom,
                                                     dist, acc, options, versions=versions))
    return examined


def ring_choices(w: MatrixWorkload, options: PlannerOptions) -> tuple[int | None, ...]:
    """The ring version counts a warpgroup candidate of ``w`` is enumerated with: with
    ``PlannerOptions.plan_ring_versions`` and operands copied into a ring, a ``pipeline``'s
    window (fixed by the program) or every count of ``PIPELINE_VERSIONS``; otherwise one
    candidate that leaves the count to the lowering (None). The fewest versions are always
    among them, so an extra version never excludes a group: its capacity check only drops
    the deeper rings that do not fit beside the group's other bytes."""
    if not options.plan_ring_versions or not w.ring_bytes():
        return (None,)
    if w.ring_versions is not None:
        return (w.ring_versions,)
    return PIPELINE_VERSIONS


def _epilogue_registers_exceed(w: MatrixWorkload, mode: str, acc: int, held: int,
                               reg_limit: int | None, threads: int, kind: Any,
                               atom_id: str, params: tuple[tuple[str, Any], ...],
                               rej: list[Rejection]) -> bool:
    """Whether a direct output's fused epilogue would overflow the register file: each of
    its tile operands (a bias row read by the accumulator's owners) holds ``acc`` more
    registers per lane beside the ``held`` ones while the epilogue runs. Records the
    rejection. (bf16 GEMM+bias+GELU at 128x256x64: 128 accumulators, 128 bias values and the
    kernel's other registers spilled; with tensor stores the warpgroup realization computes
    the epilogue part by part: ``WGMMA_EPILOGUE_PART``.)"""
    if mode != "direct" or not w.epilogue_tiles or reg_limit is None:
        return False
    need = held + w.epilogue_tiles * acc
    if need <= reg_limit:
        return False
    rej.append(Rejection(w.op, threads, kind, atom_id, params + (("accumulator", mode),),
                         f"register file: the fused epilogue's {w.epilogue_tiles} tile "
                         f"operand(s) hold {w.epilogue_tiles * acc} registers per lane beside "
                         f"{held}, more than the {reg_limit} available to each of {threads} "
                         "threads"))
    return True


def enumerate_group(work: GroupWorkload, profile: TargetProfile, options: PlannerOptions,
                    families: tuple[str, ...]) -> Enumeration:
    """Every candidate and rejection of the group's operations, atoms of ``families`` only."""
    search = thread_search(profile, options, work.exact_threads)
    budget = (options.max_fragment_scalars_per_lane if options.max_fragment_scalars_per_lane
              is not None else profile.default_fragment_budget)
    en = Enumeration(search, budget=budget)
    rej = en.rejections
    # Thread-independent eligibility, once per operation.
    plans: list[tuple[MatrixWorkload, list[tuple[MatrixAtom, list[str]]], bool]] = []
    for w in work.ops:
        usable: list[tuple[MatrixAtom, list[str]]] = []
        for atom in profile.atoms:
            if atom.family not in families:
                continue
            en.enumerated += 1
            if not atom.accepts(w.dtype, w.precision):
                why = (f"needs {atom.precision} permission" if w.dtype in atom.input_dtypes
                       else f"takes {'/'.join(atom.input_dtypes)} operands, not {w.dtype}")
                rej.append(Rejection(w.op, None, "atom", atom.id, (), why))
                continue
            if atom.scope != "subgroup" and atom.family != "mpp":
                rej.append(Rejection(w.op, None, "atom", atom.id, (),
                                     "whole-group collective scope is not part of the matrix "
                                     "mapping family (independent subgroup operations only)"))
                continue
            am, an, ak = atom.shape
            bad = [f"{name}={x} is not a multiple of {a}" for name, x, a in
                   (("M", w.m, am), ("N", w.n, an), ("K", w.k, ak)) if x % a]
            if bad:
                rej.append(Rejection(w.op, None, "atom", atom.id, (),
                                     "atom grid does not tile the operation: " + ", ".join(bad)))
                continue
            minimum = minimum_fragment_budget(atom)
            if budget < minimum:
                rej.append(Rejection(w.op, None, "atom", atom.id, (),
                                     f"fragment budget {budget} is below this realization's "
                                     f"minimum of {minimum} scalars per lane"))
                continue
            kind = Realization.MPP if atom.realization == "memory_operands" \
                else Realization.RECTANGLE
            usable.append((atom, _accumulator_modes(w, options, atom.id, kind, rej)))
        plans.append((w, usable, not usable))
    for t in search.counts:
        entries: list[OpEnumeration] = []
        for w, usable, scalar in plans:
            oe = OpEnumeration(w)
            # cross-family selection prices the checked scalar reference beside the atoms
            both = options.metal_mpp == "auto" and "mpp" in families and not scalar \
                and not search.scalar_only
            if both:
                en.enumerated += 1
                oe.candidates.append(_candidate(w, t, Realization.SCALAR, "nonresident", None,
                                                None, 0, options,
                                                -(-t // profile.subgroup_width)))
            if search.scalar_only or scalar:
                en.enumerated += 1
                if search.scalar_only:
                    rej.append(Rejection(w.op, t, "rectangle", None, (),
                                         f"{t} threads is not a whole number of "
                                         f"{profile.subgroup_width}-lane subgroups; the checked "
                                         f"scalar reference is used"))
                oe.candidates.append(_candidate(w, t, Realization.SCALAR, "nonresident", None,
                                                None, 0, options,
                                                -(-t // profile.subgroup_width)))
            else:
                for atom, modes in usable:
                    en.enumerated += _enumerate_atom(w, atom, t, profile, options, budget, modes,
                                                     oe, rej)
            entries.append(oe)
        en.by_threads[t] = entries
    return en
