"""Row reductions in the input's own distribution (the ``in_place`` reduce strategy).

A matrix accumulator (``fragment`` layouts) spreads each row over a few lanes of one
subgroup, each holding some of the row's columns in registers that are the same for every
thread (the ``m16n8`` and ``wgmma`` C fragments: a row lives in the four lanes of a quad).
Reducing such a tile along its last axis needs no repartition: every thread folds the
registers of each of its rows, then the row's lanes combine their partials over ``shfl.xor``
masks, and every lane of the row ends with the result. The output is distributed as the
broadcast ``image`` of the input (``dist_layout.image`` of the map ``(r, c) -> r``), so that
broadcasting it back over the rows (``m[:, None]``) is a register renaming too.

``in_place_reduction(src, out)`` checks this exhaustively on the layouts' tables and
returns the recipe (``InPlaceReduction``), or why it does not apply (a string).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dims import d
from .dist_layout import DistLayout, image
from .layout import IndexMap

__all__ = ["InPlaceReduction", "in_place_reduction", "broadcast_image"]


@dataclass(frozen=True)
class InPlaceReduction:
    """How a thread reduces the rows it holds and combines them with its row's lanes."""

    rows: int
    """Distinct rows per thread (``r`` below)."""
    gathers: tuple[tuple[IndexMap, int], ...]
    """Per canonical part of the input: ``(r, k) -> register of the part`` and the registers
    per row ``k`` takes (the part's registers of row ``r``, every thread alike)."""
    masks: tuple[int, ...]
    """The ``shfl.xor`` lane masks over which a row's lanes combine, in order."""
    expand: IndexMap
    """Output register ``j`` -> the row ``r`` it holds (the output may repeat a row)."""


def broadcast_image(src: DistLayout) -> DistLayout | None:
    """The distribution of a rank-2 ``src`` reduced along its last axis that broadcasting
    back (``x[:, None]``) reads as a register renaming; None where there is none."""
    if src.rank != 2:
        return None
    return image(src, IndexMap(2, [d(0)]), (src.shape[0],))


def _affine(values: list[list[int]]) -> IndexMap | None:
    """An ``IndexMap`` ``(r, k) -> values[r][k]`` of the form ``a + b*r + c*k``."""
    a = values[0][0]
    b = values[1][0] - a if len(values) > 1 else 0
    c = values[0][1] - a if len(values[0]) > 1 else 0
    for r, row in enumerate(values):
        for k, v in enumerate(row):
            if v != a + b * r + c * k:
                return None
    return IndexMap(2, [d(0) * b + d(1) * c + a])


def _expand(cls: list[int], rows: int) -> IndexMap | None:
    """An ``IndexMap`` ``j -> cls[j]`` among a few simple shapes."""
    n = len(cls)
    cands = [d(0).floordiv(q) for q in range(1, n + 1)] + [d(0).mod(rows)] + \
        [d(0).floordiv(q).mod(rows) for q in range(2, n + 1)]
    for e in cands:
        m = IndexMap(1, [e])
        if all(int(m.apply((j,))[0]) == c for j, c in enumerate(cls)):
            return m
    return None


def in_place_reduction(src: DistLayout, out: DistLayout) -> InPlaceReduction | str:
    """The recipe reducing ``src`` (rank 2) along its last axis into ``out`` without a
    repartition, or why there is none."""
    if src.rank != 2 or out.rank != 1 or out.shape != src.shape[:1]:
        return f"{src} is not a rank-2 tile reduced to its rows {out}"
    if src.replicated or src.masked or out.masked or src.threads != out.threads:
        return "the input holds an element twice or outside the tile"
    (rows_s, cols_s), _ = src.table()
    (rows_o,), _ = out.table()
    threads, n_cols = src.threads, src.shape[1]
    # the output's registers by row: class r of register j, the same for every thread
    classes: dict[tuple[int, ...], int] = {}
    cls = [classes.setdefault(tuple(rows_o[:, j].tolist()), len(classes))
           for j in range(out.local)]
    n_rows = len(classes)
    row_of = np.stack([np.asarray(k) for k in classes])  # (rows, threads)
    expand = _expand(cls, n_rows)
    if expand is None:
        return f"the output registers of {out} do not repeat its rows in a simple order"
    gathers = []
    for off, n in zip(src.part_offsets, src.parts):
        regs = []
        for r in range(n_rows):
            hit = rows_s[:, off:off + n] == row_of[r][:, None]  # (threads, n)
            some, every = hit.any(axis=0), hit.all(axis=0)
            if (some & ~every).any():
                return "a part's registers hold different rows in different threads"
            regs.append([int(k) for k in np.flatnonzero(every)])
        if any(len(x) != len(regs[0]) for x in regs) or not regs[0]:
            return "a part does not hold the same number of registers of each row"
        m = _affine(regs)
        if m is None:
            return "a part's registers of a row are not an arithmetic progression"
        gathers.append((m, len(regs[0])))
    lanes = np.arange(threads)
    masks = []
    for bit in range(5):
        other = lanes ^ (1 << bit)
        if (other < threads).all() and (rows_o[other] == rows_o).all():
            masks.append(1 << bit)
    span = [0]
    for m in masks:
        span += [s ^ m for s in span]
    team = lanes[:, None] ^ np.asarray(span)[None, :]  # (threads, team)
    for r in range(n_rows):
        cols = []
        for off, n in zip(src.part_offsets, src.parts):
            hit = rows_s[0, off:off + n] == row_of[r][0]
            cols.append(cols_s[team][:, :, off:off + n][:, :, hit].reshape(threads, -1))
        got = np.sort(np.concatenate(cols, axis=1), axis=1)
        if got.shape[1] != n_cols or (got != np.arange(n_cols)[None, :]).any():
            return "a row's lanes (over xor masks " + str(masks) + ") do not hold its " \
                "columns exactly once"
    return InPlaceReduction(n_rows, tuple(gathers), tuple(masks), expand)
