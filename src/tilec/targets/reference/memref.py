"""The reference interpreter's memory values: ``MemRef`` windows and their bounds ``Guard``s.

A ``MemRef`` is a root numpy array seen through the composed index map of every
``view`` on the way to it, with one ``Guard`` per view recording where that view's
bounds check lands; ``locate`` and ``locate_at`` turn a window into root coordinates
and a validity mask (``bounded`` views mask, ``total`` views raise ``TotalViewLeft``,
which the interpreter reports as the kernel's ``KernelIndexError``). The coordinate
helpers (``grid_points``, ``mapped_coords``, ``inside``) are the interpreter's too.

This is the memory model only: it runs no operation, and it is separate from
``interpreter.py`` so that the model can be read, and reused by the SIMT simulator
and the argument binding, apart from the opcode implementations.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import tilec.ir as ir
from tilec.targets.view_guards import Guard, compose_view

__all__ = ["MemRef", "Guard", "TotalViewLeft", "grid_points", "mapped_coords", "inside"]


@functools.lru_cache(maxsize=512)
def grid_points(shape: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """Row-major coordinates of every element of ``shape``, one read-only array per axis."""
    out = []
    for g in np.indices(shape, dtype=np.int64) if shape else ():
        g.setflags(write=False)
        out.append(g)
    return tuple(out)


def mapped_coords(m: ir.IndexMap, shape: tuple[int, ...], syms: Sequence[int]
                  ) -> list[np.ndarray]:
    """``m`` applied to every point of ``shape``: one int64 array of ``shape`` per result axis."""
    return [np.broadcast_to(np.asarray(c, np.int64), shape)
            for c in m.apply(grid_points(shape), syms)]


def inside(coords: Sequence[np.ndarray], extents: Sequence[int], shape: tuple[int, ...]
           ) -> np.ndarray:
    """True where every coordinate lies in ``[0, extent)``."""
    ok = np.ones(shape, bool)
    for c, e in zip(coords, extents):
        ok &= (c >= 0) & (c < e)
    return ok


class TotalViewLeft(Exception):
    """An access reached outside a ``total`` view (the interpreter reports it as the kernel's
    ``KernelIndexError``, at the view)."""

    def __init__(self, view: ir.Operation | None) -> None:
        super().__init__("an access left a total view")
        self.view = view
        """The ``view`` operation left."""


@dataclass(frozen=True, eq=False)
class MemRef:
    """A memory value: a window of a root numpy array through a composed index map.

    An element of the window is *valid* when every guard, from the newest view
    to the oldest, maps it inside that view's base; only valid elements are
    read or written. ``bounded`` guards make other elements invalid;
    ``total`` guards make them errors.
    """

    root: np.ndarray
    """The storage (a kernel argument, written in place, or a ``memory`` allocation)."""
    shape: tuple[int, ...]
    """This window's extents."""
    map: ir.IndexMap | None = None
    """Window coordinates to root coordinates (None: the identity)."""
    syms: tuple[int, ...] = ()
    """Symbol values of ``map`` (outermost view's first, as ``IndexMap.compose`` orders them)."""
    guards: tuple[Guard, ...] = ()
    """Bounds checks, newest view first."""

    @staticmethod
    def of(array: np.ndarray) -> MemRef:
        """The whole of ``array``."""
        return MemRef(array, tuple(array.shape))

    def view(self, m: ir.IndexMap, syms: tuple[int, ...], shape: tuple[int, ...], total: bool,
             op: ir.Operation | None = None) -> MemRef:
        """The window ``view[i] = self[m(i, syms)]`` of extents ``shape``."""
        return MemRef(self.root, shape, *compose_view(self.map, self.syms, self.guards,
                                                      self.shape, m, syms, total, op))

    def locate(self, access: ir.Operation | None = None
               ) -> tuple[tuple[np.ndarray, ...], np.ndarray | None]:
        """Root coordinates of every element (arrays of ``shape``) and the validity mask.

        The mask is None when every element is valid. Raises ``TotalViewLeft``
        (the interpreter's ``KernelIndexError`` at the view's location) when a
        ``total`` view is accessed out of range.
        """
        shape = self.shape
        mask: np.ndarray | None = None
        for g in self.guards:
            ok = inside(mapped_coords(g.map, shape, g.syms), g.extents, shape)
            if g.total:
                bad = ~ok if mask is None else (mask & ~ok)
                if bad.any():
                    raise TotalViewLeft(g.view)
            elif not ok.all():
                mask = ok if mask is None else mask & ok
        if self.map is None:
            return grid_points(shape), mask
        return tuple(mapped_coords(self.map, shape, self.syms)), mask

    def locate_at(self, coords: Sequence[np.ndarray]) -> tuple[tuple[np.ndarray, ...],
                                                                np.ndarray]:
        """Root coordinates of window coordinates ``coords`` (arrays of one shape) and where
        they are valid: inside this window's extents and valid in every view on the way.
        A data-dependent address is never an error: ``total`` views bound it like
        ``bounded`` ones (``gather``, ``load_scalar``)."""
        shape = np.shape(coords[0]) if coords else ()
        coords = [np.asarray(c, np.int64) for c in coords]
        mask = inside(coords, self.shape, shape)
        for g in self.guards:
            inner = [np.broadcast_to(np.asarray(c, np.int64), shape)
                     for c in g.map.apply(coords, g.syms)]
            mask &= inside(inner, g.extents, shape)
        if self.map is None:
            return tuple(coords), mask
        return tuple(np.broadcast_to(np.asarray(c, np.int64), shape)
                     for c in self.map.apply(coords, self.syms)), mask
