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

Two interactions between operations are carried in the state, so the search stays
exact:

* **Pools** (``Option.pools``): bytes an option needs of a group-wide allocation of one
  kind: the reused scratch pool of an element type (the lowering's
  ``SharedAllocator.pool``), the alignment of a swizzled base; the group pays the largest
  of each kind once, not their sum. A state
  keeps the largest pool of each kind so far, and dominates another only when it also
  needs no more pool of any kind.
* **Bonuses** (``Option.bonus``): an option releases more bytes when an earlier
  operation chose an option with a given ``tag`` (a warpgroup product whose A operand
  is the earlier product's accumulator, taken from its registers, needs no staging
  buffer). States are compared only within the same tags of the operations a later
  bonus reads.

The solver works on plain numbers: it knows nothing about matrices, holds no
global state and never reads a clock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

__all__ = ["Option", "Problem", "Solution", "ProblemResult", "SearchCounters", "solve_problem",
           "solve"]


@dataclass(frozen=True)
class Option:
    """One alternative for one operation."""

    score: float
    """The operation's additive score."""
    released: int
    """Group-memory bytes it releases relative to the reference staging (its pool bytes
    included: they are counted by ``pool`` instead)."""
    pools: tuple[tuple[str, int], ...] = ()
    """``(kind, bytes)``: bytes this option needs of a group-wide allocation of that kind
    (the lowering's scratch pool of one element type, the swizzled base's alignment);
    the group pays the largest figure of each kind once."""
    tag: str = ""
    """What choosing this option establishes for a later operation's ``bonus`` ('' none)."""
    bonus: tuple[int, str, int] | None = None
    """``(operation index, tag, bytes)``: this option releases ``bytes`` more when the
    earlier operation ``index`` chose an option tagged ``tag``."""

    def __post_init__(self) -> None:
        if any(size < 0 for _, size in self.pools):
            raise ValueError(f"an option's pool bytes are non-negative, got {self.pools}")


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

    def fits(self, released: int, pool: int = 0) -> bool:
        """True when a combination releasing ``released`` bytes and needing ``pool`` bytes
        of scratch pools fits the capacity."""
        return self.capacity is None or self.base_bytes - released + pool <= self.capacity


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
    """Summed released bytes (bonuses included)."""
    bytes: int
    """Remaining group-memory bytes: the base less ``released``, plus ``pool``."""
    score: float
    """Finalized kernel score."""
    pool: int = 0
    """Bytes of the scratch pools: the largest chosen option's of each kind, summed."""


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


_Pools = tuple[tuple[str, int], ...]
_State = tuple[float, int, _Pools, tuple[int, ...]]
"""(summed score, summed released bytes, largest pool per kind, choices)."""


def _pool_total(pools: _Pools) -> int:
    return sum(b for _, b in pools)


def _pool_join(pools: _Pools, kind: str, size: int) -> _Pools:
    """``pools`` with kind ``kind`` at least ``size`` (kinds sorted)."""
    if size <= 0:
        return pools
    d = dict(pools)
    d[kind] = max(d.get(kind, 0), size)
    return tuple(sorted(d.items()))


def _pool_within(a: _Pools, b: _Pools) -> bool:
    """Every kind of ``a`` needs no more than ``b`` does."""
    d = dict(b)
    return all(size <= d.get(kind, 0) for kind, size in a)


def _prune(states: list[_State], counters: SearchCounters,
           key: Callable[[_State], tuple[str, ...]]) -> list[_State]:
    """Keep the non-dominated states, ordered by (score, -released, pool, choices). Within
    one ``key`` (the tags later bonuses read), a state is dominated by a kept one (no
    larger score, by the order) that releases no less and needs no more pool of any kind.
    Without pools and bonuses this keeps exactly the states that release more than every
    cheaper one. O(states x kept)."""
    states.sort(key=lambda s: (s[0], -s[1], _pool_total(s[2]), s[3]))
    kept: list[_State] = []
    by_key: dict[tuple[str, ...], list[_State]] = {}
    for st in states:
        same = by_key.setdefault(key(st), [])
        if any(k[1] >= st[1] and _pool_within(k[2], st[2]) for k in same):
            counters.states_dominated += 1
            continue
        same.append(st)
        kept.append(st)
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
    # the operations whose tags a bonus reads, and the last operation that reads each
    read_by: dict[int, int] = {}
    for j, opts in enumerate(problem.ops):
        for o in opts:
            if o.bonus is not None:
                i = o.bonus[0]
                if not 0 <= i < j:
                    raise ValueError(f"problem {problem.key}: operation {j}'s bonus reads "
                                     f"operation {i}, which is not an earlier one")
                read_by[i] = max(read_by.get(i, j), j)
    frontier: list[_State] = [(0.0, 0, (), ())]
    for j, opts in enumerate(problem.ops):
        nxt: list[_State] = []
        for score, released, pools, choice in frontier:
            for k, o in enumerate(opts):
                more = o.released
                if o.bonus is not None:
                    i, tag, extra = o.bonus
                    if problem.ops[i][choice[i]].tag == tag:
                        more += extra
                joined = pools
                for kind, size in o.pools:
                    joined = _pool_join(joined, kind, size)
                nxt.append((score + o.score, released + more, joined, choice + (k,)))
        c.states_generated += len(nxt)
        watched = tuple(i for i, last in sorted(read_by.items()) if i <= j < last)
        frontier = _prune(nxt, c, lambda s, w=watched: tuple(
            problem.ops[i][s[3][i]].tag for i in w))
        c.frontier_peak = max(c.frontier_peak, len(frontier))
    c.final_states = len(frontier)
    for score, released, pools, choice in frontier:
        pool = _pool_total(pools)
        if problem.fits(released, pool):
            c.feasible_problems = 1
            sol = Solution(problem.key, choice, score, released,
                           problem.base_bytes - released + pool, problem.finalize(score), pool)
            return ProblemResult(problem.key, sol, None, c)
        c.capacity_rejected += 1
    smallest = min(problem.base_bytes - s[1] + _pool_total(s[2]) for s in frontier)
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

