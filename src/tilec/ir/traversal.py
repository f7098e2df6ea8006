"""Physical program traversal: the order in which a grid's programs are numbered.

A grid nest (``parallel`` with ``level = "grid"``) runs one program per point of its
extents. Programs are independent, so any numbering of the points is a legal schedule,
provided it is a bijection: every point runs exactly once. The default numbers the points
in row-major order (the last coordinate fastest). A Machine-form grid may carry a
``traversal`` attribute that names another bijection from the linear program number to the
point; the targets that launch programs in hardware order (CUDA) compute the point from the
number with the same formula, the simulator runs the points in that order, and targets that
run programs in a loop may keep any order (the result is the same).

Family:

``("grouped", G)``
    Over the last two axes (rows ``R`` = axis ``rank - 2``, columns ``C`` = the last), the
    programs are taken ``G`` rows at a time: within a group of ``G`` rows the row varies
    fastest, then the column. With ``L`` the program number within the last two axes::

        group = L // (G * C)          first = group * G
        rows  = min(R - first, G)     r     = L % (G * C)
        row   = first + r % rows      col   = r // rows

    A bijection of ``[0, R*C)`` onto ``[0, R) x [0, C)`` for every ``R, C >= 1`` and
    ``G >= 1``: the groups partition the rows; a group of ``rows`` rows owns the numbers
    ``[first*C, (first+rows)*C)``, whose ``r`` covers ``[0, rows*C)``, and ``r -> (r % rows,
    r // rows)`` is a bijection of that onto ``[0, rows) x [0, C)``. Consecutive programs then
    share column blocks of a matrix product's B operand and ``G`` row blocks of A: the L2
    footprint of a wave is ``G`` row blocks and ``wave / G`` column blocks instead of one
    row and ``wave`` columns. Leading axes (a batch) stay outermost and row-major.

``check_traversal`` is the verifier's rule (the attribute's form, the grid's rank, and for
static extents up to ``CHECK_POINTS`` points an exhaustive check that the points are
distinct); ``traversal_points`` is the formula (vectorized: the verifier's check and the
simulator's order), ``traversal_point`` one program of it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["TRAVERSALS", "CHECK_POINTS", "parse_traversal", "traversal_point",
           "traversal_points", "check_traversal"]

TRAVERSALS = ("grouped",)
"""The traversal families (the attribute's first item)."""

CHECK_POINTS = 1 << 16
"""Static grids up to this many points are checked exhaustively by the verifier."""


def parse_traversal(spec: Any) -> tuple[str, int] | str:
    """The ``(family, parameter)`` a user's spelling names (``"grouped:8"``, ``("grouped",
    8)``), or a string saying what is wrong with it."""
    if isinstance(spec, str):
        name, _, arg = spec.partition(":")
        try:
            n = int(arg) if arg else None
        except ValueError:
            return f"program traversal {spec!r}: {arg!r} is not an integer"
    elif isinstance(spec, tuple) and len(spec) == 2:
        name, n = spec
    else:
        return f"program traversal {spec!r} is not 'grouped:G' or ('grouped', G)"
    if name not in TRAVERSALS:
        return f"program traversal {spec!r}: unknown family {name!r} (known: " \
            f"{', '.join(TRAVERSALS)})"
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        return f"program traversal {spec!r}: the group size must be a positive integer"
    return (name, n)


def traversal_points(traversal: tuple[str, int] | None, extents: Sequence[int],
                     programs: Any = None) -> np.ndarray:
    """The grid points (one row each, ``int64``) of program numbers ``programs`` (default:
    every program, in order) under ``traversal`` (None: row-major)."""
    ext = [int(e) for e in extents]
    p = np.arange(math.prod(ext), dtype=np.int64) if programs is None \
        else np.asarray(programs, np.int64).reshape(-1)
    if traversal is None or len(ext) < 2:
        return _row_major(p, ext)
    _, g = traversal
    rows, cols = ext[-2], ext[-1]
    inner = rows * cols
    lin = p % inner
    per_group = g * cols
    first = (lin // per_group) * g
    in_group = np.minimum(rows - first, g)
    r = lin % per_group
    last = np.stack([first + r % in_group, r // in_group], axis=1)
    if len(ext) == 2:
        return last
    return np.concatenate([_row_major(p // inner, ext[:-2]), last], axis=1)


def traversal_point(traversal: tuple[str, int] | None, program: int,
                    extents: Sequence[int]) -> tuple[int, ...]:
    """The grid point program number ``program`` runs under ``traversal`` (None: row-major)."""
    return tuple(int(c) for c in traversal_points(traversal, extents, [program])[0])


def _row_major(p: np.ndarray, ext: Sequence[int]) -> np.ndarray:
    out = []
    for e in reversed(ext):
        out.append(p % e)
        p = p // e
    return np.stack(out[::-1], axis=1) if out else np.zeros((p.size, 0), np.int64)


def check_traversal(value: Any, rank: int, extents: Sequence[int | None]) -> str | None:
    """Why ``value`` is not a legal ``traversal`` of a grid of ``rank`` axes with
    ``extents`` (None where not static), or None."""
    parsed = parse_traversal(value)
    if isinstance(parsed, str):
        return parsed
    if rank < 2:
        return f"a {parsed[0]} traversal needs a grid of rank 2 or more, not {rank}"
    if all(isinstance(e, int) for e in extents):
        ext = [int(e) for e in extents]  # type: ignore[arg-type]
        n = math.prod(ext)
        if 0 < n <= CHECK_POINTS:
            pts = traversal_points(parsed, ext)
            inside = bool(((pts >= 0) & (pts < np.asarray(ext))).all())
            if not inside or np.bincount(np.ravel_multi_index(pts.T, ext), minlength=n).max() != 1:
                return f"traversal {value!r} is not a bijection of the grid {tuple(ext)}"
    return None
