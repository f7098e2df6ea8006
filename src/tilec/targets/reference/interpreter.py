"""The reference interpreter: executes Candidate TileIR on numpy arrays, the semantic oracle.

Each opcode has exactly one implementation, registered with
``@implements("name")``; together they are the executable form of
``docs/design/tileir.md``. Runtime values are:

* tiles: numpy arrays of the tile's dtype (``bf16`` is ``ml_dtypes.bfloat16``;
  rank-0 tiles are 0-d arrays); tiles are never mutated after creation;
* scalars: numpy scalars (``index`` is ``int64``, ``i1`` is ``bool_``);
* memories: ``MemRef`` (a root array, the composed map into it, and the
  bounds checks of every view on the way), so views of views compose and
  accesses gather/scatter with vectorized index arrays;
* tuples: Python tuples; tokens: ``None``.

Execution strategy (an oracle, but vectorized): Python loops over parallel
instances, loop iterations and reduction steps; everything inside one tile
operation is numpy. ``map`` regions and reduction update regions are run once
per step on whole arrays, so their ``arith`` operations see arrays, not
scalars. A failed ``check`` raises ``KernelAssertionError``, an integer
division by zero ``KernelArithmeticError``, a ``reindex`` without ``fill``
reading outside its source or an access leaving a ``total`` view
``KernelIndexError``, a counted loop whose step is not positive
``KernelLoopError`` (all at once, before any later operation runs); every
other runtime error is an ``InterpretError`` naming the operation and its
source location.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.ir.index_bounds import split
from tilec.targets import numerics as nx
from tilec.targets.index_bounds import index_report, total_view_report
from tilec.targets.kernel_checks import CheckInfo, KernelFailure

from .memref import MemRef, TotalViewLeft, grid_points, inside, mapped_coords

__all__ = ["InterpretError", "Interpreter", "implements", "IMPLEMENTATIONS", "poison_value",
           "reduce_contributions"]


class InterpretError(RuntimeError):
    """A runtime error of the interpreted program, located at the operation that raised it."""

    def __init__(self, op: ir.Operation | None, reason: str) -> None:
        self.op = op
        """The operation that failed (None for errors outside any operation)."""
        self.loc = op.loc if op is not None else ir.UNKNOWN
        """Its source location."""
        self.reason = reason
        """The bare message."""
        head = f"'{op.name}' (#{ir.op_number(op)}): {reason}" if op is not None else reason
        super().__init__(ir.format_located(head, self.loc))


OpImpl = Callable[["Interpreter", ir.Operation, list[Any]], Sequence[Any]]
"""An opcode implementation: ``(interpreter, op, operand values) -> result values``."""

IMPLEMENTATIONS: dict[str, OpImpl] = {}
"""The registry: opcode name to its one reference implementation.

