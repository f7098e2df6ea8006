"""The machine a measurement ran on, as the result records (``benchmarks/results/``) name it."""

from __future__ import annotations

from tilec.targets.cpu.compiler import cpu_model

__all__ = ["cpu_name"]


def cpu_name() -> str:
    """The CPU model (``/proc/cpuinfo``), else ``platform.processor()``."""
    return cpu_model()
