"""Tile and memory views: transpose, reshape, broadcast, slicing, windows, load and store.

Every tile view is one ``reindex`` (a lazy ``ViewTile`` composed with the
next view before it is emitted); every memory window is one ``view`` op with
``bounds = "bounded"``, so out-of-range elements read the fill and are not
written. None of these is an opcode of its own (seed 001, "Minimal operations").
"""

from __future__ import annotations

import ast
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import tilec.ir as ir

from .builtins import IMPLS, implements
from .constants import ConstantRangeError
from .dtypes import dtype_of_ir
from .tiles import (
    TILEISH,
    CallSite,
    _affine_of,
    _shape_str,
    as_index,
    as_tile,
    as_tileish,
    cast_value,
    dtype_arg,
    dtype_of,
    load_view,
    reindex,
    static_int,
    static_shape,
    static_shape_allow_zero,
    tile_shape,
    typed_number,
    weak_type,
    widen_index,
)
from .values import BoundMethod, Elem, MemVal, ScalarVal, TileVal, describe, is_number

if TYPE_CHECKING:
    from .capture import Capture

__all__ = ["permute", "reshape", "broadcast_to", "expand_dims", "subscript", "slice_extent",
           "view", "store_view", "memory", "attribute", "call_method"]


def permute(cap: Capture, node: ast.AST, x: Any, perm: Sequence[int]) -> Any:
    """Axes permutation: result axis ``k`` is source axis ``perm[k]`` (numpy ``transpose``)."""
    if isinstance(x, MemVal):
        return _permute_memory(cap, node, x, perm)
    shape = tile_shape(cap, node, x)
    if sorted(perm) != list(range(len(shape))):
        raise cap.error(node, f"{list(perm)} is not a permutation of the {len(shape)} axes")
    new = tuple(shape[p] for p in perm)
    return reindex(cap, node, x, ir.IndexMap.transpose(perm), (), new)


def _permute_memory(cap: Capture, node: ast.AST, m: MemVal, perm: Sequence[int]) -> MemVal:
    t = m.type
    if sorted(perm) != list(range(t.rank)):
        raise cap.error(node, f"{list(perm)} is not a permutation of the {t.rank} axes")
    shape = [t.shape[p] for p in perm]
    vt = ir.MemoryType(shape, t.dtype, t.space)
    v = cap.builder.value("view", [m.value], vt, {"map": ir.IndexMap.transpose(perm),
                                                   "bounds": "total"},
                          loc=cap.loc(node), name_hint=m.value.name_hint)
    return MemVal(v, m.fill)


def reshape(cap: Capture, node: ast.AST, x: Any, shape: tuple[int, ...]) -> Any:
    """Row-major reshape of a tile; a window reshaped by dropping or inserting unit axes only
    stays a window (``squeeze_window``), so that ``A.tile((b, i, k), (1, BM, BK)).reshape(BM,
    BK)`` is a matrix operand like a 2-D window."""
    if isinstance(x, MemVal) and x.window:
        squeezed = squeeze_window(cap, node, x, shape)
        if squeezed is not None:
            return squeezed
    old = tile_shape(cap, node, x)
    if math.prod(old) != math.prod(shape):
        raise cap.error(node, f"cannot reshape a {_shape_str(old)} tile to {_shape_str(shape)} "
                        f"(element counts differ)")
    return reindex(cap, node, x, ir.IndexMap.reshape(old, shape), (), shape)


def unit_axes_map(old: Sequence[int], new: Sequence[int]) -> ir.IndexMap | None:
    """The map from ``new`` coordinates to ``old`` ones when the two shapes differ only by
    unit axes (the non-unit extents agree in order), else None."""
    if [e for e in old if e != 1] != [e for e in new if e != 1]:
        return None
    axes = iter(k for k, e in enumerate(new) if e != 1)
    return ir.IndexMap(len(new), [ir.const(0) if e == 1 else ir.d(next(axes)) for e in old])


def squeeze_window(cap: Capture, node: ast.AST, m: MemVal, shape: Sequence[int]
                   ) -> MemVal | None:
    """The window ``m`` seen with ``shape`` when that only drops or inserts unit axes: one
    view of ``m``'s source whose map is ``m``'s composed with the unit-axis map (a view of a
    view would hide the source from the matrix staging); None for any other reshape."""
    t = m.type
    if not all(e.is_static for e in t.shape):
        return None
    unit = unit_axes_map([int(e) for e in t.shape], shape)
    if unit is None:
        return None
    vt = ir.MemoryType(list(shape), t.dtype, t.space)
    d = m.value.defining_op
    if d is not None and d.name == "view":
        base, syms = d.operand(0), list(d.operands[1:])
        vm, bounds = d.attr("map").compose(unit), d.attr("bounds")
    else:
        base, syms, vm, bounds = m.value, [], unit, "total"
    v = cap.builder.value("view", [base, *syms], vt, {"map": vm, "bounds": bounds},
                          loc=cap.loc(node), name_hint=m.value.name_hint)
    return MemVal(v, m.fill, window=m.window)


