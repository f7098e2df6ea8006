"""Distributions of tiles over the threads of a group: the ``DistLayout`` attribute.

A ``DistLayout`` says where every element of a tile lives: thread ``t`` of a
group of ``threads`` threads holds ``local`` registers, and register ``i``
holds the tile element ``map(t, i)`` (an ``IndexMap`` with two domain
coordinates, ``d0 = t`` and ``d1 = i``). Registers form a small row-major
array ``regs`` (``local = prod(regs)``); its axes are the *register digits*
that layout algebra reasons about (a broadcast drops a digit, a conversion
renames digits).

Two flags make deviations from a bijection explicit (seed invariant 7):
``replicated`` (several ``(t, i)`` hold the same element) and ``masked``
(some ``(t, i)`` fall outside the tile; those registers hold nothing
meaningful and are never stored). ``coverage`` checks a layout against its
tile exhaustively.

The families lowering uses are built here: ``blocked`` (elementwise, loads
and stores), ``rows`` and ``row_reduced`` (row reductions), ``fragment_acc``
(matrix accumulators of the ``gm x gn / rm x rn`` family), ``one_atom``
(the round-robin matrix reference) and ``replicated``; ``image`` derives the
layout a broadcast/transpose/reshape source needs so that the reindex is a
register renaming. ``register_map`` finds that renaming between two layouts
when it exists.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .dims import AffineExpr, const, d
from .interning import Interned
from .layout import IndexMap, LayoutError
from .types import ScalarType

__all__ = ["DistLayout", "Coverage", "LayoutError", "blocked", "rows", "row_reduced",
           "fragment_acc", "lane_tile", "one_atom", "replicated", "image", "register_map",
           "vector_width", "unravel", "RegisterPiece", "owner_predicate"]


def _prod(xs: Sequence[int]) -> int:
    out = 1
    for x in xs:
        out *= int(x)
    return out


def unravel(linear: AffineExpr, shape: Sequence[int]) -> list[AffineExpr]:
    """Row-major coordinates of ``linear`` in ``shape`` (the leading one is not reduced)."""
    out: list[AffineExpr] = []
    stride = _prod(shape)
    for k, e in enumerate(shape):
        stride //= int(e)
        x = linear.floordiv(stride) if stride > 1 else linear
        out.append(x if k == 0 else x.mod(int(e)))
    return out


def _digits(regs: Sequence[int]) -> list[AffineExpr]:
    """Each register digit of ``d1`` (the register index) as an expression (0 for extent 1)."""
    out = []
    stride = _prod(regs)
    for k, e in enumerate(regs):
        stride //= int(e)
        if int(e) == 1:
            out.append(const(0))
            continue
        x = d(1).floordiv(stride) if stride > 1 else d(1)
        out.append(x if k == 0 else x.mod(int(e)))
    return out


@dataclass(frozen=True)
class Coverage:
    """How a layout covers its tile: counts over the whole ``threads x local`` domain."""

    missing: int
    """Tile elements no register holds."""
    duplicates: int
    """Registers holding an element another register already holds."""
    outside: int
    """Registers whose coordinate lies outside the tile."""

    def problems(self, layout: DistLayout) -> list[str]:
        """What breaks invariant 7 given the layout's declared flags."""
        out = []
        if self.missing:
            out.append(f"{self.missing} tile element(s) are held by no thread")
        if self.duplicates and not layout.replicated:
            out.append(f"{self.duplicates} register(s) duplicate an element but the layout is "
                       "not declared replicated")
        if self.outside and not layout.masked:
            out.append(f"{self.outside} register(s) fall outside the tile but the layout is not "
                       "declared masked")
        return out


