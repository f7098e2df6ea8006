"""Which ``parallel`` operations the bridge runs on threads (TVM's ``ForKind.PARALLEL``).

The instances of a ``parallel`` are independent by the DSL's contract, so ``tirx:llvm``
spreads the outermost one over TVM's thread pool, as the ``cpu`` target spreads it over
OpenMP threads, except where running instances at once could change a result the
reference defines exactly:

* a parallel that carries scalars (the last instance in row-major order wins) or sits in
  another parallel (the outer one's instances are the threads; TVM has no nested parallel
  loops) stays a serial loop nest, as on ``cpu``;
* a body with an ``atomic`` or a ``scatter``: the bridge's read-modify-writes are plain
  loads and stores (TVM's LLVM backend has no atomic builtin), and concurrent instances
  would lose updates or pick another last writer;
* a body that may fail (a ``check``, an integer division by a divisor that is not a
  nonzero constant, a ``reindex`` without ``fill`` that may leave its source, an access
  through a ``total`` view not proven in range, a loop step that is not a positive
  constant): the status record is written by plain stores, and the reference reports the
  first failing instance in row-major order, which only the serial order gives.

The decision is made from the IR before the body is exported; the exporter refuses to
write a failure, an atomic or a scatter inside a threaded instance (an internal error,
never a silent race), so the scan and the translations cannot disagree unnoticed.
"""

from __future__ import annotations

from typing import Any

import tilec.ir as ir
from tilec.ir.index_bounds import extremes, view_in_range

__all__ = ["serial_reason", "instance_count", "instance_coords"]

_DIVISIONS = ("floordiv", "rem", "cdiv")


def serial_reason(op: ir.Operation) -> str | None:
    """None when ``parallel`` ``op``'s instances may run on threads, else why not."""
    p = op.parent_op
    while p is not None:
        if p.name == "parallel":
            return "it is nested in another parallel, whose instances are the threads"
        p = p.parent_op
    rank = op.attr("rank")
    if not all(isinstance(v.type, ir.TileType) for v in op.operands[rank:]):
        return "it carries scalars from instance to instance (the last one wins)"
    for inner in op.regions[0].entry.walk():
        why = _conflict(inner)
        if why is not None:
            return f"its body has {why} (operation #{ir.op_number(inner)})"
    return None


def _conflict(op: ir.Operation) -> str | None:
    """Why ``op`` must not run in concurrent instances, or None."""
    name = op.name
    if name in ("atomic", "scatter"):
        return f"a read-modify-write of shared memory ('{name}')"
    if name == "check":
        return "a check that may fail"
    if name == "arith" and op.attr("fn") in _DIVISIONS and not op.operand(0).type.is_float:
        if not _nonzero_constant(op.operand(1)):
            return "an integer division that may fail"
    if name in ("serial", "pipeline") and not _positive_constant(op.operand(2)):
        return "a loop whose step may not be positive"
    if name == "reindex" and op.attr("fill") is None and not _reindex_in_range(op):
        return "a reindex that may leave its source"
    if name in ("load", "store") and _unproven_total(op.operand(0)):
        return "an access through a total view not proven in range"
    return None


def _constant_value(v: ir.Value) -> object:
    d = v.defining_op if isinstance(v, ir.OpResult) else None
    return d.attr("value") if d is not None and d.name == "constant" else None


def _nonzero_constant(v: ir.Value) -> bool:
    c = _constant_value(v)
    return isinstance(c, int) and not isinstance(c, bool) and c != 0


def _positive_constant(v: ir.Value) -> bool:
    c = _constant_value(v)
    return isinstance(c, int) and not isinstance(c, bool) and c > 0


def _reindex_in_range(op: ir.Operation) -> bool:
    m: ir.IndexMap = op.attr("map")
    shape, src = op.result.type.shape, op.operand(0).type.shape
    if m.n_symbols or not all(d.is_static for d in (*shape, *src)):
        return False
    dims = [int(d) for d in shape]
    if any(n == 0 for n in dims):
        return False
    for e, n in zip(m.results, src):
        lo, hi = extremes(e, dims)
        if lo < 0 or hi >= int(n):
            return False
    return True


def _unproven_total(mem: ir.Value) -> bool:
    """Whether an access through ``mem`` tests a ``total`` view before it moves anything
    (the exporter's ``check_totals``)."""
    d = mem.defining_op if isinstance(mem, ir.OpResult) else None
    while d is not None and d.name == "view":
        if d.attr("bounds", "total") == "total" and not view_in_range(d, {}):
            return True
        base = d.operand(0)
        d = base.defining_op if isinstance(base, ir.OpResult) else None
    return False


def instance_count(x: Any, extents: list[Any]) -> tuple[list[Any], Any]:
    """The extents of a flattened ``parallel`` (each ``int64``, a negative one counting 0)
    and their product, the instance count (bound expressions of exporter ``x``)."""
    tx = x.tx
    ns = [x.bind(tx.Max(tx.Cast("int64", e), x.i64(0))) for e in extents]
    total = ns[0]
    for n in ns[1:]:
        total = total * n
    return ns, total


def instance_coords(x: Any, f: Any, ns: list[Any]) -> list[Any]:
    """The coordinates of flat instance ``f`` over extents ``ns`` (row-major, the last
    fastest)."""
    tx = x.tx
    coords: list[Any] = []
    for n in reversed(ns[1:]):
        coords.append(x.bind(tx.floormod(f, n)))
        f = x.bind(tx.floordiv(f, n))
    coords.append(f)
    return coords[::-1]
