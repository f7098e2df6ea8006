"""Reductions: ``tc.sum``/``max``/``min``/``prod``, ``tc.argmax``/``argmin``, ``tc.reduce``,
``tc.einsum``.

Each is one ``reduce`` op carrying the resolved policy record: an omitted
policy becomes ``unordered_tree`` (not explicit), a named one is kept and
marked explicit. A tree policy needs a recognized merge: every state's update
must be one ``add``/``mul``/``max``/``min`` of the state with a value computed
from the elements (a product of independent states); otherwise capture
reports the reduction and suggests ``policy="strict_fold"``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import tilec.ir as ir

from .builtins import implements
from .tiles import (
    CallSite,
    _shape_str,
    as_tile,
    as_tileish,
    binary,
    dtype_arg,
    reindex,
    static_shape_allow_zero,
    tile_shape,
    typed_number,
)
from .values import LocalFunction, ScalarVal, TileVal, describe, is_number
from .views import expand_dims

if TYPE_CHECKING:
    from .capture import Capture

__all__ = ["resolve_policy", "normalize_axes", "recognize_combiner", "reduce_region",
           "reduction_builtin", "arg_reduction", "ARG_INDEX"]


def resolve_policy(site: CallSite, policy: Any) -> ir.ReductionPolicy:
    """Omitted -> ``unordered_tree`` (implicit); a named policy is kept and marked explicit."""
    if policy is None:
        return ir.ReductionPolicy("unordered_tree", False)
    if policy not in ir.POLICY_KINDS:
        raise site.error(f"policy must be one of {', '.join(map(repr, ir.POLICY_KINDS))}, "
                         f"got {policy!r}", "policy")
    return ir.ReductionPolicy(policy, True)


def normalize_axes(cap: Capture, site: CallSite, axis: Any, rank: int) -> tuple[int, ...]:
    """Reduced axes as sorted non-negative ints (None: all axes)."""
    if axis is None:
        return tuple(range(rank))
    axes = static_shape_allow_zero(cap, site.node, axis)
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise site.error(f"axis {a} is out of range for a rank-{rank} tile", "axis")
        out.append(a % rank)
    if len(set(out)) != len(out):
        raise site.error(f"axis {axes} repeats an axis", "axis")
    return tuple(sorted(out))


def recognize_combiner(block: ir.Block, n_states: int) -> tuple[str, ...] | None:
    """The merge law of each state when every update is ``op(state, lift(elements))``
    (``ir.recognize_merges``); None when some state has none (it can only be folded in
    order)."""
    laws = ir.recognize_merges(block, n_states)
    return None if any(law is None for law in laws) else laws  # type: ignore[return-value]


def reduce_region(cap: Capture, site: CallSite, inputs: list[TileVal], seeds: list[ir.Value],
                  axes: tuple[int, ...], policy: ir.ReductionPolicy,
                  body: Callable[[ir.Block], list[Any]], names: Sequence[str | None] = (),
                  result_names: Sequence[str | None] | None = None) -> list[TileVal]:
    """Build one ``reduce``: ``body(block)`` emits the update and returns the next states."""
    shape = inputs[0].shape
    for t in inputs[1:]:
        if t.shape != shape:
            raise site.error(f"reduction inputs must share a shape: {_shape_str(shape)} vs "
                             f"{_shape_str(t.shape)}")
    st = [s.type for s in seeds]
    block = ir.Block(st + [t.dtype for t in inputs],
                     list(names) + [t.value.name_hint for t in inputs]
                     if names else None)
    nexts = body(block)
    if len(nexts) != len(seeds):
        raise site.error(f"the update produces {len(nexts)} values for {len(seeds)} states")
    ys: list[ir.Value] = []
    inner = ir.Builder(ir.InsertionPoint.at_end(block), cap.loc(site.node))
    for k, (v, t) in enumerate(zip(nexts, st)):
        if is_number(v):
            ys.append(_const_in(inner, v, t))
            continue
        if not isinstance(v, ScalarVal):
            raise site.error(f"the update of state {k} must be a scalar, got {describe(v)}")
        if v.dtype is not t:
            raise site.error(f"the update of state {k} changes its type from {t} to {v.dtype}")
        ys.append(v.value)
    inner.create("yield", ys)
    comb = recognize_combiner(block, len(seeds))
    if comb is None and policy.allows_tree:
        how = "the default policy unordered_tree" if not policy.explicit \
            else "policy='unordered_tree'"
        raise site.error(f"this reduction's update is not a recognized merge (one add, mul, max "
                         f"or min of each state with a value computed from the elements), so it "
                         f"cannot be regrouped "
                         f"under {how}; pass policy=\"strict_fold\" to evaluate it in order")
    kept = tuple(e for i, e in enumerate(shape) if i not in axes)
    attrs: dict[str, Any] = {"n_inputs": len(inputs), "axes": axes, "policy": policy,
                             "combiner": comb if comb is not None else ("custom",) * len(seeds)}
    op = cap.builder.create("reduce", [t.value for t in inputs] + list(seeds),
                            [ir.TileType(kept, t) for t in st], attrs, [ir.Region([block])],
                            loc=cap.loc(site.node), result_names=result_names)
    return [TileVal(r) for r in op.results]


def _const_in(b: ir.Builder, v: Any, t: ir.ScalarType) -> ir.Value:
    return b.value("constant", [], t, {"value": typed_number(v, t)})


_SEEDS = {"sum": 0, "prod": 1, "max": -math.inf, "min": math.inf}


_LAW = {"sum": "add", "prod": "mul", "max": "max", "min": "min"}


def _seed_for(kind: str, t: ir.ScalarType) -> Any:
    s = _SEEDS[kind]
    if t.is_float or kind in ("sum", "prod"):
        return s
    if t is ir.i1:
        return kind == "min"
    lo, hi = t.int_bounds
    return lo if kind == "max" else hi


def reduction_builtin(cap: Capture, site: CallSite, kind: str) -> Any:
    """``tc.sum``/``max``/``min``/``prod``: one ``reduce`` with a builtin update and seed."""
    a = site.bind(["x", "axis", "dtype", "keepdims", "policy"],
                  {"axis": None, "dtype": None, "keepdims": False, "policy": None})
    x = as_tile(cap, site.node_of(0), a["x"], "a tile")
    axes = normalize_axes(cap, site, a["axis"], len(x.shape))
    policy = resolve_policy(site, a["policy"])
    st = x.dtype if a["dtype"] is None else dtype_arg(cap, site.node, a["dtype"])
    law = _LAW[kind]
    if law in ("max", "min") and st is not x.dtype:
        raise site.error(f"{kind}() keeps the input type; dtype= applies to sum and prod")
    seed = cap.const(typed_number(_seed_for(kind, st), st), st)

    def body(block: ir.Block) -> list[Any]:
        b = ir.Builder(ir.InsertionPoint.at_end(block), cap.loc(site.node))
        s, e = block.args
        if e.type is not st:
            e = b.value("arith", [e], st, {"fn": "cast"})
        return [ScalarVal(b.value("arith", [s, e], st, {"fn": law}))]

    (res,) = reduce_region(cap, site, [x], [seed], axes, policy, body, names=["acc"])
    if a["keepdims"]:
        return expand_dims(cap, site.node, res, list(axes))
    return res


for _k in ("sum", "max", "min", "prod"):
    implements(_k)(lambda cap, site, _k=_k: reduction_builtin(cap, site, _k))


ARG_INDEX = ir.i32
"""The element type of ``argmax``/``argmin`` results: a position within the tile."""


def arg_reduction(cap: Capture, site: CallSite, law: str) -> Any:
    """``tc.argmax``/``tc.argmin(x, axis=None, keepdims=False)``: the ``i32`` position of the
    first largest (smallest) element along ``axis`` (row-major over the whole tile for None);
    a NaN counts as larger (smaller) than every number, so the first NaN wins.

    One ``reduce`` of ``x`` and an ``iota`` of its positions with a value state (``max`` /
    ``min``) and an index state (``argmax`` / ``argmin``), whose update is the pair merge
    ``ir.emit_merge`` (``ir/reductions.py``)."""
    a = site.bind(["x", "axis", "keepdims"], {"axis": None, "keepdims": False})
    x = as_tile(cap, site.node_of(0), a["x"], "a tile")
    rank = len(x.shape)
    if x.dtype is ir.i1:  # (errors about x point at the call: a method's x is no argument)
        raise site.error(f"{site.name}() of a bool tile is not supported; convert it first "
                         f"(x.to(tc.int8))")
    if rank == 0:
        raise site.error(f"{site.name}() of a rank-0 tile: there is no axis to search")
    axis = a["axis"]
    if axis is not None and (isinstance(axis, bool) or not isinstance(axis, int)):
        raise site.error(f"{site.name}() takes one axis (an int) or None (every axis, "
                         f"row-major), got {describe(axis)}", "axis")
    axes = normalize_axes(cap, site, axis if axis is None else (axis,), rank)
    count = math.prod(x.shape[k] for k in axes)
    if count == 0:
        raise site.error(f"{site.name}() over an empty axis of a {_shape_str(x.shape)} tile "
                         f"has no answer", "axis")
    if count > 2 ** 31 - 1:
        raise site.error(f"{site.name}() searches {count} elements; positions are i32", "axis")
    value_law = ir.ARG_LAWS[law]
    laws = (value_law, law)
    stride, flat = 1, ir.const(0)
    for k in reversed(axes):  # the position: row-major over the searched axes
        flat = flat + ir.d(k) * stride
        stride *= x.shape[k]
    pos = TileVal(cap.builder.value("iota", [], ir.TileType(x.shape, ARG_INDEX),
                                    {"map": ir.IndexMap(rank, [flat])}, loc=cap.loc(site.node),
                                    name_hint="pos"))
    seeds = [cap.const(typed_number(ir.merge_identity(k, t), t), t)
             for k, t in zip(laws, (x.dtype, ARG_INDEX))]

    def body(block: ir.Block) -> list[Any]:
        b = ir.Builder(ir.InsertionPoint.at_end(block), cap.loc(site.node))
        return [ScalarVal(v) for v in ir.emit_merge(b, laws, block.args[:2], block.args[2:])]

    _, res = reduce_region(cap, site, [x, pos], seeds, axes, resolve_policy(site, None), body,
                           names=["best", "at"])
    if a["keepdims"]:
        return expand_dims(cap, site.node, res, list(axes))
    return res


for _k in ("argmax", "argmin"):
    implements(_k)(lambda cap, site, _k=_k: arg_reduction(cap, site, _k))


@implements("reduce")
def _reduce(cap: Capture, site: CallSite) -> Any:
    a = site.bind(["x", "axis", "init", "combine", "policy"], {"policy": None})
    xs = a["x"] if isinstance(a["x"], tuple) else (a["x"],)
    inputs = [as_tile(cap, site.node_of(0), x) for x in xs]
    rank = len(inputs[0].shape)
    axes = normalize_axes(cap, site, a["axis"], rank)
    policy = resolve_policy(site, a["policy"])
    inits = a["init"] if isinstance(a["init"], tuple) else (a["init"],)
    seeds = []
    for k, s in enumerate(inits):
        if is_number(s):
            t = inputs[min(k, len(inputs) - 1)].dtype
            seeds.append(cap.const(typed_number(s, t), t))
        elif isinstance(s, ScalarVal):
            seeds.append(s.value)
        else:
            raise site.error(f"reduce() seeds are scalars, got {describe(s)}", "init")
    comb = a["combine"]
    if not isinstance(comb, LocalFunction) and not cap.is_device_function(comb):
        raise site.error("reduce() needs combine= to be a lambda or a def written in the kernel "
                         "(or a @tc.func)", "combine")

    def body(block: ir.Block) -> list[Any]:
        args = [ScalarVal(v) for v in block.args]
        out = cap.call_in_block(comb, args, block, site.node)
        return list(out) if isinstance(out, tuple) else [out]

    params = comb.params if isinstance(comb, LocalFunction) else []
    names = params[:len(seeds)] if len(params) == len(seeds) + len(inputs) else []
    res = reduce_region(cap, site, inputs, seeds, axes, policy, body, names=names)
    return res[0] if len(res) == 1 else tuple(res)


@implements("einsum")
def _einsum(cap: Capture, site: CallSite) -> Any:
    """``einsum(spec, *tiles)``: broadcast every operand into the joint index space, multiply
    elementwise, and ``sum`` the contracted indices (no dedicated opcode)."""
    a = site.bind(["spec", "*operands", "policy"], {"policy": None})
    spec, ops = a["spec"], a["operands"]
    if not isinstance(spec, str) or "->" not in spec:
        raise site.error("einsum() needs an explicit spec such as 'ij,jk->ik'", 0)
    lhs, out = spec.replace(" ", "").split("->")
    ins = lhs.split(",")
    if len(ins) != len(ops):
        raise site.error(f"einsum spec {spec!r} names {len(ins)} operands, got {len(ops)}")
    extent: dict[str, int] = {}
    tiles = []
    for k, (sub, x) in enumerate(zip(ins, ops)):
        t = as_tileish(cap, site.node_of(k + 1), x)
        shape = tile_shape(cap, site.node_of(k + 1), t)
        if len(sub) != len(shape):
            raise site.error(f"einsum operand {k} is rank {len(shape)} but {sub!r} names "
                             f"{len(sub)} indices", k + 1)
        for ch, e in zip(sub, shape):
            if extent.setdefault(ch, e) != e:
                raise site.error(f"einsum index {ch!r} has extents {extent[ch]} and {e}", k + 1)
        tiles.append(t)
    if any(ch not in extent for ch in out):
        raise site.error(f"einsum output {out!r} names an index no operand has")
    joint = list(out) + [ch for ch in extent if ch not in out]
    jshape = tuple(extent[ch] for ch in joint)
    prod: Any = None
    for sub, t in zip(ins, tiles):
        m = ir.IndexMap(len(joint), [ir.d(joint.index(ch)) for ch in sub])
        v = reindex(cap, site.node, t, m, (), jshape)
        prod = v if prod is None else binary(cap, site.node, "mul", prod, v)
    if len(joint) == len(out):
        return prod
    x = as_tile(cap, site.node, prod)
    axes = tuple(range(len(out), len(joint)))
    policy = resolve_policy(site, a["policy"])
    st = x.dtype
    seed = cap.const(typed_number(0, st), st)

    def body(block: ir.Block) -> list[Any]:
        b = ir.Builder(ir.InsertionPoint.at_end(block), cap.loc(site.node))
        return [ScalarVal(b.value("arith", list(block.args), st, {"fn": "add"}))]

    (res,) = reduce_region(cap, site, [x], [seed], axes, policy, body)
    return res
