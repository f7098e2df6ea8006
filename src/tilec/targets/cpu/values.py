"""The forms a TileIR value takes while C is emitted (scalars, tuples, splats: ``clike``).

A tile is a ``Tile`` (a row-major C array), a ``Splat`` (one value everywhere,
not materialized) or a ``Lazy`` reindex (a static broadcast/transpose folded
into the indexing of its ``map`` users); memories are ``access.ViewRef``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import tilec.ir as ir
from tilec.targets.clike import Splat, prod

__all__ = ["Tile", "Splat", "Lazy", "static_shape"]


@dataclass
class Tile:
    """A materialized tile: a row-major C array."""

    name: str
    """The array's C name."""
    shape: tuple[int, ...]
    """Static extents."""
    dtype: ir.ScalarType
    """Element type (held in the register C type)."""
    owned: bool
    """True when an operation may overwrite it once it is dead."""

    @property
    def size(self) -> int:
        """Number of elements."""
        return prod(self.shape)


@dataclass
class Lazy:
    """``src`` read through a static in-range map (broadcast / transpose), folded into uses."""

    src: Tile
    """The tile read."""
    map: ir.IndexMap
    """Result coordinates -> source coordinates (each result ``d_j`` or a constant)."""
    shape: tuple[int, ...]
    """Static extents of the result."""
    dtype: ir.ScalarType
    """Element type."""


def static_shape(t: ir.Type, op: ir.Operation | None, em: Any) -> tuple[int, ...]:
    """The static shape of a tile type (a located error when an extent is symbolic)."""
    shape = getattr(t, "shape", None)
    if shape is None:
        raise em.unsupported(op, f"expected a tile, got {t}")
    if not all(d.is_static for d in shape):
        raise em.unsupported(op, f"tile {t} has a symbolic extent; tile shapes must be static")
    return tuple(int(d) for d in shape)
