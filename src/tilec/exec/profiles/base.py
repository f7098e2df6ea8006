"""TargetProfile as data: limits, atom catalog, priors, and where each number comes from.

A profile is everything the planner may know about a machine. It holds no
behaviour beyond lookups: the planner reads it, never branches on its name.
Each number a profile uses is also listed as a ``Fact`` tagged ``spec`` (a
vendor document), ``measured`` (observed here, with the benchmark and date) or
``prior`` (a replaceable assumption), with a source string.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tilec.exec.levels import CohortScope
from tilec.exec.structure import ExecStructure

__all__ = ["FACT_KINDS", "Fact", "FragmentCounts", "DescriptorRule", "MatrixAtom",
           "TargetProfile", "ATOM_FAMILIES", "ATOM_REALIZATIONS"]

FACT_KINDS = ("spec", "measured", "prior")
"""How a fact is known: a vendor specification, a measurement here, or an assumption."""

ATOM_FAMILIES = ("simdgroup", "mpp", "mma_sync", "lane_ffma")
"""Matrix atom families the mapping family can realize."""

ATOM_REALIZATIONS = ("register_fragments", "memory_operands")
"""How an atom's operands reach it: explicit per-lane fragments, or views of memory."""


@dataclass(frozen=True)
class Fact:
    """One number a profile relies on, with its kind and source."""

    name: str
    """What the number is (``shared_bytes_per_group``, ...)."""
    value: Any
    """The value (JSON-serializable)."""
    kind: str
    """One of ``FACT_KINDS``."""
    source: str
    """Where it comes from (document, benchmark and date, or why it is assumed)."""

    def __post_init__(self) -> None:
        if self.kind not in FACT_KINDS:
            raise ValueError(f"fact {self.name}: kind {self.kind!r} is not one of {FACT_KINDS}")
        if not self.source:
            raise ValueError(f"fact {self.name} needs a source")


@dataclass(frozen=True)
class FragmentCounts:
    """Per-lane explicit state of one atom, in 32-bit scalars: A, B and accumulator."""

    a: int
    """Scalars per lane holding one A fragment (0 when A is read from memory by the atom)."""
    b: int
    """Scalars per lane holding one B fragment."""
    c: int
    """Scalars per lane holding one accumulator fragment."""

    def rectangle(self, rm: int, rn: int) -> int:
        """Live scalars per lane of an rm x rn resident rectangle: rm*a + rn*b + rm*rn*c."""
        return rm * self.a + rn * self.b + rm * rn * self.c


@dataclass(frozen=True)
class DescriptorRule:
    """Shape legality of a descriptor-based atom (Apple MPP matmul2d)."""

    mn_multiple: int
    """Local M and N must be multiples of this."""
    one_of_mn_multiple: int
    """At least one of local M, N must be a multiple of this."""
    static_k_multiple: int
    """A static K must be a multiple of this."""
    dynamic_k_tails: bool
    """True when a dynamic K may have a tail."""

    def check(self, tm: int, tn: int, tk: int, k_is_static: bool = True) -> str | None:
        """None when a ``tm x tn x tk`` descriptor is legal, else the reason."""
        if tm % self.mn_multiple or tn % self.mn_multiple:
            return f"descriptor {tm}x{tn}: M and N must be multiples of {self.mn_multiple}"
        if tm % self.one_of_mn_multiple and tn % self.one_of_mn_multiple:
            return (f"descriptor {tm}x{tn}: M or N must be a multiple of "
                    f"{self.one_of_mn_multiple}")
        if k_is_static and tk % self.static_k_multiple:
            return f"descriptor K={tk}: a static K must be a multiple of {self.static_k_multiple}"
        if not k_is_static and not self.dynamic_k_tails:
            return "descriptor: dynamic K is not supported"
        return None


