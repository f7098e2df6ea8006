"""The cpu printer of ``reindex``: static broadcasts and transposes folded into their
uses, other maps copied with their bounds tested (``ir.index_bounds``) before the copy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import tilec.ir as ir
from tilec.ir.index_bounds import reindex_bounds
from tilec.targets.cpu.access import Level, ViewRef, affine_c, prod
from tilec.targets.cpu.values import Lazy, Splat, Tile, static_shape
from tilec.targets.index_bounds import bound_report, index_report

if TYPE_CHECKING:
    from tilec.targets.cpu.emitter import CEmitter

__all__ = ["print_reindex"]


def print_reindex(em: CEmitter, op: ir.Operation) -> None:
    """Fold static broadcasts/transposes into map uses; otherwise copy with bounds."""
    m: ir.IndexMap = op.attr("map")
    rt = op.result.type
    shape = static_shape(rt, op, em)
    src_form = em.get(op.operand(0), op)
    if isinstance(src_form, Splat) and _static_in_range(m, shape, src_form.shape):
        em.bind(op.result, Splat(src_form.expr, shape, src_form.dtype))
        return
    if (op.num_operands == 1 and isinstance(src_form, Tile)
            and _static_in_range(m, shape, src_form.shape)
            and all(u.owner.name == "map" and u.owner.parent is op.parent
                    for u in op.result.uses)):
        em.bind(op.result, Lazy(src_form, m, shape, rt.dtype))
        return
    src = em.materialize(op.operand(0), op)
    syms = tuple(em.scalar(v, op) for v in op.operands[1:])
    _test_reads(em, op, shape, syms)
    strides = tuple(str(prod(src.shape[j + 1:])) for j in range(len(src.shape)))
    exts = tuple(str(e) for e in src.shape)
    ref = ViewRef(src.name, src.dtype, tuple(str(e) for e in shape), m, syms, strides,
                  (Level(m, syms, exts),), op.operand(0))
    dst = em.new_tile(op.result)
    fill = op.attr("fill")
    fill_c = em.literal(fill, rt.dtype) if fill is not None else em._poison(rt.dtype)
    em.copies.read(ref, shape, dst.name, "{}", fill_c)
    em.bind(op.result, dst)


def _test_reads(em: CEmitter, op: ir.Operation, shape: Sequence[int], syms: Sequence[str]) -> None:
    """Before a ``reindex`` without ``fill`` copies: each source axis it may leave, in
    order; a failure reports the first coordinate read and leaves like a check."""
    tests, mixed = reindex_bounds(op, em.ranges)
    src = [int(e) for e in op.operand(0).type.shape]
    m: ir.IndexMap = op.attr("map")
    for axis in sorted([t.axis for t in tests] + mixed):
        start = em.fresh("first")
        bound = next((t for t in tests if t.axis == axis), None)
        if bound is not None:  # one runtime offset g: the extremes of the rest are static
            g, ok = em.fresh("g"), bound.admissible
            em.buf.line(f"const int64_t {g} = {affine_c(bound.offset, [], syms)};")
            em.buf.line(f"const int64_t {start} = {g} + INT64_C({bound.lo});")
            # compared with the admissible offsets, not as g + hi, which could wrap
            bad = "1" if ok is None else f"{g} < INT64_C({ok.lo}) || {g} > INT64_C({ok.hi})"
            report = bound_report(op, bound)
        else:  # the map mixes coordinates and symbols: scan the tile
            idx = [em.fresh("i") for _ in shape]
            c, last = em.fresh("c"), em.fresh("last")
            em.buf.line(f"int64_t {start} = INT64_MAX, {last} = INT64_MIN;")
            for i, n in zip(idx, shape):
                em.buf.line(f"for (int64_t {i} = 0; {i} < {n}; ++{i})")
            with em.buf.block(""):
                em.buf.line(f"const int64_t {c} = {affine_c(m.results[axis], idx, syms)};")
                em.buf.line(f"{start} = tc_min_i({start}, {c}); "
                              f"{last} = tc_max_i({last}, {c});")
            bad = f"{start} < 0 || {last} >= {src[axis]}"
            report = index_report(op, axis, None, src[axis], False)
        em.reads[(report.op_id, axis)] = report
        with em.buf.block(f"if (__builtin_expect({bad}, 0))"):
            with em.buf.block(f"if (tc_fail(tc_st, TC_ERR_REINDEX, {report.op_id}))"):
                em.buf.line(f"tc_ck[0] = {start}; tc_ck[1] = {axis};")
            em._leave()


def _static_in_range(m: ir.IndexMap, shape: Sequence[int], src: Sequence[int]) -> bool:
    """True when every result is ``d_j`` (unit coefficient) or a constant, always in range."""
    if m.n_symbols:
        return False
    for r, ext in zip(m.results, src):
        if not r.terms:
            if not 0 <= r.constant < ext:
                return False
            continue
        if len(r.terms) != 1 or r.constant != 0:
            return False
        (atom, c), = r.terms
        if atom[0] != "d" or c != 1 or shape[atom[1]] > ext:
            return False
    return True
