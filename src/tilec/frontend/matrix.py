"""Matrix products: ``tc.mma`` (``c + a @ b``) and ``tc.dot``, with the arithmetic policy.

Rules (ARCHITECTURE.md, "Arithmetic policy"): ``a`` and ``b`` share an element
type; ``f16``/``bf16``/``f32`` operands accumulate in ``f32``, ``f64`` in
``f64``, ``i8`` in ``i32``; ``precision="tf32"`` (or ``bf16x3``) is an explicit
permission for ``f32`` operands only; the summation order defaults to
``unordered_tree`` and ``order="strict_fold"`` fixes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import tilec.ir as ir

from .builtins import implements
from .tiles import CallSite, as_tile, dtype_arg, typed_number
from .values import TileVal, describe

if TYPE_CHECKING:
    from .capture import Capture

__all__ = ["mma", "dot"]


_ACC_FOR = {ir.f16: ir.f32, ir.bf16: ir.f32, ir.f32: ir.f32, ir.f64: ir.f64, ir.i8: ir.i32}


def _policy_order(cap: Capture, site: CallSite, order: Any, what: str = "order") -> str:
    if order is None:
        return "unordered_tree"
    if order not in ir.POLICY_KINDS:
        raise site.error(f"{what} must be one of {', '.join(map(repr, ir.POLICY_KINDS))}, "
                         f"got {order!r}", what)
    return order


def mma(cap: Capture, site: CallSite, a: Any, b: Any, c: Any, precision: Any, order: Any
        ) -> TileVal:
    """``c + a @ b`` with shape and dtype checks at the call."""
    ta = as_tile(cap, site.node_of(0), a, "a rank-2 tile")
    tb = as_tile(cap, site.node_of(1), b, "a rank-2 tile")
    tcv = as_tile(cap, site.node_of(2), c, "a rank-2 accumulator tile")
    for k, t in enumerate((ta, tb, tcv)):
        if len(t.shape) != 2:
            raise site.error(f"mma() takes rank-2 tiles, argument {k + 1} is "
                             f"{describe(t)}", k)
    (m, k1), (k2, n), (cm, cn) = ta.shape, tb.shape, tcv.shape
    if k1 != k2:
        raise site.error(f"mma(): a is {m}x{k1} and b is {k2}x{n}; their K extents "
                         f"({k1} and {k2}) differ")
    if (cm, cn) != (m, n):
        raise site.error(f"mma(): the accumulator is {cm}x{cn} but a @ b is {m}x{n}", 2)
    if ta.dtype is not tb.dtype:
        raise site.error(f"mma(): a and b have different element types ({ta.dtype} and "
                         f"{tb.dtype}); convert one with .to(...)")
    want = _ACC_FOR.get(ta.dtype)
    if want is None:
        raise site.error(f"mma() does not support {ta.dtype} operands")
    if tcv.dtype is not want:
        raise site.error(f"mma() of {ta.dtype} operands needs a {want} accumulator, got "
                         f"{tcv.dtype}", 2)
    if precision not in ir.PRECISIONS:
        raise site.error(f"precision must be one of {', '.join(map(repr, ir.PRECISIONS))}, "
                         f"got {precision!r}", "precision")
    if precision != "exact" and ta.dtype is not ir.f32:
        raise site.error(f"precision={precision!r} applies to f32 operands, not {ta.dtype}",
                         "precision")
    pol = ir.ArithPolicy(precision, _policy_order(cap, site, order))
    v = cap.builder.value("mma", [ta.value, tb.value, tcv.value], tcv.value.type,
                          {"policy": pol}, loc=cap.loc(site.node), name_hint=tcv.value.name_hint)
    return TileVal(v)


@implements("mma")
def _mma(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["a", "b", "c", "precision", "order"], {"precision": "exact", "order": None})
    return mma(cap, site, a["a"], a["b"], a["c"], a["precision"], a["order"])


def dot(cap: Capture, site: CallSite, a: Any, b: Any, precision: Any = "exact",
        acc_dtype: Any = None) -> TileVal:
    """``a @ b`` from a zero accumulator of the natural accumulation type."""
    ta = as_tile(cap, site.node_of(0), a, "a rank-2 tile")
    tb = as_tile(cap, site.node_of(1), b, "a rank-2 tile")
    if len(ta.shape) != 2 or len(tb.shape) != 2:
        raise site.error("dot() takes rank-2 tiles")
    acc_t = _ACC_FOR.get(ta.dtype, ta.dtype) if acc_dtype is None \
        else dtype_arg(cap, site.node, acc_dtype)
    acc = TileVal(cap.builder.value("constant", [], ir.TileType((ta.shape[0], tb.shape[1]),
                                                                acc_t),
                                    {"value": typed_number(0, acc_t)}))
    return mma(cap, site, ta, tb, acc, precision, None)


@implements("dot")
def _dot(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["a", "b", "precision", "acc_dtype"], {"precision": "exact",
                                                          "acc_dtype": None})
    return dot(cap, site, a["a"], a["b"], a["precision"], a["acc_dtype"])
