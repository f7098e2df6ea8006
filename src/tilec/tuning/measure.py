"""The timing protocol of a search and of its replay.

A ``Timer`` runs a candidate in *batches*: ``calls`` launches back to back,
bracketed by device events on ``cuda`` (torch CUDA events when the arguments
are torch tensors) and by the host clock everywhere (with a synchronization
at the end, so the host time includes waiting for the device). One batch
gives device and host milliseconds per call. The number of calls per batch is
chosen once per candidate from a warm-up, so a batch lasts about
``batch_ms`` (at least one call).

The search times each validated candidate in ``batches`` batches and keeps the
median. The replay (``replay_orders``) takes the finalists and runs one batch
of each per round, in every permutation of their order, so that drift (clocks,
temperature, other work) falls on every candidate alike; the selection is the
lowest replay median, not the search minimum.
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Timer", "Sample", "replay_orders", "replay", "median_spread"]


@dataclass(frozen=True)
class Sample:
    """One batch."""

    device_ms: float
    """Device milliseconds per call (the host's, on a target without device events)."""
    host_ms: float
    """Host milliseconds per call, synchronization included."""


def median_spread(values: Sequence[float]) -> tuple[float, float]:
    """(median, (max - min) / median)."""
    med = statistics.median(values)
    return med, (max(values) - min(values)) / med if med > 0 else 0.0


def replay_orders(n: int) -> list[tuple[int, ...]]:
    """Every order of ``n`` finalists (``n`` <= 3: 1, 2 or 6 orders), each a round."""
    if not 1 <= n <= 3:
        raise ValueError(f"a replay takes 1 to 3 finalists, got {n}")
    return list(itertools.permutations(range(n)))


def replay(timer: Timer, arms: Sequence[tuple[Callable[[], Any], int]], rounds: int
           ) -> list[list[float]]:
    """Device ms per call of each arm ``(run, calls per batch)``: ``rounds`` times every
    order of the arms (``replay_orders``), one batch of each arm per order."""
    times: list[list[float]] = [[] for _ in arms]
    orders = replay_orders(len(arms))
    for _ in range(rounds):
        for order in orders:
            for i in order:
                run, calls = arms[i]
                times[i].append(timer.batch(run, calls).device_ms)
    return times


class Timer:
    """Times calls of ``run()`` on ``target`` (see the module docstring)."""

    def __init__(self, target: str, batch_ms: float = 20.0, uses_torch: bool = False) -> None:
        self.target = target
        """The target name (``cuda...`` uses device events)."""
        self.batch_ms = batch_ms
        """The aimed-at duration of one batch."""
        self.cuda = target.startswith("cuda")
        self._torch: Any = None
        if self.cuda and uses_torch:
            import torch

            self._torch = torch

    def _sync(self) -> None:
        if self._torch is not None:
            self._torch.cuda.synchronize()

    def calls_per_batch(self, run: Callable[[], Any]) -> int:
        """Warm ``run`` up (three calls) and size a batch to about ``batch_ms``."""
        for _ in range(3):
            run()
        self._sync()
        t0 = time.perf_counter()
        run()
        self._sync()
        one = (time.perf_counter() - t0) * 1e3
        return max(1, min(1000, int(self.batch_ms / max(one, 1e-3))))

    def batch(self, run: Callable[[], Any], calls: int) -> Sample:
        """One batch of ``calls`` calls."""
        if self._torch is not None:
            torch = self._torch
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(
                enable_timing=True)
            self._sync()
            t0 = time.perf_counter()
            start.record()
            for _ in range(calls):
                run()
            end.record()
            end.synchronize()
            host = (time.perf_counter() - t0) * 1e3
            return Sample(start.elapsed_time(end) / calls, host / calls)
        self._sync()
        t0 = time.perf_counter()
        for _ in range(calls):
            run()
        self._sync()
        host = (time.perf_counter() - t0) * 1e3 / calls
        return Sample(host, host)
