"""The form a tile takes while a CUDA kernel is printed: a per-thread register array.

(A memory value's form is ``access.MemRef``; scalars, splats and tokens are the shared
``clike`` forms.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import tilec.ir as ir
from tilec.ir.atoms import MMA_ATOMS, WGMMA_ATOMS
from tilec.targets.clike import prod

__all__ = ["Regs", "static_shape", "flat_index", "is_b16", "meets_word_atom"]


@dataclass
class Regs:
    """A per-thread register array (flat, row-major over ``shape``)."""

    name: str
    shape: tuple[int, ...]
    dtype: ir.ScalarType
    packed: bool = False
    """16-bit elements two per 32-bit word (a ``tc_b16x``): ``name.w[j]`` is a word and
    ``name[i]`` an element, so element-wise code reads the same either way."""

    @property
    def n(self) -> int:
        """Number of elements."""
        return prod(self.shape)


def static_shape(t: ir.Type, op: ir.Operation | None, em: Any) -> tuple[int, ...]:
    """The static extents of tile type ``t`` (``em.unsupported`` at ``op`` otherwise)."""
    shape = getattr(t, "shape", None)
    if shape is None:
        raise em.unsupported(op, f"expected a tile, got {t}")
    if not all(d.is_static for d in shape):
        raise em.unsupported(op, f"{t} has a symbolic extent; per-thread tiles are static")
    return tuple(int(d) for d in shape)


def flat_index(idx: Sequence[int], shape: Sequence[int]) -> int:
    """The row-major offset of ``idx`` in ``shape``."""
    f = 0
    for i, e in zip(idx, shape):
        f = f * int(e) + int(i)
    return f


def is_b16(t: ir.ScalarType) -> bool:
    """16-bit floats, the element types a register array may pack (``ptx.B16_ARRAYS``)."""
    return t.name in ("f16", "bf16")


def meets_word_atom(v: ir.Value) -> bool:
    """A 16-bit tile produced by ``ldmatrix`` or consumed as an MMA atom operand (or as a
    warpgroup instruction's register A): kept packed
    so that its words are the atoms' 32-bit registers. Other 16-bit tiles stay one element
    per register (a staged copy or an element-wise map gains nothing from packing and would
    pay a shift or permute per element); an MMA operand that is not packed is copied once."""
    t = v.type
    if not (isinstance(t, ir.TileType) and is_b16(t.dtype)):
        return False
    d = v.defining_op
    if d is not None and d.name == "atom.call" \
            and str(d.attr("catalog_id", "")).startswith("ldmatrix."):
        return True
    return any(u.owner.name == "atom.call" and (
        (u.owner.attr("catalog_id") in MMA_ATOMS and u.index < 2)
        or (u.owner.attr("catalog_id") in WGMMA_ATOMS and u.owner.attr("a_regs")
            and u.index in (0, u.owner.num_operands - 1))) for u in v.uses)
