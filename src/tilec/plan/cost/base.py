"""What every cost basis shares: priced candidates, group terms and coefficient provenance.

A basis splits a group's kernel score into a part per operation and a part per
thread count::

    kernel_score(threads) = (sum over operations of Priced.score + GroupTerms.offset)
                            * GroupTerms.scale

``Priced.score`` must depend only on that operation's candidate (so the solver
may add operations independently), and ``GroupTerms.scale`` must be positive
(so minimizing the sum at a fixed thread count is minimizing the kernel score).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Protocol

from tilec.exec import TargetProfile
from tilec.plan.matrix import MatrixCandidate, WorkCounts
from tilec.plan.work import GroupWorkload, MatrixWorkload

__all__ = ["Priced", "GroupTerms", "CostBasis", "coefficients_json"]


@dataclass(frozen=True)
class Priced:
    """A candidate with its work counts, feature values and additive score."""

    candidate: MatrixCandidate
    """The realization."""
    work: WorkCounts
    """Derived work counts."""
    features: tuple[tuple[str, float], ...]
    """Every feature the basis computed, in a fixed order (names are basis-specific)."""
    score: float
    """The operation's additive part of the kernel score."""

    def feature(self, name: str) -> float:
        """The value of feature ``name`` (``KeyError`` otherwise)."""
        for k, v in self.features:
            if k == name:
                return v
        raise KeyError(name)


@dataclass(frozen=True)
class GroupTerms:
    """The thread-count-dependent part of a kernel score."""

    offset: float
    """Added once to the summed operation scores (common work, setup)."""
    scale: float
    """Positive factor applied after the offset (waves)."""
    features: tuple[tuple[str, float], ...]
    """The terms' inputs and values, for the report."""

    def __post_init__(self) -> None:
        if not self.scale > 0:
            raise ValueError(f"group scale must be positive, got {self.scale}")

    def finalize(self, op_sum: float) -> float:
        """The kernel score of a combination whose operation scores sum to ``op_sum``."""
        return (op_sum + self.offset) * self.scale


class CostBasis(Protocol):
    """A versioned relative-work model for one realization family."""

    name: str
    """Name and version, e.g. ``metal_mpp_memory_v3``; reports carry it as ``cost_basis``."""
    families: tuple[str, ...]
    """Atom families this basis prices (scalar reference candidates are always accepted)."""
    profile: TargetProfile
    """The profile whose priors it uses."""

    def price(self, candidate: MatrixCandidate, work: MatrixWorkload,
              programs: int | None = None) -> Priced:
        """Features and additive score of one candidate; ``programs`` is the group's
        program count when known (a basis may price how many groups share a unit)."""
        ...

    def group_terms(self, threads: int, group: GroupWorkload) -> GroupTerms:
        """Offset and scale at one thread count."""
        ...

    def coefficients_json(self) -> dict[str, Any]:
        """Coefficient values and their provenance."""
        ...


def coefficients_json(coeffs: Any) -> dict[str, Any]:
    """Every field of a frozen coefficient record (values plus ``provenance``)."""
    return {f.name: getattr(coeffs, f.name) for f in fields(coeffs)}


def scalar_priced(candidate: Any, wc: Any, score: float) -> Priced:
    """The priced scalar (reference) realization: its work features and ``score``."""
    feats = (("scalar_fmas", float(wc.scalar_fmas)),
             ("independent_elements", float(candidate.remaining_elements)),
             ("elided_independent_elements", float(candidate.elided_elements)),
             ("score", score))
    return Priced(candidate, wc, feats, score)
