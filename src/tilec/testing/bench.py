"""``do_bench``: the median time of a callable, warm-up excluded, on the CPU or a CUDA device.

The procedure is ``triton.testing.do_bench``'s: warm up, estimate the per-call time from
the warm-up, choose the repetition count from ``rep_ms``, time each repetition on its own
(after flushing the cache, outside the timed region) and report the median. On the CPU
the clock is ``time.perf_counter_ns``; on CUDA it is a pair of CUDA events around each
call (torch's when torch imports, else cupy's), so the time is the device's, not the
host's launch overhead.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["BenchResult", "do_bench", "CPU_FLUSH_BYTES", "CUDA_FLUSH_BYTES"]

CPU_FLUSH_BYTES = 64 << 20
"""Bytes read before each CPU repetition: more than the last-level cache of the machines
we measure on (32 MiB L3 here), so the timed call starts from cold caches."""
CUDA_FLUSH_BYTES = 256 << 20
"""Bytes zeroed before each CUDA repetition: more than an H100/H200's 50/60 MiB L2 (the
buffer triton's ``do_bench`` uses)."""

_now_ns = time.perf_counter_ns
"""The CPU clock (a module attribute so that tests can replace it with a fake one)."""


@dataclass(frozen=True)
class BenchResult:
    """The timed repetitions of one ``do_bench`` call; ``float(result)`` is the median."""

    median_ms: float
    """Median of the repetitions, milliseconds per call: the figure to report."""
    min_ms: float
    """The fastest repetition."""
    max_ms: float
    """The slowest repetition."""
    reps: int
    """How many repetitions were timed (warm-up calls excluded)."""
    samples: tuple[float, ...]
    """Every repetition's milliseconds, in the order they ran."""
    device: str
    """Where the time was taken: ``cpu`` (``perf_counter_ns``) or ``cuda`` (CUDA events)."""

    def __post_init__(self) -> None:
        if self.reps != len(self.samples) or self.reps < 1:
            raise ValueError(f"a BenchResult has reps == len(samples) >= 1, got reps={self.reps} "
                             f"and {len(self.samples)} samples")

    def __float__(self) -> float:
        return self.median_ms

    def __str__(self) -> str:
        return (f"{self.median_ms:.4g} ms (median of {self.reps}, min {self.min_ms:.4g}, "
                f"max {self.max_ms:.4g}, {self.device})")


def do_bench(fn: Callable[..., Any], *, args: Sequence[Any] = (), warmup_ms: float = 25.0,
             rep_ms: float = 100.0, flush_l2: bool = True, device: str | None = None,
             min_reps: int = 5, max_reps: int = 1000) -> BenchResult:
    """Time ``fn(*args)``: the median of ``reps`` separately timed calls after a warm-up.

    The warm-up calls ``fn`` until ``warmup_ms`` have passed (at least once, at most
    ``max_reps`` times; a first call that compiles or allocates counts here, never in the
    result), without flushing. The per-call estimate is the median of the warm-up calls
    after the first (the first alone when there is one), and ``reps = rep_ms / estimate``,
    clamped to ``[min_reps, max_reps]``.

    ``device``: ``"cpu"`` times with ``time.perf_counter_ns``; ``"cuda"`` with CUDA events
    on the current stream (torch's ``torch.cuda.Event``, else cupy's; neither importable is
    a ``RuntimeError``). ``None`` picks ``"cuda"`` when one of ``args`` is on a GPU (a torch
    CUDA tensor, a cupy array, anything with ``__cuda_array_interface__``), else ``"cpu"``;
    arrays that ``fn`` captures are not inspected, so a closure over GPU arrays passes
    ``device="cuda"``.

    ``flush_l2``: before every call, outside the timed region, read ``CPU_FLUSH_BYTES`` on
    the CPU or zero ``CUDA_FLUSH_BYTES`` on the device, so each call starts with cold
    caches rather than with the inputs the previous call left there. On the CPU the flush
    costs a few milliseconds of wall time per repetition (never of the result), so a fast
    function costs up to ``max_reps`` times that.
    """
    if min_reps < 1 or max_reps < min_reps:
        raise ValueError(f"do_bench needs 1 <= min_reps <= max_reps, got {min_reps}, {max_reps}")
    if warmup_ms < 0 or rep_ms < 0:
        raise ValueError(f"do_bench needs warmup_ms, rep_ms >= 0, got {warmup_ms}, {rep_ms}")
    device = _device_of(args) if device is None else device
    if device == "cpu":
        clock: _Clock = _CpuClock(flush_l2)
    elif device == "cuda":
        clock = _cuda_clock(flush_l2)
    else:
        raise ValueError(f"do_bench: device is 'cpu' or 'cuda', got {device!r}")
    call = (lambda: fn(*args)) if args else fn

    warm: list[float] = []
    while not warm or (sum(warm) < warmup_ms and len(warm) < max_reps):
        warm.extend(clock.time(call, 1, flush=False))
    estimate = statistics.median(warm[1:]) if len(warm) > 1 else warm[0]
    reps = max_reps if estimate <= 0 else round(rep_ms / estimate)
    reps = min(max(reps, min_reps), max_reps)
    samples = clock.time(call, reps, flush=True)
    return BenchResult(statistics.median(samples), min(samples), max(samples), reps,
                       tuple(samples), device)


