"""Scans: ``tc.cumsum``, ``tc.cumprod`` and ``tc.associative_scan`` as compositions of the
core rows (seed 001: the Candidate core has no scan opcode; a library definition composes
``reindex``, ``iota`` and elementwise ``map``).

An inclusive scan of ``x`` along ``axis`` (``n`` elements) with a combine ``f``:
``y[..., j, ...] = f(... f(f(x[0], x[1]), x[2]) ..., x[j])``. Two realizations, chosen by
the ordering contract (``policy``, as for reductions, docs/guide/dsl.md):

* ``unordered_tree`` (the default; only for a recognized law, ``add``, ``mul``, ``max``,
  ``min``): ``ceil(log2 n)`` doubling steps, ``y = f(shift(y, d), y)`` for ``d = 1, 2, 4,
  ...``, where ``shift(y, d)`` is a ``reindex`` reading ``y[j - d]`` with the law's identity
  as its ``fill`` below ``d``. The sum is regrouped (``x0 + x1`` then ``(x0 + x1) + (x2 +
  x3)``), which a tree policy permits.
* ``strict_fold`` (any combine): ``n - 1`` steps, step ``i`` replacing position ``i`` with
  ``f(y[i - 1], y[i])``: the source order, bit-identical on every target, at ``n`` times the
  work of one step.

Every target runs these rows already, so a scan runs wherever they do.
"""

from __future__ import annotations

import ast
from typing import Any

import tilec.ir as ir

from .builtins import implements
from .constants import typed_number
from .reductions import normalize_axes, resolve_policy
from .tiles import as_tile, cast_value, dtype_arg, elementwise, materialize
from .values import LocalFunction, ScalarVal, TileVal, describe

__all__ = ["SCAN_LAWS", "scan"]

SCAN_LAWS = tuple(m for m in ir.MERGES if m not in ir.ARG_LAWS)
"""Combines a tree scan may regroup: the recognized merge family's scalar laws (``add``,
``mul``, ``max``, ``min``; not the arg-reductions' index state)."""


def _shift(cap: Any, node: ast.AST, y: TileVal, axis: int, d: int, fill: Any) -> TileVal:
    """``y`` moved ``d`` places up ``axis``: ``y[j - d]``, ``fill`` where ``j < d``."""
    rank = len(y.shape)
    m = ir.IndexMap(rank, [ir.d(k) - d if k == axis else ir.d(k) for k in range(rank)])
    t = ir.TileType(y.shape, y.dtype)
    return TileVal(cap.builder.value("reindex", [y.value], t,
                                     {"map": m, "fill": typed_number(fill, y.dtype)},
                                     loc=cap.loc(node)))


def scan(cap: Any, node: ast.AST, x: TileVal, axis: int, policy: Any, law: str | None,
         combine: Any = None) -> TileVal:
    """The inclusive scan of ``x`` along ``axis`` (see the module docstring): ``law`` is a
    recognized law or None; ``combine(a, b)`` builds ``f(a, b)`` from two tiles (by default
    the law, elementwise)."""
    if combine is None:
        combine = lambda p, q: elementwise(cap, node, law, [p, q])  # noqa: E731
    n = x.shape[axis]
    y = x
    if n <= 1:
        return y
    if policy.kind == "unordered_tree":
        assert law is not None
        fill = ir.merge_identity(law, x.dtype)
        d = 1
        while d < n:
            y = materialize(cap, node, combine(_shift(cap, node, y, axis, d, fill), y))
            d *= 2
        return y
    rank = len(x.shape)
    pos = TileVal(cap.builder.value("iota", [], ir.TileType(x.shape, ir.i32),
                                    {"map": ir.IndexMap(rank, [ir.d(axis)])},
                                    loc=cap.loc(node), name_hint="pos"))
    for i in range(1, n):
        stepped = combine(_shift(cap, node, y, axis, 1, 0), y)
        at = elementwise(cap, node, "eq", [pos, i])
        y = materialize(cap, node, elementwise(cap, node, "select", [at, stepped, y]))
    return y


