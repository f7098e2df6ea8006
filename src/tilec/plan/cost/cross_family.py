"""Cost basis ``metal_cross_family_v1``: MPP, SIMD-group and scalar candidates of one group
priced together (``PlannerOptions.metal_mpp = "auto"``).

The seed keeps one basis per group because scores of different bases are not comparable in
general, and says automatic cross-family selection is absent there. This basis makes one
comparison explicit instead of implicit: each candidate is priced in its own family's
structure (an MPP candidate by ``metal_mpp_memory_v3``, a SIMD-group candidate of the lane
or ``simdgroup`` realization and the checked scalar reference by
``metal_simdgroup_reference_v1``), and both bases count one 8x8x8 atom issue of the
lane-FMA realization as 1.0, which is the common unit; ``mpp_scale`` (a prior, 1.0) converts
MPP scores into it. The group part (common work, setup, waves) is the reference basis's,
one for every candidate of a thread count. Every priced candidate keeps its own basis's
features (``family_of`` says which formula priced it).
The plan report names each family's best score beside the choice
(``family_summary``). Nothing here is measured: no Apple GPU has run either family.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from tilec.exec import TargetProfile
from tilec.plan.cost.base import GroupTerms, Priced
from tilec.plan.cost.mpp_memory_v3 import MppMemoryV3Basis
from tilec.plan.cost.simdgroup_reference import SimdgroupReferenceBasis
from tilec.plan.matrix import MatrixCandidate, Realization
from tilec.plan.work import GroupWorkload, MatrixWorkload

__all__ = ["NAME", "CrossFamilyBasis", "family_of", "family_summary"]

NAME = "metal_cross_family_v1"
"""This basis's name and version."""


def family_of(candidate: MatrixCandidate) -> str:
    """``mpp``, ``simdgroup`` (the SIMD-group family: lane-FMA, one-atom and ``simdgroup``
    realizations of the 8x8 atom) or ``scalar``."""
    if candidate.realization == Realization.SCALAR or candidate.atom is None:
        return "scalar"
    return candidate.atom.family


@dataclass(frozen=True)
class CrossFamilyBasis:
    """Each family in its own basis, on the common unit of one 8x8x8 atom issue."""

    profile: TargetProfile
    """The target whose priors are used."""
    mpp_scale: float = 1.0
    """MPP v3 score units per reference-basis unit (a prior: both count an 8x8x8 issue as 1)."""
    name: str = NAME
    """Name and version."""
    families: tuple[str, ...] = ("simdgroup", "mpp")
    """Atom families it prices (the scalar reference beside them)."""
    reference: SimdgroupReferenceBasis = field(init=False)
    """The SIMD-group and scalar formula."""
    mpp: MppMemoryV3Basis = field(init=False)
    """The MPP formula."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "reference", SimdgroupReferenceBasis(self.profile))
        object.__setattr__(self, "mpp", MppMemoryV3Basis(self.profile))

    def price(self, candidate: MatrixCandidate, work: MatrixWorkload,
              programs: int | None = None) -> Priced:
        """The candidate priced by its family's basis."""
        fam = family_of(candidate)
        if fam == "mpp":
            p = self.mpp.price(candidate, work, programs)
            p = replace(p, score=p.score * self.mpp_scale)
        else:
            p = self.reference.price(candidate, work, programs)
        return p

    def group_terms(self, threads: int, group: GroupWorkload) -> GroupTerms:
        """The reference basis's group part (one per thread count, whatever the family)."""
        return self.reference.group_terms(threads, group)

    def coefficients_json(self) -> dict[str, Any]:
        """Both bases' coefficients and the scale between them."""
        return {"mpp_scale": {"value": self.mpp_scale,
                              "provenance": "prior: both bases count one 8x8x8 issue as 1"},
                "metal_simdgroup_reference_v1": self.reference.coefficients_json(),
                "metal_mpp_memory_v3": self.mpp.coefficients_json()}


def family_summary(priced: list[Priced], threads: int, chosen: tuple[Priced, ...]) -> list[str]:
    """One line per operation: the chosen family and each family's best score at
    ``threads`` (or why a family has no candidate there)."""
    out = []
    for ch in chosen:
        op = ch.candidate.op
        best: dict[str, float] = {}
        for p in priced:
            c = p.candidate
            if c.op == op and c.threads == threads:
                f = family_of(c)
                best[f] = min(best.get(f, p.score), p.score)
        # the solver takes the lowest-scoring combination that fits the group memory, so a
        # family whose best scores below the chosen candidate lost on capacity alone
        parts = [(f"{f} {best[f]:.4g}" + (" (lost on group-memory capacity)"
                                          if best[f] < ch.score else ""))
                 if f in best else f"{f} none legal" for f in ("mpp", "simdgroup", "scalar")]
        out.append(f"cross-family selection for {op} at {threads} threads: chose "
                   f"{family_of(ch.candidate)} ({ch.candidate.realization}, "
                   f"{ch.candidate.atom.id if ch.candidate.atom else 'no atom'}, score "
                   f"{ch.score:.4g}); best per family: {', '.join(parts)}")
    return out