@dataclass(frozen=True)
class MatrixAtom:
    """One catalog entry: a subgroup (or group) matrix instruction and its contract."""

    id: str
    """Catalog identity, e.g. ``mma.m16n8k16.bf16``."""
    family: str
    """One of ``ATOM_FAMILIES``."""
    shape: tuple[int, int, int]
    """(am, an, ak): result rows, result columns and contraction depth of one issue."""
    input_dtypes: tuple[str, ...]
    """Element types of A and B it accepts (scalar type names)."""
    acc_dtype: str
    """Accumulator element type."""
    precision: str
    """Permission it needs: ``exact`` (always usable) or ``tf32`` (only under that permission)."""
    scope: str
    """Participants of one issue: ``subgroup`` or ``group`` (a whole-group collective)."""
    fragments: FragmentCounts
    """Explicit per-lane state, used for the realization's fragment budget."""
    realization: str
    """One of ``ATOM_REALIZATIONS``."""
    descriptor: DescriptorRule | None = None
    """Shape rule for descriptor atoms; None when only the atom grid must divide the tile."""
    source: str = ""
    """Where the contract comes from."""

    def __post_init__(self) -> None:
        if self.family not in ATOM_FAMILIES:
            raise ValueError(f"atom {self.id}: unknown family {self.family!r}")
        if self.realization not in ATOM_REALIZATIONS:
            raise ValueError(f"atom {self.id}: unknown realization {self.realization!r}")
        if self.scope not in ("subgroup", "group"):
            raise ValueError(f"atom {self.id}: scope must be subgroup or group")
        if min(self.shape) < 1:
            raise ValueError(f"atom {self.id}: shape {self.shape} must be positive")

    def accepts(self, dtype: str, precision: str) -> bool:
        """True when operands of ``dtype`` under ``precision`` permission may use this atom."""
        if dtype not in self.input_dtypes:
            return False
        return self.precision == "exact" or self.precision == precision

    @property
    def minimum_fragment_scalars(self) -> int:
        """The smallest legal explicit state per lane (one atom, or the smallest descriptor)."""
        rm, rn = 1, 1
        if self.descriptor is not None:
            am, an, _ = self.shape
            rule = self.descriptor
            best = None
            for m in range(1, 5):
                for n in range(1, 5):
                    if rule.check(m * am, n * an, rule.static_k_multiple) is None:
                        s = self.fragments.rectangle(m, n)
                        if best is None or s < best[0]:
                            best = (s, m, n)
            if best is not None:
                _, rm, rn = best
        return self.fragments.rectangle(rm, rn)

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description."""
        return {"id": self.id, "family": self.family, "shape": list(self.shape),
                "inputs": list(self.input_dtypes), "acc": self.acc_dtype,
                "precision": self.precision, "scope": self.scope,
                "fragments_per_lane": [self.fragments.a, self.fragments.b, self.fragments.c],
                "realization": self.realization, "source": self.source}


@dataclass(frozen=True)
class TargetProfile:
    """Everything the planner may know about one target, as data."""

    name: str
    """Target name, e.g. ``cuda:sm_90``."""
    family: str
    """``cuda``, ``metal`` or ``cpu``."""
    description: str
    """One line for reports."""
    level_names: tuple[str, str, str, str]
    """The target's words for grid, group, subgroup and lane."""
    subgroup_width: int
    """Lanes per subgroup (CUDA warp and Metal SIMD-group: 32; CPU: 1)."""
    max_threads_per_group: int
    """Hardware limit on threads per group."""
    shared_bytes_per_group: int | None
    """Group-shared memory one group may allocate; None when the target has no such level."""
    shared_bytes_per_unit: int | None
    """Group-shared memory per compute unit (SM), when known."""
    registers_per_unit: int | None
    """32-bit registers per compute unit, when known."""
    max_registers_per_lane: int | None
    """Hardware cap on 32-bit registers per thread, when known."""
    default_fragment_budget: int
    """Default compiler-state budget: explicit fragment scalars per lane (not a register count)."""
    concurrent_subgroup_prior: int
    """Q: subgroups the whole device runs at once, a replaceable prior for the wave factor."""
    reference_threads: int
    """Threads of the reference (scalar) launch; a default, not a hardware cap."""
    atoms: tuple[MatrixAtom, ...]
    """The matrix atom catalog."""
    default_cost_basis: str | None
    """The cost basis used for matrix groups unless options choose another; None: none."""
    cohorts: tuple[CohortScope, ...] = ()
    """Cohort scopes collectives may address (e.g. Hopper warpgroups)."""
    compute_units: int | None = None
    """Compute units (SMs) of the reference device, when known."""
    max_resident_subgroups_per_unit: int | None = None
    """Subgroups (warps) one compute unit keeps resident at most, when known."""
    max_resident_groups_per_unit: int | None = None
    """Groups (blocks) one compute unit keeps resident at most, when known."""
    register_allocation_unit: int | None = None
    """Granularity of a lane's register allocation (a count is rounded up to a multiple)."""
    warpgroup_mma: bool = False
    """True when 16-bit matrix rectangles may be realized by warpgroup instructions reading
    both operands from shared memory (Hopper ``wgmma``, compiled for the ``a`` variant)."""
    shared_alignment: int | None = None
    """Byte alignment of each group-shared buffer the allocate stage places (a swizzled
    buffer aligns to ``ir.atoms.SWIZZLE_ALIGN``); None when the target has no such memory."""
    arch: str | None = None
    """The instruction-set version the target's code is built for (``sm_90``), which keys
    per-architecture data such as cost coefficients; None: not a versioned ISA."""
    async_copies: bool = False
    """True when global -> group-shared copies may complete asynchronously behind a fence
    (CUDA ``cp.async``, sm_80 and newer); the lowering otherwise stages by plain copies."""
    tensor_copies: bool = False
    """True when a box of a global array may be copied into group-shared memory by one
    thread's tensor-memory-accelerator instruction completing on a shared-memory barrier
    (CUDA ``cp.async.bulk.tensor`` with ``mbarrier``, sm_90); see docs/design/hopper.md."""
    atomic_dtypes: tuple[str, ...] | None = None
    """Element types (scalar type names) of the memory an ``atomic`` (add, max, min) may
    update; None: every type. The lowering refuses others, so that the simulator refuses
    what the target's emitter cannot print."""
    exchange_dtypes: tuple[str, ...] | None = None
    """Element types of the memory an ``atomic`` ``xchg`` or ``cas`` may update (bit
    patterns: one 32- or 64-bit word where the target has no narrower exchange); None:
    every type. The lowering refuses others, as it does ``atomic_dtypes``."""
    f64: bool = True
    """True when the target computes in 64-bit floating point; the lowering refuses an f64
    value on a target without it, so the simulator refuses what the emitter cannot print."""
    facts: tuple[Fact, ...] = ()
    """Provenance of every number above."""

    def __post_init__(self) -> None:
        if self.subgroup_width < 1 or self.max_threads_per_group < 1:
            raise ValueError(f"{self.name}: widths and limits must be positive")
        if self.max_threads_per_group % self.subgroup_width:
            raise ValueError(f"{self.name}: max threads {self.max_threads_per_group} is not a "
                             f"multiple of the subgroup width {self.subgroup_width}")
        ids = [a.id for a in self.atoms]
        if len(set(ids)) != len(ids):
            raise ValueError(f"{self.name}: duplicate atom ids {ids}")

    def structure(self, threads: int, programs: int | None = None) -> ExecStructure:
        """The execution structure of a launch with ``threads`` (whole subgroups) per group."""
        if threads % self.subgroup_width:
            raise ValueError(f"{threads} threads is not a whole number of "
                             f"{self.subgroup_width}-lane subgroups")
        return ExecStructure.for_group(programs, threads // self.subgroup_width,
                                       self.subgroup_width, self.level_names, self.cohorts)

    def fact(self, name: str) -> Fact:
        """The fact called ``name`` (``KeyError`` otherwise)."""
        for f in self.facts:
            if f.name == name:
                return f
        raise KeyError(f"{self.name} has no fact {name!r}")

    def atom(self, atom_id: str) -> MatrixAtom:
        """The catalog entry ``atom_id`` (``KeyError`` otherwise)."""
        for a in self.atoms:
            if a.id == atom_id:
                return a
        raise KeyError(f"{self.name} has no atom {atom_id!r}")

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description (limits, atoms, facts)."""
        return {
            "name": self.name, "family": self.family, "description": self.description,
            "subgroup_width": self.subgroup_width,
            "max_threads_per_group": self.max_threads_per_group,
            "shared_bytes_per_group": self.shared_bytes_per_group,
            "shared_alignment": self.shared_alignment,
            "default_fragment_budget": self.default_fragment_budget,
            "concurrent_subgroup_prior": self.concurrent_subgroup_prior,
            "registers_per_unit": self.registers_per_unit,
            "max_registers_per_lane": self.max_registers_per_lane,
            "max_resident_subgroups_per_unit": self.max_resident_subgroups_per_unit,
            "max_resident_groups_per_unit": self.max_resident_groups_per_unit,
            "register_allocation_unit": self.register_allocation_unit,
            "default_cost_basis": self.default_cost_basis,
            "atomic_dtypes": None if self.atomic_dtypes is None else list(self.atomic_dtypes),
            "exchange_dtypes": None if self.exchange_dtypes is None
            else list(self.exchange_dtypes),
            "f64": self.f64,
            "atoms": [a.to_json() for a in self.atoms],
            "facts": [{"name": f.name, "value": f.value, "kind": f.kind, "source": f.source}
                      for f in self.facts],
        }
