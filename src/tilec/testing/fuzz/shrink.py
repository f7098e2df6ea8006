"""The shrinker: the smallest choice stream that still fails the same way.

``shrink(choices, fails)`` keeps a best stream (shorter first, then smaller
values) for which ``fails(stream) -> bool`` holds and tries, until a whole
round changes nothing or the budget is spent: deleting each labelled span
(a statement, an expression), deleting runs of 8, 4, 2 and 1 choices,
setting a choice to 0, halving it and decrementing it. The generator reads a
replayed stream past its end as zeros, so every candidate is a program.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .choices import ChoiceStream, Span

__all__ = ["shrink", "ShrinkResult"]


@dataclass
class ShrinkResult:
    """The smallest failing stream found."""

    choices: list[int]
    """The stream."""
    trials: int
    """Candidates tried."""
    improved: int
    """Candidates that failed the same way and were kept."""


def _key(c: Sequence[int]) -> tuple[int, list[int]]:
    return (len(c), list(c))


def _trim(c: list[int]) -> list[int]:
    """Trailing zeros mean the same as the end of the stream."""
    while c and c[-1] == 0:
        c = c[:-1]
    return c


def shrink(choices: Sequence[int], fails: Callable[[list[int]], bool],
           spans: Callable[[list[int]], list[Span]] | None = None, max_trials: int = 300,
           max_seconds: float = 300.0) -> ShrinkResult:
    """Shrink ``choices`` while ``fails`` holds (``spans(c)`` gives the spans of a stream)."""
    best = _trim(list(choices))
    seen: set[tuple[int, ...]] = {tuple(best)}
    trials = improved = 0
    t0 = time.monotonic()

    def out_of_budget() -> bool:
        return trials >= max_trials or time.monotonic() - t0 > max_seconds

    def attempt(c: list[int]) -> bool:
        nonlocal best, trials, improved
        c = _trim(c)
        t = tuple(c)
        if t in seen or _key(c) >= _key(best) or out_of_budget():
            return False
        seen.add(t)
        trials += 1
        if fails(c):
            best = c
            improved += 1
            return True
        return False

    changed = True
    while changed and not out_of_budget():
        changed = False
        if spans is not None:
            for sp in sorted(spans(best), key=lambda s: s.start - s.end):
                if sp.end <= len(best) and attempt(best[:sp.start] + best[sp.end:]):
                    changed = True
                    break
            if changed:
                continue
        for width in (8, 4, 2, 1):
            i = 0
            while i + width <= len(best) and not out_of_budget():
                if attempt(best[:i] + best[i + width:]):
                    changed = True
                else:
                    i += 1
        for i in range(len(best)):
            if out_of_budget():
                break
            v = best[i] if i < len(best) else 0
            for nv in (0, v // 2, v - 1):
                if 0 <= nv < v and i < len(best) and attempt(best[:i] + [nv] + best[i + 1:]):
                    changed = True
                    break
    return ShrinkResult(best, trials, improved)


def spans_of(generate: Callable[[ChoiceStream], object]) -> Callable[[list[int]], list[Span]]:
    """A ``spans`` function for ``shrink``: replay the stream and read its spans."""

    def f(c: list[int]) -> list[Span]:
        s = ChoiceStream.replay(c)
        try:
            generate(s)
        except Exception:
            return []
        return list(s.spans)

    return f
