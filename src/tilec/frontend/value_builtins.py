"""The element-wise and constructor builtins: ``tc.exp`` ... ``tc.ceil``, ``maximum`` /
``minimum``, ``where``, ``fma``, ``cdiv``, ``cast``, ``zeros`` / ``ones`` and ``full``.

Each is registered with ``builtins.implements`` when this module is imported (the
package facade imports it); the value rules they apply (promotion, broadcasting,
constants) are ``tiles``'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import tilec.ir as ir

from .builtins import implements
from .constants import ConstantRangeError, narrowest_int, typed_number
from .tiles import (
    TILEISH,
    CallSite,
    as_tileish,
    binary,
    cast_value,
    dtype_arg,
    elementwise,
    materialize,
    static_shape,
    unary,
    weak_type,
)
from .values import Elem, ScalarVal, TileVal, describe, is_number

if TYPE_CHECKING:
    from .capture import Capture

__all__: list[str] = []


def _unary_builtin(fn: str) -> Callable[[Capture, CallSite], Any]:
    def impl(cap: Capture, site: CallSite) -> Any:
        a = site.bind(["x"])
        return unary(cap, site.node, fn, a["x"])

    return impl


for _fn in ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "erf", "sigmoid", "sin",
            "cos", "abs", "floor", "ceil"):
    implements(_fn)(_unary_builtin(_fn))


@implements("maximum", "minimum")
def _minmax(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["a", "b"])
    return binary(cap, site.node, "max" if site.name.endswith("maximum") else "min",
                  a["a"], a["b"])


@implements("where")
def _where(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["cond", "a", "b"])
    return elementwise(cap, site.node, "select", [a["cond"], a["a"], a["b"]])


@implements("fma")
def _fma(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["a", "b", "c"])
    return elementwise(cap, site.node, "fma", [a["a"], a["b"], a["c"]])


@implements("cdiv")
def _cdiv(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["a", "b"])
    x, y = a["a"], a["b"]
    for k, v in (("a", x), ("b", y)):
        if isinstance(v, float) or (isinstance(v, ScalarVal) and v.dtype.is_float) \
                or isinstance(v, TILEISH):
            raise site.error(f"cdiv() needs integer scalars, got {describe(v)}", k)
    if isinstance(y, int) and y <= 0:
        raise site.error(f"cdiv() needs a positive divisor, got {y}", "b")
    return binary(cap, site.node, "cdiv", x, y)


@implements("cast")
def _cast(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["x", "dtype"])
    return cast_value(cap, site.node, a["x"], dtype_arg(cap, site.node_of(1), a["dtype"]))


@implements("zeros", "ones")
def _zeros(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["shape", "dtype"], {"dtype": None})
    shape = static_shape(cap, site.node_of(0), a["shape"])
    dt = ir.f32 if a["dtype"] is None else dtype_arg(cap, site.node_of(1), a["dtype"])
    value = 0 if site.name.endswith("zeros") else 1
    return TileVal(cap.builder.value("constant", [], ir.TileType(shape, dt),
                                     {"value": typed_number(value, dt)}, loc=cap.loc(site.node)))


@implements("full")
def _full(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["shape", "value", "dtype"], {"dtype": None})
    shape = static_shape(cap, site.node_of(0), a["shape"])
    v = a["value"]
    if is_number(v):
        dt = weak_type(v) if a["dtype"] is None else dtype_arg(cap, site.node_of(2), a["dtype"])
        try:
            value = typed_number(v, dt)
        except ConstantRangeError as e:
            wide = narrowest_int(v) if isinstance(v, int) else None
            hint = f"; pass dtype=tc.{wide}" if wide else ""
            what = "the type a Python int takes without dtype=" if a["dtype"] is None \
                else "the dtype given"
            raise site.error(f"full(): {e}, {what}{hint}", 1) from None
        return TileVal(cap.builder.value("constant", [], ir.TileType(shape, dt),
                                         {"value": value}, loc=cap.loc(site.node)))
    v = as_tileish(cap, site.node_of(1), v)
    if isinstance(v, TILEISH) and v.shape == ():
        # a rank-0 tile is one value, like a scalar (a full reduction, x.min(axis=None))
        if a["dtype"] is not None:
            v = cast_value(cap, site.node, v, dtype_arg(cap, site.node_of(2), a["dtype"]))
        v = materialize(cap, site.node, v)
        return Elem("leaf", (v,), v.dtype, shape)
    if not isinstance(v, ScalarVal):
        hint = " (tc.broadcast(x, shape) repeats a tile)" if isinstance(v, TILEISH) else ""
        raise site.error(f"full() fills with a number, a scalar or a rank-0 tile, got "
                         f"{describe(v)}{hint}", 1)
    if a["dtype"] is not None:
        v = cast_value(cap, site.node, v, dtype_arg(cap, site.node_of(2), a["dtype"]))
    return Elem("leaf", (v,), v.dtype, shape)
