"""The planner (seed 000): matrix mapping family, cost bases, exact solver and reports.

``plan_module(module, target)`` plans every matrix group of a Candidate TileIR
module; ``plan_group(workload, target)`` plans one group given as data. Both
return report objects with ``to_json()`` and ``render()``.
"""

from .cost import CostBasis, GroupTerms, Priced, basis_named, select_basis
from .extract import GroupSite, extract_groups, shapes_from_arrays
from .matrix import (
    REALIZATIONS,
    Enumeration,
    MatrixCandidate,
    Realization,
    Rejection,
    WorkCounts,
    atoms_for,
    enumerate_group,
    fragment_scalars,
    minimum_fragment_budget,
    mpp_descriptor_rule,
    work_counts,
)
from .options import COST_BASES, SHARED_SSA_MODES, PlannerOptions
from .report import GroupPlan, ModulePlan, Selection, ThreadOutcome, plan_group, plan_module
from .solver import Option, Problem, ProblemResult, SearchCounters, Solution, solve, solve_problem
from .threads import ThreadSearch, divisors, factorizations, thread_search
from .work import (
    ACCUMULATOR_MODES,
    DTYPE_BYTES,
    AffineExtent,
    GroupWorkload,
    MatrixWorkload,
    ScalarDomains,
    elided_elements,
    mean_physical_k,
)

__all__ = [
    "CostBasis", "GroupTerms", "Priced", "basis_named", "select_basis", "GroupSite",
    "extract_groups", "shapes_from_arrays", "REALIZATIONS", "Realization", "Enumeration",
    "MatrixCandidate", "Rejection",
    "ThreadSearch", "WorkCounts", "atoms_for", "divisors", "enumerate_group", "factorizations",
    "fragment_scalars", "minimum_fragment_budget", "mpp_descriptor_rule", "thread_search",
    "work_counts", "COST_BASES", "SHARED_SSA_MODES",
    "PlannerOptions", "GroupPlan", "ModulePlan", "Selection", "ThreadOutcome", "plan_group",
    "plan_module", "Option", "Problem", "ProblemResult", "SearchCounters", "Solution", "solve",
    "solve_problem", "ACCUMULATOR_MODES", "DTYPE_BYTES", "AffineExtent", "GroupWorkload",
    "MatrixWorkload", "ScalarDomains", "elided_elements", "mean_physical_k",
]
