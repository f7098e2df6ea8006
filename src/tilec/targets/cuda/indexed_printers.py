"""CUDA (and Metal) printers of data-dependent accesses: ``load_scalar``, ``gather``,
``scatter`` (``lower.machine_indexed`` makes them).

Each element is one guarded scalar access of a rank-0 window of the memory, cut at
the element's coordinates (the one along ``axis`` a register of the index array, an
``int64_t`` of any value) and ``bounded`` by the memory's extents, so
``access.AccessWriter`` tests it against the memory and every ``bounded`` window on
the way; a ``total`` view on the way is a whole permutation of its base (capture
makes no other), which the bounds of the element's window already cover. A register
of a masked distribution outside the tile (``shape``) makes no access.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import tilec.ir as ir
from tilec.ir.ranges import I64, Range, affine_range, type_range
from tilec.targets.clike import Scalar
from tilec.targets.cuda.access import MemRef, affine_c
from tilec.targets.cuda.forms import static_shape
from tilec.targets.cuda.memory_printers import atomic_stmt

if TYPE_CHECKING:
    from tilec.targets.cuda.emitter import CUDAEmitter

__all__ = ["INDEXED_PRINTERS"]


def _element(ref: MemRef, coords: list[ir.AffineExpr], syms: list[str],
             ranges: list[Range]) -> MemRef:
    """The rank-0 window of ``ref`` at ``coords`` (over ``syms``), bounded by its extents."""
    return ref.sub(ir.IndexMap(0, coords, len(syms)), syms, [1] * len(syms), (), True, ranges)


def print_load_scalar(em: CUDAEmitter, op: ir.Operation) -> None:
    """``x = fill; if (valid) x = view[];`` in every thread (the address is uniform)."""
    ref = em.memref(op.operand(0), op)
    t = op.result.type
    reg = em.fresh("e")
    em.buf.line(f"{em.rtype(t)} {reg} = {em.reg_literal(op.attr('fill'), t)};")
    em.access.access(ref, (), lambda lv, i: f"{reg} = {lv};", None, None)
    var = em.name_of(op.result)
    em.buf.line(f"const {em.ctype(t)} {var} = {em.to_compute(reg, t)};")
    em.bind(op.result, Scalar(var, t))


def _registers(em: CUDAEmitter, op: ir.Operation, n: int, idx: str,
               each: Callable[[MemRef, int], None], ref: MemRef) -> None:
    """For register ``i`` of ``n``: the element window at its coordinates (``map`` at ``i``,
    the thread id symbol 0, the index register ``idx[i]`` along ``axis``), guarded by the
    tile's extents where the distribution is masked."""
    m: ir.IndexMap = op.attr("map")
    shape, axis = op.attr("shape"), op.attr("axis")
    tid = op.operands[-1]
    tid_c, tid_r = em.int_text(tid, op), em.range_of(tid)
    it = op.operand(1).type.dtype
    for i in range(n):
        coords = [r.substitute([ir.AffineExpr((), i)]) for r in m.results]
        conds = []
        for k, (c, ext) in enumerate(zip(coords, shape)):
            if k == axis:
                continue
            r = affine_range(c, [tid_r])
            if not (r.lo >= 0 and r.hi < ext):
                text = affine_c(c, [tid_c], (), [tid_r])
                conds.append(f"({text}) >= 0 && ({text}) < {ext}")
        coords[axis] = ir.s(1)
        with em.buf.block("" if not conds else f"if ({' && '.join(conds)})"):
            elem = _element(ref, coords, [tid_c, f"(int64_t){idx}[{i}]"],
                            [tid_r, type_range(it) or I64])
            each(elem, i)


def print_gather(em: CUDAEmitter, op: ir.Operation) -> None:
    """Each register reads its own computed address; invalid ones keep ``fill``."""
    ref = em.memref(op.operand(0), op)
    idx = em.regs(op.operand(1), op)
    rt = op.result.type
    n = static_shape(rt, op, em)[0]
    out = em.declare((n,), rt.dtype, em.name_of(op.result))
    em.fill(out, em.reg_literal(op.attr("fill"), rt.dtype))
    _registers(em, op, n, idx.name, lambda elem, i: em.access.access(
        elem, (), lambda lv, _j: f"{out.name}[{i}] = {lv};", None, None), ref)
    em.bind(op.result, out)


def print_scatter(em: CUDAEmitter, op: ir.Operation) -> None:
    """Each register writes (or atomically combines) its value at its computed address."""
    ref = em.memref(op.operand(0), op)
    idx = em.regs(op.operand(1), op)
    src = em.regs(op.operand(2), op)
    t = op.operand(2).type.dtype
    kind = op.attr("kind")
    n = static_shape(op.operand(2).type, op, em)[0]
    if kind is not None and t.name not in (em.profile.atomic_dtypes or ()):
        raise em.unsupported(op, f"scatter {kind} on {t} memory")  # the lowering refuses first

    def stmt(lv: str, i: int) -> str:
        value = f"{src.name}[{i}]"
        return f"{lv} = {value};" if kind is None else atomic_stmt(t, kind, lv, value)

    _registers(em, op, n, idx.name, lambda elem, i: em.access.access(
        elem, (), lambda lv, _j: stmt(lv, i), None, None), ref)


INDEXED_PRINTERS: dict[str, Callable[[CUDAEmitter, ir.Operation], None]] = {
    "load_scalar": print_load_scalar, "gather": print_gather, "scatter": print_scatter,
}
"""Opcode -> its printer."""
