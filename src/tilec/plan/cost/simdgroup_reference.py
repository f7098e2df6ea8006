"""Cost basis ``metal_simdgroup_reference_v1``: the seed's SIMD-group reference model.

For an operation executed E times with a proved resident recurrence of length L
(atom counts U, V, Q; G subgroups; R live fragment scalars per lane)::

    matrix issues I        = U * V * Q * E   (priced matrix_issue each for the lane-FMA
                                              rectangles, simdgroup_issue for the simdgroup
                                              realization)
    input transfers        = G * (rm + rn) * Q * E        rectangle
                           = 2 * U * V * Q * E            one-atom reference
    accumulator transfers  = 2UVE | 2UVE / L | 0          nonresident | resident | direct
                             + 2UVE                       simdgroup realization (the
                                                          crossing into opaque fragments)
    direct global stores   = U * V * E / L                direct output only
    work     = I * matrix_issue + (inputs + accumulator + direct stores) * shared_fragment_transfer
    pressure = max(1, R / preferred_fragment_scalars_per_lane)
    parallel = max(1, min(preferred_subgroups, U*V) / G)
    score    = sum(work * pressure * parallel) + independent_elements * independent_element
               + G * subgroup_setup

Transfers count subgroup fragment operations, not DRAM bytes; R is logical
live state, not a register allocation. The removable scalar domains of each
operation are priced with its candidate (before Pareto pruning); the common
scalar work and the setup are the group terms. Logical programs enter through
a coarse wave prior ``max(1, P / preferred_programs)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tilec.exec import TargetProfile
from tilec.plan.cost.base import GroupTerms, Priced, coefficients_json, scalar_priced
from tilec.plan.matrix import MatrixCandidate, Realization, work_counts
from tilec.plan.work import GroupWorkload, MatrixWorkload

__all__ = ["NAME", "ReferenceCoefficients", "M1_PRIORS", "SimdgroupReferenceBasis"]

NAME = "metal_simdgroup_reference_v1"
"""This basis's name and version."""


@dataclass(frozen=True)
class ReferenceCoefficients:
    """Replaceable coefficients of the reference basis."""

    matrix_issue: float
    """Price of one 8x8x8 atom issue (the unit of this basis): what the lane-FMA
    realization spends on one (16 FMAs and their operand reads per lane)."""
    simdgroup_issue: float
    """Price of one ``simdgroup_multiply_accumulate`` with its two ``simdgroup_load``s
    amortized (the simdgroup realization); a prior, never measured here."""
    shared_fragment_transfer: float
    """Price of one subgroup fragment transfer to or from group memory."""
    preferred_fragment_scalars_per_lane: float
    """Live state above which the pressure factor grows."""
    preferred_subgroups: int
    """Subgroups below which the parallel factor penalizes a candidate."""
    independent_element: float
    """Price of one scalar element of address/guard/copy work outside the atom."""
    subgroup_setup: float
    """Fixed price per participating subgroup."""
    preferred_programs: int
    """Programs one wave holds in the coarse wave prior."""
    scalar_fma: float
    """Price of one scalar multiply-add of the checked scalar reference (with its reads)."""
    provenance: str
    """``prior`` or ``fitted on <benchmark> <date>``."""


M1_PRIORS = ReferenceCoefficients(
    matrix_issue=1.0, simdgroup_issue=0.5, shared_fragment_transfer=1.0,
    preferred_fragment_scalars_per_lane=32.0,
    preferred_subgroups=4, independent_element=1.0 / 32.0, subgroup_setup=16.0,
    preferred_programs=64, scalar_fma=1.0 / 64.0,
    provenance="prior: bootstrap relative-work weights (seed 000); nothing fitted yet")
"""Default coefficients for ``metal:m1``."""


@dataclass(frozen=True)
class SimdgroupReferenceBasis:
    """The SIMD-group reference relative-work model."""

    profile: TargetProfile
    """The target whose priors are used."""
    coefficients: ReferenceCoefficients = M1_PRIORS
    """The coefficient record."""
    name: str = NAME
    """Name and version."""
    families: tuple[str, ...] = ("simdgroup",)
    """Atom families it prices."""

    def price(self, candidate: MatrixCandidate, work: MatrixWorkload,
              programs: int | None = None) -> Priced:
        """Features and additive score of one candidate (``programs`` is not used)."""
        k = self.coefficients
        wc = work_counts(candidate, work)
        elements = candidate.remaining_elements * k.independent_element
        if candidate.realization == Realization.SCALAR:
            score = float(wc.scalar_fmas) * k.scalar_fma + elements
            return scalar_priced(candidate, wc, score)
        assert candidate.atom is not None and candidate.distribution is not None
        d = candidate.distribution
        transfers = wc.input_transfers + wc.accumulator_transfers + wc.direct_global_stores
        issue = k.simdgroup_issue if candidate.realization == Realization.SIMDGROUP \
            else k.matrix_issue
        work_value = float(wc.matrix_issues) * issue \
            + float(transfers) * k.shared_fragment_transfer
        pressure = max(1.0, wc.live_fragment_scalars / k.preferred_fragment_scalars_per_lane)
        parallel = max(1.0, min(k.preferred_subgroups, d.atoms_m * d.atoms_n) / d.subgroups)
        score = work_value * pressure * parallel + elements
        feats = (("matrix_issues", float(wc.matrix_issues)),
                 ("input_transfers", float(wc.input_transfers)),
                 ("accumulator_transfers", float(wc.accumulator_transfers)),
                 ("direct_global_stores", float(wc.direct_global_stores)),
                 ("live_fragment_scalars", float(wc.live_fragment_scalars)),
                 ("work", work_value), ("pressure", pressure), ("parallel", parallel),
                 ("independent_elements", float(candidate.remaining_elements)),
                 ("elided_independent_elements", float(candidate.elided_elements)),
                 ("score", score))
        return Priced(candidate, wc, feats, score)

    def group_terms(self, threads: int, group: GroupWorkload) -> GroupTerms:
        """Common scalar work and subgroup setup (offset); the coarse program wave (scale)."""
        k = self.coefficients
        g = -(-threads // self.profile.subgroup_width)
        common = group.common_elements * k.independent_element
        setup = g * k.subgroup_setup
        programs = group.programs if group.programs is not None else 1
        waves = max(1.0, programs / k.preferred_programs)
        feats = (("common_independent_elements", float(group.common_elements)),
                 ("subgroups", float(g)), ("subgroup_setup", setup),
                 ("programs", float(programs)), ("program_waves", waves))
        return GroupTerms(common + setup, waves, feats)

    def coefficients_json(self) -> dict[str, Any]:
        """Coefficient values and their provenance."""
        return coefficients_json(self.coefficients)