class DistLayout(Interned):
    """Thread ``t``'s register ``i`` holds tile element ``map(t, i)``; see the module docstring."""

    __slots__ = ("kind", "shape", "threads", "regs", "map", "replicated", "masked", "params",
                 "parts")
    kind: str
    """The family it was built by (``blocked``, ``rows``, ``row_reduced``, ``fragment``,
    ``one_atom``, ``replicated`` or ``derived``); informational, the map is the truth."""
    shape: tuple[int, ...]
    """The tile's static extents."""
    threads: int
    """Threads of the group."""
    regs: tuple[int, ...]
    """The register array's shape (its axes are the register digits)."""
    map: IndexMap
    """``(d0 = thread, d1 = register) -> tile coordinates``, no symbols."""
    replicated: bool
    """True when some element is held by several ``(t, i)``."""
    masked: bool
    """True when some ``(t, i)`` lie outside the tile."""
    params: tuple[tuple[str, int], ...]
    """Family parameters (vector width, team size, matrix factors ...), for reports."""
    parts: tuple[int, ...]
    """Canonical split of the register array into separately named arrays (sizes summing to
    ``local``); matrix accumulators keep one array per atom so atoms update them in place."""

    @classmethod
    def _key(cls, kind: str, shape: Sequence[int], threads: int, regs: Sequence[int],
             map: IndexMap, replicated: bool = False, masked: bool = False,
             params: Sequence[tuple[str, int]] = (), parts: Sequence[int] | None = None
             ) -> tuple:
        shape_t = tuple(int(e) for e in shape)
        regs_t = tuple(int(e) for e in regs)
        if threads < 1 or any(e < 1 for e in regs_t):
            raise LayoutError(f"a layout needs positive threads and register extents, got "
                              f"{threads} and {list(regs_t)}")
        if not isinstance(map, IndexMap) or map.n_dims != 2 or map.n_symbols:
            raise LayoutError(f"a layout map takes (thread, register) and no symbols: {map}")
        if map.rank != len(shape_t):
            raise LayoutError(f"layout map {map} has {map.rank} results for a rank-"
                              f"{len(shape_t)} tile")
        local = _prod(regs_t)
        parts_t = tuple(int(p) for p in parts) if parts is not None else (local,)
        if sum(parts_t) != local or any(p < 1 for p in parts_t):
            raise LayoutError(f"layout parts {list(parts_t)} do not split {local} registers")
        return (str(kind), shape_t, int(threads), regs_t, map, bool(replicated), bool(masked),
                tuple((str(k), int(v)) for k, v in params), parts_t)

    def _init(self, key: tuple) -> None:
        for name, value in zip(self.__slots__, key):
            self._set(name, value)

    # -- sizes -----------------------------------------------------------------------
    @property
    def local(self) -> int:
        """Registers per thread."""
        return _prod(self.regs)

    @property
    def rank(self) -> int:
        """Rank of the tile."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """Elements of the tile."""
        return _prod(self.shape)

    def param(self, name: str, default: int | None = None) -> int | None:
        """A family parameter by name."""
        for k, v in self.params:
            if k == name:
                return v
        return default

    @property
    def part_offsets(self) -> tuple[int, ...]:
        """First register of each canonical part."""
        out, acc = [], 0
        for p in self.parts:
            out.append(acc)
            acc += p
        return tuple(out)

    # -- evaluation ------------------------------------------------------------------
    def table(self) -> tuple[np.ndarray, np.ndarray]:
        """Coordinates of every ``(t, i)`` (``rank`` arrays of ``threads x local``) and validity."""
        return _table(self)

    def coords(self, t: int, i: int) -> tuple[int, ...]:
        """The tile coordinate of thread ``t``'s register ``i``."""
        return tuple(int(x) for x in self.map.apply((t, i)))

    def coverage(self) -> Coverage:
        """Exhaustive coverage counts (cheap: ``threads * local`` points)."""
        coords, valid = self.table()
        outside = int((~valid).sum())
        if self.rank == 0:
            held = int(valid.sum())
            return Coverage(0 if held else 1, max(0, held - 1), outside)
        flat = np.ravel_multi_index(tuple(c[valid] for c in coords), self.shape)
        counts = np.bincount(flat, minlength=self.size)
        missing = int((counts == 0).sum())
        duplicates = int(counts.sum() - (counts > 0).sum())
        return Coverage(missing, duplicates, outside)

    def check(self) -> None:
        """Raise ``LayoutError`` when the flags do not make the coverage exact (invariant 7)."""
        problems = self.coverage().problems(self)
        if problems:
            raise LayoutError(f"{self}: " + "; ".join(problems))

    def thread_map(self) -> IndexMap:
        """``(d0 = register)[s0 = thread] -> coordinates``: the per-thread view map."""
        return IndexMap(1, [e.substitute([AffineExpr(((("s", 0), 1),), 0), d(0)])
                            for e in self.map.results], 1)

    # -- text ------------------------------------------------------------------------
    def __str__(self) -> str:
        shape = ", ".join(str(e) for e in self.shape)
        items = [self.kind, f"[{shape}]", f"threads = {self.threads}",
                 "regs = [" + ", ".join(str(e) for e in self.regs) + "]",
                 f"map = {self.map}"]
        if self.replicated:
            items.append("replicated")
        if self.masked:
            items.append("masked")
        if self.parts != (self.local,):
            items.append("parts = [" + ", ".join(str(p) for p in self.parts) + "]")
        items.extend(f"{k} = {v}" for k, v in self.params)
        return "#dist<" + ", ".join(items) + ">"

    def __repr__(self) -> str:
        return str(self)


