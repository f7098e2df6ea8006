"""ExecStructure: the extents of each execution level for one launch, with prefix cuts.

An ``ExecStructure`` lists, outermost first, the levels a realization uses and
how many instances of each the enclosing one holds (``None`` when the extent
is not known statically, e.g. a grid over a symbolic shape). Level identities
are the ``Level`` objects themselves, so a structure can be cut at a level
(``prefix``/``suffix``) and the pieces still name the same levels; the planner
uses the cut at ``group`` to separate what is distributed between programs
from what is distributed inside one.
"""

from __future__ import annotations

from dataclasses import dataclass

from .levels import GRID, GROUP, LANE, SUBGROUP, CohortScope, Level, level_named

__all__ = ["LevelExtent", "ExecStructure"]


@dataclass(frozen=True)
class LevelExtent:
    """How many instances of ``level`` one instance of the enclosing level holds."""

    level: Level
    """The level."""
    extent: int | None
    """Instances per enclosing instance; ``None`` when only known at launch."""
    target_name: str = ""
    """The target's own word for the level (CTA, warp, threadgroup, ...)."""

    def __post_init__(self) -> None:
        if self.extent is not None and self.extent < 1:
            raise ValueError(f"{self.level} extent must be positive, got {self.extent}")


@dataclass(frozen=True)
class ExecStructure:
    """Level extents, outermost first, strictly ordered by depth; optional cohort scopes."""

    levels: tuple[LevelExtent, ...]
    """The levels present, outermost first (a level may be absent, e.g. no subgroup on a CPU)."""
    cohorts: tuple[CohortScope, ...] = ()
    """Cohort scopes between group and subgroup that collectives may address."""

    def __post_init__(self) -> None:
        depths = [e.level.depth for e in self.levels]
        if depths != sorted(set(depths)):
            names = ", ".join(str(e.level) for e in self.levels)
            raise ValueError(f"levels must be distinct and ordered outermost first, got {names}")
        if self.cohorts and not (self.has(GROUP) and self.has(SUBGROUP)):
            raise ValueError("cohort scopes need both a group and a subgroup level")
        per_group = self.subgroups_per_group
        for c in self.cohorts:
            if per_group is not None and per_group % c.subgroups:
                raise ValueError(f"cohort {c} does not divide {per_group} subgroups per group")

    # -- identity and lookup -----------------------------------------------------
    @property
    def identity(self) -> tuple[str, ...]:
        """The level names in order: stable across extents, usable as a key."""
        return tuple(e.level.name for e in self.levels)

    def has(self, level: Level | str) -> bool:
        """True when ``level`` is present."""
        lv = level_named(level) if isinstance(level, str) else level
        return any(e.level == lv for e in self.levels)

    def entry(self, level: Level | str) -> LevelExtent:
        """The entry of ``level`` (``KeyError`` when absent)."""
        lv = level_named(level) if isinstance(level, str) else level
        for e in self.levels:
            if e.level == lv:
                return e
        raise KeyError(f"level {lv} is not part of this structure ({', '.join(self.identity)})")

    def extent(self, level: Level | str) -> int | None:
        """Instances of ``level`` per instance of the enclosing present level."""
        return self.entry(level).extent

    # -- cuts --------------------------------------------------------------------
    def prefix(self, level: Level | str) -> ExecStructure:
        """The levels down to and including ``level`` (cohorts dropped unless subgroup stays)."""
        lv = level_named(level) if isinstance(level, str) else level
        self.entry(lv)
        kept = tuple(e for e in self.levels if e.level.depth <= lv.depth)
        keep_cohorts = lv.depth >= SUBGROUP.depth
        return ExecStructure(kept, self.cohorts if keep_cohorts else ())

    def suffix(self, level: Level | str) -> ExecStructure:
        """The levels strictly inside ``level``."""
        lv = level_named(level) if isinstance(level, str) else level
        self.entry(lv)
        kept = tuple(e for e in self.levels if e.level.depth > lv.depth)
        return ExecStructure(kept, ())

    def cut(self, level: Level | str) -> tuple[ExecStructure, ExecStructure]:
        """``(prefix(level), suffix(level))``: what is outside and what is inside one instance."""
        return self.prefix(level), self.suffix(level)

    # -- derived counts ----------------------------------------------------------
    def instances_below(self, level: Level | str) -> int | None:
        """How many innermost instances one instance of ``level`` holds (None if unknown)."""
        total = 1
        for e in self.suffix(level).levels:
            if e.extent is None:
                return None
            total *= e.extent
        return total

    @property
    def subgroups_per_group(self) -> int | None:
        """Subgroups in one group (None when a level is missing or unknown)."""
        if not (self.has(GROUP) and self.has(SUBGROUP)):
            return None
        return self.extent(SUBGROUP)

    @property
    def threads_per_group(self) -> int | None:
        """Lanes in one group (None when unknown)."""
        if not self.has(GROUP):
            return None
        return self.instances_below(GROUP)

    @property
    def programs(self) -> int | None:
        """Number of programs (grid extent), None when unknown."""
        return self.extent(GRID) if self.has(GRID) else None

    @staticmethod
    def for_group(programs: int | None, subgroups: int, width: int,
                  names: tuple[str, str, str, str] = ("grid", "group", "subgroup", "lane"),
                  cohorts: tuple[CohortScope, ...] = ()) -> ExecStructure:
        """The four-level structure of a launch with ``subgroups`` subgroups of ``width`` lanes."""
        usable = tuple(c for c in cohorts if subgroups % c.subgroups == 0)
        return ExecStructure((LevelExtent(GRID, programs, names[0]),
                              LevelExtent(GROUP, 1, names[1]),
                              LevelExtent(SUBGROUP, subgroups, names[2]),
                              LevelExtent(LANE, width, names[3])), usable)

    def __str__(self) -> str:
        parts = [f"{e.level}={'?' if e.extent is None else e.extent}" for e in self.levels]
        return "exec<" + ", ".join(parts) + ">"

