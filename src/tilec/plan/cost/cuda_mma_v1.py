"""Cost basis ``cuda_mma_v1``: warp-level ``mma.sync`` and exact-FP32 lane FFMA atoms.

It has the reference basis's transfer accounting (A/B fragments are loaded
from shared memory into registers, accumulators stay in registers when the
recurrence is proved) with the MPP basis's execution structure (work per
subgroup on the program's critical path, then device waves)::

    matrix_issues          U * V * Q * E                 (atom instructions)
    input_transfers        G * (rm + rn) * Q * E | 2 * U * V * Q * E
    accumulator_transfers  2UVE | 2UVE / L | 0
    direct_global_stores   U * V * E / L
    work     = matrix_issues * issue_cost[atom]
               + (input + accumulator transfers) * shared_fragment_transfer
               + direct_global_stores * direct_global_store
    pressure = max(1, fragment registers per lane / preferred_fragment_registers)
    balance  = G * jobs / (U * V)                        (one-atom tails; 1 for rectangles)
    score    = work * pressure * balance / G + independent_elements * element / G
               + G * subgroup_setup
    waves    = max(1, P * G / Q_device);  kernel_score = score * waves

Issue costs are in warp-FFMA-instruction units, priors from published dense
throughput ratios, not measurements of this compiler's code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tilec.exec import TargetProfile
from tilec.plan.cost.base import GroupTerms, Priced, coefficients_json, scalar_priced
from tilec.plan.matrix import MatrixCandidate, Realization, work_counts
from tilec.plan.work import GroupWorkload, MatrixWorkload

__all__ = ["NAME", "CudaCoefficients", "SM90_PRIORS", "SM80_PRIORS", "CudaMmaV1Basis"]

NAME = "cuda_mma_v1"
"""This basis's name and version."""


@dataclass(frozen=True)
class CudaCoefficients:
    """Replaceable coefficients of the CUDA mma basis."""

    issue_cost: tuple[tuple[str, float], ...]
    """Price of one issue of each atom id, in warp-wide FFMA instruction units."""
    shared_fragment_transfer: float
    """Price of one warp fragment load/store between shared memory and registers."""
    direct_global_store: float
    """Price of one accumulator fragment stored straight to global memory."""
    preferred_fragment_registers: float
    """Explicit fragment registers per lane above which pressure grows."""
    element: float
    """Price of one scalar element of independent work."""
    subgroup_setup: float
    """Fixed price per participating warp."""
    scalar_fma: float
    """Price of one scalar multiply-add of the checked scalar reference (with its reads)."""
    provenance: str
    """``prior`` or ``fitted on <benchmark> <date>``."""

    def issue(self, atom_id: str) -> float:
        """The issue price of ``atom_id`` (``KeyError`` when the record has none)."""
        for k, v in self.issue_cost:
            if k == atom_id:
                return v
        raise KeyError(f"no issue cost for atom {atom_id!r}")


_ISSUE = (
    # m16n8k16: 2048 MACs/instruction vs 32 for a warp FFMA, at roughly 9x the FP32 rate
    ("mma.m16n8k16.bf16", 7.0),
    ("mma.m16n8k16.f16", 7.0),
    # m16n8k8 tf32: 1024 MACs at roughly half the 16-bit rate
    ("mma.m16n8k8.tf32", 7.0),
    ("ffma", 1.0),
)

SM90_PRIORS = CudaCoefficients(
    issue_cost=_ISSUE, shared_fragment_transfer=1.0, direct_global_store=2.0,
    preferred_fragment_registers=96.0, element=1.0 / 32.0, subgroup_setup=1.0,
    scalar_fma=1.0 / 16.0,
    provenance="prior: dense-throughput ratios from NVIDIA H100/H200 spec sheets; not fitted")
"""Default coefficients for ``cuda:sm_90``."""

SM80_PRIORS = CudaCoefficients(
    issue_cost=_ISSUE, shared_fragment_transfer=1.0, direct_global_store=2.0,
    preferred_fragment_registers=96.0, element=1.0 / 32.0, subgroup_setup=1.0,
    scalar_fma=1.0 / 16.0,
    provenance="prior: dense-throughput ratios from the NVIDIA A100 spec sheet; not fitted")
"""Default coefficients for ``cuda:sm_80``."""


@dataclass(frozen=True)
class CudaMmaV1Basis:
    """The first CUDA matrix relative-work model."""

    profile: TargetProfile
    """The target whose priors are used."""
    coefficients: CudaCoefficients = SM90_PRIORS
    """The coefficient record."""
    name: str = NAME
    """Name and version."""
    families: tuple[str, ...] = ("mma_sync", "lane_ffma")
    """Atom families it prices."""

    def price(self, candidate: MatrixCandidate, work: MatrixWorkload,
              programs: int | None = None) -> Priced:
        """Features and additive score of one candidate (``programs`` is not used)."""
        k = self.coefficients
        wc = work_counts(candidate, work)
        if candidate.realization == Realization.SCALAR:
            g = max(1, -(-candidate.threads // self.profile.subgroup_width))
            score = (wc.scalar_fmas * k.scalar_fma + candidate.remaining_elements * k.element) / g
            return scalar_priced(candidate, wc, score)
        assert candidate.atom is not None and candidate.distribution is not None
        d = candidate.distribution
        issue_cost = k.issue(candidate.atom.id)
        work_value = (float(wc.matrix_issues) * issue_cost
                      + float(wc.input_transfers + wc.accumulator_transfers)
                      * k.shared_fragment_transfer
                      + float(wc.direct_global_stores) * k.direct_global_store)
        pressure = max(1.0, wc.live_fragment_scalars / k.preferred_fragment_registers)
        balance = d.subgroups * d.fragments / (d.atoms_m * d.atoms_n)
        g = d.subgroups
        score = work_value * pressure * balance / g + candidate.remaining_elements * k.element / g
        feats = (("matrix_issues", float(wc.matrix_issues)), ("issue_cost", issue_cost),
                 ("input_transfers", float(wc.input_transfers)),
                 ("accumulator_transfers", float(wc.accumulator_transfers)),
                 ("direct_global_stores", float(wc.direct_global_stores)),
                 ("fragment_registers_per_lane", float(wc.live_fragment_scalars)),
                 ("work", work_value), ("pressure", pressure), ("balance", balance),
                 ("independent_elements", float(candidate.remaining_elements)),
                 ("elided_independent_elements", float(candidate.elided_elements)),
                 ("score", score))
        return Priced(candidate, wc, feats, score)

    def group_terms(self, threads: int, group: GroupWorkload) -> GroupTerms:
        """Common elements over G plus warp setup (offset); device waves (scale)."""
        k = self.coefficients
        g = max(1, -(-threads // self.profile.subgroup_width))
        programs = group.programs if group.programs is not None else 1
        waves = max(1.0, programs * g / self.profile.concurrent_subgroup_prior)
        common = group.common_elements * k.element / g
        setup = g * k.subgroup_setup
        feats = (("common_independent_elements", float(group.common_elements)),
                 ("subgroups", float(g)), ("subgroup_setup", setup),
                 ("programs", float(programs)),
                 ("concurrent_subgroup_prior", float(self.profile.concurrent_subgroup_prior)),
                 ("waves", waves))
        return GroupTerms(common + setup, waves, feats)

    def coefficients_json(self) -> dict[str, Any]:
        """Coefficient values and their provenance."""
        return coefficients_json(self.coefficients)