@lru_cache(maxsize=4096)
def _table(layout: DistLayout) -> tuple[np.ndarray, np.ndarray]:
    t, i = np.meshgrid(np.arange(layout.threads, dtype=np.int64),
                       np.arange(layout.local, dtype=np.int64), indexing="ij")
    raw = layout.map.apply((t, i))
    coords = np.stack([np.broadcast_to(np.asarray(c, np.int64), t.shape) for c in raw]) \
        if raw else np.zeros((0,) + t.shape, np.int64)
    valid = np.ones(t.shape, bool)
    for c, e in zip(coords, layout.shape):
        valid &= (c >= 0) & (c < e)
    coords.setflags(write=False)
    valid.setflags(write=False)
    return coords, valid


def _finish(kind: str, shape: Sequence[int], threads: int, regs: Sequence[int],
            results: Sequence[AffineExpr], params: Sequence[tuple[str, int]] = (),
            parts: Sequence[int] | None = None, replicated: bool | None = None) -> DistLayout:
    """Build a layout and derive its flags from an exhaustive coverage check."""
    m = IndexMap(2, list(results))
    probe = DistLayout(kind, shape, threads, regs, m, True, True, params, parts)
    cov = probe.coverage()
    if cov.missing:
        raise LayoutError(f"{kind} layout of {list(shape)} over {threads} threads misses "
                          f"{cov.missing} element(s)")
    rep = bool(cov.duplicates) if replicated is None else replicated
    return DistLayout(kind, shape, threads, regs, m, rep, bool(cov.outside), params, parts)


# ------------------------------------------------------------------------- families


