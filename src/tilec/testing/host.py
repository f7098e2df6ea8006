"""The machine a measurement ran on, as the result records (``benchmarks/results/``) name it."""

from __future__ import annotations

import platform

__all__ = ["cpu_name"]


def cpu_name() -> str:
    """The CPU model (``/proc/cpuinfo``), else ``platform.processor()``."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