def broadcast_to(cap: Capture, node: ast.AST, x: Any, shape: tuple[int, ...]) -> Any:
    """Numpy broadcasting of a tile (or scalar) to ``shape``."""
    x = as_tileish(cap, node, x)
    if is_number(x) or isinstance(x, ScalarVal):
        return Elem("leaf", (x,), dtype_of(x) or weak_type(x), shape) \
            if isinstance(x, ScalarVal) else Elem("const", (x,), weak_type(x), shape)
    old = tile_shape(cap, node, x)
    try:
        m = ir.IndexMap.broadcast(old, shape)
    except ir.LayoutError as e:
        raise cap.error(node, f"cannot broadcast a {_shape_str(old)} tile to "
                        f"{_shape_str(shape)}: {e}") from None
    return reindex(cap, node, x, m, (), shape)


def expand_dims(cap: Capture, node: ast.AST, x: Any, axes: Sequence[int]) -> Any:
    """Insert unit axes at positions ``axes`` of the result."""
    shape = tile_shape(cap, node, x)
    rank = len(shape) + len(axes)
    axes = sorted(a % rank for a in axes)
    results: list[ir.AffineExpr] = []
    new: list[int] = []
    src = 0
    for k in range(rank):
        if k in axes:
            new.append(1)
        else:
            new.append(shape[src])
            results.append(ir.d(k))
            src += 1
    return reindex(cap, node, x, ir.IndexMap(rank, results), (), tuple(new))


def subscript(cap: Capture, node: ast.Subscript, x: Any, items: list[Any]) -> Any:
    """``x[...]`` on a tile: integers drop an axis, slices keep one, ``None`` adds one."""
    shape = tile_shape(cap, node, x)
    results: list[ir.AffineExpr] = []
    syms: list[ir.Value] = []
    new: list[int] = []
    axis = 0
    n_real = sum(1 for it in items if not (it is None or it is Ellipsis))
    if n_real > len(shape):
        raise cap.error(node, f"too many indices ({n_real}) for a rank-{len(shape)} tile")
    for it in items:
        if it is Ellipsis:
            for _ in range(len(shape) - n_real):
                results.append(ir.d(len(new)))
                new.append(shape[axis])
                axis += 1
            continue
        if it is None:
            new.append(1)
            continue
        ext = shape[axis]
        if isinstance(it, slice):
            start, size, step = slice_extent(cap, node, it, ext)
            if isinstance(start, int):
                results.append(ir.d(len(new)) * step + start)
            else:
                results.append(ir.d(len(new)) * step + ir.s(len(syms)))
                syms.append(start.value)
            new.append(size)
        else:
            if isinstance(it, int) and not isinstance(it, bool):
                if not -ext <= it < ext:
                    raise cap.error(node, f"index {it} is out of range for an axis of {ext}")
                results.append(ir.const(it % ext))
            else:
                iv = as_index(cap, node, it, "a tile index")
                results.append(ir.s(len(syms)))
                syms.append(iv.value)
        axis += 1
    while axis < len(shape):
        results.append(ir.d(len(new)))
        new.append(shape[axis])
        axis += 1
    m = ir.IndexMap(len(new), results, len(syms))
    return reindex(cap, node, x, m, tuple(syms), tuple(new))


