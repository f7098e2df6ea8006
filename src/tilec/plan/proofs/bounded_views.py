"""Bounded M/N input views: the rows of A and the columns of B a program's ``mma`` reads
inside the arrays, the accumulator rows and columns its bounded store writes, and the proof
that the rest are never observed (``PlannerOptions.bounded_mn_views``).

An ``mma`` of a ``BM x BK`` tile of A and a ``BK x BN`` tile of B whose windows may cross
the arrays' edges computes, for every accumulator row ``i`` whose A row lies outside A, a
row of ``INIT + fill * B`` terms: zeros against B, but ``0 * Inf`` is NaN and a signed zero
sum has a sign, so those rows are *not* free to skip because their input is padding. They
are free to skip when nothing observes them: when the bounded store of the output window
drops them. The valid input rectangle does not decide which elements are stored (an output
array longer than A stores rows of the padded product); the store's own bound does. So
``bounded_mn(mma, ...)`` gives, axis by axis (M: A's rows and the store's rows; N: B's
columns and the store's columns), from the composed origins:

``actual(p) = clamp(extent - origin(p), 0, tile)`` (the operand's valid rows) and
``stored(p) = clamp(store extent - origin(p), 0, tile)`` (the rows the store writes)

where ``origin(p)`` is the windows' common origin, affine in the group's program
coordinates ``p``. Rows at or past ``stored(p)`` are never stored, whatever the operands
hold; where ``stored <= actual`` (the usual GEMM, C as long as A) they are exactly the
padded rows. The lowering composes ``stored`` with the subgroup rectangle of the chosen
realization (``clamp(stored(p) - s, 0, local)`` for a subgroup whose rectangle starts at
row ``s`` and spans ``local`` rows; ``subgroup_extents`` counts the empty and partial ones
for the report) and reads the store's extent at run time, so symbolic extents need no
comparison. An axis is proved when:

* the operand is a ``load`` of a ``bounded`` view in the ``mma``'s own block, whose map
  walks the tile axis with unit stride along exactly one memory axis (``d<axis> +
  symbols``, no other result reads ``d<axis>``), and whose origin there is affine in the
  group's program coordinates (not in a loop counter: every K step skips the same rows);
* the accumulator is a closed recurrence of a loop whose result reaches exactly one global
  ``store`` of the group, directly or through a proved scalar epilogue (element ``(i, j)``
  of the stored tile depends on accumulator element ``(i, j)`` only;
  ``scalar_epilogue.epilogue_of``), through a ``bounded`` view that walks the same tile
  axis with unit stride from the same origin as the operand (the same constant, program
  coordinates and coefficients: the realization finds the origin at the ``mma`` through the
  operand's window, whose symbols are computed there).

The fill of the operand does not matter, and nothing that is stored changes: every stored
element is computed exactly as before, so NaN, infinities, ``0 * Inf`` and signed zeros
keep their classification, in the padded rows of a longer output too. The counterexamples
are the rules' negations: a store at another origin (shifted, or following other program
coordinates), an origin that moves with the K loop, a transposed or computed operand, an
unbounded store, an accumulator with another consumer. This is a fact of the program, never
a profitability judgement.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import tilec.ir as ir
from tilec.ir.dataflow import closed_recurrence

from .scalar_epilogue import epilogue_of

__all__ = ["BoundedAxis", "BoundedViews", "bounded_mn", "subgroup_extents", "sink_of"]

Affine = tuple[int, dict[ir.Value, int]]
"""``constant + sum(coefficient * block argument)``."""


@dataclass(frozen=True)
class BoundedAxis:
    """One proved axis (M or N) of a bounded view: its actual extent per program."""

    axis: str
    """``"M"`` (A's rows) or ``"N"`` (B's columns)."""
    tile: int
    """The logical tile extent (``BM`` or ``BN``)."""
    extent: int | str
    """The operand array's extent along the axis (a constant, or a shape symbol's name)."""
    origin: int
    """The constant part of the window's origin."""
    coeffs: tuple[tuple[int, int], ...]
    """``(program coordinate, coefficient)`` pairs of the origin."""
    store_extent: int | str
    """The stored array's extent along the axis."""
    grid: tuple[int | None, ...]
    """The group's program extents (None: symbolic)."""

    def _clamped(self, extent: int | str, coords: tuple[int, ...]) -> int | None:
        if not isinstance(extent, int):
            return None
        o = self.origin + sum(c * coords[i] for i, c in self.coeffs)
        return max(0, min(self.tile, extent - o))

    def actual(self, coords: tuple[int, ...]) -> int | None:
        """The operand's valid extent ``clamp(extent - origin(coords), 0, tile)`` for one
        program; None when the extent is symbolic."""
        return self._clamped(self.extent, coords)

    def stored(self, coords: tuple[int, ...]) -> int | None:
        """The store's extent ``clamp(store extent - origin(coords), 0, tile)`` for one
        program (the realization computes these rows only); None when symbolic."""
        return self._clamped(self.store_extent, coords)

    def _per_program(self, f: Callable[[tuple[int, ...]], int | None]) -> list[int] | None:
        """``f`` of every program along the one coordinate the origin reads (or the one
        value of an origin that reads none); None when not static."""
        axes = [i for i, _ in self.coeffs]
        if len(axes) > 1 or any(self.grid[i] is None for i in axes):
            return None
        points = [tuple(0 for _ in self.grid)]
        if axes:
            i = axes[0]
            points = [tuple(p if j == i else 0 for j in range(len(self.grid)))
                      for p in range(self.grid[i])]  # type: ignore[arg-type]
        vals = [f(p) for p in points]
        return None if any(v is None for v in vals) else vals  # type: ignore[return-value]

    def actuals(self) -> list[int] | None:
        """``actual`` of every program along the origin's coordinate; None when not
        static."""
        return self._per_program(self.actual)

    def storeds(self) -> list[int] | None:
        """``stored`` of every program along the origin's coordinate; None when not
        static."""
        return self._per_program(self.stored)

    def describe(self) -> str:
        """``M: stored = clamp(40 - 32*p0, 0, 32), actual = clamp(...)``, with the extents
        of the programs at the edge."""
        terms = "".join(f" - {c}*p{i}" if c > 0 else f" + {-c}*p{i}" for i, c in self.coeffs)
        const = f" - {self.origin}" if self.origin > 0 else \
            f" + {-self.origin}" if self.origin < 0 else ""
        text = (f"{self.axis}: stored = clamp({self.store_extent}{terms}{const}, 0, "
                f"{self.tile}), actual = clamp({self.extent}{terms}{const}, 0, {self.tile})")
        vals = self.storeds()
        if vals is not None:
            edge = sorted({v for v in vals if v < self.tile})
            text += f"; edge extents {edge}" if edge else "; no edge"
        return text

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description."""
        return {"axis": self.axis, "tile": self.tile, "extent": self.extent,
                "origin": self.origin, "coeffs": [list(c) for c in self.coeffs],
                "store_extent": self.store_extent, "actuals": self.actuals(),
                "stored": self.storeds()}


@dataclass(frozen=True)
class BoundedViews:
    """The bounded M/N fact of one ``mma``: the proved axes, and why the others are not."""

    m: BoundedAxis | None
    """A's rows, when proved."""
    n: BoundedAxis | None
    """B's columns, when proved."""
    reasons: tuple[str, ...] = ()
    """Why an axis is not proved (one line per axis that is not)."""

    @property
    def proved(self) -> bool:
        """True when at least one axis is proved."""
        return self.m is not None or self.n is not None

    @property
    def axes(self) -> str:
        """The proved axes: ``"mn"``, ``"m"``, ``"n"`` or ``""``."""
        return ("m" if self.m is not None else "") + ("n" if self.n is not None else "")

    def describe(self) -> str:
        """One line for the plan report."""
        parts = [a.describe() for a in (self.m, self.n) if a is not None]
        return "; ".join(parts + list(self.reasons))

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description."""
        return {"m": None if self.m is None else self.m.to_json(),
                "n": None if self.n is None else self.n.to_json(),
                "reasons": list(self.reasons)}


def subgroup_extents(axis: BoundedAxis, local: int, subgroups: int) -> tuple[int, int] | None:
    """(empty, partial) subgroup rectangles along ``axis`` over every program, for
    ``subgroups`` rectangles of ``local`` rows (columns) each: the composed extent
    ``clamp(stored(p) - s * local, 0, local)`` of subgroup ``s``; None when not static."""
    vals = axis.storeds()
    if vals is None:
        return None
    empty = partial = 0
    for v in vals:
        for s in range(subgroups):
            x = max(0, min(local, v - s * local))
            empty += x == 0
            partial += 0 < x < local
    return empty, partial


@dataclass(frozen=True)
class _Window:
    """A window's unit-stride walk of one tile axis: memory axis, origin and extent."""

    extent: int | str
    origin: Affine


