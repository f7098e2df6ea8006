"""Cost basis ``metal_mpp_memory_v3``: MPP tensor operations with memory operands.

MPP reads A and B through memory views, so this basis has no reference-style
A/B fragment copies. Per operation (U, V atom counts of 8x8; Q nominal and
Q' mean physical K atoms; E executions; L proved recurrence; G subgroups)::

    matrix_issues                U * V * Q' * E       (normalized work, not instructions)
    nominal_matrix_issues        U * V * Q  * E
    metal_mpp_operations         G * E | E            (one tensor operation per subgroup |
                                                   one of the whole group: the atom's scope)
    group_collective_operations  E (group scope, G > 1; else 0)
    memory_fragment_reads        G * (rm + rn) * Q' * E
    lhs / rhs_footprint_fragments U * Q' * E / V * Q' * E (unique footprints, asymmetric priors)
    accumulator_initializations  U * V * E / L_eff    (0 when overwrite D = A*B is proved)
    output_shared_transfers      2UVE | 2UVE / L | 0  (nonresident | resident | direct)
    operand_staging_fragments    (U + V) * Q' * E | 0  (A and B staged in group memory |
                                                   read as device tensors: forwarded)
    direct_global_stores         U * V * E / L        (direct output)
    tile_aspect, local_aspect    E * |log2(M/N)|, E * |log2(TM/TN)|   (rectangle priors)
    fragment_scalars_per_lane    2 * rm * rn          (opaque output state, not registers)

    issue          = sum(feature * coefficient)
    state_pressure = max(1, fragment_scalars_per_lane / preferred_fragment_state)
    score          = issue * state_pressure / G + independent_elements * element_weight / G
                     + group_setup
    waves          = max(1, P * G / Q_device);  kernel_score = score * waves

Dividing by G models disjoint subgroup operations on the program's critical
path; ``waves`` prices whole-device subgroup demand once with the profile's
concurrent-subgroup prior. Unknown MPP internals (registers, barriers, copies)
stay unknown: no native-8x8 issue counts are invented here.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import log2
from typing import Any

from tilec.exec import TargetProfile
from tilec.plan.cost.base import GroupTerms, Priced, coefficients_json, scalar_priced
from tilec.plan.matrix import MatrixCandidate, Realization, work_counts
from tilec.plan.work import GroupWorkload, MatrixWorkload

__all__ = ["NAME", "MppCoefficients", "M1_PRIORS", "MppMemoryV3Basis", "WEIGHTED_FEATURES"]

NAME = "metal_mpp_memory_v3"
"""This basis's name and version."""

WEIGHTED_FEATURES = ("matrix_issues", "metal_mpp_operations", "group_collective_operations",
                     "memory_fragment_reads",
                     "lhs_footprint_fragments", "rhs_footprint_fragments",
                     "accumulator_initializations", "output_shared_transfers",
                     "operand_staging_fragments", "direct_global_stores", "tile_aspect",
                     "local_aspect")
"""Features summed into ``issue``, each with the coefficient of the same name."""


@dataclass(frozen=True)
class MppCoefficients:
    """Replaceable coefficients of the MPP v3 basis (one per weighted feature plus priors)."""

    matrix_issues: float
    """Per normalized 8x8x8 matrix atom."""
    metal_mpp_operations: float
    """Per subgroup tensor operation (fixed overhead of one descriptor call)."""
    group_collective_operations: float
    """Per whole-group operation of more than one SIMD-group (a prior for the collective's
    internal coordination, which the headers do not describe)."""
    memory_fragment_reads: float
    """Per A/B memory fragment request."""
    lhs_footprint_fragments: float
    """Per unique A fragment (reuse prior for the left operand)."""
    rhs_footprint_fragments: float
    """Per unique B fragment (reuse prior for the right operand)."""
    accumulator_initializations: float
    """Per accumulator atom initialized."""
    output_shared_transfers: float
    """Per accumulator fragment moved through group memory."""
    operand_staging_fragments: float
    """Per A/B fragment written to group memory by the staging (none for an operation
    that reads its operands as device tensors, ``MatrixCandidate.forwarded``)."""
    direct_global_stores: float
    """Per accumulator fragment stored straight to global memory."""
    tile_aspect: float
    """Per execution and octave of group-tile elongation."""
    local_aspect: float
    """Per execution and octave of subgroup-rectangle elongation."""
    preferred_fragment_state: float
    """Opaque output scalars per lane above which state pressure grows."""
    element_weight: float
    """Per scalar element of independent work."""
    group_setup: float
    """Fixed price per group."""
    scalar_fma: float
    """Per scalar multiply-add of the checked scalar reference."""
    provenance: str
    """``prior`` or ``fitted on <benchmark> <date>``."""