def slice_extent(cap: Capture, node: ast.AST, sl: slice, ext: int
                  ) -> tuple[int | ScalarVal, int, int]:
    """``(start, size, step)`` of a tile slice; the size must be known at compile time."""
    step = 1 if sl.step is None else static_int(cap, node, sl.step, "a slice step")
    if step <= 0:
        raise cap.error(node, "tile slices need a positive step")
    start = 0 if sl.start is None else sl.start
    stop = ext if sl.stop is None else sl.stop
    if isinstance(start, int) and isinstance(stop, int):
        lo, hi, _ = slice(start, stop).indices(ext)
        return lo, max(0, -(-(hi - lo) // step)), step
    # both bounds are index positions: widened first, so that their affine forms share atoms
    start, stop = widen_index(cap, start), widen_index(cap, stop)
    a, b = _affine_of(as_scalarish(start)), _affine_of(as_scalarish(stop))
    if a is None or b is None or not b.add(a, -1).is_const:
        raise cap.error(node, "a tile slice with a runtime start needs a compile-time size: "
                        "write x[i * 8:(i + 1) * 8] or x[i:i + 8]")
    size = b.add(a, -1).const
    if size <= 0:
        raise cap.error(node, f"tile slice has size {size}")
    start_v = as_index(cap, node, start, "a slice start")
    return start_v, -(-size // step), step


def as_scalarish(x: Any) -> Any:
    """Numbers and scalars pass; anything else becomes None."""
    return x if isinstance(x, (int, ScalarVal)) else None


def view(cap: Capture, node: ast.AST, m: MemVal, origin: Any, shape: Any, fill: Any
         ) -> MemVal:
    """``m.tile(origin, shape, fill=)``: a bounded window of memory."""
    t = m.type
    if not isinstance(origin, tuple):
        origin = (origin,)
    shape_t = static_shape(cap, node, shape, "the shape of a tile view")
    if len(origin) != t.rank or len(shape_t) != t.rank:
        raise cap.error(node, f"a view of rank-{t.rank} memory needs {t.rank} origin "
                        f"coordinates and {t.rank} extents, got {len(origin)} and {len(shape_t)}")
    if fill is not None and not is_number(fill):
        raise cap.error(node, f"fill must be a compile-time number, got {describe(fill)}")
    if fill is not None:
        try:
            typed_number(fill, t.dtype)
        except ConstantRangeError as e:
            raise cap.error(node, f"fill={fill!r}: {e}, the element type of the window") \
                from None
    exprs: list[ir.AffineExpr] = []
    syms: list[ir.Value] = []
    for o in origin:
        if isinstance(o, int) and not isinstance(o, bool):
            try:
                typed_number(o, ir.index)
            except ConstantRangeError as e:
                raise cap.error(node, f"a view origin {e} (coordinates are 64-bit)") from None
            exprs.append(ir.const(o))
        else:
            iv = as_index(cap, node, o, "a view origin")
            exprs.append(ir.s(len(syms)))
            syms.append(iv.value)
    vm = ir.IndexMap.offset(exprs, n_symbols=len(syms))
    vt = ir.MemoryType(shape_t, t.dtype, t.space)
    v = cap.builder.value("view", [m.value, *syms], vt, {"map": vm, "bounds": "bounded"},
                          loc=cap.loc(node))
    return MemVal(v, fill, window=True)


def _written_window(cap: Capture, node: ast.AST, m: MemVal, x: Any, what: str) -> MemVal:
    """The window ``what`` writes ``x`` through: ``m`` after the checks every write makes (not
    in a reduction update, static extents), seen with the shape of a tile ``x`` that has extra
    (or fewer) unit axes, as a matrix output is written to a 2-D window."""
    t = m.type
    if cap.pure:
        raise cap.error(node, "a reduction update cannot write memory")
    if not all(e.is_static for e in t.shape):
        raise cap.error(node, f"cannot {what} into {t}: its extents are not static; take a "
                        f"window first with .tile(origin, shape)")
    x = as_tileish(cap, node, x)
    if isinstance(x, TILEISH) and x.shape != tuple(int(e) for e in t.shape) and m.window:
        squeezed = squeeze_window(cap, node, m, x.shape)
        if squeezed is not None:
            return squeezed
    return m


def _written_tile(cap: Capture, node: ast.AST, m: MemVal, x: Any, what: str) -> TileVal:
    """``x`` (a tile, scalar or number) broadcast to the window ``m`` and converted to its
    element type, as ``what`` writes it."""
    t = m.type
    shape = tuple(int(e) for e in t.shape)
    x = as_tileish(cap, node, x)
    if not (is_number(x) or isinstance(x, (ScalarVal, *TILEISH))):
        raise cap.error(node, f"cannot {what} {describe(x)} into memory")
    if isinstance(x, TILEISH) and x.shape != shape:
        try:
            x = broadcast_to(cap, node, x, shape)
        except Exception:
            raise cap.error(node, f"{what} of a {_shape_str(x.shape)} tile into a "
                            f"{_shape_str(shape)} view: shapes differ") from None
    elif not isinstance(x, TILEISH):
        x = broadcast_to(cap, node, x, shape)
    return as_tile(cap, node, cast_value(cap, node, x, t.dtype))


def store_view(cap: Capture, node: ast.AST, m: MemVal, x: Any, op: str = "store",
               kind: str | None = None) -> None:
    """Write a tile (converted and broadcast to the view) through ``m``."""
    m = _written_window(cap, node, m, x, op)
    tile = _written_tile(cap, node, m, x, op)
    attrs = {} if kind is None else {"kind": kind}
    cap.builder.create(op, [m.value, tile.value], [], attrs, loc=cap.loc(node))
    cap.note_write()


def exchange_view(cap: Capture, site: CallSite, m: MemVal, kind: str, x: Any,
                  compare: Any = None) -> TileVal:
    """``atomic_xchg`` (``kind`` xchg) or ``atomic_cas`` (cas) through ``m``: the value (and the
    compared value) broadcast to the view's shape and converted to its element type, as a
    store's (a value with other unit axes goes through the window seen with its shape);
    the result is the tile of the old values, the window's fill (zero without one) where
    the window leaves memory."""
    what = f"atomic_{kind}"
    node = site.node
    m = _written_window(cap, node, m, x, what)
    t = m.type
    operands = [m.value] + [_written_tile(cap, node, m, v, what).value
                            for v in ([x, compare] if kind == "cas" else [x])]
    fill = typed_number(0 if m.fill is None else m.fill, t.dtype)
    hint = m.value.name_hint.removesuffix("_view") if m.value.name_hint else None
    v = cap.builder.value("atomic", operands, ir.TileType(t.shape, t.dtype),
                          {"kind": kind, "fill": fill}, loc=cap.loc(node),
                          name_hint=f"{hint}_old" if hint else None)
    cap.note_write()
    return TileVal(v)


def memory(cap: Capture, site: CallSite) -> MemVal:
    """``tc.memory(shape, dtype, space='shared')``: manual addressable storage."""
    a = site.bind(["shape", "dtype", "space"], {"dtype": None, "space": "shared"})
    shape = static_shape(cap, site.node_of(0), a["shape"], "a memory shape")
    dt = ir.f32 if a["dtype"] is None else dtype_arg(cap, site.node, a["dtype"])
    if a["space"] not in ir.MEMORY_SPACES:
        raise site.error(f"unknown memory space {a['space']!r}; use one of "
                         f"{', '.join(ir.MEMORY_SPACES)}", "space")
    v = cap.builder.value("memory", [], ir.MemoryType(shape, dt, a["space"]), {},
                          loc=cap.loc(site.node))
    return MemVal(v)


_REDUCTION_METHODS = ("sum", "max", "min", "prod", "argmax", "argmin", "cumsum", "cumprod")
"""Methods that are the builtin of the same name with the tile as its first argument."""
_TILE_METHODS = {"to", "reshape", "permute", "broadcast_to", "astype", *_REDUCTION_METHODS}


_MEM_METHODS = {"tile", "load", "store", "atomic_add", "atomic_max", "atomic_min",
                "atomic_xchg", "atomic_cas", "permute"}
_WINDOW_METHODS = _MEM_METHODS - {"permute"}


def attribute(cap: Capture, node: ast.Attribute, x: Any) -> Any:
    """``x.name`` for staged values: shapes, dtypes, ``.T`` and bound methods."""
    name = node.attr
    if isinstance(x, MemVal) and x.window and name not in _WINDOW_METHODS \
            and name not in ("shape", "reshape"):
        x = load_view(cap, node, x)  # a window used as a value is its tile
    if isinstance(x, MemVal):
        if name == "shape":
            return cap.memory_shape(x)
        if name == "dtype":
            return dtype_of_ir(x.dtype)
        if name == "ndim":
            return x.type.rank
        if name == "T":
            return _permute_memory(cap, node, x, list(range(x.type.rank))[::-1])
        if name in _MEM_METHODS or name in _TILE_METHODS:
            return BoundMethod(x, name)
    elif isinstance(x, TILEISH):
        if name == "shape":
            return x.shape
        if name == "dtype":
            return dtype_of_ir(x.dtype)
        if name == "ndim":
            return len(x.shape)
        if name == "T":
            return permute(cap, node, x, list(range(len(x.shape)))[::-1])
        if name in _TILE_METHODS:
            return BoundMethod(x, name)
    elif isinstance(x, ScalarVal):
        if name == "dtype":
            return dtype_of_ir(x.dtype)
        if name == "to":
            return BoundMethod(x, name)
    raise cap.error(node, f"{describe(x)} has no attribute {name!r} in a kernel")


def call_method(cap: Capture, site: CallSite, bm: BoundMethod) -> Any:
    """Call a DSL method bound by ``attribute``."""
    x, name = bm.receiver, bm.name
    if name in ("to", "astype"):
        a = site.bind(["dtype"])
        return cast_value(cap, site.node, x, dtype_arg(cap, site.node_of(0), a["dtype"]))
    if name == "tile":
        a = site.bind(["origin", "shape", "fill"], {"fill": None})
        return view(cap, site.node, x, a["origin"], a["shape"], a["fill"])
    if name == "load":
        a = site.bind(["fill"], {"fill": None})
        return load_view(cap, site.node, x, a["fill"])
    if name == "store":
        a = site.bind(["value"])
        store_view(cap, site.node, x, a["value"])
        return None
    if name in ("atomic_xchg", "atomic_cas"):
        a = site.bind(["compare", "value"] if name == "atomic_cas" else ["value"])
        return exchange_view(cap, site, x, name[len("atomic_"):], a["value"], a.get("compare"))
    if name.startswith("atomic_"):
        a = site.bind(["value"])
        store_view(cap, site.node, x, a["value"], "atomic", name[len("atomic_"):])
        return None
    if name == "reshape":
        shape = site.args[0] if len(site.args) == 1 else tuple(site.args)
        return reshape(cap, site.node, x, static_shape(cap, site.node, shape))
    if name == "permute":
        perm = site.args[0] if len(site.args) == 1 else tuple(site.args)
        perm = static_shape_allow_zero(cap, site.node, perm)
        return permute(cap, site.node, x, perm)
    if name == "broadcast_to":
        a = site.bind(["shape"])
        return broadcast_to(cap, site.node, x, static_shape(cap, site.node, a["shape"]))
    if name in _REDUCTION_METHODS:
        return IMPLS[name](cap, CallSite(cap, site.node, [x, *site.args], site.kwargs, name))
    raise site.error(f"unknown method {name!r}")


@implements("zeros_like", "full_like")
def _like(cap: Capture, site: CallSite) -> Any:
    if site.name.endswith("zeros_like"):
        a = site.bind(["x"])
        value: Any = 0
    else:
        a = site.bind(["x", "value"])
        value = a["value"]
    x = as_tileish(cap, site.node, a["x"])
    shape, dt = tile_shape(cap, site.node, x), x.dtype
    if is_number(value):
        return TileVal(cap.builder.value("constant", [], ir.TileType(shape, dt),
                                         {"value": typed_number(value, dt)}))
    return broadcast_to(cap, site.node, cast_value(cap, site.node, value, dt), shape)


@implements("memory")
def _memory(cap: Capture, site: CallSite) -> Any:
    return memory(cap, site)


@implements("broadcast", "broadcast_to")
def _broadcast(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["x", "shape"])
    return broadcast_to(cap, site.node, a["x"], static_shape(cap, site.node_of(1), a["shape"]))


@implements("reshape")
def _reshape(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["x", "shape"])
    return reshape(cap, site.node, a["x"], static_shape(cap, site.node_of(1), a["shape"]))


@implements("trans")
def _trans(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["x"])
    x = a["x"]
    rank = x.type.rank if isinstance(x, MemVal) else len(tile_shape(cap, site.node, x))
    return permute(cap, site.node, x, list(range(rank))[::-1])


@implements("permute")
def _permute(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["x", "perm"])
    return permute(cap, site.node, a["x"], static_shape_allow_zero(cap, site.node, a["perm"]))


@implements("expand_dims")
def _expand_dims(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["x", "axis"])
    return expand_dims(cap, site.node, a["x"], static_shape_allow_zero(cap, site.node, a["axis"]))


@implements("load")
def _load(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["view", "fill"], {"fill": None})
    if not isinstance(a["view"], MemVal):
        raise site.error(f"load() reads memory, got {describe(a['view'])}", 0)
    return load_view(cap, site.node, a["view"], a["fill"])


@implements("atomic_xchg", "atomic_cas")
def _exchange(cap: Capture, site: CallSite) -> Any:
    cas = site.name.endswith("cas")
    a = site.bind(["view", "compare", "value"] if cas else ["view", "value"])
    if not isinstance(a["view"], MemVal):
        raise site.error(f"{site.name}() updates memory, got {describe(a['view'])}", 0)
    return exchange_view(cap, site, a["view"], "cas" if cas else "xchg", a["value"],
                         a.get("compare"))


@implements("store", "atomic_add", "atomic_max", "atomic_min")
def _store(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["view", "value"])
    if not isinstance(a["view"], MemVal):
        raise site.error(f"{site.name}() writes memory, got {describe(a['view'])}", 0)
    if site.name.endswith("store"):
        store_view(cap, site.node, a["view"], a["value"])
    else:
        store_view(cap, site.node, a["view"], a["value"], "atomic", site.name.split("_")[-1])
    return None
