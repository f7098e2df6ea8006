"""Execution levels and cohort scopes: the named rungs of the execution hierarchy.

The hierarchy is fixed and ordered, outermost first: ``grid`` (independent
programs), ``group`` (a cooperating set of subgroups sharing group memory and
barriers), ``subgroup`` (lanes that execute collectives together) and ``lane``
(one thread). A *cohort* is a scope between group and subgroup: a fixed number
of consecutive subgroups that a collective operation (Hopper's ``wgmma``, a
whole-group MPP operation) addresses together. A cohort is a scope, not a
level: it does not own storage and does not change the level ordering.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Level", "CohortScope", "GRID", "GROUP", "SUBGROUP", "LANE", "LEVELS", "level_named",
           "WARPGROUP"]


@dataclass(frozen=True)
class Level:
    """One level of the hierarchy; its identity is its name and depth."""

    name: str
    """``grid``, ``group``, ``subgroup`` or ``lane``."""
    depth: int
    """Position in the hierarchy, 0 for the outermost (grid)."""

    def __post_init__(self) -> None:
        if self.depth < 0:
            raise ValueError(f"a level depth is non-negative, got {self.depth}")

    def encloses(self, other: Level) -> bool:
        """True when this level is strictly outside ``other``."""
        return self.depth < other.depth

    def __str__(self) -> str:
        return self.name


GRID = Level("grid", 0)
"""Independent programs (CUDA: the grid of CTAs; Metal: the threadgroup grid)."""
GROUP = Level("group", 1)
"""One program's cooperating threads (CUDA CTA, Metal threadgroup)."""
SUBGROUP = Level("subgroup", 2)
"""Lanes that execute together (CUDA warp, Metal SIMD-group)."""
LANE = Level("lane", 3)
"""One thread (or one CPU vector lane)."""

LEVELS: tuple[Level, ...] = (GRID, GROUP, SUBGROUP, LANE)
"""Every level, outermost first."""


def level_named(name: str) -> Level:
    """The level called ``name`` (``ValueError`` listing the known names otherwise)."""
    for lv in LEVELS:
        if lv.name == name:
            return lv
    raise ValueError(f"unknown execution level {name!r}; known: "
                     f"{', '.join(lv.name for lv in LEVELS)}")


@dataclass(frozen=True)
class CohortScope:
    """A fixed run of consecutive subgroups inside a group that acts as one participant."""

    name: str
    """Display name, e.g. ``warpgroup``."""
    subgroups: int
    """Subgroups per cohort (Hopper warpgroup: 4)."""

    def __post_init__(self) -> None:
        if self.subgroups < 1:
            raise ValueError(f"a cohort holds at least one subgroup, got {self.subgroups}")

    @property
    def parent(self) -> Level:
        """The level that contains cohorts (always ``group``)."""
        return GROUP

    @property
    def member(self) -> Level:
        """The level cohorts are made of (always ``subgroup``)."""
        return SUBGROUP

    def __str__(self) -> str:
        return f"{self.name}({self.subgroups} subgroups)"


WARPGROUP = CohortScope("warpgroup", 4)
"""Hopper's warpgroup: four consecutive warps of a CTA (the ``wgmma`` participant)."""
