"""The candidate-form invariants of the verifier: index maps (1), parallel nesting (4),
reductions (9) and comparators (10).

The Scheduled and Machine forms run these too (``verifier.FORM_CHECKS``); the
structural and core checks, the context and the rendering are ``verifier``'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .core import Operation
from .layout import IndexMap, LayoutError
from .reductions import recognize_merges
from .types import MemoryType, TileType
from .verifier import Check, _Context, _Issue, _per_op, _where

__all__ = ["CANDIDATE_CHECKS"]

_LEVELS = ("grid", "group", "subgroup", "lane")
"""Execution levels, outermost first; a nested parallel must bind a strictly inner level."""

_TILE_SEMANTIC_OPS = frozenset({"load", "store", "atomic", "view", "memory", "mma", "reduce",
                                "map", "reindex", "sync"})
"""Operations that must execute inside a ``parallel`` (invariant 4)."""

_EXACT_IMAGE_LIMIT = 1 << 20
"""Largest static domain whose index-map image is evaluated point by point."""

@_per_op("1")
def _check_index_maps(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Invariant 1: view-of-view / reindex-of-reindex maps compose; static images in range."""
    if op.name not in ("view", "reindex"):
        return
    composite: IndexMap = op.attr("map")
    cur, seen = op, {op}
    while True:
        inner = cur.operand(0).defining_op
        if inner is None or inner.name != op.name or inner in seen:
            break
        if inner in ctx.bad:
            return  # its own error already names the problem
        try:
            composite = inner.attr("map").compose(composite)
        except LayoutError as e:
            yield _Issue(f"{op.name} of a {op.name}: the maps do not compose ({e})", "1", op)
            return
        cur = inner
        seen.add(cur)
    root_t, res_t = cur.operand(0).type, op.result.type
    if composite.n_dims != res_t.rank or composite.rank != root_t.rank:
        yield _Issue(f"the composed map {composite} does not send a rank-{res_t.rank} space to "
                     f"the rank-{root_t.rank} root {root_t}", "1", op)
        return
    must_stay_inside = (op.name == "reindex" and op.attr("fill") is None) or \
        (op.name == "view" and op.attr("bounds") == "total")
    if not must_stay_inside:
        return
    m: IndexMap = op.attr("map")
    src_t = op.operand(0).type
    bad = _image_escapes(m, res_t, src_t)
    if bad is not None:
        how = "has no fill value" if op.name == "reindex" else "is declared bounds='total'"
        yield _Issue(f"{op.name} map {m} reads axis {bad[0]} at {bad[1]}, outside the source "
                     f"extent {src_t.shape[bad[0]]}, and the {op.name} {how}", "1", op)


def _image_escapes(m: IndexMap, dom_t: Any, cod_t: Any) -> tuple[int, int] | None:
    """An (axis, coordinate) of ``m``'s image leaving ``cod_t``, or None (also when unknown).

    Only static, symbol-free maps are decided. Interval bounds settle the common
    case in O(rank); a suspected escape is confirmed point by point (sound, no
    false reports) when the domain is at most ``_EXACT_IMAGE_LIMIT`` points.
    """
    if not isinstance(dom_t, (TileType, MemoryType)) or not isinstance(cod_t, (TileType,
                                                                                 MemoryType)):
        return None
    if m.n_symbols or not all(e.is_static for e in (*dom_t.shape, *cod_t.shape)):
        return None
    ext = [int(e) for e in dom_t.shape]
    if any(e == 0 for e in ext):
        return None
    suspects = []
    for axis, expr in enumerate(m.results):
        lo, hi = _interval(expr, ext)
        if lo < 0 or hi >= int(cod_t.shape[axis]):
            suspects.append(axis)
    if not suspects:
        return None
    size = 1
    for e in ext:
        size *= e
    if size > _EXACT_IMAGE_LIMIT:
        return None
    import numpy as np

    grids = np.meshgrid(*[np.arange(e, dtype=np.int64) for e in ext], indexing="ij")
    for axis in suspects:
        vals = np.broadcast_to(np.asarray(m.results[axis].evaluate(grids)), tuple(ext))
        out = (vals < 0) | (vals >= int(cod_t.shape[axis]))
        if out.any():
            return axis, int(vals[out].flat[0])
    return None