def _device_of(args: Sequence[Any]) -> str:
    """``cuda`` when an argument is a GPU array, else ``cpu`` (``do_bench``'s ``device=None``)."""
    for a in args:
        if getattr(getattr(a, "device", None), "type", None) == "cuda":  # torch
            return "cuda"
        try:  # cupy, numba; torch's bf16 tensors raise TypeError here, CPU tensors AttributeError
            if a.__cuda_array_interface__ is not None:
                return "cuda"
        except Exception:
            continue
    return "cpu"


class _Clock:
    """Times calls of a function, one sample each."""

    def time(self, call: Callable[[], Any], n: int, flush: bool) -> list[float]:
        """Milliseconds of each of ``n`` calls of ``call``, the cache flushed before each
        when ``flush`` (and the clock was made with a flush buffer)."""
        raise NotImplementedError


class _CpuClock(_Clock):
    def __init__(self, flush_l2: bool) -> None:
        import numpy as np

        # Written once (an untouched zero buffer maps one shared page, which caches nothing),
        # then only read: a flush that wrote would leave the cache full of dirty lines whose
        # write-back the timed call would pay.
        self._buf = np.ones(CPU_FLUSH_BYTES // 8) if flush_l2 else None

    def time(self, call: Callable[[], Any], n: int, flush: bool) -> list[float]:
        out = []
        for _ in range(n):
            if flush and self._buf is not None:
                _flush_cpu(self._buf)
            t0 = _now_ns()
            call()
            out.append((_now_ns() - t0) / 1e6)
        return out


def _flush_cpu(buf: Any) -> None:
    """Read every cache line of ``buf`` (evicting what the last call left in the caches)."""
    buf.sum()


class _CudaClock(_Clock):
    """CUDA events around each call; the events of a batch are read after one synchronize."""

    def __init__(self, event: Callable[[], Any], elapsed: Callable[[Any, Any], float],
                 sync: Callable[[], None], flush: Callable[[], None] | None) -> None:
        self._event, self._elapsed, self._sync, self._flush = event, elapsed, sync, flush

    def time(self, call: Callable[[], Any], n: int, flush: bool) -> list[float]:
        pairs = []
        for _ in range(n):
            if flush and self._flush is not None:
                self._flush()
            start, end = self._event(), self._event()
            start.record()
            call()
            end.record()
            pairs.append((start, end))
        self._sync()
        return [float(self._elapsed(s, e)) for s, e in pairs]


def _cuda_clock(flush_l2: bool) -> _CudaClock:
    """A CUDA clock from torch, else cupy."""
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        if not torch.cuda.is_available():
            raise RuntimeError("do_bench(device='cuda'): torch sees no CUDA device")
        buf = torch.empty(CUDA_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda") \
            if flush_l2 else None
        torch.cuda.synchronize()
        return _CudaClock(lambda: torch.cuda.Event(enable_timing=True),
                          lambda s, e: s.elapsed_time(e), torch.cuda.synchronize,
                          buf.zero_ if buf is not None else None)
    try:
        import cupy
    except ImportError:
        raise RuntimeError("do_bench(device='cuda') times with CUDA events from torch or "
                           "cupy; neither is importable (pip install torch, or cupy-cuda12x)"
                           ) from None
    buf = cupy.empty(CUDA_FLUSH_BYTES // 4, dtype=cupy.int32) if flush_l2 else None
    sync = cupy.cuda.runtime.deviceSynchronize
    sync()
    return _CudaClock(cupy.cuda.Event, cupy.cuda.get_elapsed_time, sync,
                      (lambda: buf.fill(0)) if buf is not None else None)