def vector_width(dtype: ScalarType, extent: int) -> int:
    """Elements per 16-byte access of ``dtype`` that divide a contiguous extent (at least 1)."""
    v = max(1, 128 // max(8, dtype.bits))
    while v > 1 and extent % v:
        v //= 2
    return v


def blocked(shape: Sequence[int], threads: int, dtype: ScalarType) -> DistLayout:
    """Row-major chunks of ``v`` elements, chunk ``j`` on thread ``j mod threads``: coalesced."""
    shape = tuple(int(e) for e in shape)
    n = _prod(shape)
    if not shape:
        return replicated((), threads)
    v = vector_width(dtype, shape[-1])
    steps = max(1, -(-n // (threads * v)))
    step, e = _digits((steps, v))
    linear = step * (threads * v) + d(0) * v + e
    return _finish("blocked", shape, threads, (steps, v), unravel(linear, shape),
                   (("v", v),), replicated=False)


def rows(shape: Sequence[int], threads: int, team: int, v: int) -> DistLayout:
    """Rows (all axes but the last, linearized) to teams of ``team`` threads; a row's elements
    to its team's threads in ``v``-wide chunks. The last extent must be a multiple of team*v."""
    shape = tuple(int(e) for e in shape)
    cols = shape[-1]
    lead = shape[:-1]
    n_rows = _prod(lead)
    if threads % team or cols % (team * v):
        raise LayoutError(f"rows layout: team {team} x vector {v} must divide the row length "
                          f"{cols} and team must divide {threads} threads")
    teams = threads // team
    nrs = max(1, -(-n_rows // teams))
    ncs = cols // (team * v)
    rs, cs, e = _digits((nrs, ncs, v))
    row = rs * teams + (d(0).floordiv(team) if team > 1 else d(0))
    col = cs * (team * v) + d(0).mod(team) * v + e
    coords = (unravel(row, lead) if lead else []) + [col]
    return _finish("rows", shape, threads, (nrs, ncs, v), coords,
                   (("team", team), ("v", v), ("teams", teams)), replicated=False if lead
                   else teams > 1)


def row_reduced(shape: Sequence[int], threads: int, team: int) -> DistLayout:
    """The rows layout's result after reducing the last axis: each team holds its rows'
    values, replicated over the team's threads. ``shape`` is the kept shape."""
    shape = tuple(int(e) for e in shape)
    n_rows = _prod(shape)
    teams = threads // team
    nrs = max(1, -(-n_rows // teams))
    row = d(1) * teams + (d(0).floordiv(team) if team > 1 else d(0))
    if not shape:
        if teams != 1:
            raise LayoutError("a full reduction to rank 0 needs one team of all threads")
        return replicated((), threads)
    return _finish("row_reduced", shape, threads, (nrs,), unravel(row, shape),
                   (("team", team), ("teams", teams)))


def fragment_acc(shape: Sequence[int], threads: int, gm: int, gn: int, rm: int, rn: int,
                 am: int, an: int, frag: IndexMap, frag_regs: int,
                 one_array: bool = False) -> DistLayout:
    """A ``gm x gn`` grid of 32-lane subgroups, each owning ``rm x rn`` atoms of ``am x an``;
    ``frag`` is the atom's C layout ``(lane, c) -> (row, col)`` with ``frag_regs`` registers.
    Registers are one array per atom (what an atom instruction updates) unless
    ``one_array``."""
    m, n = (int(e) for e in shape)
    if gm * gn * 32 != threads or gm * rm * am != m or gn * rn * an != n:
        raise LayoutError(f"fragment layout {gm}x{gn}/{rm}x{rn} of {am}x{an} atoms does not "
                          f"tile {m}x{n} with {threads} threads")
    lane = d(0).mod(32)
    warp = d(0).floordiv(32)
    fm, fn, c = _digits((rm, rn, frag_regs))
    fr, fc = (e.substitute([lane, c]) for e in frag.results)
    wm = const(0) if gm == 1 else warp.floordiv(gn) if gn > 1 else warp
    wn = const(0) if gn == 1 else warp.mod(gn)
    row = wm * (rm * am) + fm * am + fr
    col = wn * (rn * an) + fn * an + fc
    return _finish("fragment", (m, n), threads, (rm, rn, frag_regs), (row, col),
                   (("gm", gm), ("gn", gn), ("rm", rm), ("rn", rn), ("am", am), ("an", an)),
                   parts=None if one_array else (frag_regs,) * (rm * rn), replicated=False)


def lane_tile(shape: Sequence[int], threads: int, gm: int, gn: int, rm: int, rn: int,
              am: int, an: int, frag: IndexMap, frag_regs: int) -> DistLayout:
    """The lane-FMA micro-tile: a ``gm x gn`` grid of subgroups, each owning ``rm x rn``
    atoms of ``am x an`` as in ``fragment_acc``, but inside a subgroup's rectangle lane
    ``l`` holds rows ``fm*am + row(l)`` and the ``frag_regs * rn`` *consecutive* columns
    starting at ``col(l, 0) * rn`` (``frag`` is the atom's lane layout, whose columns for
    one lane are consecutive). Registers are ``(fm, c, fn)``; consecutive columns make the
    shared-memory reads of B and the global stores of C 16-byte vectors."""
    m, n = (int(e) for e in shape)
    if gm * gn * 32 != threads or gm * rm * am != m or gn * rn * an != n:
        raise LayoutError(f"lane tile {gm}x{gn}/{rm}x{rn} of {am}x{an} atoms does not tile "
                          f"{m}x{n} with {threads} threads")
    lane = d(0).mod(32)
    warp = d(0).floordiv(32)
    fm, c, fn = _digits((rm, frag_regs, rn))
    fr = frag.results[0].substitute([lane, const(0)])
    fc0 = frag.results[1].substitute([lane, const(0)])
    wm = const(0) if gm == 1 else warp.floordiv(gn) if gn > 1 else warp
    wn = const(0) if gn == 1 else warp.mod(gn)
    row = wm * (rm * am) + fm * am + fr
    col = wn * (rn * an) + fc0 * rn + c * rn + fn
    return _finish("lane_tile", (m, n), threads, (rm, frag_regs, rn), (row, col),
                   (("gm", gm), ("gn", gn), ("rm", rm), ("rn", rn), ("am", am), ("an", an)),
                   replicated=False)


def one_atom(shape: Sequence[int], threads: int, am: int, an: int, frag: IndexMap,
             frag_regs: int) -> DistLayout:
    """The one-atom reference: job ``r`` of subgroup ``w`` is atom ``r*G + w`` (row-major over
    the ``U x V`` atom grid); jobs past ``U*V`` are an inactive (masked) tail."""
    m, n = (int(e) for e in shape)
    g = threads // 32
    u, v = m // am, n // an
    jobs = -(-(u * v) // g)
    lane = d(0).mod(32)
    r, c = _digits((jobs, frag_regs))
    atom_ix = r * g + d(0).floordiv(32)
    fr, fc = (e.substitute([lane, c]) for e in frag.results)
    row = atom_ix.floordiv(v) * am + fr if v > 1 else atom_ix * am + fr
    col = atom_ix.mod(v) * an + fc
    return _finish("one_atom", (m, n), threads, (jobs, frag_regs), (row, col),
                   (("jobs", jobs), ("am", am), ("an", an)), parts=(frag_regs,) * jobs,
                   replicated=False)


def replicated(shape: Sequence[int], threads: int) -> DistLayout:
    """Every thread holds the whole (small) tile, in row-major register order."""
    shape = tuple(int(e) for e in shape)
    n = max(1, _prod(shape))
    return DistLayout("replicated", shape, threads, (n,), IndexMap(2, unravel(d(1), shape)
                                                                  if shape else []),
                      threads > 1, False)


def image(layout: DistLayout, rmap: IndexMap, src_shape: Sequence[int]) -> DistLayout | None:
    """The layout of a reindex source that makes ``reindex(src) {map = rmap}`` in ``layout``
    a register renaming: the consumer's coordinates sent through ``rmap``, with the register
    digits they do not depend on dropped. None when it would not cover the source."""
    if rmap.n_symbols or rmap.n_dims != layout.rank:
        return None
    src_shape = tuple(int(e) for e in src_shape)
    results = [e.substitute(list(layout.map.results)) for e in rmap.results]
    _, valid = layout.table()
    keep = []
    base = _eval(results, layout.threads, layout.local)
    for k in range(len(layout.regs)):
        if layout.regs[k] == 1:
            continue
        zeroed = [e.substitute([d(0), _set_digit(layout.regs, k)]) for e in results]
        other = _eval(zeroed, layout.threads, layout.local)
        same = all(((a == b) | ~valid).all() for a, b in zip(base, other))
        if not same:
            keep.append(k)
    new_regs = [layout.regs[k] for k in keep] or [1]
    new_digits = _digits(new_regs)
    old_index = const(0)
    strides = _strides(layout.regs)
    for pos, k in enumerate(keep):
        old_index = old_index + new_digits[pos] * strides[k]
    mapped = [e.substitute([d(0), old_index]) for e in results]
    try:
        out = _finish("derived", src_shape, layout.threads, new_regs, mapped)
    except LayoutError:
        return None
    return out


def _strides(regs: Sequence[int]) -> list[int]:
    out, acc = [], 1
    for e in reversed(regs):
        out.append(acc)
        acc *= int(e)
    return out[::-1]


def _set_digit(regs: Sequence[int], k: int) -> AffineExpr:
    """``d1`` with register digit ``k`` set to zero."""
    strides = _strides(regs)
    digits = _digits(regs)
    return d(1) - digits[k] * strides[k]


def _eval(results: Sequence[AffineExpr], threads: int, local: int) -> list[np.ndarray]:
    t, i = np.meshgrid(np.arange(threads, dtype=np.int64), np.arange(local, dtype=np.int64),
                       indexing="ij")
    return [np.broadcast_to(np.asarray(e.evaluate((t, i)), np.int64), t.shape)
            for e in results]


# ------------------------------------------------------------------ register renaming


@dataclass(frozen=True)
class RegisterPiece:
    """Destination registers ``[start, start + length)`` read source part ``part`` through
    ``map`` (``(d0) -> (source register within the part)``), a constant-index reindex."""

    start: int
    """First destination register."""
    length: int
    """Number of destination registers."""
    part: int
    """Index of the source part read."""
    map: IndexMap
    """Destination register (relative to ``start``) to source register (within the part)."""


def register_map(src: DistLayout, dst: DistLayout, rmap: IndexMap | None = None,
                 src_parts: Sequence[int] | None = None) -> list[RegisterPiece] | None:
    """How each thread builds ``dst`` from its own ``src`` registers, or None when some
    element a thread needs is held by another thread.

    ``rmap`` (symbol-free) sends ``dst`` coordinates to ``src`` coordinates (a reindex);
    without it both layouts describe the same tile. The register chosen for a destination
    register must not depend on the thread. The result is as few affine pieces as possible,
    each reading one source part (``src_parts``, default ``src.parts``).
    """
    if src.threads != dst.threads:
        return None
    if rmap is not None and (rmap.n_symbols or rmap.n_dims != dst.rank
                             or rmap.rank != src.rank):
        return None
    parts = tuple(src_parts) if src_parts is not None else src.parts
    dcoords, dvalid = dst.table()
    if rmap is not None:
        need = np.stack([np.broadcast_to(np.asarray(e.evaluate(tuple(dcoords)), np.int64),
                                         dvalid.shape) for e in rmap.results]) \
            if rmap.rank else np.zeros((0,) + dvalid.shape, np.int64)
    else:
        need = dcoords
    scoords, svalid = src.table()
    choice = _choose_sources(need, dvalid, scoords, svalid, src.shape)
    if choice is None:
        return None
    return _pieces(choice, parts)


def _choose_sources(need: np.ndarray, dvalid: np.ndarray, scoords: np.ndarray,
                    svalid: np.ndarray, src_shape: tuple[int, ...]) -> list[int] | None:
    """Per destination register, one source register that every thread can use (or None)."""
    dlocal = dvalid.shape[1]
    if len(src_shape):
        sflat = np.where(svalid, np.ravel_multi_index(tuple(np.clip(c, 0, e - 1) for c, e in
                                                            zip(scoords, src_shape)), src_shape),
                         -1)
        inside = np.ones(dvalid.shape, bool)
        for c, e in zip(need, src_shape):
            inside &= (c >= 0) & (c < e)
        nflat = np.where(inside, np.ravel_multi_index(tuple(np.clip(c, 0, e - 1) for c, e in
                                                            zip(need, src_shape)), src_shape),
                         -2)
    else:
        sflat = np.where(svalid, 0, -1)
        nflat = np.zeros(dvalid.shape, np.int64)
    # A destination register whose needed coordinate lies outside the source (a fill) cannot
    # be renamed; one that is invalid for a thread places no requirement on that thread.
    choice = []
    for i in range(dlocal):
        rows_valid = dvalid[:, i]
        if not rows_valid.any():
            choice.append(-1)
            continue
        want = nflat[:, i]
        if (want[rows_valid] < 0).any():
            return None
        ok = (sflat == want[:, None]) | ~rows_valid[:, None]
        good = np.flatnonzero(ok.all(axis=0))
        if good.size == 0:
            return None
        choice.append(int(good[0]))
    return choice


def _pieces(choice: list[int], parts: tuple[int, ...]) -> list[RegisterPiece]:
    """Split a register table into affine runs that each read one source part."""
    offsets = []
    acc = 0
    for p in parts:
        offsets.append(acc)
        acc += p

    def part_of(j: int) -> int:
        k = 0
        while k + 1 < len(offsets) and offsets[k + 1] <= j:
            k += 1
        return k

    whole = _fit_whole(choice, parts, offsets)
    if whole is not None:
        return [whole]
    pieces: list[RegisterPiece] = []
    i = 0
    n = len(choice)
    while i < n:
        j0 = choice[i] if choice[i] >= 0 else None
        k = part_of(j0) if j0 is not None else None
        start = i
        step = None
        i += 1
        while i < n:
            j = choice[i]
            if j < 0:
                i += 1
                continue
            if j0 is None:
                j0, k = j, part_of(j)
                i += 1
                continue
            if part_of(j) != k:
                break
            prev = _last_defined(choice, start, i)
            if prev is None:
                i += 1
                continue
            pi, pj = prev
            if (j - pj) % (i - pi):
                break
            s = (j - pj) // (i - pi)
            if step is None:
                if _consistent(choice, start, i, s):
                    step = s
                    i += 1
                    continue
                break
            if s != step:
                break
            i += 1
        if j0 is None or k is None:  # no thread needs these registers: any part will do
            j0, k = 0, 0
        first_i, first_j = next(((a, choice[a]) for a in range(start, i) if choice[a] >= 0),
                                (start, j0))
        s = step or 0
        base = first_j - offsets[k] - s * (first_i - start)
        pieces.append(RegisterPiece(start, i - start, k, IndexMap(1, [d(0) * s + base])))
    return pieces


def _last_defined(choice: list[int], start: int, end: int) -> tuple[int, int] | None:
    for a in range(end - 1, start - 1, -1):
        if choice[a] >= 0:
            return a, choice[a]
    return None


def _consistent(choice: list[int], start: int, end: int, s: int) -> bool:
    pts = [(a, choice[a]) for a in range(start, end + 1) if choice[a] >= 0]
    if len(pts) < 2:
        return True
    a0, j0 = pts[0]
    return all(j == j0 + s * (a - a0) for a, j in pts)


def _fit_whole(choice: list[int], parts: tuple[int, ...], offsets: list[int]
               ) -> RegisterPiece | None:
    """One piece for all registers when they read one part through an affine digit map."""
    defined = [j for j in choice if j >= 0]
    if not defined:
        return RegisterPiece(0, len(choice), 0, IndexMap(1, [const(0)]))
    k = max(x for x, o in enumerate(offsets) if o <= defined[0])
    lo, hi = offsets[k], offsets[k] + parts[k]
    if any(not lo <= j < hi for j in defined):
        return None
    rel = [j - lo if j >= 0 else -1 for j in choice]
    expr = _fit_mixed_radix(rel)
    if expr is None:
        return None
    return RegisterPiece(0, len(choice), k, IndexMap(1, [expr]))


def _fit_mixed_radix(rel: list[int]) -> AffineExpr | None:
    """An expression ``sum_k c_k * ((d0 floordiv s_k) mod e_k) + b`` matching ``rel``.

    Tries the power-of-two digit decomposition of the index (with the full index as a
    fallback digit), which covers every renaming between the families here."""
    n = len(rel)
    if all(j < 0 for j in rel):
        return const(0)
    for radices in [[n], *_splits(n)]:
        expr = _try_radices(rel, radices)
        if expr is not None:
            return expr
    return None


def _splits(n: int) -> list[list[int]]:
    """Orderings of the prime factors of ``n`` as radices (a bounded number of them)."""
    fs = []
    x = n
    p = 2
    while p * p <= x:
        while x % p == 0:
            fs.append(p)
            x //= p
        p += 1
    if x > 1:
        fs.append(x)
    if len(fs) < 2:
        return []
    out = {tuple(fs)}
    for perm in itertools.islice(itertools.permutations(fs), 2000):
        out.add(perm)
    return [list(p) for p in sorted(out)]


def _try_radices(rel: list[int], radices: list[int]) -> AffineExpr | None:
    n = len(rel)
    strides = _strides(radices)
    known = [(i, j) for i, j in enumerate(rel) if j >= 0]
    i0, j0 = known[0]
    digits_of = lambda i: [(i // s) % e for s, e in zip(strides, radices)]  # noqa: E731
    # Solve per digit: the coefficient is the change from the base when that digit moves.
    base_digits = digits_of(i0)
    coeffs = []
    for k in range(len(radices)):
        c = None
        for i, j in known:
            dg = digits_of(i)
            others = all(dg[x] == base_digits[x] for x in range(len(radices)) if x != k)
            if others and dg[k] != base_digits[k]:
                diff = j - j0
                step = dg[k] - base_digits[k]
                if diff % step:
                    return None
                c = diff // step
                break
        coeffs.append(c if c is not None else 0)
    b = j0 - sum(c * dg for c, dg in zip(coeffs, base_digits))
    for i, j in known:
        if sum(c * dg for c, dg in zip(coeffs, digits_of(i))) + b != j:
            return None
    expr = const(b)
    for k, (c, s, e) in enumerate(zip(coeffs, strides, radices)):
        if c == 0:
            continue
        x = d(0).floordiv(s) if s > 1 else d(0)
        if k > 0 or s * e < n:
            x = x.mod(e)
        expr = expr + x * c
    return expr


# ------------------------------------------------------------------ replica owners


def owner_predicate(layout: DistLayout) -> tuple[int, int] | None:
    """Threads that together hold every element of a replicated layout exactly once (a
    thread may repeat an element in its own registers).

    Returns ``(m, n)``: the owners are the threads with ``t mod m == 0`` and ``t < n``
    (``m = 1`` or ``n = threads`` leave that part out); None when no such form works. For
    each power of two ``m`` (smallest first), the owners are taken in thread order until
    every element is held: the first ``n`` that covers the tile with no element twice (24
    elements over 32 threads of 4 registers, thread ``t`` holding ``(4t + r) mod 24``: the
    first six threads, ``(1, 6)``).
    """
    coords, valid = layout.table()
    if layout.rank:
        flat = np.where(valid, np.ravel_multi_index(
            tuple(np.clip(c, 0, e - 1) for c, e in zip(coords, layout.shape)), layout.shape), -1)
    else:
        flat = np.where(valid, 0, -1)
    flat = flat.reshape(layout.threads, -1)
    for m in _pow2_upto(layout.threads):
        seen = np.zeros(layout.size, bool)
        count = 0
        for t in range(0, layout.threads, m):
            # a thread may hold an element in several registers (it writes the same value
            # each time); across owners every element once
            held = np.unique(flat[t][flat[t] >= 0])
            if seen[held].any():
                break  # an element twice: no prefix of these owners works
            seen[held] = True
            count += held.size
            if count == layout.size:  # n: the first owner left out (none: every thread)
                return m, min(t + m, layout.threads)
    return None


def _pow2_upto(n: int) -> list[int]:
    out, x = [], 1
    while x <= n:
        out.append(x)
        x *= 2
    return out


def is_pow2(n: int) -> bool:
    """True for positive powers of two."""
    return n > 0 and (n & (n - 1)) == 0

