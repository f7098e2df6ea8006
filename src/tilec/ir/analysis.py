"""Cached analyses with declared dependencies (seed 001, "Essential analyses").

An analysis is a class: ``Analysis`` subclasses name the analyses they read
(``depends_on``) and build their result in ``compute(root, am)``; the result
is an instance of the class itself, so ``am.get(DominanceInfo)`` returns a
``DominanceInfo``. Results are side tables keyed by stable IR identities and
live only in an ``AnalysisManager``; nothing is stored on the IR and there is
no global cache.

Invalidation is dependency-aware: dropping an analysis also drops every cached
analysis that (transitively) depends on it, so a pass that preserves only
``Liveness`` but not the dominance it was built from loses both.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, TypeVar

from .types import ScalarType, f64

__all__ = ["Analysis", "AnalysisManager", "AnalysisCycleError", "f64_user"]

A = TypeVar("A", bound="Analysis")


class AnalysisCycleError(RuntimeError):
    """Raised when analyses declare dependencies on each other in a cycle."""


class Analysis:
    """Base of cached analyses: a name, the analyses it reads, and how to compute it."""

    name: ClassVar[str] = "analysis"
    """A short stable name for reports (defaults to the class name)."""
    depends_on: ClassVar[tuple[type[Analysis], ...]] = ()
    """Analyses that ``compute`` reads through the manager; computed first."""
    reads_attributes: ClassVar[bool] = True
    """False when the result depends only on structure and use-def edges, so attribute
    edits through ``IRRewriter`` keep it."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:
            cls.name = cls.__name__

    @classmethod
    def compute(cls: type[A], root: Any, am: AnalysisManager) -> A:
        """Build the analysis of ``root``; by default ``cls(root)``."""
        return cls(root)  # type: ignore[call-arg]


def _closure(kind: type[Analysis]) -> frozenset[type[Analysis]]:
    """Every analysis ``kind`` depends on, directly or transitively. O(declared edges)."""
    seen: set[type[Analysis]] = set()
    stack = list(kind.depends_on)
    while stack:
        k = stack.pop()
        if k not in seen:
            seen.add(k)
            stack.extend(k.depends_on)
    return frozenset(seen)


class AnalysisManager:
    """Computes analyses of one root (a Module or Function) on demand and caches them."""

    def __init__(self, root: Any) -> None:
        self.root = root
        """The IR the analyses describe."""
        self.revision = 0
        """Bumped by every ``invalidate``: the number of mutations announced so far."""
        self.compute_counts: dict[type[Analysis], int] = {}
        """How many times each analysis kind was computed (for tests and reports)."""
        self._cache: dict[type[Analysis], Analysis] = {}
        self._computed_at: dict[type[Analysis], int] = {}
        self._in_progress: list[type[Analysis]] = []

    def get(self, kind: type[A]) -> A:
        """The cached ``kind`` analysis of the root, computing it (dependencies first) if needed."""
        hit = self._cache.get(kind)
        if hit is not None:
            return hit  # type: ignore[return-value]
        if kind in self._in_progress:
            chain = " -> ".join(k.name for k in [*self._in_progress, kind])
            raise AnalysisCycleError(f"analysis dependency cycle: {chain}")
        self._in_progress.append(kind)
        try:
            for dep in kind.depends_on:
                self.get(dep)
            result = kind.compute(self.root, self)
        finally:
            self._in_progress.pop()
        self._cache[kind] = result
        self._computed_at[kind] = self.revision
        self.compute_counts[kind] = self.compute_counts.get(kind, 0) + 1
        return result

    def cached(self, kind: type[A]) -> A | None:
        """The cached ``kind`` analysis, or None; never computes."""
        return self._cache.get(kind)  # type: ignore[return-value]

    def is_cached(self, kind: type[Analysis]) -> bool:
        """True when ``kind`` is cached and valid."""
        return kind in self._cache

    def cached_kinds(self) -> frozenset[type[Analysis]]:
        """The analysis kinds currently cached."""
        return frozenset(self._cache)

    def computed_at(self, kind: type[Analysis]) -> int | None:
        """The revision at which the cached ``kind`` was computed, or None."""
        return self._computed_at.get(kind) if kind in self._cache else None

    def invalidate(self, preserved: Iterable[type[Analysis]] = frozenset()) -> set[type[Analysis]]:
        """Drop every cached analysis not in ``preserved``, and those depending on a dropped one.

        An analysis survives only if it and everything it transitively depends
        on are preserved. Returns the kinds dropped. O(cached analyses).
        """
        keep = frozenset(preserved)
        self.revision += 1
        dropped = {k for k in self._cache if k not in keep or not _closure(k) <= keep}
        for k in dropped:
            del self._cache[k]
            del self._computed_at[k]
        return dropped

    def invalidate_all(self) -> set[type[Analysis]]:
        """Drop every cached analysis."""
        return self.invalidate(frozenset())

    def __repr__(self) -> str:
        names = ", ".join(sorted(k.name for k in self._cache))
        return f"<AnalysisManager rev {self.revision}: {names or 'empty'}>"


def f64_user(fn: Any) -> Any:
    """The first operation of ``fn`` that produces or reads an f64 value (None: none does)."""
    for op in fn.walk():
        for v in (*op.results, *op.operands):
            t = v.type
            dt = t if isinstance(t, ScalarType) else getattr(t, "dtype", None)
            if dt is f64:
                return op
    return None
