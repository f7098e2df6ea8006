"""The exact solver: Pareto dynamic programming over (score, released shared bytes).

Several operations of one group share its group-memory capacity, so choosing
each operation's cheapest realization independently is not enough. For one
thread count the solver keeps a frontier of partial choices::

    (chosen option per operation so far, summed score, summed released bytes)

A partial state dominates another when its score is no larger and its
released bytes are no smaller; every completion of the dominated state is
matched, at no higher score and no less release, by the same completion of the
dominating one, so dropping it cannot lose the optimum. After the last
operation, states whose remaining bytes exceed the capacity are rejected and
the lowest score wins. Across thread counts the lowest finalized kernel score
wins, ties going to the earlier problem (the smaller thread count).

This is exact for an additive model. If costs ever gain interactions between
operations (overlapping live ranges), the state must carry them and the
dominance rule must change with it.

The solver works on plain numbers: it knows nothing about matrices, holds no
global state and never reads a clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Option", "Problem", "Solution", "ProblemResult", "SearchCounters", "solve_problem",
           "solve"]


@dataclass(frozen=True)
class Option:
    """One alternative for one operation."""

    score: float
    """The operation's additive score."""
    released: int
    """Group-memory bytes it releases relative to the reference staging."""


@dataclass(frozen=True)
class Problem:
    """The choice at one thread count: one option per operation, one capacity."""

    key: int
    """Identity (the thread count); also the tie-break order across problems."""
    ops: tuple[tuple[Option, ...], ...]
    """Per operation, its options in deterministic order."""
    base_bytes: int
    """Bytes needed when nothing is released (reference staging plus common allocations)."""
    capacity: int | None
    """Group-memory capacity; None when unlimited."""
    offset: float = 0.0
    """Added once to the summed option scores."""
    scale: float = 1.0
    """Positive factor applied after the offset."""

    def __post_init__(self) -> None:
        if not self.scale > 0:
            raise ValueError(f"problem {self.key}: scale must be positive, got {self.scale}")

    def finalize(self, op_sum: float) -> float:
        """The kernel score of a combination whose option scores sum to ``op_sum``."""
        return (op_sum + self.offset) * self.scale

    def fits(self, released: int) -> bool:
        """True when a combination releasing ``released`` bytes fits the capacity."""
        return self.capacity is None or self.base_bytes - released <= self.capacity


@dataclass(frozen=True)
class Solution:
    """The best combination of one problem."""

    key: int
    """The problem's key."""
    choices: tuple[int, ...]
    """Index of the chosen option of each operation."""
    op_sum: float
    """Summed option scores."""
    released: int
    """Summed released bytes."""
    bytes: int
    """Remaining group-memory bytes."""
    score: float
    """Finalized kernel score."""


@dataclass
class SearchCounters:
    """What the search did (for reports; deterministic, no timings)."""

    problems: int = 0
    """Thread counts solved."""
    combinations: int = 0
    """Complete combinations an exhaustive search would have scored."""
    states_generated: int = 0
    """Partial states created by the dynamic program."""
    states_dominated: int = 0
    """Partial states dropped as dominated."""
    frontier_peak: int = 0
    """Largest frontier kept after pruning."""
    final_states: int = 0
    """Complete non-dominated states examined for capacity."""
    capacity_rejected: int = 0
    """Complete non-dominated states that exceeded the capacity."""
    feasible_problems: int = 0
    """Thread counts with at least one capacity-feasible combination."""

    def add(self, other: SearchCounters) -> None:
        """Accumulate ``other`` into this record."""
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def to_json(self) -> dict[str, int]:
        """A JSON-serializable copy."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class ProblemResult:
    """The outcome of one problem."""

    key: int
    """The problem's key."""
    best: Solution | None
    """The best feasible combination, or None."""
    reason: str | None
    """Why there is none, when ``best`` is None."""
    counters: SearchCounters = field(default_factory=SearchCounters)
    """This problem's counters."""


_State = tuple[float, int, tuple[int, ...]]


def _prune(states: list[_State], counters: SearchCounters) -> list[_State]:
    """Keep the non-dominated states, ordered by (score, -released, choices)."""
    states.sort(key=lambda s: (s[0], -s[1], s[2]))
    kept: list[_State] = []
    best_released = None
    for st in states:
        if best_released is None or st[1] > best_released:
            kept.append(st)
            best_released = st[1]
        else:
            counters.states_dominated += 1
    return kept


def solve_problem(problem: Problem) -> ProblemResult:
    """The lowest-score capacity-feasible combination of one problem."""
    c = SearchCounters(problems=1)
    total = 1
    for i, opts in enumerate(problem.ops):
        if not opts:
            return ProblemResult(problem.key, None,
                                 f"operation {i} has no legal candidate", c)
        total *= len(opts)
    c.combinations = total
    frontier: list[_State] = [(0.0, 0, ())]
    for opts in problem.ops:
        nxt: list[_State] = []
        for score, released, choice in frontier:
            for j, o in enumerate(opts):
                nxt.append((score + o.score, released + o.released, choice + (j,)))
        c.states_generated += len(nxt)
        frontier = _prune(nxt, c)
        c.frontier_peak = max(c.frontier_peak, len(frontier))
    c.final_states = len(frontier)
    for score, released, choice in frontier:
        if problem.fits(released):
            c.feasible_problems = 1
            sol = Solution(problem.key, choice, score, released, problem.base_bytes - released,
                           problem.finalize(score))
            return ProblemResult(problem.key, sol, None, c)
        c.capacity_rejected += 1
    smallest = problem.base_bytes - max(s[1] for s in frontier)
    return ProblemResult(problem.key, None,
                         f"every combination exceeds the group-memory capacity "
                         f"({smallest} bytes at best, capacity {problem.capacity})", c)


def solve(problems: Sequence[Problem]) -> tuple[Solution | None, list[ProblemResult],
                                                SearchCounters]:
    """Solve every problem; the best solution has the lowest kernel score (earliest on ties)."""
    results = [solve_problem(p) for p in problems]
    counters = SearchCounters()
    best: Solution | None = None
    for r in results:
        counters.add(r.counters)
        if r.best is not None and (best is None or r.best.score < best.score):
            best = r.best
    return best, results, counters

