"""The forms TileIR values take while the bridge builds a ``tvm.tirx`` PrimFunc.

* a scalar is a ``PrimExpr`` of its register dtype (``scalars.reg_dtype``), normally a
  variable bound once (``T.Bind``), so a shared SSA value is computed once;
* a tile is a ``Tile``: a local buffer of its static shape that its defining operation
  fills once (``Buffered``), or a form read element by element without storage: a
  constant (``Splat``), an ``iota`` (``Computed``) or a static in-range ``reindex`` of
  another tile (``Remapped``: broadcasts, transposes);
* a memory is a ``MemRef``: the root buffer (a parameter or a ``memory`` allocation), the
  composed index map from the view's coordinates to the root's, and the bounds checks of
  every view on the way (``Guard``), as in the reference interpreter's ``MemRef``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import tilec.ir as ir
from tilec.targets.view_guards import Guard, compose_view

__all__ = ["Tile", "Buffered", "Splat", "Computed", "Remapped", "Guard", "MemRef",
           "affine", "inside"]


def affine(e: ir.AffineExpr, dims: Sequence[Any], syms: Sequence[Any]) -> Any:
    """The ``int64`` expression of quasi-affine ``e`` at coordinates ``dims``, symbols
    ``syms`` (``floordiv``/``mod`` by a positive constant round toward negative infinity)."""
    from tvm import tirx as tx

    out = tx.const(e.constant, "int64")
    for atom, c in e.terms:
        if atom[0] == "d":
            v = dims[atom[1]]
        elif atom[0] == "s":
            v = syms[atom[1]]
        elif atom[0] == "floordiv":
            v = tx.floordiv(affine(atom[1], dims, syms), tx.const(atom[2], "int64"))
        else:
            v = tx.floormod(affine(atom[1], dims, syms), tx.const(atom[2], "int64"))
        out = out + (v if c == 1 else v * tx.const(c, "int64"))
    return out


def inside(coords: Sequence[Any], extents: Sequence[Any]) -> Any:
    """True where every coordinate lies in ``[0, extent)`` (None: no axis)."""
    from tvm import tirx as tx

    ok = None
    for c, e in zip(coords, extents):
        here = tx.And(c >= tx.const(0, "int64"), c < e)
        ok = here if ok is None else tx.And(ok, here)
    return ok


class Tile:
    """A tile value: ``shape`` (static), ``dtype`` (TileIR scalar type), element reads."""

    shape: tuple[int, ...]
    dtype: ir.ScalarType

    def elem(self, idx: Sequence[Any]) -> Any:
        """The register value at coordinates ``idx`` (``int64`` expressions)."""
        raise NotImplementedError


@dataclass(eq=False)
class Buffered(Tile):
    """A tile held in a local buffer (rank 0: one element)."""

    buffer: Any
    """The ``tvm.tirx`` buffer (register dtype; shape ``shape``, or ``(1,)`` for rank 0)."""
    shape: tuple[int, ...]
    """The tile's extents."""
    dtype: ir.ScalarType
    """The element type."""

    def elem(self, idx: Sequence[Any]) -> Any:
        return self.buffer[tuple(idx) if idx else (0,)]

    def index(self, idx: Sequence[Any]) -> list[Any]:
        """The buffer indices of tile coordinates ``idx``."""
        from tvm import tirx as tx

        return list(idx) if idx else [tx.const(0, "int64")]


@dataclass(eq=False)
class Splat(Tile):
    """A tile with one value everywhere."""

    value: Any
    """The register value."""
    shape: tuple[int, ...]
    """The tile's extents."""
    dtype: ir.ScalarType
    """The element type."""

    def elem(self, idx: Sequence[Any]) -> Any:
        return self.value


@dataclass(eq=False)
class Computed(Tile):
    """A tile whose elements are computed from their coordinates (an ``iota``)."""

    compute: Callable[[Sequence[Any]], Any]
    """Coordinates to the register value."""
    shape: tuple[int, ...]
    """The tile's extents."""
    dtype: ir.ScalarType
    """The element type."""

    def elem(self, idx: Sequence[Any]) -> Any:
        return self.compute(idx)


@dataclass(eq=False)
class Remapped(Tile):
    """``src[map(i)]`` for a static map that stays inside ``src`` (a broadcast, transpose or
    static slice of a whole tile), read through without a copy."""

    src: Tile
    """The source tile."""
    map: ir.IndexMap
    """Result coordinates to source coordinates (no symbols)."""
    shape: tuple[int, ...]
    """The tile's extents."""
    dtype: ir.ScalarType
    """The element type."""

    def elem(self, idx: Sequence[Any]) -> Any:
        return self.src.elem([affine(r, idx, ()) for r in self.map.results])


@dataclass(frozen=True, eq=False)
class MemRef:
    """A memory value: a window of a root buffer through a composed index map."""

    root: Any
    """The root buffer (memory dtype, ``scalars.mem_dtype``)."""
    dtype: ir.ScalarType
    """The element type."""
    shape: tuple[Any, ...]
    """This window's extents (``int64`` expressions)."""
    map: ir.IndexMap | None = None
    """Window coordinates to root coordinates (None: the identity)."""
    syms: tuple[Any, ...] = ()
    """Symbol values of ``map``."""
    guards: tuple[Guard, ...] = ()
    """Bounds checks, newest view first."""

    def view(self, m: ir.IndexMap, syms: tuple[Any, ...], shape: tuple[Any, ...], total: bool,
             op: ir.Operation) -> MemRef:
        """The window ``view[i] = self[m(i, syms)]`` of extents ``shape``."""
        return MemRef(self.root, self.dtype, shape,
                      *compose_view(self.map, self.syms, self.guards, self.shape, m, syms,
                                    total, op))

    def root_coords(self, idx: Sequence[Any]) -> list[Any]:
        """Root coordinates of window coordinates ``idx``."""
        if self.map is None:
            return list(idx)
        return [affine(r, idx, self.syms) for r in self.map.results]

    def validity(self, idx: Sequence[Any], data: bool = False) -> tuple[Any, list[Any]]:
        """``(valid, totals)`` at window coordinates ``idx``: ``valid`` is where every
        ``bounded`` guard holds (None: always; with ``data``, a data-dependent address,
        also inside the window and every ``total`` guard), ``totals`` pairs each ``total``
        guard's condition with its view (the accesses test them before anything moves)."""
        from tvm import tirx as tx

        valid = inside(idx, self.shape) if data else None
        totals = []
        for g in self.guards:
            ok = inside([affine(r, idx, g.syms) for r in g.map.results], g.extents)
            if ok is None:
                continue
            if g.total and not data:
                totals.append((ok, g.view))
            else:
                valid = ok if valid is None else tx.And(valid, ok)
        return valid, totals
