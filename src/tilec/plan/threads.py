"""The thread counts a group is planned at, and the subgroup grids each count allows.

``thread_search`` lists the counts the matrix family enumerates (every whole number of
subgroups up to the target's limit, or one exact request); ``factorizations`` splits a
count's ``G`` subgroups into the ``gm x gn`` grids of ``matrix.py``'s mapping, through
``divisors``. This is plain arithmetic over the profile and the options, separate from
``matrix.py`` because it knows nothing of atoms, realizations or legality.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import isqrt

from tilec.exec import TargetProfile

from .options import PlannerOptions

__all__ = ["divisors", "factorizations", "ThreadSearch", "thread_search"]


def divisors(n: int) -> tuple[int, ...]:
    """Every positive divisor of ``n``, ascending, found in O(sqrt n) trial divisions."""
    if n < 1:
        raise ValueError(f"divisors of a positive integer only, got {n}")
    small, large = [], []
    for i in range(1, isqrt(n) + 1):
        if n % i == 0:
            small.append(i)
            if i != n // i:
                large.append(n // i)
    return tuple(small + large[::-1])


def factorizations(g: int) -> tuple[tuple[int, int], ...]:
    """Every ordered pair ``(gm, gn)`` with ``gm * gn == g``, by ascending ``gm``."""
    return tuple((gm, g // gm) for gm in divisors(g))


@dataclass(frozen=True)
class ThreadSearch:
    """Which thread counts a group is planned at, and why."""

    counts: tuple[int, ...]
    """Thread counts to plan, ascending; empty when the search cannot run."""
    exact: int | None
    """The exact request honoured, if any."""
    scalar_only: bool
    """True when the exact request is not a whole number of subgroups (scalar reference)."""
    diagnostic: str | None
    """Why nothing is searched, or None."""


def thread_search(profile: TargetProfile, options: PlannerOptions,
                  requested: int | None = None) -> ThreadSearch:
    """Every complete-subgroup thread count up to the target limit, or one exact request."""
    width, limit = profile.subgroup_width, profile.max_threads_per_group
    exact = requested if requested is not None else options.threads
    if exact is not None:
        if exact > limit:
            return ThreadSearch((), exact, False, f"exact thread request {exact} exceeds the "
                                f"{profile.name} limit of {limit} threads per group")
        if exact % width:
            return ThreadSearch((exact,), exact, True, None)
        return ThreadSearch((exact,), exact, False, None)
    counts = tuple(width * g for g in range(1, limit // width + 1))
    if len(counts) > options.max_thread_candidates:
        return ThreadSearch((), None, False,
                            f"automatic search needs {len(counts)} thread counts "
                            f"({counts[0]}..{counts[-1]}) but max_thread_candidates is "
                            f"{options.max_thread_candidates}; give an exact thread count or "
                            f"raise the budget (no prefix is searched)")
    return ThreadSearch(counts, None, False, None)
