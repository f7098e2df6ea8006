"""The bounds checks a chain of memory ``view`` operations adds, and how a new view composes
them: shared by the three executors of memory views (the reference interpreter's
``MemRef``, the SIMT simulator's ``LaneView``, the TIRx bridge's ``MemRef``).

A memory value is a window of a root buffer through a composed index map. Each view on the
way adds a ``Guard``: where the view's coordinates land in that view's base, and the base's
extents. An element is valid when every guard maps it inside its base; a ``bounded`` view
makes the others invalid (dropped on store, filled on load), a ``total`` view makes them
errors. The executors differ only in what a symbol value or an extent is: a Python integer
(the interpreter), a per-thread array (the simulator), an expression (TIRx).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import tilec.ir as ir

__all__ = ["Guard", "compose_view"]


@dataclass(frozen=True, eq=False)
class Guard:
    """One bounds check a view adds: where its coordinates land in its base, and the base's
    size."""

    map: ir.IndexMap
    """From the current view's coordinates to the checked base's coordinates."""
    syms: tuple[Any, ...]
    """Symbol values of ``map`` (integers, per-thread arrays or expressions: the module
    docstring)."""
    extents: tuple[Any, ...]
    """The checked base's extents."""
    total: bool
    """True for ``bounds = "total"`` (out of range is an error), False for ``"bounded"``."""
    view: ir.Operation | None
    """The ``view`` operation that introduced the check (for error locations)."""


def compose_view(base_map: ir.IndexMap | None, base_syms: tuple[Any, ...],
                 guards: tuple[Guard, ...], base_shape: tuple[Any, ...], m: ir.IndexMap,
                 syms: tuple[Any, ...], total: bool, op: ir.Operation | None
                 ) -> tuple[ir.IndexMap, tuple[Any, ...], tuple[Guard, ...]]:
    """The map to the root, its symbol values and the guards (newest view first) of the
    window ``view[i] = base[m(i, syms)]``, where the base reaches its root through
    ``base_map`` (None: the identity) with ``base_syms`` and has ``guards`` and extents
    ``base_shape``. Symbols follow ``IndexMap.compose``: the outermost view's first."""
    composed = m if base_map is None else base_map.compose(m)
    all_syms = syms if base_map is None else base_syms + syms
    older = tuple(Guard(g.map.compose(m), g.syms + syms, g.extents, g.total, g.view)
                  for g in guards)
    return composed, all_syms, (Guard(m, syms, base_shape, total, op),) + older
