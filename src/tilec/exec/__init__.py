"""The execution calculus: levels, structures, distributions and target profiles.

``Level``/``CohortScope`` name the hierarchy; ``ExecStructure`` gives it
extents and prefix cuts; ``MixedRadixMap``/``MatrixDistribution`` map
execution coordinates to work with a checked inverse; ``TargetProfile`` holds
each machine's limits, atom catalog and priors as data (``get_profile``).
"""

from .distribution import (
    Coordinate,
    Digit,
    MatrixDistribution,
    MixedRadixMap,
    matrix_distribution,
    one_atom_distribution,
)
from .levels import GRID, GROUP, LANE, LEVELS, SUBGROUP, WARPGROUP, CohortScope, Level, level_named
from .profiles import (
    ATOM_FAMILIES,
    ATOM_REALIZATIONS,
    FACT_KINDS,
    PROFILE_ALIASES,
    DescriptorRule,
    Fact,
    FragmentCounts,
    MatrixAtom,
    TargetProfile,
    get_profile,
    profile_names,
    resolve_profile_name,
)
from .structure import ExecStructure, LevelExtent

__all__ = [
    "Coordinate", "Digit", "MatrixDistribution", "MixedRadixMap", "matrix_distribution",
    "one_atom_distribution", "GRID", "GROUP", "LANE", "LEVELS", "SUBGROUP", "WARPGROUP",
    "CohortScope", "Level", "level_named", "ATOM_FAMILIES", "ATOM_REALIZATIONS", "FACT_KINDS",
    "DescriptorRule", "Fact", "FragmentCounts", "MatrixAtom", "TargetProfile",
    "get_profile", "profile_names", "PROFILE_ALIASES", "resolve_profile_name", "ExecStructure",
    "LevelExtent",
]
