"""Which staged windows each copy engine can take: static facts of a staged load.

A staged load (``schedule.staged_loads``) may be copied by ``cp.async`` when its window is
a plain one (a zero-filled or unfilled window of a kernel parameter with contiguous rows)
in a blocked layout of 16-byte vectors, and by tensor copies (``tma.load``) when it also
has 16-bit elements, at most 256 rows and whole 64-column blocks (an unfilled float
window's outside elements read as NaN: ``nan_filled``). Both the schedule (which chooses a
ring protocol) and the lowering (which issues the copies) ask these questions; the
in-kernel guards on the array's extents are the lowering's (``machine_pipeline``).
"""

from __future__ import annotations

import numpy as np

import tilec.ir as ir
from tilec.ir import dist_layout as L
from tilec.ir.atoms import SWIZZLE_BYTES, TMA_ALIGN, swizzle_cols
from tilec.ir.dataflow import affine_pow2_divisor, pow2_divisor

__all__ = ["plain_window", "nan_filled", "matrix_axes", "async_eligible", "tma_eligible",
           "TMA_ALIGN", "column_origin_aligned",
           "TMA_BOX", "store_window", "store_chunks", "tensor_store_blocker"]


def plain_window(ld: ir.Operation) -> tuple[ir.Operation, list[int]] | None:
    """The ``view`` of a kernel parameter (rank >= 2) a staged load reads and the array
    axes of its rows and columns, when the window is a plain one (``matrix_axes``) and its
    fill is zero or absent (``nan_filled``); None otherwise: neither copy engine can take
    it."""
    fill = ld.attr("fill")
    if fill is not None and (float(fill) != 0.0 or str(float(fill)) == "-0.0"):
        return None
    return _parameter_window(ld.operand_named("memory"))


def nan_filled(ld: ir.Operation) -> bool:
    """Whether a staged load's elements outside the array read as NaN: a float window with
    no fill, whose outside elements are unspecified, which every target materializes as
    NaN (an integer window's read as 0, the zero fill). ``cp.async`` then copies only whole
    chunks inside the array (its partial chunks would fill zeros) and a tensor copy's map
    fills NaN (``oob = "nan"``)."""
    return ld.attr("fill") is None and ld.result.type.dtype.is_float


def _parameter_window(mem: ir.Value) -> tuple[ir.Operation, list[int]] | None:
    """The ``view`` of a kernel parameter (rank >= 2, global) ``mem`` is and its matrix
    axes (``matrix_axes``), or None."""
    view = mem.defining_op
    if view is None or view.name != "view":
        return None
    base = view.operand(0)
    if not isinstance(base, ir.BlockArgument) or base.owner.parent_op is not None \
            or base.type.space != "global" or base.type.rank < 2:
        return None
    axes = matrix_axes(view.attr("map"))
    return None if axes is None else (view, axes)


def async_eligible(ld: ir.Operation, lay: L.DistLayout) -> bool:
    """Whether a staged load may be copied by ``cp.async.16``: a plain window and a blocked
    layout of 16-byte vectors."""
    v = lay.param("v") or 1
    return lay.kind == "blocked" and v * ld.result.type.dtype.bytes == 16 \
        and plain_window(ld) is not None


TMA_BOX = 256
"""The largest extent of one tensor-copy box axis."""

def tma_eligible(ld: ir.Operation, lay: L.DistLayout) -> bool:
    """Whether a swizzled staged load may be filled by tensor copies (it may also be
    copied by ``cp.async``, the fallback): 16-bit or 32-bit elements, a parameter of rank 2
    to 5, at most 256 rows and whole 128-byte column blocks (``swizzle_cols``: one box of
    the 128-byte swizzle each)."""
    rows, cols = (int(e) for e in ld.result.type.shape)
    dt = ld.result.type.dtype
    if dt.bytes not in (2, 4) or rows > TMA_BOX or cols % swizzle_cols(dt) \
            or not async_eligible(ld, lay):
        return False
    got = plain_window(ld)
    return got is not None and got[0].operand(0).type.rank <= 5


