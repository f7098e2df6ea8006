"""TileIR (Candidate or Scheduled form) -> a ``tvm.tirx`` PrimFunc, through TVM's IR builder.

``export(module, fn_name)`` walks the function once, in program order, and builds the
PrimFunc statement by statement with ``tvm.script.ir_builder.IRBuilder`` and the
``tvm.tirx`` builder functions (never through printed text). The mapping (the design note
``docs/design/tirx.md`` has it in full):

* parameters: a memory is a buffer (its memory dtype, symbolic extents the ``int64``
  shape-symbol parameters that close the parameter list, as tilec passes them); a scalar
  is an ``int64``/``float64`` parameter converted to its type; then the failure record
  ``tc_status`` and one buffer per function result;
* views compose their index maps and keep every level's bounds (``values.MemRef``); a
  ``load`` reads valid elements and ``fill`` elsewhere, a ``store`` writes valid ones only,
  an access through a ``total`` view tests the elements it reaches first;
* tiles are local buffers filled once by the operation that defines them (a shared SSA
  value is computed once, whatever its number of uses), or, for constants, ``iota`` and
  static in-range ``reindex``, read through (``values``);
* ``map`` is a loop nest over its shape running the scalar region per element, ``reduce``
  loops over the kept coordinates and then folds the contributions in row-major order of
  the reduced axes (the order ``strict_fold`` requires, and one grouping
  ``unordered_tree`` allows), ``mma`` is the strict ``k``-order loop of the reference;
* ``serial``/``pipeline`` are counted loops with their carried values in local storage;
  the outermost ``parallel`` is one ``T.parallel`` loop over its flattened instances
  (TVM's thread pool) unless ``threads.serial_reason`` keeps it a serial nest in
  row-major order (atomics, scatters, failures, scalar carries, nesting); payloads are
  joined into copies of the inits;
* a failed ``check``, an integer division by zero, a ``reindex`` leaving its source, an
  access leaving a ``total`` view and a loop step that is not positive write the status
  record (code, operation number, values: the cpu target's codes) and leave the function
  through a TVM assertion; the runtime turns the record into the kernel's error.

Anything else raises ``UnsupportedError`` naming the operation and its location.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import tilec.ir as ir
from tilec.ir.index_bounds import view_in_range
from tilec.targets.clike import UnsupportedError
from tilec.targets.index_bounds import total_view_report
from tilec.targets.kernel_checks import CheckInfo

from . import scalars as sc
from .values import Buffered, Computed, MemRef, Remapped, Tile

__all__ = ["Export", "export", "TARGET"]

TARGET = "tirx:llvm"

ERR_REINDEX, ERR_ZERODIV, ERR_TOTAL, ERR_CHECK = 1, 2, 3, 4
"""Status codes (the cpu target's): a ``reindex`` leaving its source, an integer division
by zero, an access leaving a ``total`` view, a failed check or a loop step <= 0."""


@dataclass
class Export:
    """A PrimFunc and what calling it needs."""

    prim_func: Any
    """The ``tvm.tirx.PrimFunc``."""
    name: str
    """Its name (the TileIR function's)."""
    checks: dict[int, CheckInfo] = field(default_factory=dict)
    """Operation number -> what a failure with codes 2, 3 or 4 reports."""
    reads: dict[tuple[int, int], CheckInfo] = field(default_factory=dict)
    """``(operation number, axis)`` -> what a ``reindex`` leaving its source reports."""
    n_values: int = 0
    """Values a failure may report (the status record holds ``2 + max(n_values, 2)``)."""
    mapping: str = ""
    """GPU routes: how instances map to threads (``distributed, N threads a block`` or
    ``one thread per instance`` with the reason); empty on ``tirx:llvm``."""

    @property
    def text(self) -> str:
        """The PrimFunc as TVMScript."""
        return str(self.prim_func.script())


def export(module: ir.Module, fn_name: str, target: str = TARGET) -> Export:
    """The ``tvm.tirx`` PrimFunc of ``@fn_name`` for ``target`` (``tirx:llvm``, or a GPU
    route: ``gpu`` says what changes); raises ``UnsupportedError``."""
    fn = module.lookup(fn_name)
    if fn is None:
        raise KeyError(f"no function @{fn_name} in the module")
    if target == TARGET:
        return _Exporter(fn, target).run()
    from .distribute import NotDistributable, distributing, schedule

    why = "requested (one_thread_per_instance)"
    if distributing():
        try:
            scheduled = schedule(module, target).lookup(fn_name)
            assert scheduled is not None
            out = _Exporter(scheduled, target, distribute=True).run()
            return out
        except NotDistributable as e:
            why = str(e)
    out = _Exporter(fn, target).run()
    out.mapping = f"one thread per instance: {why}"
    return out


class _Exporter:
    def __init__(self, fn: ir.Function, target: str = TARGET, distribute: bool = False) -> None:
        from tvm import tirx
        from tvm.script.ir_builder import IRBuilder
        from tvm.tirx.script.builder import ir as T

        self.tx, self.T, self.IRBuilder = tirx, T, IRBuilder
        self.fn = fn
        self.target = target
        """The target name (in messages)."""
        self.gpu = target != TARGET
        """A GPU route: one launch, no status record (``gpu``)."""
        self.device = False
        """Inside the launch (GPU routes): the code runs on the device."""
        self.current: ir.Operation | None = None
        """The operation being translated (a failure's location on GPU routes)."""
        self.host_ops: set[int] = set()
        """Ids of the checks and divisions the launcher evaluates before the call (GPU
        routes do not translate them)."""
        self.env: dict[ir.Value, Any] = {}
        self.dims: dict[str, Any] = {}
        self.out = Export(None, fn.name)
        self.status: Any = None
        self.results: list[Any] = []
        self.names = 0
        self.threaded: ir.Operation | None = None
        """The ``parallel`` whose instances run on threads while its body is exported."""
        self.distribute = distribute
        """GPU routes: a block of threads shares each instance (``distribute``; ``fn`` is
        then the Scheduled function)."""
        self.dist: Any = None
        """The ``distribute.Distribution`` while the distributed launch is exported."""

    # -- helpers -------------------------------------------------------------------
    def i64(self, v: int) -> Any:
        return self.tx.const(int(v), "int64")

    def unsupported(self, op: ir.Operation | None, reason: str) -> UnsupportedError:
        return UnsupportedError(self.target, op, reason)

    def extent(self, d: ir.Dim, op: ir.Operation | None) -> Any:
        if d.is_static:
            return self.i64(int(d))
        if d.value not in self.dims:
            raise self.unsupported(op, f"extent {d.value} is not a shape symbol of "
                                       f"@{self.fn.name}")
        return self.dims[d.value]

    def static_shape(self, t: Any, op: ir.Operation) -> tuple[int, ...]:
        if not all(d.is_static for d in t.shape):
            raise self.unsupported(op, f"tile type {t} has a symbolic extent")
        return tuple(int(d) for d in t.shape)

    def get(self, v: ir.Value, op: ir.Operation) -> Any:
        try:
            return self.env[v]
        except KeyError:
            raise self.unsupported(op, "an operand is used before it is defined") from None

    def scalar(self, v: ir.Value, op: ir.Operation) -> Any:
        x = self.get(v, op)
        if isinstance(x, Tile) and not x.shape:
            return x.elem(())
        return x

    def bind(self, value: Any) -> Any:
        """``value`` computed once into a variable (constants and variables stay as they are)."""
        if isinstance(value, (self.tx.IntImm, self.tx.FloatImm, self.tx.Var)):
            return value
        return self.T.Bind(value)

    def new_buffer(self, shape: Sequence[int], dtype: str, name: str, shared: bool = False
                   ) -> Any:
        """A buffer of ``shape``: the thread's own, or with ``shared`` inside a distributed
        launch (and outside an element loop) the block's (``distribute``)."""
        self.names += 1
        shape = tuple(int(x) for x in shape) or (1,)
        shared = shared and self.shared_here()
        from .distribute import SCOPE, count_shared

        buf = self.T.alloc_buffer(shape, dtype, scope=SCOPE[self.target] if shared else "local")
        # a shared tile is named tc_*: the Metal check's kernel-scope threadgroup rule
        self.IRBuilder.name(f"{'tc_' if shared else ''}{name}_{self.names}", buf)
        if shared:
            count_shared(self, buf, shape, dtype)
        return buf

    def scope(self) -> Any:
        """A statement scope of a distributed launch (``distribute.keep_alive``)."""
        from .distribute import keep_alive

        return keep_alive(self)

    def shared_here(self) -> bool:
        """Whether a tile allocated here is the block's (a distributed launch, outside an
        element loop)."""
        return self.dist is not None and self.device and not self.dist.depth

    def new_tile(self, shape: Sequence[int], t: ir.ScalarType, name: str = "t",
                 shared: bool = False) -> Buffered:
        """A tile buffer; ``shared``: a tile value other threads may read (``new_buffer``)."""
        return Buffered(self.new_buffer(shape, sc.reg_dtype(t), name, shared), tuple(shape), t)

    def elements(self, shape: Sequence[int], layout: Any = None) -> Any:
        """The element loop of a tile operation: this thread's elements in a distributed
        launch (``layout``'s, else strided), else every element (``loops``)."""
        from .distribute import elements

        return elements(self, shape, layout)

    def barrier(self) -> None:
        """A block barrier in a distributed launch (nothing elsewhere)."""
        from .distribute import barrier

        barrier(self)

    @contextlib.contextmanager
    def loops(self, extents: Sequence[Any]) -> Iterator[list[Any]]:
        """A nest of serial loops over ``[0, e)`` per extent, the last innermost."""
        with contextlib.ExitStack() as stack:
            ivs = []
            for e in extents:
                e = self.i64(e) if isinstance(e, int) else e
                ivs.append(stack.enter_context(self.T.serial(self.i64(0), e)))
            yield ivs

    def store(self, tile: Buffered, idx: Sequence[Any], value: Any) -> None:
        self.T.buffer_store(tile.buffer, value, tile.index(idx))

    def fill_tile(self, dst: Buffered, src: Tile) -> None:
        with self.elements(dst.shape) as idx:
            self.store(dst, idx, src.elem(idx))
        self.barrier()

    def fail(self, code: int, op_id: int, values: Sequence[Any]) -> None:
        """Write the status record and leave the function."""
        if self.gpu:
            from .gpu import no_failures

            raise no_failures(self)
        self.not_threaded(f"a failure (operation #{op_id})")
        T = self.T
        T.buffer_store(self.status, self.i64(code), [self.i64(0)])
        T.buffer_store(self.status, self.i64(op_id), [self.i64(1)])
        for k, v in enumerate(values):
            T.buffer_store(self.status, v, [self.i64(2 + k)])
        self.out.n_values = max(self.out.n_values, len(values))
        with T.Assert(self.tx.const(False, "bool"), "tilec: kernel failure"):
            pass

    def not_threaded(self, what: str) -> None:
        """``what`` must not run in concurrent instances: the scan of ``threads`` keeps
        such bodies serial, so reaching this inside a threaded one is the bridge's bug."""
        if self.threaded is not None:
            raise self.unsupported(self.threaded, f"internal error: {what} inside a parallel "
                                                  f"run on threads (threads.serial_reason "
                                                  f"missed it)")

    @contextlib.contextmanager
    def when(self, cond: Any) -> Iterator[None]:
        T = self.T
        with T.If(cond):
            with T.Then():
                yield

    # -- the function ----------------------------------------------------------------
    def run(self) -> Export:
        fn, T, tx = self.fn, self.T, self.tx
        syms = fn.shape_symbols
        n_user = len(fn.args) - len(syms)
        f64 = sc.without_f64() if self.target == "tirx:metal" else contextlib.nullcontext()
        with f64, self.IRBuilder() as ib:
            with T.prim_func():
                T.func_name(fn.name)
                handles: list[Any] = []
                for i, p in enumerate(fn.args[:n_user]):
                    name = p.name_hint or f"arg{i}"
                    if isinstance(p.type, (ir.MemoryType, ir.TileType)):
                        handles.append(T.arg(name, T.handle()))
                    elif isinstance(p.type, ir.ScalarType):
                        kind = "float64" if p.type.is_float else "int64"
                        handles.append(T.arg(name, tx.Var(name, kind)))
                    else:
                        raise self.unsupported(None, f"parameter {i} of @{fn.name} has type "
                                                     f"{p.type}")
                for name in syms:
                    self.dims[name] = T.arg(name, tx.Var(name, "int64"))
                if self.gpu:
                    from .gpu import prepare

                    prepare(self)
                else:
                    status = T.arg("tc_status", T.handle())
                results = [T.arg(f"tc_result{k}", T.handle())
                           for k in range(len(fn.result_types))]
                if not self.gpu:
                    self.status = T.match_buffer(status, (tx.Var("tc_nstatus", "int64"),),
                                                 "int64", align=8)
                    self.IRBuilder.name("tc_st", self.status)
                for k, t in enumerate(fn.result_types):
                    self.results.append(self._result_buffer(results[k], t, k))
                for p, h in zip(fn.args[:n_user], handles):
                    self.env[p] = self._param(p, h)
                for name, p in zip(syms, fn.args[n_user:]):
                    self.env[p] = self.dims[name]
                self.block(fn.body.entry, top=True)
        self.out.prim_func = ib.get()
        return self.out

    def _result_buffer(self, handle: Any, t: ir.Type, k: int) -> Any:
        if isinstance(t, ir.ScalarType):
            shape, dt = (1,), t
        elif isinstance(t, ir.TileType):
            shape, dt = self.static_shape(t, None) or (1,), t.dtype  # type: ignore[arg-type]
        else:
            raise self.unsupported(None, f"result {k} of @{self.fn.name} has type {t}")
        buf = self.T.match_buffer(handle, tuple(self.i64(x) for x in shape), sc.mem_dtype(dt),
                                  align=1)
        self.IRBuilder.name(f"tc_result{k}", buf)
        return buf

    def _param(self, p: ir.Value, handle: Any) -> Any:
        t = p.type
        if isinstance(t, ir.ScalarType):
            return self.bind(sc.cast(handle, ir.f64 if t.is_float else ir.i64, t)
                             if t.name not in ("f64", "i64", "index") else handle)
        shape = tuple(self.extent(d, None) for d in t.shape)
        buf = self.T.match_buffer(handle, shape or (), sc.mem_dtype(t.dtype), align=1)
        self.IRBuilder.name(p.name_hint or "arg", buf)
        mem = MemRef(buf, t.dtype, shape)
        if isinstance(t, ir.TileType):  # a tile argument: read through its buffer
            return Computed(lambda idx, m=mem: sc.from_memory(m.root[tuple(idx)], m.dtype),
                            self.static_shape(t, None), t.dtype)
        return mem

    # -- blocks ----------------------------------------------------------------------
    def block(self, block: ir.Block, top: bool = False) -> list[Any]:
        """Emit ``block``'s operations; returns the values its terminator passes."""
        for op in block.operations:
            if op.name in ("yield", "return"):
                vals = [self.get(v, op) for v in op.operands]
                if op.name == "return" and top:
                    self._return(op, vals)
                return vals
            if op.name == "br":
                raise self.unsupported(op, "unstructured control flow ('br') has no TIRx form")
            self.emit(op)
        return []

    def region(self, region: ir.Region, args: Sequence[Any]) -> list[Any]:
        if len(region.blocks) != 1:
            raise self.unsupported(region.owner if isinstance(region.owner, ir.Operation)
                                   else None, "a region with several blocks")
        for a, v in zip(region.entry.args, args):
            self.env[a] = v
        return self.block(region.entry)

    def _return(self, op: ir.Operation, vals: list[Any]) -> None:
        for k, (v, t) in enumerate(zip(vals, self.fn.result_types)):
            if isinstance(t, ir.ScalarType):
                self.T.buffer_store(self.results[k], sc.to_memory(v, t), [self.i64(0)])
            else:
                shape = self.static_shape(t, op)
                with self.loops(shape) as idx:
                    self.T.buffer_store(self.results[k], sc.to_memory(v.elem(idx), t.dtype),
                                        list(idx) or [self.i64(0)])

    def emit(self, op: ir.Operation) -> None:
        handler = _HANDLERS.get(op.name)
        if handler is None:
            raise self.unsupported(op, f"the TIRx bridge has no translation of '{op.name}' yet")
        if self.gpu and not self.device:
            from .gpu import check_host_op

            check_host_op(self, op)
        outer, self.current = self.current, op
        try:
            results = handler(self, op)
        except sc.NotOnTarget as e:
            raise self.unsupported(op, f"{e}") from None
        self.current = outer
        if self.dist is not None and (op.name in _WRITES or any(
                isinstance(r, Buffered) and r.shape for r in results)):
            self.barrier()  # conservative: after every op that writes a tile or memory
        for r, v in zip(op.results, results):
            self.env[r] = v

    # -- storage for values that change (carries, joins, branch results) ----------------
    def slot(self, t: ir.Type, op: ir.Operation) -> Any:
        if isinstance(t, ir.ScalarType):
            return self.new_tile((), t, "s")
        if isinstance(t, ir.TileType):
            return self.new_tile(self.static_shape(t, op), t.dtype, shared=True)
        raise self.unsupported(op, f"a value of type {t} carried or joined through a region")

    def put(self, slot: Buffered, value: Any) -> None:
        if not slot.shape and slot.buffer.scope() == "local":
            self.store(slot, (), value.elem(()) if isinstance(value, Tile) else value)
        else:  # a tile, or a rank-0 tile the block shares (one thread writes it)
            from .values import Splat

            self.fill_tile(slot, value if isinstance(value, Tile) else Splat(value, (), slot.dtype))

    def take(self, slot: Buffered, t: ir.Type) -> Any:
        """The current value of ``slot``: a scalar is read once into a variable."""
        return self.bind(slot.elem(())) if isinstance(t, ir.ScalarType) else slot

    def put_all(self, slots: Sequence[Buffered], values: Sequence[Any]) -> None:
        """Store ``values`` into ``slots``; a tile value that may read a slot goes through
        a temporary first (a swap of carried tiles)."""
        owned = {id(s.buffer) for s in slots}
        staged = []
        for s, v in zip(slots, values):
            reads_slot = isinstance(v, (Remapped, Computed)) or (
                isinstance(v, Buffered) and id(v.buffer) in owned)
            if s.shape and reads_slot and v is not s:
                tmp = self.new_tile(s.shape, s.dtype, shared=True)
                self.fill_tile(tmp, v)
                v = tmp
            staged.append(v)
        for s, v in zip(slots, staged):
            if v is not s:
                self.put(s, v)

    # -- failures ----------------------------------------------------------------------
    def check_totals(self, mem: MemRef, shape: Sequence[Any], op: ir.Operation) -> None:
        """Before an access: every element it reaches must be inside each ``total`` view."""
        todo = [g for g in mem.guards if g.total
                and not (g.view is not None and view_in_range(g.view, {}))]
        if not todo:
            return
        with self.loops(shape) as idx:
            valid, totals = mem.validity(idx)
            for ok, view in totals:
                if view is not None and view_in_range(view, {}):
                    continue
                bad = self.tx.Not(ok) if valid is None else self.tx.And(valid, self.tx.Not(ok))
                info = total_view_report(view) if view is not None else CheckInfo(
                    ir.op_number(op), op.loc, "an access left a total view", (), (), "index")
                self.out.checks[info.op_id] = info
                with self.when(bad):
                    self.fail(ERR_TOTAL, info.op_id, [])

    def check_divisor(self, op: ir.Operation, divisor: Any) -> None:
        if isinstance(divisor, self.tx.IntImm) and divisor.value != 0 or op.id in self.host_ops:
            return
        info = CheckInfo.division(op)
        self.out.checks[info.op_id] = info
        dt = sc.dtype_of(divisor)
        if dt.startswith("uint"):  # TVM rewrites x + 1 == 0 to x == -1, a uint it can't make
            divisor, dt = self.tx.Cast("int64", divisor), "int64"
        with self.when(self.tx.EQ(divisor, self.tx.const(0, dt))):
            self.fail(ERR_ZERODIV, info.op_id, [])


_HANDLERS: dict[str, Any] = {}

_WRITES = frozenset({"store", "scatter", "atomic"})
"""Operations that write device memory (a block barrier follows them when distributed)."""


def handles(*names: str) -> Any:
    def deco(f: Any) -> Any:
        for n in names:
            _HANDLERS[n] = f
        return f
    return deco


# Handlers live in ``ops``; importing it registers them.
from . import ops as _ops  # noqa: E402,F401
