"""Data-dependent addressing: scalar reads of memory, ``tc.gather`` and ``tc.scatter``.

Seed 001 has no gather or scatter opcode: "gather is a load whose index map is
a value; scatter is an indexed store or atomic". Here:

* ``M[i, j]`` on an array or ``tc.memory`` with one integer per axis reads one
  element as a *scalar* (a rank-0 ``bounded`` ``view`` and a ``load_scalar``). The
  scalar is a runtime value like an argument: a window origin, a loop bound, an
  ``if`` condition, index arithmetic. An element outside the memory reads 0 (a
  window used as a value is its tile, so ``w[i]`` indexes that tile);
* ``tc.gather(M, idx, axis, fill=None)`` reads ``M`` at each element's own
  coordinates with the one along ``axis`` replaced by the element of ``idx``
  (``torch.gather`` / ``numpy.take_along_axis`` on the window); coordinates
  outside ``M`` read ``fill``;
* ``tc.scatter(M, idx, axis, value)`` and ``tc.scatter_add`` write (add) each
  element of ``value`` at the same coordinates; coordinates outside ``M`` are
  not written (``store`` / ``atomic`` with the indices, one ``scatter`` op).

Addresses computed from data are never trusted: every one is bounded by the
memory's extents and the validity of every window on the way, so a bad
index cannot read or write outside an array.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

import tilec.ir as ir

from .builtins import implements
from .constants import ConstantRangeError
from .tiles import (
    TILEISH,
    CallSite,
    as_index,
    as_tile,
    as_tileish,
    cast_value,
    static_int,
    typed_number,
)
from .values import MemVal, ScalarVal, TileVal, describe, is_number
from .views import broadcast_to

if TYPE_CHECKING:
    from .capture import Capture

__all__ = ["is_element_index", "scalar_read"]


def is_element_index(m: MemVal, items: list[Any]) -> bool:
    """True when ``m[items]`` names one element of memory: one integer (or integer scalar)
    per axis of an array or ``tc.memory``. A window used as a value is its tile (dsl.md), so
    ``w[i]`` keeps indexing that tile."""
    if m.window or len(items) != m.type.rank or m.type.rank == 0:
        return False
    return all((isinstance(it, int) and not isinstance(it, bool))
               or (isinstance(it, ScalarVal) and it.dtype.is_int and it.dtype is not ir.i1)
               for it in items)


def _default_fill(cap: Capture, node: ast.AST, m: MemVal, fill: Any) -> Any:
    """The fill of a data-dependent read: ``fill``, else the window's, else 0."""
    if fill is None:
        fill = m.fill if m.fill is not None else 0
    if not is_number(fill):
        raise cap.error(node, f"fill must be a compile-time number, got {describe(fill)}")
    try:
        return typed_number(fill, m.dtype)
    except ConstantRangeError as e:
        raise cap.error(node, f"fill={fill!r}: {e}, the element type of the memory") from None


def _no_pure(cap: Capture, node: ast.AST, what: str) -> None:
    if cap.pure:
        raise cap.error(node, f"a reduction update cannot {what} (read or write memory before "
                        "the reduction)")


def scalar_read(cap: Capture, node: ast.AST, m: MemVal, items: list[Any],
                fill: Any = None) -> ScalarVal:
    """``m[i, j, ...]``: one element of memory as a scalar of its type (see the module)."""
    _no_pure(cap, node, "read memory")
    exprs: list[ir.AffineExpr] = []
    syms: list[ir.Value] = []
    for axis, (it, ext) in enumerate(zip(items, m.type.shape)):
        if isinstance(it, int):
            # memory has no such element, and a negative literal is never one (reads do not
            # wrap)
            if it < 0 or (ext.is_static and it >= int(ext)):
                raise cap.error(node, f"index {it} is out of range for axis {axis} of {m.type} "
                                "(memory reads do not wrap negative indices)")
            exprs.append(ir.const(it))
        else:
            iv = as_index(cap, node, it, "a memory index")
            exprs.append(ir.s(len(syms)))
            syms.append(iv.value)
    t = m.type
    vm = ir.IndexMap(0, exprs, len(syms))
    v = cap.builder.value("view", [m.value, *syms], ir.MemoryType((), t.dtype, t.space),
                          {"map": vm, "bounds": "bounded"}, loc=cap.loc(node))
    r = cap.builder.value("load_scalar", [v], t.dtype,
                          {"fill": _default_fill(cap, node, m, fill)}, loc=cap.loc(node),
                          name_hint=m.value.name_hint)
    return ScalarVal(r)