def bounded_mn(mma: ir.Operation, group: ir.Operation,
               affine: Callable[[ir.Value], Affine | None],
               dim: Callable[[ir.Dim], int | None]) -> BoundedViews:
    """The bounded M/N fact of ``mma`` in ``group`` (see the module docstring). ``affine``
    folds an index value to ``constant + sum(coefficient * block argument)`` (the planner's
    folding, with bound shape symbols); ``dim`` gives a static or bound extent."""
    sink, why = sink_of(mma, group)
    t = mma.operand(2).type
    rank = group.attr("rank")
    grid = tuple(_const(affine, group.operand(i)) for i in range(rank))
    found: dict[str, BoundedAxis | None] = {}
    reasons = []
    for name, k, tile_axis, out_axis in (("M", 0, 0, 0), ("N", 1, 1, 1)):
        if sink is None:
            found[name] = None
            reasons.append(f"{name}: {why}")
            continue
        src, w1 = _window(mma.operand(k), tile_axis, mma, group, affine, dim, operand=True)
        dst, w2 = _window(sink.operand(0), out_axis, sink, group, affine, dim, operand=False)
        w = w1 or w2
        if src is None or dst is None:
            found[name] = None
            reasons.append(f"{name}: {w}")
            continue
        ok, w = _aligned(src, dst)
        if not ok:
            found[name] = None
            reasons.append(f"{name}: {w}")
            continue
        coeffs = tuple(sorted((a.index, c) for a, c in src.origin[1].items()))
        found[name] = BoundedAxis(name, int(t.shape[out_axis]), src.extent, src.origin[0],
                                  coeffs, dst.extent, grid)
    return BoundedViews(found["M"], found["N"], tuple(reasons))