def _scanned(cap: Any, site: Any, a: dict[str, Any], index: int
             ) -> tuple[TileVal, int, ir.ReductionPolicy]:
    """The scanned tile (argument ``index``), its axis and the policy of a scan call."""
    x = as_tile(cap, site.node_of(index), a["x"], "a tile")
    if not x.shape:
        raise site.error(f"{site.name}() of a rank-0 tile: there is no axis to scan")
    axis = a["axis"]
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise site.error(f"{site.name}() scans one axis (an int), got {axis!r}", "axis")
    (axis,) = normalize_axes(cap, site, (axis,), len(x.shape))
    return x, axis, resolve_policy(site, a["policy"])


def _law_builtin(cap: Any, site: Any, law: str) -> Any:
    """``tc.cumsum`` / ``tc.cumprod(x, axis=-1, dtype=None, policy=None)``."""
    a = site.bind(["x", "axis", "dtype", "policy"], {"axis": -1, "dtype": None,
                                                    "policy": None})
    x, axis, policy = _scanned(cap, site, a, 0)
    if x.dtype is ir.i1:
        raise site.error(f"{site.name}() of a bool tile is not supported; convert it first "
                         "(x.to(tc.int32))")
    if a["dtype"] is not None:
        t = dtype_arg(cap, site.node, a["dtype"])
        x = materialize(cap, site.node, cast_value(cap, site.node, x, t))
    return scan(cap, site.node, x, axis, policy, law)


implements("cumsum")(lambda cap, site: _law_builtin(cap, site, "add"))
implements("cumprod")(lambda cap, site: _law_builtin(cap, site, "mul"))


def _combine_law(cap: Any, site: Any, fn: Any, t: ir.ScalarType) -> str | None:
    """The law ``fn(a, b)`` is (``a + b``, ``a * b``, ``max``, ``min``, either order), found by
    capturing it on two scalars in a scratch block; None for anything else."""
    block = ir.Block([t, t], ["a", "b"])
    out = cap.call_in_block(fn, [ScalarVal(v) for v in block.args], block, site.node)
    if not isinstance(out, ScalarVal) or out.dtype is not t:
        raise site.error(f"associative_scan()'s combine must return one {t} scalar for two, "
                         f"got {describe(out)}", "fn")
    op = out.value.defining_op
    if op is None or op.name != "arith" or op.attr("fn") not in SCAN_LAWS \
            or set(op.operands) != set(block.args) or len(op.operands) != 2:
        return None
    return str(op.attr("fn"))


@implements("associative_scan")
def _associative_scan(cap: Any, site: Any) -> Any:
    """``tc.associative_scan(fn, x, axis=-1, policy=None)``: the inclusive scan of ``x`` with
    the combine ``fn(a, b)`` (``y[0] = x[0]``, ``y[j] = fn(y[j - 1], x[j])``)."""
    a = site.bind(["fn", "x", "axis", "policy"], {"axis": -1, "policy": None})
    fn = a["fn"]
    if not isinstance(fn, LocalFunction) and not cap.is_device_function(fn):
        raise site.error("associative_scan() needs fn to be a lambda or a def written in the "
                         "kernel (or a @tc.func)", "fn")
    x, axis, policy = _scanned(cap, site, a, 1)
    law = _combine_law(cap, site, fn, x.dtype)
    if policy.kind == "unordered_tree" and law is None:
        raise site.error("associative_scan() regroups only a recognized combine (a + b, "
                         "a * b, max, min) under the default policy; pass "
                         "policy=\"strict_fold\" to combine in source order", "fn")
    if law is not None:
        return scan(cap, site.node, x, axis, policy, law)
    return scan(cap, site.node, x, axis, policy, None,
                lambda p, q: cap.call_function(fn, [p, q], site.node))
