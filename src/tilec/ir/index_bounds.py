"""Reads that may leave their tile at run time: which need a test, and how a failure is worded.

A ``reindex`` without ``fill`` must read inside its source tile (tileir.md).
Its map is static except for its symbols: the runtime start of a slice
``x[i * 8:(i + 1) * 8]`` or an index ``x[i]``. Every path tests the same thing
and raises the same ``KernelIndexError``, one source axis at a time in axis
order (the first axis that leaves is the one reported):

* an axis whose map result reads no symbol is static; static maps are in
  range (capture builds them so and the verifier checks written ones);
* an axis ``e = f(d) + g(s)`` (``split``: a domain part and a symbol part, no
  atom mixing both) is read from ``lo + g`` to ``hi + g``, where ``lo`` and
  ``hi`` are the exact extremes of ``f`` over the tile: one test of the
  runtime value ``g``, uniform across a GPU group, reporting the start
  ``lo + g``;
* when value ranges (``ir.ranges``) put ``g`` inside the admissible
  interval, the axis has no test: a slice at a start proven in range costs
  nothing.

An axis whose map mixes domain coordinates and symbols under one
``floordiv``/``mod`` is not separable (no DSL program makes one: capture
composes views so that it never does). The reference and C test it element
by element, reporting the smallest coordinate read as the start; GPU
lowering refuses it with a located error.

Cost: O(rank) per ``reindex`` when the domain part is affine, else one
evaluation over the tile's elements (at compile time).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import tilec.ir as ir

from .ranges import Range, affine_range, type_range

__all__ = ["AxisBound", "split", "extremes", "describe", "reindex_bounds", "view_in_range",
           "unit_projection", "unit_term", "TOTAL_VIEW_MESSAGE"]

TOTAL_VIEW_MESSAGE = "an access through a view with bounds = \"total\" leaves the view's base"
"""What an access leaving a view declared ``bounds = "total"`` reports, at the view."""


def split(e: ir.AffineExpr) -> tuple[ir.AffineExpr, ir.AffineExpr] | None:
    """``(f, g)`` with ``e = f + g``, ``f`` free of symbols and ``g`` of domain coordinates
    (the constant goes to ``f``); None when one atom reads both."""
    f: list[tuple[tuple, int]] = []
    g: list[tuple[tuple, int]] = []
    for atom, c in e.terms:
        if atom[0] == "d":
            f.append((atom, c))
        elif atom[0] == "s":
            g.append((atom, c))
        elif atom[1].max_symbol() == 0:
            f.append((atom, c))
        elif atom[1].max_dim() == 0:
            g.append((atom, c))
        else:
            return None
    return ir.AffineExpr(f, e.constant), ir.AffineExpr(g, 0)


def extremes(f: ir.AffineExpr, shape: Sequence[int]) -> tuple[int, int]:
    """The exact minimum and maximum of symbol-free ``f`` over ``[0, shape)`` (non-empty)."""
    if all(atom[0] == "d" for atom, _ in f.terms):  # affine: attained at corners
        lo = hi = f.constant
        for atom, c in f.terms:
            far = c * (int(shape[atom[1]]) - 1)
            lo, hi = lo + min(0, far), hi + max(0, far)
        return lo, hi
    grids = np.meshgrid(*[np.arange(int(n), dtype=np.int64) for n in shape], indexing="ij")
    vals = np.asarray(f.evaluate(grids))
    return int(vals.min()), int(vals.max())


def describe(axis: int, span: int | None, extent: ir.Dim | int, index: bool
             ) -> tuple[str, str]:
    """The message and the reported value's label of a read leaving ``axis`` (every path
    words it this way): an index reads one coordinate, a slice ``span`` of them (None: a
    map that is not separable, whose span depends on the runtime values)."""
    if index:
        return (f"an index is outside axis {axis} of the source tile, of extent {extent}",
                "index")
    if span is None:
        return (f"a read leaves axis {axis} of the source tile, of extent {extent}", "start")
    return (f"a slice of extent {span} leaves axis {axis} of the source tile, of extent "
            f"{extent}", "start")


@dataclass(frozen=True)
class AxisBound:
    """One source axis of a ``reindex`` that a runtime value may move out of range."""

    axis: int
    """The source axis."""
    offset: ir.AffineExpr
    """``g``: the symbol part of the axis's map result (reads no domain coordinate)."""
    lo: int
    """The smallest value of the domain part over the tile (the constant included)."""
    hi: int
    """The largest value of the domain part."""
    extent: int
    """The source tile's extent along ``axis``."""
    index: bool
    """True when the axis reads no domain coordinate (``x[i]``): an index, not a slice."""

    @property
    def admissible(self) -> Range | None:
        """The values of ``offset`` that keep every read in range (None: none do)."""
        if self.extent - 1 - self.hi < -self.lo:
            return None
        return Range(-self.lo, self.extent - 1 - self.hi)

    def describe(self) -> tuple[str, str]:
        """A failure's message and its one value's label (the value: ``lo + offset``, the
        first coordinate read)."""
        return describe(self.axis, self.hi - self.lo + 1, self.extent, self.index)