def _const(affine: Callable[[ir.Value], Affine | None], v: ir.Value) -> int | None:
    a = affine(v)
    return a[0] if a is not None and not a[1] else None


def sink_of(mma: ir.Operation, group: ir.Operation | None = None
            ) -> tuple[ir.Operation | None, str]:
    """The one global ``store`` of ``mma``'s accumulator (through a closed recurrence and
    an optional scalar epilogue; inside ``group`` when given), or None and why not."""
    rec = closed_recurrence(mma)
    if rec is None:
        return None, "the accumulator is not a closed recurrence of a loop"
    loop, pos = rec
    v = loop.results[pos]
    if v.num_uses != 1:
        return None, f"the accumulator result has {v.num_uses} uses, not one store"
    use = next(iter(v.uses))
    if use.owner.name == "map":
        epi, why = epilogue_of(v)
        if epi is None:
            return None, f"the accumulator passes through a map that is not a scalar " \
                         f"epilogue ({why})"
        st = epi.store
    else:
        st = use.owner
        if st.name != "store" or use.index != 1:
            return None, "the accumulator result is not stored"
    if group is not None and not group.is_ancestor_of(st):
        return None, "the accumulator is not stored by the group"
    dst = st.operand(0)
    if not isinstance(dst.type, ir.MemoryType) or dst.type.space != "global":
        return None, "the accumulator is not stored to global memory"
    return st, ""


def _window(v: ir.Value, axis: int, user: ir.Operation, group: ir.Operation,
            affine: Callable[[ir.Value], Affine | None], dim: Callable[[ir.Dim], int | None],
            operand: bool) -> tuple[_Window | None, str]:
    """The bounded window ``v`` (an operand's load, or a store's destination) walks along
    tile ``axis``, or None and why not."""
    what = "the operand" if operand else "the store"
    view_v = v
    if operand:
        ld = v.defining_op
        if ld is None or ld.name != "load" or ld.parent is not user.parent:
            return None, (f"{what} is not a load in the mma's block (a transposed, computed "
                          "or handed-on tile)")
        view_v = ld.operand(0)
    view = view_v.defining_op
    if view is None or view.name != "view":
        return None, f"{what} is not a window of an array"
    if view.attr("bounds") != "bounded":
        return None, f"{what}'s window at {view.loc} is not bounded"
    imap: ir.IndexMap = view.attr("map")
    zero = [ir.const(0) if i == axis else ir.d(i) for i in range(imap.n_dims)]
    hits = [j for j, e in enumerate(imap.results) if e.substitute(zero) != e]
    if len(hits) != 1:
        return None, f"{what}'s window does not walk tile axis {axis} along one array axis"
    j = hits[0]
    e = imap.results[j]
    if e.coefficient("d", axis) != 1 or any(a[0] != "s" and a != ("d", axis)
                                            for a, _ in e.terms):
        return None, (f"{what}'s window walks tile axis {axis} as {e}, not with unit stride "
                      "from a symbolic origin")
    const, coeffs = e.constant, {}
    for a, c in e.terms:
        if a[0] != "s":
            continue
        aff = affine(view.operand(1 + a[1]))
        if aff is None:
            return None, f"{what}'s origin is not affine in the program coordinates"
        const += c * aff[0]
        for arg, k in aff[1].items():
            if not _program_coordinate(arg, group):
                return None, (f"{what}'s origin at {view.loc} reads a loop counter or another "
                              "value than the program coordinates (it may move between K "
                              "steps)")
            coeffs[arg] = coeffs.get(arg, 0) + c * k
    d = view.operand(0).type.shape[j]
    ext = dim(d)
    extent: int | str = ext if ext is not None else str(d.value)
    return _Window(extent, (const, {a: c for a, c in coeffs.items() if c})), ""


def _program_coordinate(arg: ir.Value, group: ir.Operation) -> bool:
    return isinstance(arg, ir.BlockArgument) and arg.owner.parent_op is group \
        and arg.index < group.attr("rank")


def _aligned(src: _Window, dst: _Window) -> tuple[bool, str]:
    """Whether the store's window starts where the operand's does (the realization reads
    the origin through the operand's window)."""
    if src.origin[1] != dst.origin[1]:
        return False, ("the store's origin follows other program coordinates or "
                       "coefficients than the operand's: its rows are not provably aligned "
                       "to the operand's")
    if src.origin[0] != dst.origin[0]:
        return False, (f"the store's origin is the operand's shifted by "
                       f"{dst.origin[0] - src.origin[0]}: its rows are not provably aligned "
                       "to the operand's")
    return True, ""
