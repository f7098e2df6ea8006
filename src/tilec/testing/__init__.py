"""Testing tools built on the public API only: the differential fuzzer (``tilec.testing.fuzz``),
the machine facts that result records name (``tilec.testing.host``) and ``do_bench``, the
median time of a callable (``tilec.testing.bench``; imported on first use, so importing
this package stays cheap).

Nothing in the compiler imports this package.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BenchResult", "do_bench"]


def __getattr__(name: str) -> Any:
    """``do_bench`` and ``BenchResult`` from ``tilec.testing.bench``, imported when first read."""
    if name in __all__:
        from . import bench

        return getattr(bench, name)
    raise AttributeError(f"module 'tilec.testing' has no attribute {name!r}")