def _memory_arg(site: CallSite, x: Any) -> MemVal:
    if not isinstance(x, MemVal):
        raise site.error(f"{site.name}() addresses memory (an array, a window or tc.memory), "
                         f"got {describe(x)}", 0)
    if x.type.rank == 0:
        raise site.error(f"{site.name}() of rank-0 memory: there is no axis to index", 0)
    return x


def _axis_arg(site: CallSite, m: MemVal, axis: Any) -> int:
    a = static_int(site.cap, site.node_of("axis"), axis, "the axis")
    rank = m.type.rank
    if not -rank <= a < rank:
        raise site.error(f"axis {a} is out of range for rank-{rank} memory", "axis")
    return a % rank


def _indices_arg(site: CallSite, m: MemVal, idx: Any, at: int | str) -> TileVal:
    cap, node = site.cap, site.node_of(at)
    idx = as_tileish(cap, node, idx)
    if not isinstance(idx, TILEISH):
        raise cap.error(node, f"{site.name}() takes a tile of integer indices, got "
                        f"{describe(idx)} (a single element is M[i, j])")
    if not idx.dtype.is_int or idx.dtype is ir.i1:
        raise cap.error(node, f"{site.name}() indices must be an integer tile, got "
                        f"{describe(idx)} (convert with .to(tc.int32))")
    if len(idx.shape) != m.type.rank:
        raise cap.error(node, f"{site.name}() of rank-{m.type.rank} memory takes rank-"
                        f"{m.type.rank} indices, got {describe(idx)} (broadcast them, e.g. "
                        "ids[:, None] to (n, d))")
    return as_tile(cap, node, idx)


@implements("gather")
def _gather(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["x", "indices", "axis", "fill"], {"fill": None})
    _no_pure(cap, site.node, "read memory")
    m = _memory_arg(site, a["x"])
    axis = _axis_arg(site, m, a["axis"])
    idx = _indices_arg(site, m, a["indices"], 1)
    fill = _default_fill(cap, site.node_of("fill"), m, a["fill"])
    r = cap.builder.value("gather", [m.value, idx.value], ir.TileType(idx.shape, m.dtype),
                          {"axis": axis, "fill": fill}, loc=cap.loc(site.node))
    return TileVal(r)


@implements("scatter", "scatter_add")
def _scatter(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["x", "indices", "axis", "value"])
    _no_pure(cap, site.node, "write memory")
    m = _memory_arg(site, a["x"])
    axis = _axis_arg(site, m, a["axis"])
    idx = _indices_arg(site, m, a["indices"], 1)
    node = site.node_of("value")
    x = as_tileish(cap, node, a["value"])
    if not (is_number(x) or isinstance(x, (ScalarVal, *TILEISH))):
        raise cap.error(node, f"{site.name}() writes a tile, a scalar or a number, got "
                        f"{describe(x)}")
    if not isinstance(x, TILEISH) or x.shape != idx.shape:
        try:
            x = broadcast_to(cap, node, x, idx.shape)
        except Exception:
            raise cap.error(node, f"{site.name}() of a {describe(x)} with indices of shape "
                            f"{idx.shape}: the value must broadcast to the indices") from None
    value = as_tile(cap, node, cast_value(cap, node, x, m.dtype))
    attrs: dict[str, Any] = {"axis": axis}
    if site.name.endswith("scatter_add"):
        attrs["kind"] = "add"
    cap.builder.create("scatter", [m.value, idx.value, value.value], [], attrs,
                       loc=cap.loc(site.node))
    cap.note_write()
    return None