def column_origin_aligned(view: ir.Operation, dtype: ir.ScalarType) -> bool:
    """Whether the plain window ``view`` (``matrix_axes``: its columns are the array's last
    axis) provably starts its rows at a multiple of ``TMA_ALIGN`` bytes in every execution:
    the column origin's symbols are multiples of powers of two (``pow2_divisor``) that
    make the whole origin one of ``TMA_ALIGN // dtype.bytes`` elements. Where this is
    unknown, a tensor copy needs the same test at run time."""
    m: ir.IndexMap = view.attr("map")
    origin = m.results[-1] - ir.d(1)
    syms = [pow2_divisor(x) for x in view.operands[1:]]
    got = affine_pow2_divisor(origin, syms)
    return got == 0 or got % max(1, TMA_ALIGN // dtype.bytes) == 0


def matrix_axes(m: ir.IndexMap) -> list[int] | None:
    """The array axes of a 2-D window's rows and columns: the result holding ``d0`` and the
    last one, which must hold ``d1`` (contiguous rows), each with coefficient 1 and no other
    dimension; every other result reads no dimension (a fixed coordinate of a unit axis the
    window squeezed). None for any other map."""
    if m.n_dims != 2:
        return None
    found: list[int | None] = [None, None]
    for a, e in enumerate(m.results):
        dims = {x[1] for x, _ in e.terms if x[0] == "d"}
        if any(x[0] in ("floordiv", "mod") and x[1].max_dim() for x, _ in e.terms):
            return None
        if not dims:
            continue
        if len(dims) != 1:
            return None
        k = dims.pop()
        if e.coefficient("d", k) != 1 or found[k] is not None:
            return None
        found[k] = a
    if found[0] is None or found[1] != len(m.results) - 1:
        return None
    return [found[0], found[1]]


def store_window(st: ir.Operation) -> tuple[ir.Operation, list[int]] | None:
    """The ``view`` of a kernel parameter a ``store`` writes and the array axes of its rows
    and columns, when the window is a plain one (``matrix_axes``); None otherwise."""
    return _parameter_window(st.operand_named("memory"))


def store_chunks(lay: L.DistLayout, cols: int) -> list[list[int]] | None:
    """Per chunk of ``cols`` tile columns, the canonical parts of ``lay`` that hold its
    elements, or None where a part holds elements of two chunks (for every thread)."""
    t = np.arange(lay.threads).reshape(-1, 1)
    r = np.arange(lay.local).reshape(1, -1)
    col = np.broadcast_to(np.asarray(lay.map.apply([t, r])[-1]), (lay.threads, lay.local))
    chunks: list[list[int]] = [[] for _ in range(-(-int(lay.shape[-1]) // cols))]
    for k, (off, size) in enumerate(zip(lay.part_offsets, lay.parts)):
        which = col[:, off:off + size] // cols
        if (which != which[0, 0]).any():
            return None
        chunks[int(which[0, 0])].append(k)
    return chunks


def tensor_store_blocker(st: ir.Operation, lay: L.DistLayout) -> str | None:
    """Why ``store`` ``st`` of a tile in layout ``lay`` cannot go through shared memory and
    tensor stores (``LowerOptions.tensor_store``), or None: a plain window of a kernel
    parameter of rank 2 to 5 with 16- or 32-bit elements, a 2-D tile of at most 256 rows
    (a multiple of 8) and whole 128-byte column chunks, in a layout that is neither masked
    nor replicated and keeps each part inside one chunk."""
    val = st.operand(1)
    t = val.type
    if not isinstance(t, ir.TileType) or t.rank != 2:
        return "the stored value is not a 2-D tile"
    if t.dtype.bytes not in (2, 4):
        return f"{t.dtype} elements (tensor stores here take 16- and 32-bit ones)"
    got = store_window(st)
    if got is None or got[0].operand(0).type.rank > 5:
        return "the window is not a plain window of a kernel parameter"
    if got[0].operand(0).type.dtype is not t.dtype:
        return "the stored value's type is not the array's"
    rows, cols = (int(e) for e in t.shape)
    chunk = SWIZZLE_BYTES // t.dtype.bytes
    if rows > TMA_BOX or rows % 8:
        return f"{rows} rows (at most {TMA_BOX}, a multiple of 8)"
    if cols % chunk:
        return f"{cols} columns, not whole {chunk}-column chunks"
    if lay.masked or lay.replicated:
        return f"the value's layout is {'masked' if lay.masked else 'replicated'}"
    if store_chunks(lay, chunk) is None:
        return f"the value's register parts cross {chunk}-column chunks"
    return None
