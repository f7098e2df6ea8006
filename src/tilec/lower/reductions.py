"""Reduction facts the lowering needs: the exact identity of a merge law (each state's law
is ``ir.merge_laws``, the capture's record)."""

from __future__ import annotations

import tilec.ir as ir

__all__ = ["identity"]


def identity(law: str, dtype: ir.ScalarType) -> float | int | bool:
    """The exact identity of ``law`` in ``dtype`` (``ir.merge_identity``: ``-0.0`` for float
    add, the largest index for an arg law's index state)."""
    return ir.merge_identity(law, dtype)