def _interval(expr: Any, ext: list[int]) -> tuple[int, int]:
    """Bounds of a symbol-free quasi-affine ``expr`` over ``[0, ext)`` (an over-approximation)."""
    lo = hi = expr.constant
    for atom, c in expr.terms:
        if atom[0] == "d":
            a_lo, a_hi = 0, ext[atom[1]] - 1
        else:
            i_lo, i_hi = _interval(atom[1], ext)
            k = atom[2]
            if atom[0] == "floordiv":
                a_lo, a_hi = i_lo // k, i_hi // k
            elif 0 <= i_lo and i_hi < k:
                a_lo, a_hi = i_lo, i_hi
            else:
                a_lo, a_hi = 0, k - 1
        lo += min(c * a_lo, c * a_hi)
        hi += max(c * a_lo, c * a_hi)
    return lo, hi


def _level_of(op: Operation) -> str | None:
    """The execution level a parallel binds, when it names a known one."""
    level = op.attr("level")
    if level is None:
        level = getattr(op.attr("constraint"), "level", None)
    return level if level in _LEVELS else None


@_per_op("4")
def _check_parallel_nesting(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Invariant 4: tile semantics run inside a parallel; nested parallels bind inner levels."""
    if op.name in _TILE_SEMANTIC_OPS:
        anc = op.parent_op
        while anc is not None and anc.name != "parallel":
            anc = anc.parent_op
        if anc is None:
            yield _Issue(f"'{op.name}' is a semantic tile operation outside every parallel "
                         f"region of {_where(ctx, op)}; wrap it in a parallel nest", "4", op)
        return
    if op.name != "parallel":
        return
    level, constraint = op.attr("level"), op.attr("constraint")
    if level is not None and level not in _LEVELS:
        yield _Issue(f"parallel level {level!r} is not one of {', '.join(_LEVELS)}", "4", op)
        return
    if level is not None and constraint is not None and constraint.level != level:
        yield _Issue(f"parallel binds level {level!r} but its constraint asks for "
                     f"{constraint.level!r}", "4", op)
        return
    mine = _level_of(op)
    if mine is None:
        return
    anc = op.parent_op
    while anc is not None and (anc.name != "parallel" or _level_of(anc) is None):
        anc = anc.parent_op
    if anc is not None and _LEVELS.index(_level_of(anc)) >= _LEVELS.index(mine):  # type: ignore
        yield _Issue(f"a {mine}-level parallel is nested in a {_level_of(anc)}-level parallel; "
                     "nested execution cuts must be strictly inner", "4", op)


@_per_op("9")
def _check_reductions(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Invariant 9: a pure update; a tree policy needs a recognized merge; combiner agrees."""
    if op.name != "reduce":
        return
    for inner in op.walk(include_self=False):
        if inner.opdef.effect not in ("pure", "control"):
            yield _Issue(f"the reduce update contains '{inner.name}', which has a "
                         f"{inner.opdef.effect} effect; the update must be pure", "9", inner)
            return
    policy = op.attr("policy")
    laws = recognize_merges(op.regions[0].entry, len(op.results))
    combiner = op.attr("combiner")
    if combiner is not None and len(combiner) != len(laws):
        yield _Issue(f"reduce has {len(laws)} state(s) but its combiner lists {len(combiner)}",
                     "9", op)
        return
    for k, law in enumerate(laws):
        if policy.allows_tree and law is None:
            origin = "explicit" if policy.explicit else "the default"
            yield _Issue(f"reduce state {k}: the update is not a recognized merge (an add, mul, "
                         "max or min of the state with a value computed from the elements, or "
                         "the canonical arg pair of ir.emit_merge), so "
                         f"{origin} unordered_tree policy cannot regroup it; use "
                         'policy="strict_fold" to fold in source order', "9", op)
            return
        if combiner is None:
            continue
        c = combiner[k]
        if c == "custom":
            if policy.allows_tree:
                yield _Issue(f"reduce state {k}: combiner 'custom' admits no tree, but the "
                             "policy is unordered_tree", "9", op)
                return
        elif c != law:
            found = f"'{law}'" if law is not None else "no recognized merge"
            yield _Issue(f"reduce state {k}: combiner says '{c}' but the update is {found}",
                         "9", op)
            return


def _check_comparators(ctx: _Context) -> Iterator[_Issue]:
    """Invariant 10, vacuous: no sort or selection operation exists in the inventory.

    An ordering family would have to be added to ``_FAMILY_FORMS`` before any
    such operation verifies, which is where its comparator check belongs.
    """
    return iter(())


CANDIDATE_CHECKS: tuple[Check, ...] = (
    Check("index-maps", "1", _check_index_maps),
    Check("parallel-nesting", "4", _check_parallel_nesting),
    Check("reductions", "9", _check_reductions),
    Check("comparators", "10", _check_comparators),
)
"""The candidate invariants, in order."""