def reindex_bounds(op: ir.Operation, ranges: dict[int, Range] | None = None
                   ) -> tuple[list[AxisBound], list[int]]:
    """The source axes of ``reindex`` ``op`` that need a runtime test: separable ones, and the
    axes that are not separable. Nothing for a ``reindex`` with ``fill``, an empty tile or
    axes without symbols; with ``ranges`` (``analyze_ranges`` of the function), nothing
    for axes proven in range (a separable one by its offset's range, another by interval
    arithmetic over the whole expression)."""
    if op.attr("fill") is not None:
        return [], []
    m: ir.IndexMap = op.attr("map")
    shape = [int(e) for e in op.result.type.shape]
    if not m.n_symbols or any(n == 0 for n in shape):
        return [], []
    src = [int(e) for e in op.operand(0).type.shape]
    syms = [(ranges or {}).get(id(v)) or type_range(v.type) or Range(-(1 << 63), (1 << 63) - 1)
            for v in op.operands[1:]]
    tests: list[AxisBound] = []
    mixed: list[int] = []
    for axis, e in enumerate(m.results):
        if e.max_symbol() == 0:
            continue
        parts = split(e)
        if parts is None:
            dims = [Range(0, n - 1) for n in shape]
            if ranges is None or not affine_range(e, syms, dims).within(Range(0, src[axis] - 1)):
                mixed.append(axis)
            continue
        f, g = parts
        lo, hi = extremes(f, shape)
        bound = AxisBound(axis, g, lo, hi, src[axis], f.max_dim() == 0)
        ok = bound.admissible
        if ranges is not None and ok is not None and affine_range(g, syms).within(ok):
            continue
        tests.append(bound)
    return tests, mixed


def view_in_range(op: ir.Operation, ranges: dict[int, Range]) -> bool:
    """True when every element of ``view`` ``op`` maps inside its base, for every value the
    symbols may take under ``ranges``: per axis, the result is a domain coordinate of the
    same extent (the axis permutations capture builds), or everything is static but the
    symbols and the interval fits."""
    m: ir.IndexMap = op.attr("map")
    dom = op.result.type.shape
    base = op.operand(0).type.shape
    syms = [ranges.get(id(v)) or type_range(v.type) or Range(-(1 << 63), (1 << 63) - 1)
            for v in op.operands[1:]]
    for e, ext in zip(m.results, base):
        if len(e.terms) == 1 and e.constant == 0 and e.terms[0][1] == 1 \
                and e.terms[0][0][0] == "d" and dom[e.terms[0][0][1]] == ext:
            continue
        if not ext.is_static or not all(d.is_static for d in dom):
            return False
        if any(int(d) == 0 for d in dom):
            return True  # nothing is accessed
        parts = split(e)
        if parts is None:
            return False
        f, g = parts
        lo, hi = extremes(f, [int(d) for d in dom])
        r = affine_range(g, syms)
        if r.lo + lo < 0 or r.hi + hi > int(ext) - 1:
            return False
    return True


def unit_projection(m: ir.IndexMap) -> list[int] | None:
    """For a map whose every result is one view axis with step 1 plus terms free of view
    axes, the view axis of each result (-1: none); None for any other map."""
    n = m.n_dims
    zero = [ir.const(0)] * n
    axes = []
    used = set()
    for r in m.results:
        base = r.substitute(zero)
        axis = -1
        for j in range(n):
            one = [ir.const(int(i == j)) for i in range(n)]
            two = [ir.const(2 * int(i == j)) for i in range(n)]
            d1, d2 = r.substitute(one) - base, r.substitute(two) - base
            if d1.terms or d2.terms or d2.constant != 2 * d1.constant \
                    or d1.constant not in (0, 1):
                return None
            if d1.constant == 1:
                if axis != -1 or j in used:
                    return None
                axis = j
                used.add(j)
        axes.append(axis)
    return axes if len(used) == n else None


def unit_term(view: ir.Operation, axis: int) -> tuple[int, ir.AffineExpr] | None:
    """The memory axis a bounded ``view`` walks along tile ``axis`` with unit stride, and
    the origin expression there (the map's result at coordinate 0); None when no result
    is ``d<axis> + (symbols)``."""
    if view.name != "view" or view.attr("bounds") != "bounded":
        return None
    imap: ir.IndexMap = view.attr("map")
    for j, e in enumerate(imap.results):
        if e.coefficient("d", axis) != 1:
            continue
        if any(atom[0] != "s" and atom != ("d", axis) for atom, _ in e.terms):
            return None
        return j, e.substitute([ir.const(0)] * imap.n_dims)
    return None
