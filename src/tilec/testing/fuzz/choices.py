"""The recorded choice stream: every random decision of the generator is one integer.

A fresh stream draws from ``random.Random(seed)`` and records each value; a
replayed stream returns recorded values (clamped into the asked range, and 0
past the end). The generator reads 0 as the simplest option, so a shorter or
smaller stream gives a simpler program, which is what the shrinker relies on.
Labelled spans mark the choices of one statement or expression so that the
shrinker can delete them together.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

__all__ = ["ChoiceStream", "Span", "Overrun"]

T = TypeVar("T")

MAX_CHOICES = 20000
"""A stream longer than this stops the generator (``Overrun``): it keeps programs bounded."""


class Overrun(Exception):
    """The generator asked for more than ``MAX_CHOICES`` choices."""


@dataclass(frozen=True)
class Span:
    """The choices ``[start, end)`` drawn for one labelled part of a program."""

    label: str
    """What the span drew (a statement or expression kind)."""
    start: int
    """Index of its first choice."""
    end: int
    """Index one past its last choice."""


@dataclass
class ChoiceStream:
    """Draws integers from a seed (recording them) or replays a recorded list."""

    seed: int | None = None
    """The seed of a fresh stream (None: replay ``prefix`` only)."""
    prefix: Sequence[int] = ()
    """Recorded values replayed first; after them a fresh stream draws, a replay gives 0."""
    record: list[int] = field(default_factory=list)
    """Every value drawn so far, in order (after clamping)."""
    spans: list[Span] = field(default_factory=list)
    """Closed labelled spans, in the order they closed."""

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed) if self.seed is not None else None
        self._open: list[tuple[str, int]] = []

    @classmethod
    def replay(cls, values: Sequence[int]) -> ChoiceStream:
        """A stream that returns ``values`` (clamped) and then zeros."""
        return cls(None, list(values))

    def draw(self, n: int) -> int:
        """An integer in ``[0, n)``; ``n <= 1`` gives 0 without consuming a choice's meaning."""
        if len(self.record) >= MAX_CHOICES:
            raise Overrun(f"more than {MAX_CHOICES} choices")
        i = len(self.record)
        if i < len(self.prefix):
            v = min(max(int(self.prefix[i]), 0), max(n - 1, 0))
        elif self._rng is not None:
            v = self._rng.randrange(n) if n > 1 else 0
        else:
            v = 0
        self.record.append(v)
        return v

    def below(self, n: int) -> int:
        """``draw(n)``."""
        return self.draw(n)

    def between(self, lo: int, hi: int) -> int:
        """An integer in ``[lo, hi]`` (0 maps to ``lo``)."""
        return lo + self.draw(hi - lo + 1)

    def coin(self, one_in: int = 2) -> bool:
        """True with probability ``1/one_in`` for a fresh stream (0, the simplest, is False)."""
        return self.draw(one_in) == one_in - 1

    def pick(self, options: Sequence[T]) -> T:
        """One of ``options`` (the first is the simplest)."""
        return options[self.draw(len(options))]

    def weighted(self, options: Sequence[tuple[T, int]]) -> T:
        """One of ``options`` with probability proportional to its weight (weight 0: never).

        The draw is over the total weight; a replayed value maps to the option whose weight
        interval holds it, so 0 is the first option with a positive weight.
        """
        live = [(o, w) for o, w in options if w > 0]
        total = sum(w for _, w in live)
        v = self.draw(total)
        for o, w in live:
            if v < w:
                return o
            v -= w
        return live[-1][0]

    def begin(self, label: str) -> None:
        """Open a labelled span at the next choice."""
        self._open.append((label, len(self.record)))

    def end(self) -> None:
        """Close the innermost open span (an empty span is not kept)."""
        label, start = self._open.pop()
        if len(self.record) > start:
            self.spans.append(Span(label, start, len(self.record)))

    def span(self, label: str) -> _SpanContext:
        """``with stream.span("stmt"): ...`` opens and closes a span."""
        return _SpanContext(self, label)


class _SpanContext:
    def __init__(self, stream: ChoiceStream, label: str) -> None:
        self.stream = stream
        self.label = label

    def __enter__(self) -> None:
        self.stream.begin(self.label)

    def __exit__(self, *exc: Any) -> None:
        self.stream.end()
