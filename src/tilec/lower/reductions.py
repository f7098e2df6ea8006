"""Reduction facts the lowering needs: the exact identity of a merge law (each state's law
is ``ir.merge_laws``, the capture's record)."""

from __future__ import annotations

import math

import tilec.ir as ir

__all__ = ["identity"]


def identity(law: str, dtype: ir.ScalarType) -> float | int | bool:
    """The exact identity of ``law`` in ``dtype`` (``-0.0`` for float add)."""
    if dtype.is_float:
        return {"add": -0.0, "mul": 1.0, "max": -math.inf, "min": math.inf}[law]
    if dtype is ir.i1:
        return {"add": False, "mul": True, "max": False, "min": True}[law]
    bits = dtype.bits
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return {"add": 0, "mul": 1, "max": lo, "min": hi}[law]
