"""C printers of data-dependent accesses: ``load_scalar``, ``gather`` and ``scatter``.

Each element is one access of a rank-0 window of the memory, cut at the
element's coordinates (the one along ``axis`` read from the index tile) and
``bounded`` by the memory's own extents: ``access.CopyLoops`` then tests it
against every window on the way, so an index from data never reaches outside
an array. ``total`` views on the way bound such an access too (an index from
data is not a compile-time promise), as the reference does.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import tilec.ir as ir
from tilec.targets.clike import Scalar
from tilec.targets.cpu.access import CopyLoops, ViewRef
from tilec.targets.cpu.values import static_shape

if TYPE_CHECKING:
    from tilec.targets.cpu.emitter import CEmitter

__all__ = ["INDEXED_PRINTERS"]


def _bounded(view: ViewRef) -> ViewRef:
    """``view`` with every ``total`` level made ``bounded`` (data-dependent addresses)."""
    return dataclasses.replace(view, checks=tuple(dataclasses.replace(c, total=False)
                                                  for c in view.checks))


def _element(view: ViewRef, coords: list[str]) -> ViewRef:
    """The rank-0 window of ``view`` at C coordinates ``coords``, bounded by its extents."""
    m = ir.IndexMap(0, [ir.s(k) for k in range(len(coords))], len(coords))
    return view.sub(m, coords, (), True)


def print_load_scalar(em: CEmitter, op: ir.Operation) -> None:
    """``const T x = valid ? view[] : fill;``"""
    view = _bounded(em.view(op.operand(0), op))
    t = op.result.type
    tmp = em.declare_tile((), t, "e")
    conv = em.LOAD_CONVERT.get(t.name, "{}")
    em.copies.read(view, (), tmp, conv, em.literal(op.attr("fill"), t))
    var = em.fresh("x")
    em.buf.line(f"const {em.ctype(t)} {var} = {tmp}[0];")
    em.bind(op.result, Scalar(var, t))


def _loop_coords(em: CEmitter, shape: tuple[int, ...], axis: int, idx_name: str
                 ) -> tuple[list[str], str]:
    """Open a loop nest over ``shape``; returns each element's memory coordinates (the index
    element along ``axis``) and its flat position."""
    ivs = [em.fresh("i") for _ in shape]
    for j, e in enumerate(shape):
        em.buf.line(f"for (int64_t {ivs[j]} = 0; {ivs[j]} < {e}; ++{ivs[j]})")
    flat = CopyLoops.flat(ivs, shape)
    coords = [f"(int64_t){idx_name}[{flat}]" if k == axis else ivs[k] for k in range(len(shape))]
    return coords, flat


def print_gather(em: CEmitter, op: ir.Operation) -> None:
    """Per element: the valid element at its coordinates, else ``fill``."""
    view = _bounded(em.view(op.operand(0), op))
    idx = em.materialize(op.operand(1), op)
    rt = op.result.type
    shape = static_shape(rt, op, em)
    dst = em.new_tile(op.result)
    conv = em.LOAD_CONVERT.get(rt.dtype.name, "{}")
    fill = em.literal(op.attr("fill"), rt.dtype)
    with em.buf.block(""):
        coords, flat = _loop_coords(em, shape, op.attr("axis"), idx.name)
        with em.buf.block(""):
            em.copies.read(_element(view, coords), (), f"({dst.name} + {flat})", conv, fill)
    em.bind(op.result, dst)


def print_scatter(em: CEmitter, op: ir.Operation) -> None:
    """Per element in row-major order: write (or atomically combine) it where valid."""
    view = _bounded(em.view(op.operand(0), op))
    em.written.add(id(view.root))
    idx = em.materialize(op.operand(1), op)
    src = em.materialize(op.operand(2), op)
    t = op.operand(2).type.dtype
    kind = op.attr("kind")
    shape = static_shape(op.operand(2).type, op, em)
    if kind is not None and t.name in ("f16", "bf16", "i1"):
        raise em.unsupported(op, f"scatter {kind} on {t} memory")
    with em.buf.block(""):
        coords, flat = _loop_coords(em, shape, op.attr("axis"), idx.name)
        elem = f"{src.name}[{flat}]"
        if kind is None:
            conv = em.STORE_CONVERT.get(t.name, "{}")

            def stmt(lv: str, _f: str) -> str:
                return f"{lv} = {conv.format(elem)};"
        elif t.is_float:
            def stmt(lv: str, _f: str) -> str:
                return f"tc_atomic_{kind}_{t.name}(&{lv}, {elem});"
        elif kind == "add":
            def stmt(lv: str, _f: str) -> str:
                return f"__atomic_fetch_add(&{lv}, {elem}, __ATOMIC_RELAXED);"
        else:
            def stmt(lv: str, _f: str) -> str:
                return f"tc_atomic_{kind}_{em.ctype(t)}(&{lv}, {elem});"
        with em.buf.block(""):
            em.copies.write(_element(view, coords), (), stmt)


INDEXED_PRINTERS = {"load_scalar": print_load_scalar, "gather": print_gather,
                    "scatter": print_scatter}
"""The emitter's table entries for the data-dependent accesses."""