The terminators ``yield``, ``return`` and ``br`` are not here: they end a
block, so ``Interpreter.run_region`` handles them itself.
"""


def implements(*names: str) -> Callable[[OpImpl], OpImpl]:
    """Register the decorated function as the reference implementation of ``names``."""

    def deco(fn: OpImpl) -> OpImpl:
        for name in names:
            if name in IMPLEMENTATIONS:
                raise ValueError(f"opcode {name!r} already has a reference implementation")
            IMPLEMENTATIONS[name] = fn
        return fn

    return deco


def poison_value(dt: np.dtype) -> Any:
    """What unspecified contents read as: NaN for floats, 0 (False) for integers."""
    return np.array(np.nan if nx.is_float_dtype(dt) else 0).astype(dt)[()]


# ---------------------------------------------------------------- interpreter


class _Frame:
    """One function activation: its SSA environment and shape-symbol values."""

    __slots__ = ("function", "env", "dims")

    def __init__(self, function: ir.Function, dims: dict[str, int]) -> None:
        self.function = function
        """The running function."""
        self.env: dict[ir.Value, Any] = {}
        """SSA value to runtime value (regions overwrite their values on every run)."""
        self.dims = dims
        """Shape-symbol name to extent."""


class Interpreter:
    """Runs the functions of one module on numpy values (see the module docstring)."""

    max_call_depth = 200
    """Nested ``call`` depth beyond which execution stops with an error."""

    def __init__(self, module: ir.Module) -> None:
        self.module = module
        """The module whose functions ``call`` may name."""
        self._frames: list[_Frame] = []
        self._lanes = 0  # > 0 while running a map/reduce region on whole arrays

    # -- entry points ------------------------------------------------------------
    def run(self, fn: ir.Function | str, args: Sequence[Any]) -> list[Any]:
        """Run ``fn`` on entry-block arguments (shape symbols included); returns its results.

        Numpy arrays passed for ``mem`` parameters are wrapped as ``MemRef``
        and written in place.
        """
        if isinstance(fn, str):
            found = self.module.lookup(fn)
            if found is None:
                raise KeyError(f"no function @{fn} in the module")
            fn = found
        with np.errstate(all="ignore"):
            return self.run_function(fn, args)

    def run_function(self, fn: ir.Function, args: Sequence[Any]) -> list[Any]:
        """Run ``fn`` in a new frame (values already in interpreter form, arrays allowed)."""
        params = fn.args
        if len(args) != len(params):
            raise TypeError(f"@{fn.name} takes {len(params)} entry arguments, got {len(args)}")
        if len(self._frames) >= self.max_call_depth:
            raise RecursionError(f"call depth exceeds {self.max_call_depth} at @{fn.name}")
        syms = fn.shape_symbols
        first_sym = len(params) - len(syms)
        dims = {name: int(args[first_sym + i]) for i, name in enumerate(syms)}
        values = [MemRef.of(a) if isinstance(p.type, ir.MemoryType) and isinstance(a, np.ndarray)
                  else a for p, a in zip(params, args)]
        self._frames.append(_Frame(fn, dims))
        try:
            return self.run_region(fn.body, values)
        finally:
            self._frames.pop()

    # -- regions -----------------------------------------------------------------
    def run_region(self, region: ir.Region, args: Sequence[Any]) -> list[Any]:
        """Run ``region`` from its entry block; returns the operands of its ``yield``/``return``."""
        env = self._frames[-1].env
        block = region.entry
        while True:
            if len(args) != len(block.args):
                owner = region.owner if isinstance(region.owner, ir.Operation) else None
                raise InterpretError(owner, f"a block taking {len(block.args)} arguments "
                                            f"was entered with {len(args)}")
            for a, v in zip(block.args, args):
                env[a] = v
            for op in block.operations:
                name = op.name
                if name == "yield" or name == "return":
                    return [self._get(env, op, v) for v in op.operands]
                if name == "br":
                    args = [self._get(env, op, v) for v in op.operands]
                    block = op.successors[0]
                    break
                self._execute(op, env)
            else:
                owner = region.owner if isinstance(region.owner, ir.Operation) else None
                raise InterpretError(owner, "a block ends without a terminator")

    def run_lanes(self, region: ir.Region, args: Sequence[Any]) -> list[Any]:
        """Run a scalar region once on whole arrays (``map`` and ``reduce`` updates)."""
        self._lanes += 1
        try:
            return self.run_region(region, args)
        finally:
            self._lanes -= 1

    @property
    def kernel_name(self) -> str:
        """The outermost running function (the kernel a failed check names)."""
        return self._frames[0].function.name if self._frames else "?"

    @property
    def in_lanes(self) -> bool:
        """True while a scalar region is being run on whole arrays."""
        return self._lanes > 0

    @staticmethod
    def _get(env: dict[ir.Value, Any], op: ir.Operation, v: ir.Value) -> Any:
        try:
            return env[v]
        except KeyError:
            raise InterpretError(op, f"an operand ({v.type}) is used before it is "
                                     f"defined") from None

    def _execute(self, op: ir.Operation, env: dict[ir.Value, Any]) -> None:
        impl = IMPLEMENTATIONS.get(op.name)
        if impl is None:
            raise InterpretError(op, f"the reference interpreter has no implementation of "
                                     f"opcode {op.name!r}")
        operands = [self._get(env, op, v) for v in op.operands]
        try:
            results = impl(self, op, operands)
        except (InterpretError, KernelFailure):
            raise
        except TotalViewLeft as e:
            if e.view is None:
                raise InterpretError(op, "an access left a view with bounds = \"total\"") from None
            raise total_view_report(e.view).failure(self.kernel_name) from None
        except ZeroDivisionError as e:
            if op.name != "arith":
                raise InterpretError(op, f"{type(e).__name__}: {e}") from e
            raise CheckInfo.division(op).failure(self.kernel_name) from None
        except Exception as e:  # every runtime failure is reported at its operation
            raise InterpretError(op, f"{type(e).__name__}: {e}") from e
        if len(results) != len(op.results):
            raise InterpretError(op, f"produced {len(results)} values for "
                                     f"{len(op.results)} results")
        for r, v in zip(op.results, results):
            env[r] = v

    # -- shapes ------------------------------------------------------------------
    def extent(self, dim: ir.Dim) -> int:
        """The value of an extent in the current frame."""
        if dim.is_static:
            return int(dim)
        dims = self._frames[-1].dims
        if dim.value not in dims:
            raise ValueError(f"extent {dim.value} is not a shape symbol of "
                             f"@{self._frames[-1].function.name}")
        return dims[dim.value]  # type: ignore[index]

    def shape_of(self, t: ir.TileType | ir.MemoryType | ir.IndexSet) -> tuple[int, ...]:
        """Concrete extents of a tile, memory or index-set type."""
        extents = t.extents if isinstance(t, ir.IndexSet) else t.shape
        return tuple(self.extent(e) for e in extents)


# ---------------------------------------------------------------- helpers


def _dtype(t: ir.Type) -> np.dtype:
    """The numpy dtype of a scalar type or of a tile/memory element type."""
    return nx.np_dtype(t.dtype if isinstance(t, (ir.TileType, ir.MemoryType)) else t)


def _as_tile(x: Any, shape: tuple[int, ...], dt: np.dtype) -> np.ndarray:
    """``x`` (array or scalar) as a fresh-or-owned array of exactly ``shape`` and ``dt``."""
    a = np.asarray(x)
    if a.dtype != dt:
        a = a.astype(dt)
    if a.shape != shape:
        a = np.broadcast_to(a, shape).copy()
    return a


def _index(x: Any) -> int:
    return int(x)


# ---------------------------------------------------------------- control


@implements("call")
def _call(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    callee = it.module.lookup(op.attr("callee"))
    if callee is None:
        raise InterpretError(op, f"no function @{op.attr('callee')} in the module")
    return it.run_function(callee, args)


@implements("if")
def _if(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    cond = args[0]
    if isinstance(cond, np.ndarray) and cond.ndim > 0:
        # Inside a map/reduce region the condition is per element: both branches are pure
        # scalar code, so evaluate both and select.
        for region in op.regions:
            for inner in region.walk():
                if inner.opdef.effect not in ("pure", "control") or inner.name == "call":
                    raise InterpretError(op, f"'{inner.name}' inside an 'if' evaluated per "
                                             "element: only pure scalar code can be selected")
        then = it.run_region(op.regions[0], [])
        other = it.run_region(op.regions[1], [])
        return [nx.evaluate("select", (cond, a, b), _dtype(r.type), _dtype(r.type))
                for a, b, r in zip(then, other, op.results)]
    return it.run_region(op.regions[0 if bool(cond) else 1], [])


# ------------------------------------------------------- structured execution


def _patch(dst: np.ndarray, payload: np.ndarray, origin: Sequence[int]) -> None:
    """Write ``payload`` into ``dst`` at ``origin``, dropping the parts outside ``dst``."""
    dsl, ssl = [], []
    for o, p, e in zip(origin, payload.shape, dst.shape):
        lo, hi = max(o, 0), min(o + p, e)
        if hi <= lo:
            return
        dsl.append(slice(lo, hi))
        ssl.append(slice(lo - o, hi - o))
    dst[tuple(dsl)] = payload[tuple(ssl)]


@implements("parallel")
def _parallel(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    rank = op.attr("rank")
    extents = [max(_index(e), 0) for e in args[:rank]]
    inits = args[rank:]
    joined: list[Any] = [np.array(x, copy=True) if isinstance(x, np.ndarray) else x
                         for x in inits]
    region = op.regions[0]
    for point in np.ndindex(*extents):
        outs = it.run_region(region, [np.int64(c) for c in point] + inits)
        pos = 0
        for k, init in enumerate(inits):
            payload = outs[pos]
            pos += 1
            if isinstance(init, np.ndarray):
                q = init.ndim
                origin = [_index(o) for o in outs[pos:pos + q]]
                pos += q
                _patch(joined[k], np.asarray(payload), origin)
            else:
                joined[k] = payload  # scalar update: the last instance in row-major order wins
    return joined


def _loop_bounds(it: Interpreter, op: ir.Operation, args: list[Any]) -> range:
    """The iterations of a counted loop; a step that is not positive is the program's error
    (before the first iteration, whatever the bounds)."""
    lb, ub, step = (_index(x) for x in args[:3])
    if step <= 0:
        raise CheckInfo.loop(op).failure(it.kernel_name, [step])
    return range(lb, ub, step)


@implements("serial")
def _serial(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    carried = list(args[3:])
    region = op.regions[0]
    for iv in _loop_bounds(it, op, args):
        carried = it.run_region(region, [np.int64(iv)] + carried)
    return carried


@implements("pipeline")
def _pipeline(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    carried = list(args[3:])
    for iv in _loop_bounds(it, op, args):
        values = carried
        for stage in op.regions:
            values = it.run_region(stage, [np.int64(iv)] + values)
        carried = values
    return carried


# ---------------------------------------------------------------- aggregation


@implements("reduce")
def _reduce(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    n_in = op.attr("n_inputs")
    inputs = [np.asarray(x) for x in args[:n_in]]
    dts = [_dtype(v.type) for v in op.operands[n_in:]]
    shape = inputs[0].shape
    axes = sorted(op.attr("axes"))  # row-major over the reduced axes: the last axis fastest
    kept = [a for a in range(len(shape)) if a not in axes]
    out_shape = tuple(shape[a] for a in kept)
    count = 1
    for a in axes:
        count *= shape[a]
    moved = [np.transpose(x, kept + axes).reshape(out_shape + (count,)) for x in inputs]
    seeds = [_as_tile(s, out_shape, dt) for s, dt in zip(args[n_in:], dts)]
    return reduce_contributions(op, moved, seeds, it.run_lanes, _as_tile)


def reduce_contributions(op: ir.Operation, moved: list[np.ndarray], seeds: list[np.ndarray],
                         run: Callable[[ir.Region, list[Any]], list[Any]],
                         as_tile: Callable[[Any, tuple[int, ...], np.dtype], np.ndarray]
                         ) -> list[np.ndarray]:
    """The states of ``reduce`` ``op`` (tileir.md, "Aggregation") from its contributions,
    ``moved`` (each input with the reduced coordinates flattened last) and its seed tiles:
    folded in source order, or, when the policy allows a tree and the merge laws are
    recognized, the reference tree: each contribution becomes a partial state (the update
    applied to the laws' exact identities), partials merge pairwise level by level
    (``ir.merge_region``), then ``merge(seed, partial)``. ``run(region, args)`` runs a scalar
    region elementwise; ``as_tile(x, shape, dtype)`` shapes a result (the simulator shares
    this with its thread axis in front)."""
    n_in = op.attr("n_inputs")
    dts = [_dtype(v.type) for v in op.operands[n_in:]]
    out_shape, count = moved[0].shape[:-1], moved[0].shape[-1]
    region = op.regions[0]
    laws = ir.merge_laws(op) if op.attr("policy").allows_tree else None
    if laws is None:
        states = seeds
        for r in range(count):
            outs = run(region, states + [m[..., r] for m in moved])
            states = [as_tile(s, out_shape, dt) for s, dt in zip(outs, dts)]
        return states
    identities = [nx.combiner_identity(c, dt) for c, dt in zip(laws, dts)]
    partials = [as_tile(p, moved[0].shape, dt)
                for p, dt in zip(run(region, identities + moved), dts)]
    merge = ir.merge_region(laws, [v.type for v in op.operands[n_in:]])
    outs = nx.tree_states(partials, seeds, lambda a, b: run(merge, a + b))
    return [as_tile(r, out_shape, dt) for r, dt in zip(outs, dts)]


# ---------------------------------------------------------------- pure values


@implements("constant")
def _constant(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    t = op.result.type
    dt = _dtype(t)
    v = nx.from_python(op.attr("value"), dt)
    if isinstance(t, ir.TileType):
        return [np.full(it.shape_of(t), v, dt)]
    return [v]


@implements("iota")
def _iota(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    t = op.result.type
    shape = it.shape_of(t)
    values = mapped_coords(op.attr("map"), shape, [_index(x) for x in args])[0]
    return [_as_tile(nx.cast(values, _dtype(t)), shape, _dtype(t))]


@implements("tuple")
def _tuple(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    return [tuple(args)]


@implements("tuple_get")
def _tuple_get(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    return [args[0][op.attr("index")]]


@implements("arith")
def _arith(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    fn = op.attr("fn")
    operand_type = op.operand(1 if fn == "select" else 0).type
    return [nx.evaluate(fn, args, _dtype(operand_type), _dtype(op.result.type))]


@implements("map")
def _map(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    shape = it.shape_of(op.attr("shape"))
    outs = it.run_lanes(op.regions[0], args)
    return [_as_tile(v, shape, _dtype(r.type)) for v, r in zip(outs, op.results)]


@implements("reindex")
def _reindex(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    src = np.asarray(args[0])
    syms = [_index(x) for x in args[1:]]
    t = op.result.type
    shape, dt = it.shape_of(t), _dtype(t)
    coords = mapped_coords(op.attr("map"), shape, syms)
    ok = inside(coords, src.shape, shape)
    if ok.all():
        return [_as_tile(src[tuple(coords)], shape, dt)]
    fill = op.attr("fill")
    if fill is None:
        # the first axis in order that leaves its extent; its smallest coordinate is the start
        m = op.attr("map")
        for axis, (c, n) in enumerate(zip(coords, src.shape)):
            c = np.asarray(c)
            if ((c < 0) | (c >= n)).any():
                lo, hi = int(c.min()), int(c.max())
                e = m.results[axis]
                span = hi - lo + 1 if split(e) is not None else None
                raise index_report(op, axis, span, n, e.max_dim() == 0).failure(
                    it.kernel_name, [lo])
    out = np.full(shape, nx.from_python(fill, dt), dt)
    out[ok] = src[tuple(c[ok] for c in coords)]
    return [out]


@implements("mma")
def _mma(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    # Both orders run strictly in k order: one permitted order of unordered_tree, and the
    # only one of strict_fold.
    a, b, c = (np.asarray(x) for x in args)
    return [nx.matmul(a, b, c, op.attr("policy").precision)]


# ------------------------------------------------------- addressable effects


@implements("memory")
def _memory(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    t = op.result.type
    dt = _dtype(t)
    return [MemRef.of(np.full(it.shape_of(t), poison_value(dt), dt))]


@implements("view")
def _view(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    base: MemRef = args[0]
    syms = tuple(_index(x) for x in args[1:])
    total = op.attr("bounds", "total") == "total"
    return [base.view(op.attr("map"), syms, it.shape_of(op.result.type), total, op)]


def _gather(mem: MemRef, op: ir.Operation, fill: Any, dt: np.dtype) -> np.ndarray:
    idx, mask = mem.locate(op)
    if mask is None:
        return _as_tile(mem.root[idx], mem.shape, dt)
    out = np.full(mem.shape, fill, dt)
    out[mask] = mem.root[tuple(c[mask] for c in idx)]
    return out


@implements("load")
def _load(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    mem: MemRef = args[0]
    dt = _dtype(op.result.type)
    fill = op.attr("fill")
    fill_value = poison_value(dt) if fill is None else nx.from_python(fill, dt)
    return [_gather(mem, op, fill_value, dt)]


@implements("load_scalar")
def _load_scalar(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    mem: MemRef = args[0]
    dt = _dtype(op.result.type)
    idx, mask = mem.locate_at([])
    if not mask:
        return [nx.from_python(op.attr("fill"), dt)]
    return [np.asarray(mem.root[idx]).astype(dt)[()]]


def gather_coords(mem_shape: int, idx: np.ndarray, axis: int) -> list[np.ndarray]:
    """The memory coordinates a ``gather`` reads: each element's own coordinates with the one
    along ``axis`` replaced by its index."""
    grid = grid_points(tuple(idx.shape))
    return [np.asarray(idx, np.int64) if k == axis else grid[k] for k in range(mem_shape)]


@implements("gather")
def _gather_op(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    mem: MemRef = args[0]
    idx = np.asarray(args[1])
    dt = _dtype(op.result.type)
    where, mask = mem.locate_at(gather_coords(len(mem.shape), idx, op.attr("axis")))
    out = np.full(idx.shape, nx.from_python(op.attr("fill"), dt), dt)
    out[mask] = mem.root[tuple(c[mask] for c in where)]
    return [out]


@implements("scatter")
def _scatter_op(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    mem: MemRef = args[0]
    idx, values = np.asarray(args[1]), np.asarray(args[2])
    where, mask = mem.locate_at(gather_coords(len(mem.shape), idx, op.attr("axis")))
    targets = tuple(c[mask] for c in where)
    picked = values[mask]
    kind = op.attr("kind")
    if kind is None:
        mem.root[targets] = picked  # repeated targets: the last element in row-major order wins
        return []
    _combine_each(mem.root, targets, picked, kind)
    return []


@implements("store")
def _store(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    mem: MemRef = args[0]
    tile = np.asarray(args[1])
    idx, mask = mem.locate(op)
    if mask is None:
        mem.root[idx] = tile  # repeated targets: the last element in row-major order wins
    else:
        mem.root[tuple(c[mask] for c in idx)] = tile[mask]
    return []


@implements("atomic")
def _atomic(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    mem: MemRef = args[0]
    tile = np.asarray(args[1])
    kind = op.attr("kind")
    dt = mem.root.dtype
    idx, mask = mem.locate(op)
    if mask is None:
        targets = tuple(c.reshape(-1) for c in idx)
        values = tile.reshape(-1)
    else:
        targets = tuple(c[mask] for c in idx)
        values = tile[mask]
    if kind not in ir.EXCHANGE_KINDS:
        _combine_each(mem.root, targets, values, kind)
        return []
    fill = op.attr("fill")
    olds = np.full(tile.shape, poison_value(dt) if fill is None
                   else nx.from_python(fill, dt), dt)
    got = np.empty(values.size, dt)
    cmps = None
    if kind == "cas":
        cmp = np.asarray(args[2])
        cmps = cmp.reshape(-1) if mask is None else cmp[mask]
    for pick in _rounds(targets, mem.root.shape, values.size):
        where = tuple(c[pick] for c in targets)
        got[pick] = mem.root[where]
        mem.root[where] = nx.exchange(kind, got[pick], values[pick],
                                      None if cmps is None else cmps[pick])
    if mask is None:
        olds = got.reshape(tile.shape)
    else:
        olds[mask] = got
    return [olds]


def _combine_each(root: np.ndarray, targets: tuple[np.ndarray, ...], values: np.ndarray,
                  kind: str) -> None:
    """``root[t] = combine(root[t], v)`` for each target and value, in order."""
    for pick in _rounds(targets, root.shape, values.size):
        where = tuple(c[pick] for c in targets)
        root[where] = nx.combine(kind, root[where], values[pick], root.dtype)


def _rounds(targets: tuple[np.ndarray, ...], shape: tuple[int, ...], n: int
            ) -> Iterator[np.ndarray]:
    """Masks over ``n`` accesses at coordinates ``targets`` (arrays ``(n,)`` into an array of
    ``shape``; none for rank 0) in rounds where every address occurs at most once: accesses
    of one address apply one after another in their (row-major) order, round ``r`` taking
    the ``r``-th of each. Nothing for no access."""
    if n == 0:
        return
    flat = np.ravel_multi_index(targets, shape) if shape else np.zeros(n, np.int64)
    order = np.argsort(flat, kind="stable")
    sorted_flat = flat[order]
    starts = np.r_[True, sorted_flat[1:] != sorted_flat[:-1]]
    run_start = np.maximum.accumulate(np.where(starts, np.arange(n), 0))
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n) - run_start
    for r in range(int(rank.max()) + 1):
        yield rank == r


@implements("sync")
def _sync(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    return [None] * len(op.results)


@implements("check")
def _check(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    cond = np.asarray(args[0], bool)
    if cond.all():
        return []
    # in a region run on whole arrays, report the first element that fails
    first = tuple(int(x) for x in np.argwhere(~cond)[0]) if cond.ndim else ()
    values = [np.asarray(v)[first] if cond.ndim and np.ndim(v) == cond.ndim else v
              for v in args[1:]]
    raise CheckInfo.of(op).failure(it.kernel_name, values)


@implements("atom.call")
def _atom_call(it: Interpreter, op: ir.Operation, args: list[Any]) -> Sequence[Any]:
    raise InterpretError(op, f"atom.call {op.attr('catalog_id')!r} is Machine TileIR; the "
                             "reference interpreter runs Candidate TileIR only (Machine form "
                             "belongs to the SIMT simulator)")