M1_PRIORS = MppCoefficients(
    matrix_issues=1.0, metal_mpp_operations=8.0, group_collective_operations=16.0,
    memory_fragment_reads=0.5,
    lhs_footprint_fragments=0.25, rhs_footprint_fragments=0.125,
    accumulator_initializations=0.25, output_shared_transfers=1.0,
    operand_staging_fragments=0.25, direct_global_stores=1.0,
    tile_aspect=2.0, local_aspect=1.0, preferred_fragment_state=32.0, element_weight=1.0 / 32.0,
    group_setup=16.0, scalar_fma=1.0 / 64.0,
    provenance="prior: bootstrap weights in the seed's v3 structure; nothing fitted yet")
"""Default coefficients for ``metal:m1``."""


@dataclass(frozen=True)
class MppMemoryV3Basis:
    """The MPP memory-operand relative-work model, version 3."""

    profile: TargetProfile
    """The target whose priors are used (concurrent-subgroup prior)."""
    coefficients: MppCoefficients = M1_PRIORS
    """The coefficient record."""
    name: str = NAME
    """Name and version."""
    families: tuple[str, ...] = ("mpp",)
    """Atom families it prices."""

    def price(self, candidate: MatrixCandidate, work: MatrixWorkload,
              programs: int | None = None) -> Priced:
        """Features and additive score of one candidate (``programs`` is not used)."""
        k = self.coefficients
        wc = work_counts(candidate, work)
        if candidate.realization == Realization.SCALAR:
            g = max(1, -(-candidate.threads // self.profile.subgroup_width))
            score = (wc.scalar_fmas * k.scalar_fma
                     + candidate.remaining_elements * k.element_weight) / g
            return scalar_priced(candidate, wc, score)
        assert candidate.atom is not None and candidate.distribution is not None
        d = candidate.distribution
        am, an, ak = candidate.atom.shape
        e = work.executions
        group_scope = candidate.atom.scope == "group"
        q_phys = float(work.mean_k) / ak
        recurrence = work.recurrence if candidate.accumulator != "nonresident" else None
        inits = 0.0 if candidate.overwrite else d.atoms_m * d.atoms_n * e / (recurrence or 1)
        values = {
            "matrix_issues": float(wc.physical_matrix_issues),
            "metal_mpp_operations": float((1 if group_scope else d.subgroups) * e),
            "group_collective_operations": float(e if group_scope and d.subgroups > 1 else 0),
            "memory_fragment_reads": float(wc.physical_input_transfers),
            "lhs_footprint_fragments": d.atoms_m * q_phys * e,
            "rhs_footprint_fragments": d.atoms_n * q_phys * e,
            "accumulator_initializations": inits,
            "output_shared_transfers": float(wc.accumulator_transfers),
            "operand_staging_fragments": 0.0 if candidate.forwarded
            else (d.atoms_m + d.atoms_n) * q_phys * e,
            "direct_global_stores": float(wc.direct_global_stores),
            "tile_aspect": e * abs(log2((d.atoms_m * am) / (d.atoms_n * an))),
            "local_aspect": e * abs(log2((d.rm * am) / (d.rn * an))),
        }
        issue = sum(values[f] * getattr(k, f) for f in WEIGHTED_FEATURES)
        pressure = max(1.0, wc.live_fragment_scalars / k.preferred_fragment_state)
        g = d.subgroups
        score = issue * pressure / g + candidate.remaining_elements * k.element_weight / g
        feats = (("nominal_matrix_issues", float(wc.matrix_issues)),) \
            + tuple((f, values[f]) for f in WEIGHTED_FEATURES) \
            + (("fragment_scalars_per_lane", float(wc.live_fragment_scalars)),
               ("independent_elements", float(candidate.remaining_elements)),
               ("elided_independent_elements", float(candidate.elided_elements)),
               ("issue", issue), ("state_pressure", pressure), ("score", score))
        return Priced(candidate, wc, feats, score)

    def group_terms(self, threads: int, group: GroupWorkload) -> GroupTerms:
        """Common elements over G plus group setup (offset); subgroup waves (scale)."""
        k = self.coefficients
        g = max(1, -(-threads // self.profile.subgroup_width))
        programs = group.programs if group.programs is not None else 1
        waves = max(1.0, programs * g / self.profile.concurrent_subgroup_prior)
        common = group.common_elements * k.element_weight / g
        feats = (("common_independent_elements", float(group.common_elements)),
                 ("subgroups", float(g)), ("group_setup", k.group_setup),
                 ("programs", float(programs)),
                 ("concurrent_subgroup_prior", float(self.profile.concurrent_subgroup_prior)),
                 ("waves", waves))
        return GroupTerms(common + k.group_setup, waves, feats)

    def coefficients_json(self) -> dict[str, Any]:
        """Coefficient values and their provenance."""
        return coefficients_json(self.coefficients)
