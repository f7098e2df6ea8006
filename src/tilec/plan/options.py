"""PlannerOptions: every switch the planner seed names, with its default.

Options choose among legal realizations and bound the search; none of them
makes an illegal realization legal. A flag that a later pass consumes (barrier
coalescing, copy batching, epilogue fusion, traversal) is declared here with
the seed's default so that reports can record it even before that pass exists
(copy batching keeps the lowering's earlier sequence by default instead: see its field).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["PlannerOptions", "COST_BASES", "SHARED_SSA_MODES"]

SHARED_SSA_MODES = ("retain", "recompute", "materialize", "expensive_only")
"""The values ``PlannerOptions.shared_ssa`` may take."""

COST_BASES = ("metal_simdgroup_reference_v1", "metal_mpp_memory_v3", "metal_cross_family_v1",
              "cuda_mma_v1",
              "cuda_mma_v2", "cuda_mma_v3", "cuda_mma_v4", "cuda_mma_v5",
              "cuda_mma_v6")
"""Names a ``cost_basis`` override may take."""


@dataclass(frozen=True)
class PlannerOptions:
    """Planner configuration (frozen; build a new one with ``dataclasses.replace``)."""

    enabled: bool = True
    """Run the planner; False keeps the reference path for every group (differential tests)."""
    map_gpu_cooperative_programs: bool = True
    """Let an unbound parallel program containing reassociable MMA try the cooperative mapper."""
    threads: int | None = None
    """Exact threads per group; None searches every complete-subgroup count."""
    max_thread_candidates: int = 32
    """Most thread counts an automatic search may try; more is a diagnostic, never a prefix."""
    max_fragment_scalars_per_lane: int | None = None
    """Compiler-state budget in explicit fragment scalars per lane; None: the profile default."""
    accumulator_residency: bool = True
    """Allow resident-accumulator realizations of a proved closed recurrence."""
    direct_accumulator_store: bool = True
    """Allow direct accumulator output (removes C and D storage) when its proof is present."""
    warpgroup_mma: bool = True
    """Consider warpgroup-instruction (``wgmma``) realizations where the profile has them;
    the CUDA backend turns this off for devices other than sm_90 (no ``wgmma`` there)."""
    tf32_operand_swap: bool = True
    """Where ``warpgroup_mma`` applies, compute a TF32 product whose B is N-major as its
    transpose ``B.T @ A.T`` (``lower/operand_swap.py``): the TF32 warpgroup instruction
    reads a K-major B only. False keeps every product as written (its TF32 products then
    run on ``mma.m16n8k8.tf32``)."""
    simdgroup_matrix: str = "off"
    """The ``simdgroup`` realization of the metal:m1 8x8 atom (MSL ``simdgroup_matrix``
    instructions on opaque fragments, ``lower/machine_simdgroup.py``): ``"auto"`` enumerates
    it beside the lane-FMA rectangles and the cost basis chooses, ``"off"`` (the default:
    nothing has measured it on an Apple GPU, and the seed's reference plans stay the lane
    realization's) forbids it, ``"only"`` drops the lane-FMA rectangles of the atom so that
    it is chosen wherever it is legal (a plan variant's ``simdgroup_matrix``)."""
    metal_mpp: bool | str = "off"
    """The MPP ``matmul2d`` family on Metal (``lower/machine_mpp.py``): ``"off"`` (default,
    or False: the SIMD-group family and its reference basis), ``"only"`` (or True: the MPP
    family and its v3 basis; a group with no legal MPP plan falls back to the SIMD-group
    family, and the plan says why), ``"auto"`` (cross-family: MPP, SIMD-group and scalar
    candidates of every group enumerated together and priced by
    ``metal_cross_family_v1``, each in its own family's structure on the common unit of one
    8x8x8 atom issue; the cheapest is chosen and the plan reports each family's best).
    Normalized to the string in ``__post_init__``."""
    bounded_k_views: bool = False
    """Bounded K views (physical K below the logical tile): the planner prices the proved
    mean physical K, and the lowering realizes it (``lower/machine_bounded_k.py``) for lane
    FMA, ``mma.sync`` atom and scalar reference ``mma``s: K steps past the physical K are
    skipped and synchronous copies do not stage the padded tail's chunks (a ``-0.0``
    accumulator still becomes ``+0.0`` as the padded suffix makes it). Default off; a plan
    variant (``variant={"bounded_k_views": True}``)."""
    forward_snapshots: bool = False
    """Read matrix operands straight from their source windows where
    ``plan/proofs/snapshot_forwarding.py`` proves a loaded tile may be read there instead of
    a compiler-owned copy (``MatrixWorkload.inputs_forwardable``): the planner then also
    enumerates ``mma.sync`` rectangles whose lanes load their fragment elements from global
    memory, with no shared staging (``MatrixCandidate.forwarded``), and the cost basis
    chooses. Default off: not measured (skinny M and tiny K are where staging may not pay).
    The proof's facts are in the plan report whether or not it is on."""
    bounded_mn_views: bool = False
    """Bounded M/N input views: where ``plan/proofs/bounded_views.py`` proves that the
    bounded store of an ``mma``'s accumulator starts where A's rows (B's columns) do, the
    lowering (``lower/machine_bounded_mn.py``) skips the fragment loads and matrix steps of
    the subgroup rectangles the store does not write, past the arrays' edges (and of the
    unwritten atom rows and columns of a partial one) for lane FMA, ``mma.sync`` atom and
    scalar reference ``mma``s; every stored element is computed as before (NaN, infinities
    and signed zeros included). Default off; a plan variant
    (``variant={"bounded_mn_views": True}``)."""
    bounded_store: bool = False
    """Guarded output prefixes for the direct accumulator store; an optional capability."""
    fuse_matrix_epilogues: bool = True
    """Fuse closed scalar epilogue DAGs (a cast to a 16-bit output, a scale, an activation)
    into the direct accumulator output where ``plan/proofs/scalar_epilogue.py`` proves it
    may: the map runs on the accumulator's registers, which are stored directly instead of
    passing through shared memory. Default on: the H100 sweep (benchmarks/cuda_ws.py
    ``--out same`` at eab1943) ran bf16-output 128x128x64 tiles 1.6x faster with it at
    4096^3, and 128x256x64 tiles fit only with it (without, the accumulator's trip leaves
    no room for the ring: the checked scalar reference, 30x slower). False keeps the
    trip."""
    coalesce_group_barriers: bool = True
    """Dependence-aware coalescing of the mapper's own group barriers."""
    elide_independent_subgroup_barriers: bool = False
    """Weaken each of the lowering's own group barriers that
    ``plan/proofs/independent_subgroups.py`` proves orders only subgroup-local accesses to a
    subgroup barrier (``barrier.subgroup``: ``__syncwarp`` on CUDA, ``simdgroup_barrier``
    on Metal), and remove one that orders only each thread's own accesses. Needs the planner
    and ``coalesce_group_barriers``; the group report gives the proof per site
    (``independent_subgroups``). Default off, as the seed says: removing fences is not a
    measured gain (its fixed-geometry replay got slower)."""
    shared_ssa: str = "retain"
    """How a pure tile value with several consumers (``e = exp(x - m)`` read by a sum and
    by a product) is realized (``plan/shared_ssa.py``; seed 001, "Shared SSA preserves a
    resource-planning choice"): ``"retain"`` (default, the code before this option) computes
    it once and keeps it (registers on a GPU, a local array on cpu); ``"recompute"`` computes
    it again for each consumer; ``"materialize"`` stores it once to compiler-owned shared
    memory and loads it at each consumer; ``"expensive_only"`` recomputes values made of
    cheap arithmetic only and retains those with a transcendental or a division. The plan
    report lists each value, its choice and why."""
    max_copy_batch: int | None = None
    """Synchronous staged copies (``lower/machine_copies.py``): ``B`` in 1..16 copies the
    chunks (16-byte vectors) of an issue's consecutive synchronous copies ``B`` at a time,
    their loads then their stores (1 = the reference sequence: load a chunk, store it);
    None (default): each copy's whole per-thread share is loaded, then stored, copy after
    copy (the code before this option). A plan variant (``variant={"max_copy_batch": 8}``);
    the group report says the requested and the realized batch (``copy_batch``)."""
    program_traversal: str | tuple[str, int] | None = None
    """The numbering of each grid's programs (``ir.traversal``): ``"grouped:G"`` takes the
    last two axes ``G`` rows at a time (a matrix product's L2 reuse); None: row-major. The
    lowering marks grids of rank 2 or more with it (the Machine form's ``traversal``, checked
    to be a bijection by the verifier) and CUDA numbers its blocks so; a plan variant
    (``variant={"program_traversal": "grouped:8"}``), so measured selection can try it."""
    plan_ring_versions: bool = False
    """Pipeline planning before the final group selection (seed 000, "Pipeline planning
    happens before final group selection"): every warpgroup (``wgmma``) candidate whose
    operands are copied into a ring is enumerated once per ring version count in
    ``matrix.PIPELINE_VERSIONS`` (2 to 4, the ``wgmma_stages`` the lowering supports), its
    capacity check counts that many versions, the cost basis prices what a shallower ring
    exposes (``ring_version_scale``), and the selected count is recorded in the plan
    (``MatrixCandidate.ring_versions``), which the lowering then places instead of choosing
    its own. The minimum ring stays a candidate, so an extra version never excludes a group.
    Default off: the versions change plans and programs, and none of it has been measured as
    a whole; a plan variant (``variant={"plan_ring_versions": True}``)."""
    cost_basis: str | None = None
    """Override the target's default cost basis (one of ``COST_BASES``)."""

    def __post_init__(self) -> None:
        if self.threads is not None and self.threads < 1:
            raise ValueError(f"threads must be positive, got {self.threads}")
        if self.simdgroup_matrix not in ("auto", "off", "only"):
            raise ValueError(f"simdgroup_matrix must be 'auto', 'off' or 'only', got "
                             f"{self.simdgroup_matrix!r}")
        mpp = {False: "off", True: "only"}.get(self.metal_mpp, self.metal_mpp) \
            if isinstance(self.metal_mpp, bool) else self.metal_mpp
        if mpp not in ("off", "only", "auto"):
            raise ValueError(f"metal_mpp must be 'off', 'only', 'auto' or a bool, got "
                             f"{self.metal_mpp!r}")
        object.__setattr__(self, "metal_mpp", mpp)
        if self.max_thread_candidates < 1:
            raise ValueError(f"max_thread_candidates must be positive, got "
                             f"{self.max_thread_candidates}")
        budget = self.max_fragment_scalars_per_lane
        if budget is not None and budget < 0:
            raise ValueError("max_fragment_scalars_per_lane must be non-negative")
        if self.shared_ssa not in SHARED_SSA_MODES:
            raise ValueError(f"shared_ssa must be one of {', '.join(SHARED_SSA_MODES)}, got "
                             f"{self.shared_ssa!r}")
        b = self.max_copy_batch
        if b is not None and (not isinstance(b, int) or isinstance(b, bool) or not 1 <= b <= 16):
            raise ValueError(f"max_copy_batch must be None or an integer in [1, 16], got {b!r}")
        if self.program_traversal is not None:
            from tilec.ir.traversal import parse_traversal

            why = parse_traversal(self.program_traversal)
            if isinstance(why, str):
                raise ValueError(why)
        if self.cost_basis is not None and self.cost_basis not in COST_BASES:
            raise ValueError(f"unknown cost basis {self.cost_basis!r}; known: "
                             f"{', '.join(COST_BASES)}")

    def to_json(self) -> dict[str, Any]:
        """Every option and its value."""
        return asdict(self)
