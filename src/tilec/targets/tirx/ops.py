"""The bridge's translation of each TileIR opcode (registered with ``exporter.handles``).

Each handler takes the exporter and the operation, emits statements into the PrimFunc
being built and returns the operation's result values (``values``). See ``exporter`` for
the mapping and ``docs/design/tirx.md`` for the reasons.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import tilec.ir as ir
from tilec.ir.index_bounds import extremes, reindex_bounds
from tilec.targets.index_bounds import bound_report
from tilec.targets.kernel_checks import CheckInfo

from . import scalars as sc
from .distribute import layout_of_operand, layout_of_result
from .exporter import ERR_CHECK, ERR_REINDEX, handles
from .gpu import refuse_in_device
from .threads import instance_coords, instance_count, serial_reason
from .values import Buffered, Computed, MemRef, Remapped, Splat, Tile, affine, inside

if TYPE_CHECKING:
    from .exporter import _Exporter as X


def _stype(t: ir.Type) -> ir.ScalarType:
    return t.dtype if isinstance(t, (ir.TileType, ir.MemoryType)) else t  # type: ignore


def _result_layout(op: ir.Operation) -> Any:
    """The one distribution of ``op``'s results (None when they differ or have none): its
    element loop follows it in a distributed launch (``distribute``)."""
    lays = {layout_of_result(op, k) for k in range(len(op.results))}
    return lays.pop() if len(lays) == 1 else None


# ------------------------------------------------------------------- pure values


@handles("constant")
def _constant(x: X, op: ir.Operation) -> list[Any]:
    t = op.result.type
    v = sc.const(op.attr("value"), _stype(t))
    if isinstance(t, ir.TileType):
        return [Splat(v, x.static_shape(t, op), t.dtype)]
    return [v]


@handles("iota")
def _iota(x: X, op: ir.Operation) -> list[Any]:
    t = op.result.type
    m: ir.IndexMap = op.attr("map")
    syms = [x.scalar(v, op) for v in op.operands]
    return [Computed(lambda idx: sc.cast(affine(m.results[0], idx, syms), ir.index, t.dtype),
                     x.static_shape(t, op), t.dtype)]


@handles("tuple")
def _tuple(x: X, op: ir.Operation) -> list[Any]:
    return [tuple(x.get(v, op) for v in op.operands)]


@handles("tuple_get")
def _tuple_get(x: X, op: ir.Operation) -> list[Any]:
    return [x.get(op.operand(0), op)[op.attr("index")]]


@handles("arith")
def _arith(x: X, op: ir.Operation) -> list[Any]:
    fn = op.attr("fn")
    if any(isinstance(v.type, ir.TileType) for v in op.operands):
        raise x.unsupported(op, "arith on tiles outside a map (capture lifts it into one)")
    args = [x.scalar(v, op) for v in op.operands]
    ot = op.operand(1 if fn == "select" else 0).type
    rt = op.result.type
    if fn in ("floordiv", "rem", "cdiv") and not ot.is_float:
        x.check_divisor(op, args[1])
        if ot.name.startswith("i") and not (isinstance(args[1], x.tx.IntImm)
                                            and args[1].value > 0):
            return [_signed_division(x, fn, args, ot)]
    try:
        value = sc.arith(fn, args, ot, rt)
    except KeyError:
        raise x.unsupported(op, f"arith {fn!r} on {ot}") from None
    return [x.bind(value)]


def _signed_division(x: X, fn: str, args: list[Any], t: ir.ScalarType) -> Any:
    """A signed division by a runtime divisor: ``MIN // -1`` traps on the CPU, so a divisor
    of -1 takes another branch (TVM folds a select of the divisor away and divides anyway)."""
    a, b = args
    slot = x.new_tile((), t, "q")
    T = x.T
    with T.If(x.tx.EQ(b, sc.const(-1, t))):
        with T.Then():
            x.store(slot, (), sc.const(0, t) if fn == "rem"
                    else sc.arith("neg", [a], t, t))
        with T.Else():
            x.store(slot, (), sc.arith(fn, [a, b], t, t))
    return x.bind(slot.elem(()))


@handles("map")
def _map(x: X, op: ir.Operation) -> list[Any]:
    shape = tuple(int(x.extent(d, op)) if d.is_static else None for d in op.attr("shape").extents)
    if any(n is None for n in shape):
        raise x.unsupported(op, "a map over a symbolic shape")
    outs = [x.new_tile(shape, r.type.dtype, shared=True) for r in op.results]
    operands = [x.get(v, op) for v in op.operands]
    with x.elements(shape, _result_layout(op)) as idx:
        args = [v.elem(idx) if isinstance(v, Tile) and isinstance(o.type, ir.TileType) else v
                for v, o in zip(operands, op.operands)]
        vals = x.region(op.regions[0], args)
        for o, v in zip(outs, vals):
            x.store(o, idx, v.elem(()) if isinstance(v, Tile) else v)
    return outs


def _static_in_range(m: ir.IndexMap, shape: tuple[int, ...], src: tuple[int, ...]) -> bool:
    if m.n_symbols or any(n == 0 for n in shape):
        return False
    for e, n in zip(m.results, src):
        lo, hi = extremes(e, shape)
        if lo < 0 or hi >= n:
            return False
    return True


@handles("reindex")
def _reindex(x: X, op: ir.Operation) -> list[Any]:
    t = op.result.type
    shape = x.static_shape(t, op)
    src = x.get(op.operand(0), op)
    src_shape = src.shape
    m: ir.IndexMap = op.attr("map")
    if _static_in_range(m, shape, src_shape):
        return [Remapped(src, m, shape, t.dtype)]
    syms = [x.scalar(v, op) for v in op.operands[1:]]
    fill = op.attr("fill")
    tests, mixed = reindex_bounds(op, None)
    if mixed:
        raise x.unsupported(op, f"a reindex without fill whose map mixes coordinates and "
                                f"symbols on axis {mixed[0]} (only written IR has one)")
    tx = x.tx
    for b in sorted(tests, key=lambda b: b.axis):
        report = bound_report(op, b)
        x.out.reads[(report.op_id, b.axis)] = report
        g = x.bind(affine(b.offset, [], syms))
        ok = b.admissible
        bad = tx.const(True, "bool") if ok is None else tx.Or(g < x.i64(ok.lo), g > x.i64(ok.hi))
        with x.when(bad):
            x.fail(ERR_REINDEX, report.op_id, [g + x.i64(b.lo), x.i64(b.axis)])
    out = x.new_tile(shape, t.dtype, shared=True)
    with x.elements(shape, _result_layout(op)) as idx:
        coords = [affine(e, idx, syms) for e in m.results]
        if fill is None:  # proven or tested in range
            x.store(out, idx, src.elem(coords))
            continue_ = None
        else:
            continue_ = inside(coords, [x.i64(n) for n in src_shape])
        if continue_ is not None:
            with x.T.If(continue_):
                with x.T.Then():
                    x.store(out, idx, src.elem(coords))
                with x.T.Else():
                    x.store(out, idx, sc.const(fill, t.dtype))
    return [out]


@handles("mma")
def _mma(x: X, op: ir.Operation) -> list[Any]:
    a, b, c = (x.get(v, op) for v in op.operands)
    at, ct = op.operand(0).type.dtype, op.operand(2).type.dtype
    (m, k), n = a.shape, b.shape[1]
    tx = x.tx
    out = x.new_tile((m, n), ct, shared=True)
    lay = _result_layout(op)  # the planner's accumulator distribution, when distributed
    precision = op.attr("policy").precision
    if not at.is_float:
        with x.elements((m, n), lay) as (i, j):
            acc = x.new_tile((), ct, "acc")
            x.store(acc, (), c.elem((i, j)))
            with x.loops((k,)) as (kk,):
                p = sc.arith("mul", [sc.cast(a.elem((i, kk)), at, ct),
                                     sc.cast(b.elem((kk, j)), at, ct)], ct, ct)
                x.store(acc, (), sc.arith("add", [acc.elem(()), p], ct, ct))
            x.store(out, (i, j), acc.elem(()))
        return [out]
    pdt = ir.f64 if at.name == "f64" else ir.f32
    wdt = ir.f64 if "f64" in (pdt.name, ct.name) else ir.f32
    narrow = ct.name != wdt.name
    acc_t = wdt
    with x.elements((m, n), lay) as (i, j):
        acc = x.new_tile((), acc_t, "acc")
        x.store(acc, (), sc.cast(c.elem((i, j)), ct, wdt))
        with x.loops((k,)) as (kk,):
            av, bv = sc.cast(a.elem((i, kk)), at, pdt), sc.cast(b.elem((kk, j)), at, pdt)
            if precision == "tf32" and at.name == "f32":
                av, bv = (sc.arith("round_tf32", [v], ir.f32, ir.f32) for v in (av, bv))
            prod = sc.cast(tx.Mul(av, bv), pdt, wdt)
            s = tx.Add(acc.elem(()), prod)
            if narrow:
                s = sc.cast(sc.cast(s, wdt, ct), ct, wdt)
            x.store(acc, (), s)
        x.store(out, (i, j), sc.cast(acc.elem(()), wdt, ct))
    return [out]


# --------------------------------------------------------------- aggregation


@handles("reduce")
def _reduce(x: X, op: ir.Operation) -> list[Any]:
    n_in = op.attr("n_inputs")
    inputs = [x.get(v, op) for v in op.operands[:n_in]]
    seeds = [x.get(v, op) for v in op.operands[n_in:]]
    shape = inputs[0].shape
    axes = sorted(op.attr("axes"))
    kept = [a for a in range(len(shape)) if a not in axes]
    outs = [x.new_tile(tuple(shape[a] for a in kept), _stype(r.type), shared=True)
            for r in op.results]
    types = [_stype(v.type) for v in op.operands[n_in:]]
    # each kept coordinate folded whole by one thread, in row-major order (strict_fold)
    with x.elements([shape[a] for a in kept], _result_layout(op)) as kidx:
        states = [x.new_tile((), t, "state") for t in types]
        for s, seed in zip(states, seeds):
            x.store(s, (), seed.elem(kidx) if isinstance(seed, Tile) else seed)
        with x.loops([shape[a] for a in axes]) as ridx:
            full: list[Any] = [None] * len(shape)
            for a, v in zip(kept, kidx):
                full[a] = v
            for a, v in zip(axes, ridx):
                full[a] = v
            now = [x.bind(s.elem(())) for s in states]
            vals = x.region(op.regions[0], now + [t.elem(full) for t in inputs])
            for s, v in zip(states, vals):
                x.store(s, (), v)
        for o, s in zip(outs, states):
            x.store(o, kidx, s.elem(()))
    return outs


# ------------------------------------------------------------- control and loops


@handles("if")
def _if(x: X, op: ir.Operation) -> list[Any]:
    cond = x.scalar(op.operand(0), op)
    slots = [x.slot(r.type, op) for r in op.results]
    T = x.T
    with T.If(cond):
        with T.Then(), x.scope():
            x.put_all(slots, x.region(op.regions[0], []))
        if op.regions[1].blocks and (slots or len(op.regions[1].entry.operations) > 1):
            with T.Else(), x.scope():
                x.put_all(slots, x.region(op.regions[1], []))
    return [x.take(s, r.type) for s, r in zip(slots, op.results)]


def _step_check(x: X, op: ir.Operation, step: Any) -> None:
    if isinstance(step, x.tx.IntImm) and step.value > 0:
        return
    info = CheckInfo.loop(op)
    x.out.checks[info.op_id] = info
    with x.when(step <= x.i64(0)):
        x.fail(ERR_CHECK, info.op_id, [step])


@handles("serial", "pipeline")
def _serial(x: X, op: ir.Operation) -> list[Any]:
    lb, ub, step = (x.scalar(v, op) for v in op.operands[:3])
    inits = [x.get(v, op) for v in op.operands[3:]]
    types = [v.type for v in op.operands[3:]]
    _step_check(x, op, step)
    slots = [x.slot(t, op) for t in types]
    for s, v in zip(slots, inits):
        x.put(s, v)
    tx = x.tx
    count = x.bind(tx.Max(tx.floordiv(ub - lb + step - x.i64(1), step), x.i64(0)))
    with x.T.serial(x.i64(0), count) as k, x.scope():
        iv = x.bind(lb + k * step)
        values = [x.take(s, t) for s, t in zip(slots, types)]
        for region in op.regions:
            values = x.region(region, [iv] + values)
        x.put_all(slots, values)
        x.barrier()  # distributed: the iteration's reads end before the next one's writes
    return [x.take(s, t) for s, t in zip(slots, types)]


def _patch(x: X, dst: Buffered, payload: Tile, origin: list[Any]) -> None:
    with x.elements(payload.shape) as idx:
        at = [o + i for o, i in zip(origin, idx)]
        with x.when(inside(at, [x.i64(n) for n in dst.shape])):
            x.store(dst, at, payload.elem(idx))
    x.barrier()


@handles("parallel")
def _parallel(x: X, op: ir.Operation) -> list[Any]:
    """The instances as one loop: on threads (``ForKind.PARALLEL`` over the flattened
    coordinates, decoded row-major) unless ``threads.serial_reason`` says why not, then a
    serial nest in row-major order; tile payloads patched into copies of the inits."""
    rank = op.attr("rank")
    extents = [x.scalar(v, op) for v in op.operands[:rank]]
    inits = [x.get(v, op) for v in op.operands[rank:]]
    types = [v.type for v in op.operands[rank:]]
    joined = [x.slot(t, op) for t in types]
    for s, v in zip(joined, inits):
        x.put(s, v)
    if x.gpu and not x.device:
        from .gpu import launch

        with launch(x, op, extents) as coords:
            _instance(x, op, coords, inits, types, joined)
    elif serial_reason(op) is None and not x.gpu:
        with _threaded(x, op, extents) as coords:
            _instance(x, op, coords, inits, types, joined)
    else:
        with x.loops(extents) as coords, x.scope():
            _instance(x, op, coords, inits, types, joined)
    return [x.take(s, t) for s, t in zip(joined, types)]


@contextlib.contextmanager
def _threaded(x: X, op: ir.Operation, extents: list[Any]) -> Iterator[list[Any]]:
    """One ``T.parallel`` loop over the product of the extents (a negative one counts 0);
    yields the coordinates, the last fastest."""
    ns, total = instance_count(x, extents)
    with x.T.parallel(x.i64(0), x.bind(total)) as f:
        coords = instance_coords(x, f, ns)
        x.threaded = op
        try:
            yield coords
        finally:
            x.threaded = None


def _instance(x: X, op: ir.Operation, coords: list[Any], inits: list[Any], types: list[Any],
              joined: list[Buffered]) -> None:
    outs = x.region(op.regions[0], list(coords) + inits)
    pos = 0
    for s, t in zip(joined, types):
        payload = outs[pos]
        pos += 1
        if isinstance(t, ir.TileType):
            q = len(t.shape)
            origin = [o.elem(()) if isinstance(o, Tile) else o for o in outs[pos:pos + q]]
            pos += q
            _patch(x, s, payload, origin)
        else:
            x.put(s, payload)


@handles("check")
def _check(x: X, op: ir.Operation) -> list[Any]:
    if op.id in x.host_ops:  # the launcher evaluates it before the call
        return []
    cond = x.scalar(op.operand(0), op)
    info = CheckInfo.of(op)
    x.out.checks[info.op_id] = info
    values = [sc.encode_word(x.scalar(v, op), v.type) for v in op.operands[1:]]
    code = {"assert": ERR_CHECK, "index": ERR_CHECK, "step": ERR_CHECK, "zerodiv": 2}
    with x.when(x.tx.Not(cond)):
        x.fail(code.get(info.kind, ERR_CHECK), info.op_id, values)
    return []


@handles("sync")
def _sync(x: X, op: ir.Operation) -> list[Any]:
    return [None] * len(op.results)


# ------------------------------------------------------------------- memory


@handles("memory")
def _memory(x: X, op: ir.Operation) -> list[Any]:
    """A buffer where the operation is; in a GPU program, the thread's own (``local``
    scope: the instance runs on one thread, so the memory is private to it)."""
    t = op.result.type
    shape = tuple(x.extent(d, op) for d in t.shape)
    if not all(d.is_static for d in t.shape):
        raise x.unsupported(op, f"a memory of symbolic extent ({t})")
    x.names += 1
    scope = "local" if x.device else "global"
    shared = x.shared_here()  # a distributed launch: the block's threads share it
    if shared:
        from .distribute import SCOPE

        scope = SCOPE[x.target]
    buf = x.T.alloc_buffer(shape or (x.i64(1),), sc.mem_dtype(t.dtype), scope=scope)
    if shared:
        from .distribute import count_shared

        count_shared(x, buf, [int(d) for d in t.shape], sc.mem_dtype(t.dtype))
    x.IRBuilder.name(f"{'tc_' if shared else ''}mem_{x.names}", buf)
    if not shape:
        raise x.unsupported(op, "a rank-0 memory")
    return [MemRef(buf, t.dtype, shape)]


@handles("view")
def _view(x: X, op: ir.Operation) -> list[Any]:
    base: MemRef = x.get(op.operand(0), op)
    syms = tuple(x.scalar(v, op) for v in op.operands[1:])
    shape = tuple(x.extent(d, op) for d in op.result.type.shape)
    total = op.attr("bounds", "total") == "total"
    return [base.view(op.attr("map"), syms, shape, total, op)]


def _read(x: X, mem: MemRef, idx: list[Any]) -> Any:
    return sc.from_memory(mem.root[tuple(mem.root_coords(idx))], mem.dtype)


@handles("load")
def _load(x: X, op: ir.Operation) -> list[Any]:
    mem: MemRef = x.get(op.operand(0), op)
    t = op.result.type
    shape = x.static_shape(t, op)
    fill = op.attr("fill")
    fill_v = sc.poison(t.dtype) if fill is None else sc.const(fill, t.dtype)
    x.check_totals(mem, shape, op)
    out = x.new_tile(shape, t.dtype, shared=True)
    T = x.T
    with x.elements(shape, _result_layout(op)) as idx:
        valid, _ = mem.validity(idx)
        if valid is None:
            x.store(out, idx, _read(x, mem, idx))
        else:
            with T.If(valid):
                with T.Then():
                    x.store(out, idx, _read(x, mem, idx))
                with T.Else():
                    x.store(out, idx, fill_v)
    return [out]


@handles("load_scalar")
def _load_scalar(x: X, op: ir.Operation) -> list[Any]:
    mem: MemRef = x.get(op.operand(0), op)
    t = op.result.type
    valid, _ = mem.validity([], data=True)
    slot = x.new_tile((), t, "s")
    T = x.T
    fill_v = sc.const(op.attr("fill"), t)
    if valid is None:
        x.store(slot, (), _read(x, mem, []))
    else:
        with T.If(valid):
            with T.Then():
                x.store(slot, (), _read(x, mem, []))
            with T.Else():
                x.store(slot, (), fill_v)
    return [x.bind(slot.elem(()))]


@handles("store")
def _store(x: X, op: ir.Operation) -> list[Any]:
    mem: MemRef = x.get(op.operand(0), op)
    tile: Tile = x.get(op.operand(1), op)
    shape = tile.shape
    x.check_totals(mem, shape, op)
    with x.elements(shape, layout_of_operand(op, 1)) as idx:
        valid, _ = mem.validity(idx)
        st = lambda: x.T.buffer_store(mem.root, sc.to_memory(tile.elem(idx), mem.dtype),  # noqa: E731
                                      mem.root_coords(idx))
        if valid is None:
            st()
        else:
            with x.when(valid):
                st()
    return []


@handles("atomic")
def _atomic(x: X, op: ir.Operation) -> list[Any]:
    mem: MemRef = x.get(op.operand(0), op)
    tile: Tile = x.get(op.operand(1), op)
    kind = op.attr("kind")
    t = mem.dtype
    shape = tile.shape
    exchange = kind in ir.EXCHANGE_KINDS
    refuse_in_device(x, op, "the bridge has no atomic builtin, and a plain read-modify-write "
                            "races between GPU threads")
    x.not_threaded(f"an atomic (operation #{ir.op_number(op)})")
    x.check_totals(mem, shape, op)
    old = None
    if exchange:
        fill = op.attr("fill")
        old = x.new_tile(shape, t)
        fill_v = sc.poison(t) if fill is None else sc.const(fill, t)
    cmp = x.get(op.operand(2), op) if kind == "cas" else None
    T = x.T
    with x.loops(shape) as idx:
        valid, _ = mem.validity(idx)
        with contextlib_if(x, valid, old, idx, fill_v if exchange else None):
            coords = mem.root_coords(idx)
            cur = x.bind(sc.from_memory(mem.root[tuple(coords)], t))
            v = tile.elem(idx)
            if kind == "xchg":
                new = v
            elif kind == "cas":
                same = _same_bits(x, cur, cmp.elem(idx), t)
                new = x.tx.Select(same, v, cur)
            else:
                new = sc.arith(kind, [cur, v], t, t)
            if old is not None:
                x.store(old, idx, cur)
            T.buffer_store(mem.root, sc.to_memory(new, t), coords)
    return [old] if exchange else []


def _same_bits(x: X, a: Any, b: Any, t: ir.ScalarType) -> Any:
    tx = x.tx
    if not t.is_float:
        return tx.EQ(a, b)
    a, b = sc.to_memory(a, t), sc.to_memory(b, t)
    if t.name in ("f32", "f64", "f16"):
        u = {"f32": "uint32", "f64": "uint64", "f16": "uint16"}[t.name]
        a, b = tx.reinterpret(u, a), tx.reinterpret(u, b)
    return tx.EQ(a, b)


class contextlib_if:  # noqa: N801 - a statement helper read like ``with``
    """``if valid: body else: old[idx] = fill`` (no test when ``valid`` is None)."""

    def __init__(self, x: X, valid: Any, old: Buffered | None, idx: list[Any], fill: Any):
        self.x, self.valid, self.old, self.idx, self.fill = x, valid, old, idx, fill
        self.frames: list[Any] = []

    def __enter__(self) -> None:
        if self.valid is None:
            return
        T = self.x.T
        self.frames = [T.If(self.valid)]
        self.frames[0].__enter__()
        then = T.Then()
        then.__enter__()
        self.frames.append(then)

    def __exit__(self, *exc: Any) -> None:
        if self.valid is None:
            return
        self.frames[1].__exit__(*exc)
        if self.old is not None:
            with self.x.T.Else():
                self.x.store(self.old, self.idx, self.fill)
        self.frames[0].__exit__(*exc)


def _data_access(x: X, op: ir.Operation) -> tuple[MemRef, Tile, list[Any]]:
    mem: MemRef = x.get(op.operand(0), op)
    idx_tile: Tile = x.get(op.operand(1), op)
    return mem, idx_tile, []


def _addressed(x: X, op: ir.Operation, mem: Any, idx_tile: Any, idx: Any
               ) -> tuple[list[Any], Any]:
    """The memory coordinates element ``idx`` of a gather or scatter addresses (its index
    along ``axis``, its position along the others) and whether they lie in ``mem``."""
    coords = list(idx)
    coords[op.attr("axis")] = x.bind(sc.cast(idx_tile.elem(idx), op.operand(1).type.dtype,
                                             ir.index))
    valid, _ = mem.validity(coords, data=True)
    return coords, valid


@handles("gather")
def _gather(x: X, op: ir.Operation) -> list[Any]:
    mem, idx_tile, _ = _data_access(x, op)
    t = op.result.type
    out = x.new_tile(idx_tile.shape, t.dtype, shared=True)
    T = x.T
    with x.elements(idx_tile.shape, _result_layout(op)) as idx:
        coords, valid = _addressed(x, op, mem, idx_tile, idx)
        with T.If(valid):
            with T.Then():
                x.store(out, idx, _read(x, mem, coords))
            with T.Else():
                x.store(out, idx, sc.const(op.attr("fill"), t.dtype))
    return [out]


@handles("scatter")
def _scatter(x: X, op: ir.Operation) -> list[Any]:
    mem, idx_tile, _ = _data_access(x, op)
    values: Tile = x.get(op.operand(2), op)
    kind = op.attr("kind")
    t = mem.dtype
    refuse_in_device(x, op, "instances may address one element, and the bridge has no "
                            "atomic builtin to order the GPU threads' writes")
    x.not_threaded(f"a scatter (operation #{ir.op_number(op)})")
    with x.loops(idx_tile.shape) as idx:
        coords, valid = _addressed(x, op, mem, idx_tile, idx)
        with x.when(valid):
            at = mem.root_coords(coords)
            v = values.elem(idx)
            if kind is not None:
                v = sc.arith(kind, [sc.from_memory(mem.root[tuple(at)], t), v], t, t)
            x.T.buffer_store(mem.root, sc.to_memory(v, t), at)
    return []
