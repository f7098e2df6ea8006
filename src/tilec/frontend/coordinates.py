"""Coordinate tiles: ``tc.arange(stop)`` / ``tc.arange(start, stop, step=1, dtype=tc.int32)``.

A rank-1 tile whose element ``i`` is ``start + i * step``, captured as one
``iota`` operation (tileir.md, "Pure values") whose index map is that
expression of the element's coordinate. The step is a compile-time integer
(not zero); ``start`` and ``stop`` are compile-time integers, or runtime
integer scalars whose difference is known at compile time
(``tc.arange(m0, m0 + BM)``), as for a tile slice, so the extent is static.
Values are computed in ``index`` (64-bit) and converted to ``dtype`` as
``tc.cast`` converts; with compile-time bounds every value must fit an
integer ``dtype``. Two-dimensional coordinates are views of it:
``tc.arange(BM)[:, None]`` and ``tc.arange(BN)[None, :]`` broadcast against each
other (``rows >= cols`` is a causal mask).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import tilec.ir as ir

from .builtins import implements
from .constants import ConstantRangeError, narrowest_int, typed_number
from .tiles import CallSite, _affine_of, as_index, dtype_arg, static_int, widen_index
from .values import ScalarVal, TileVal, describe

if TYPE_CHECKING:
    from .capture import Capture

__all__: list[str] = []

_NAMES = ["start", "stop", "step", "dtype"]
"""The parameters of ``tc.arange``, in order (numpy's)."""


def _extent(site: CallSite, start: Any, stop: Any, step: int) -> int:
    """The element count of ``range(start, stop, step)``; the bounds' difference must be a
    compile-time integer."""
    if isinstance(start, int) and isinstance(stop, int):
        return len(range(start, stop, step))
    a, b = _affine_of(start), _affine_of(stop)
    if a is None or b is None or not b.add(a, -1).is_const:
        raise site.error("arange() with a runtime bound needs a compile-time extent: write "
                         "tc.arange(m0, m0 + BM) for a runtime m0")
    return len(range(0, b.add(a, -1).const, step))


def _check_fits(site: CallSite, values: tuple[int, int], dt: ir.ScalarType) -> None:
    """Compile-time bounds: the first and last value must fit an integer ``dt``."""
    if not dt.is_int:
        return
    for v in values:
        try:
            typed_number(v, dt)
        except ConstantRangeError as e:
            wide = narrowest_int(v, dt.is_unsigned)
            hint = f"; pass dtype=tc.{wide}" if wide else ""
            raise site.error(f"arange(): the value {e}{hint}",
                             site.index_of("dtype", _NAMES) if "dtype" in site.kwargs
                             or len(site.args) > 3 else None) from None


@implements("arange")
def _arange(cap: Capture, site: CallSite) -> Any:
    a = site.bind(_NAMES, {"stop": None, "step": 1, "dtype": None})
    start, stop = (0, a["start"]) if a["stop"] is None else (a["start"], a["stop"])
    if a["stop"] is None and "step" in site.kwargs:
        raise site.error("arange(n) takes no step; write tc.arange(0, n, step=...)", "step")
    step = static_int(cap, site.node_of(site.index_of("step", _NAMES)), a["step"],
                      "the step of arange()")
    if step == 0:
        raise site.error("arange() needs a nonzero step", site.index_of("step", _NAMES))
    dt = ir.i32 if a["dtype"] is None else \
        dtype_arg(cap, site.node_of(site.index_of("dtype", _NAMES)), a["dtype"])
    if dt is ir.i1 or dt is ir.index:
        raise site.error(f"arange() makes integer or float tiles (tc.int8 .. tc.int64, "
                         f"tc.uint8 .. tc.uint32, tc.float16 .. tc.float64), not {dt}",
                         site.index_of("dtype", _NAMES))
    for k, v in ((0, start), (1, stop)):
        if isinstance(v, bool) or not (isinstance(v, int) or isinstance(v, ScalarVal)
                                       and v.dtype.is_int and v.dtype is not ir.i1):
            where = k if a["stop"] is not None else 0
            raise site.error(f"arange() bounds are integers, got {describe(v)}", where)
    start, stop = widen_index(cap, start), widen_index(cap, stop)
    n = _extent(site, start, stop, step)
    if n <= 0:
        raise site.error(f"arange() of an empty range ({n} elements): a tile needs at least "
                         "one element")
    if isinstance(start, int):
        _check_fits(site, (start, start + (n - 1) * step), dt)
        m = ir.IndexMap(1, [ir.d(0) * step + start])
        syms: list[ir.Value] = []
    else:
        m = ir.IndexMap(1, [ir.d(0) * step + ir.s(0)], 1)
        syms = [as_index(cap, site.node_of(0), start, "the start of arange()").value]
    v = cap.builder.value("iota", syms, ir.TileType((n,), dt), {"map": m},
                          loc=cap.loc(site.node))
    return TileVal(v)
