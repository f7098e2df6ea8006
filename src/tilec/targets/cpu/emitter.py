"""C emission of Candidate TileIR for the CPU.

One TileIR function becomes one exported C function

    int32_t tilec_entry(void *const *tc_args, const int64_t *tc_dims,
                        void *const *tc_rets, int32_t *tc_st, int64_t *tc_ck)

``tc_args[i]`` points at entry argument ``i`` (an array's data for a ``mem``
parameter, the value for a scalar or a shape symbol); ``tc_dims`` holds the
runtime extents of ``mem`` parameters whose extent is symbolic and not a
shape symbol; ``tc_rets[k]`` receives result ``k``; ``tc_st`` is the status
word (error code, failing operation id).

How values become C (decisions, see docs in the package ``__init__``):

* a scalar is a ``const`` local; loop-carried scalars are mutable locals;
* a tile is a static-shape, row-major local array (``float t[4096]``,
  64-byte aligned). When one function's tiles need more than the plan's
  stack budget, its arrays become ``static _Thread_local`` so that
  OpenMP worker threads (small default stacks) never overflow;
* an operation may write its result into a dead operand's array (the
  operand is owned, has this one use and lives in the same block), so
  ``acc = mma(a, b, acc)`` in a loop updates the carried array in place;
  an array is owned by at most one value (a pipeline stage that yields one
  array as two arguments hands both on borrowed);
* a splat constant is never materialized unless something needs an array;
  a static, in-range ``reindex`` (broadcast, transpose) read only by ``map``
  is folded into the map's indexing;
* a ``mem`` value is a ``ViewRef`` (see ``access.py``); loads/stores are copy
  loops with a contiguous innermost axis;
* the outermost ``parallel`` is an ``omp parallel for collapse(rank)``
  with dynamic chunks of about an eighth of a thread's share (programs
  differ in cost at ragged edges, and a shared machine makes a static split
  wait for its slowest thread); nested ones are plain loops;
* a ``check`` that fails claims the status word, writes its values and
  leaves: out of the function at top level, else to the end of its
  outermost instance (an OpenMP loop cannot be left), after which the
  function returns once the nest is done. Host checks (``kernel_checks``) are
  not emitted: the launcher evaluates them before the call;
* an integer division whose divisor may be zero (``ranges``) first tests it
  and fails like a check (``TC_ERR_ZERODIV``, then the same exits), so
  nothing after it in its instance runs; one by a constant or a provably
  nonzero value has no test. A loop whose step may not be positive tests it
  before the loop and fails as a check does (``TC_ERR_CHECK``, reporting the
  step); a constant or provably positive step has no test;
* a ``reindex`` without ``fill`` whose start is a runtime value tests each
  source axis it may leave (``index_bounds``) before copying and fails like a
  check (``TC_ERR_REINDEX``, the start and the axis in ``tc_ck``, then the
  same exits); an access leaving a ``total`` view fails the same way
  (``TC_ERR_VIEW``) before it reads or writes anything.
"""

from __future__ import annotations

from collections.abc import Sequence

import tilec.ir as ir
from tilec.ir.ranges import analyze_ranges, divisor_may_be_zero, step_may_be_nonpositive
from tilec.targets.clike import CLikeEmitter, IndentedBuffer, Scalar, TokenVal
from tilec.targets.cpu.access import CopyLoops, Level, ViewRef, affine_c, prod
from tilec.targets.cpu.indexed import INDEXED_PRINTERS
from tilec.targets.cpu.mma import MicroKernels, print_mma
from tilec.targets.cpu.plan import CpuPlan, plan_cpu
from tilec.targets.cpu.prelude import PRELUDE
from tilec.targets.cpu.reductions import ReductionEmission
from tilec.targets.cpu.reindex import print_reindex
from tilec.targets.cpu.source import ENTRY_SYMBOL, CSource, ParamInfo
from tilec.targets.cpu.values import Lazy, Splat, Tile, static_shape
from tilec.targets.index_bounds import total_view_report
from tilec.targets.kernel_checks import CheckInfo, host_check_ops

__all__ = ["CEmitter", "CSource", "ParamInfo", "ENTRY_SYMBOL"]

# --------------------------------------------------------------------- emitter


class CEmitter(ReductionEmission, CLikeEmitter):
    """Emits one TileIR function as a C translation unit for the CPU."""

    TARGET = "C"

    PRINTERS = {"mma": print_mma, "reindex": print_reindex, **INDEXED_PRINTERS}
    """Printers kept in modules of their own (``mma``, ``reindex``, ``indexed``)."""

    def __init__(self, module: ir.Module, fn_name: str, plan: CpuPlan | None = None) -> None:
        super().__init__()
        fn = module.lookup(fn_name)
        if fn is None:
            raise KeyError(f"module has no function @{fn_name}")
        self.plan = plan if plan is not None else plan_cpu(module, fn_name)
        """The realization plan this translation unit prints (``plan.py``)."""
        self.module = module
        """The module being emitted."""
        self.fn: ir.Function = fn
        """The entry function."""
        self.copies = CopyLoops(self.buf, self.fresh, self._leave)
        self.mk = MicroKernels()
        self.tls = False
        self.parallel_depth = 0
        self.written: set[int] = set()
        self.host_checks = {ir.op_number(op) for op in host_check_ops(fn)["before"]}
        """Ids of the checks the launcher evaluates before the call (not emitted)."""
        self.checks: dict[int, CheckInfo] = {}
        self.reads: dict[tuple[int, int], CheckInfo] = {}
        self.stop_label: str | None = None
        """Inside an instance of the outermost parallel: where a failed check jumps."""
        self.stop_used = False
        self.ranges = analyze_ranges(fn)
        """Integer value ranges: which divisions need a zero-divisor test."""

    def view(self, v: ir.Value, user: ir.Operation) -> ViewRef:
        """The ``ViewRef`` of a memory value."""
        r = self.get(v, user)
        if not isinstance(r, ViewRef):
            raise self.unsupported(user, f"expected a memory operand, got {v.type}")
        return r

    # -- tiles --------------------------------------------------------------------------
    def declare_tile(self, shape: Sequence[int], dtype: ir.ScalarType, hint: str = "t",
                     mem: bool = False, exact: bool = False) -> str:
        """Declare a row-major array for a tile; returns its name (``hint`` itself if ``exact``)."""
        name = hint if exact else self.fresh(hint)
        ct = self.mtype(dtype) if mem else self.ctype(dtype)
        n = max(1, prod(shape))
        if self.tls:
            # A thread-local array, addressed through a pointer taken once here: every
            # direct use of a thread-local in a shared object is a __tls_get_addr call.
            self.buf.line(f"static _Thread_local {ct} {name}_tls[{n}] TC_ALIGN;")
            self.buf.line(f"{ct} *const restrict {name} = {name}_tls;")
        else:
            self.buf.line(f"{ct} {name}[{n}] TC_ALIGN;")
        return name

    def new_tile(self, v: ir.Value, hint: str = "t") -> Tile:
        """A fresh owned array for tile value ``v``."""
        t = v.type
        assert isinstance(t, ir.TileType)
        shape = static_shape(t, None, self)
        name = self.declare_tile(shape, t.dtype, self.name_of(v), exact=True)
        return Tile(name, shape, t.dtype, True)

    def can_take(self, v: ir.Value, op: ir.Operation) -> bool:
        """True when ``op`` may write its result into ``v``'s storage."""
        r = self.vals.get(id(v))
        if isinstance(r, Splat):
            return True  # materialized privately for this one use
        return (isinstance(r, Tile) and r.owned and v.num_uses == 1
                and v.parent_block is op.parent)

    def take(self, v: ir.Value, op: ir.Operation) -> Tile:
        """``v``'s storage for ``op``'s result (``can_take`` must hold)."""
        return self.materialize(v, op)

    def materialize(self, v: ir.Value, op: ir.Operation | None) -> Tile:
        """An array holding tile ``v`` (filling splats, gathering lazy reindexes)."""
        r = self.get(v, op)
        if isinstance(r, Tile):
            return r
        if isinstance(r, Splat):
            name = self.declare_tile(r.shape, r.dtype, "splat")
            self.buf.line(f"for (int64_t e = 0; e < {prod(r.shape)}; ++e) {name}[e] = {r.expr};")
            return Tile(name, r.shape, r.dtype, True)
        if isinstance(r, Lazy):
            name = self.declare_tile(r.shape, r.dtype, "gather")
            idx = [self.fresh("i") for _ in r.shape]
            for j, e in enumerate(r.shape):
                self.buf.line(f"for (int64_t {idx[j]} = 0; {idx[j]} < {e}; ++{idx[j]})")
            self.buf.line(f"  {name}[{CopyLoops.flat(idx, r.shape)}] = {self.lazy_at(r, idx)};")
            return Tile(name, r.shape, r.dtype, True)
        raise self.unsupported(op, f"expected a tile operand, got {v.type}")

    def lazy_at(self, r: Lazy, idx: Sequence[str]) -> str:
        """The element of a folded reindex at multi-index ``idx``."""
        terms = []
        stride = 1
        for res, ext in reversed(list(zip(r.map.results, r.src.shape))):
            e = (idx[res.terms[0][0][1]] if res.terms else str(res.constant))
            terms.append(e if stride == 1 else f"{e} * {stride}")
            stride *= ext
        return f"{r.src.name}[{' + '.join(reversed(terms)) or '0'}]"

    def copy_tile(self, dst: Tile, v: ir.Value, op: ir.Operation | None) -> None:
        """``dst = v`` elementwise (no-op when ``v`` already lives in ``dst``)."""
        r = self.get(v, op)
        if isinstance(r, Tile):
            if r.name != dst.name:
                self.buf.line(f"memcpy({dst.name}, {r.name}, sizeof({self.ctype(dst.dtype)}) "
                              f"* {dst.size});")
        elif isinstance(r, Splat):
            self.buf.line(f"for (int64_t e = 0; e < {dst.size}; ++e) {dst.name}[e] = {r.expr};")
        elif isinstance(r, Lazy):
            idx = [self.fresh("i") for _ in r.shape]
            for j, e in enumerate(r.shape):
                self.buf.line(f"for (int64_t {idx[j]} = 0; {idx[j]} < {e}; ++{idx[j]})")
            self.buf.line(f"  {dst.name}[{CopyLoops.flat(idx, r.shape)}] = {self.lazy_at(r, idx)};")
        else:
            raise self.unsupported(op, f"cannot copy {v.type} into a tile")

    # -- driver ---------------------------------------------------------------------------
    def emit(self) -> CSource:
        """Emit the whole translation unit."""
        fn = self.fn
        for block in fn.body.blocks:
            if block is not fn.entry:
                raise self.unsupported(block.operations.first,
                                       "functions with several blocks (br) are not supported")
        self.tls = self.plan.thread_local
        body = self.buf
        params, dim_slots = self._bind_params()
        with body.indent():
            self.emit_block(fn.entry)
        out = IndentedBuffer()
        out.line(f"/* tilec C backend: @{fn.name} */")
        out.line(PRELUDE)
        out.splice(self.mk.defs)
        out.line(f"int32_t {ENTRY_SYMBOL}(void *const *tc_args, const int64_t *tc_dims, "
                 "void *const *tc_rets, int32_t *tc_st, int64_t *tc_ck)")
        out.line("{")
        out.splice(self._param_lines)
        out.splice(body)
        last = fn.entry.operations.last
        if last is None or last.name != "return":
            out.line("  return tc_st[0];")
        out.line("}")
        params = [ParamInfo(p.kind, p.dtype, p.shape, id(a) in self.written, p.name)
                  for p, a in zip(params, fn.args)]
        return CSource(out.getvalue(), out, params, dim_slots, list(fn.result_types), self.ops,
                       self.checks, self.reads)

    def _bind_params(self) -> tuple[list[ParamInfo], list[tuple[int, int]]]:
        fn = self.fn
        head = IndentedBuffer(depth=1)
        self._param_lines = head
        symbols = fn.shape_symbols
        n_user = len(fn.args) - len(symbols)
        if n_user < 0:
            raise self.unsupported(None, f"@{fn.name} declares {len(symbols)} shape symbols but "
                                         f"has only {len(fn.args)} parameters")
        params: list[ParamInfo] = []
        for k, name in enumerate(symbols):
            a = fn.args[n_user + k]
            if a.type is not ir.index:
                raise self.unsupported(None, f"shape symbol {name} must be an index parameter")
            var = self.name_of(a)
            head.line(f"const int64_t {var} = *(const int64_t *)tc_args[{n_user + k}];")
            self.sym_vars[name] = var
            self.bind(a, Scalar(var, ir.index))
        dim_slots: list[tuple[int, int]] = []
        for i, a in enumerate(fn.args[:n_user]):
            t = a.type
            hint = a.name_hint or f"arg{i}"
            if isinstance(t, ir.MemoryType):
                ptr = self.name_of(a)
                mt = self.mtype(t.dtype)
                head.line(f"{mt} *restrict {ptr} = ({mt} *)tc_args[{i}];")
                extents = []
                for axis, dim in enumerate(t.shape):
                    if dim.is_static:
                        extents.append(str(int(dim)))
                    elif str(dim.value) in self.sym_vars:
                        extents.append(self.sym_vars[str(dim.value)])
                    else:
                        var = self.fresh(f"{ptr}_e")
                        head.line(f"const int64_t {var} = tc_dims[{len(dim_slots)}];")
                        dim_slots.append((i, axis))
                        extents.append(var)
                strides = []
                for axis in range(t.rank):
                    rest = extents[axis + 1:]
                    if all(e.isdigit() for e in rest):
                        strides.append(str(prod(int(e) for e in rest)))
                    else:
                        var = self.fresh(f"{ptr}_s")
                        # left to right from an int64_t: static extents alone may overflow int
                        wide = "(int64_t)" if rest[0].isdigit() else ""
                        head.line(f"const int64_t {var} = {wide}{' * '.join(rest)};")
                        strides.append(var)
                self.bind(a, ViewRef(ptr, t.dtype, tuple(extents), ir.IndexMap.identity(t.rank),
                                     (), tuple(strides), (), a))
                params.append(ParamInfo("mem", t.dtype, t.shape, False, hint))
            elif isinstance(t, ir.ScalarType):
                var = self.name_of(a)
                ct = self.ctype(t)
                head.line(f"const {ct} {var} = *(const {ct} *)tc_args[{i}];")
                self.bind(a, Scalar(var, t))
                params.append(ParamInfo("scalar", t, (), False, hint))
            elif isinstance(t, ir.TileType):
                # a tile is a value: the launcher passes a contiguous copy; keep a register copy
                shape = static_shape(t, None, self)
                name = self.name_of(a)
                ct, mt = self.ctype(t.dtype), self.mtype(t.dtype)
                conv = self.LOAD_CONVERT.get(t.dtype.name, "{}")
                head.line(f"{ct} {name}[{max(1, prod(shape))}] TC_ALIGN;")
                head.line(f"for (int64_t e = 0; e < {prod(shape)}; ++e) {name}[e] = "
                          + conv.format(f"((const {mt} *)tc_args[{i}])[e]") + ";")
                self.bind(a, Tile(name, shape, t.dtype, True))
                params.append(ParamInfo("tile", t.dtype, t.shape, False, hint))
            else:
                raise self.unsupported(None, f"parameter {i} of @{fn.name} has type {t}; the C "
                                             "backend takes memories, tiles and scalars")
        for name in symbols:
            params.append(ParamInfo("symbol", ir.index, (), False, name))
        return params, dim_slots

    # -- control ----------------------------------------------------------------------
    def emit_return(self, op: ir.Operation) -> None:
        """Write the results into ``tc_rets`` and leave."""
        if op.parent is not self.fn.entry:
            raise self.unsupported(op, "return inside a nested region")
        for k, v in enumerate(op.operands):
            t = v.type
            if isinstance(t, ir.ScalarType):
                val = self.scalar(v, op)
                conv = self.STORE_CONVERT.get(t.name, "{}")
                self.buf.line(f"*({self.mtype(t)} *)tc_rets[{k}] = {conv.format(val)};")
            elif isinstance(t, ir.TileType):
                tile = self.materialize(v, op)
                mt = self.mtype(t.dtype)
                conv = self.STORE_CONVERT.get(t.dtype.name, "{}")
                self.buf.line(f"for (int64_t e = 0; e < {tile.size}; ++e) "
                              f"(({mt} *)tc_rets[{k}])[e] = {conv.format(tile.name + '[e]')};")
            else:
                raise self.unsupported(op, f"cannot return a {t}")
        self.buf.line("return tc_st[0];")

    def mutable_result(self, v: ir.Value, op: ir.Operation, init: ir.Value | None = None
                       ) -> object:
        """Mutable storage for a structured op's result (initialized from ``init``)."""
        t = v.type
        if isinstance(t, ir.ScalarType):
            var = self.fresh("c")
            val = f" = {self.scalar(init, op)}" if init is not None else ""
            self.buf.line(f"{self.ctype(t)} {var}{val};")
            return Scalar(var, t)
        if isinstance(t, ir.TileType):
            if init is not None and self.can_take(init, op):
                tile = self.take(init, op)
                return Tile(tile.name, tile.shape, tile.dtype, True)
            tile = self.new_tile(v)
            if init is not None:
                self.copy_tile(tile, init, op)
            return tile
        raise self.unsupported(op, f"values of type {t} cannot cross a region boundary")

    def assign(self, dsts: Sequence[object], srcs: Sequence[ir.Value], op: ir.Operation
               ) -> None:
        """Parallel assignment of yielded values into mutable storage (swaps are safe)."""
        tmps: list[object] = []
        dst_names = {d.name for d, s in zip(dsts, srcs)
                     if isinstance(d, Tile) and not self._same_storage(d, s)}
        for d, s in zip(dsts, srcs):
            r = self.get(s, op)
            if isinstance(d, Scalar):
                tmp = self.fresh("y")
                self.buf.line(f"const {self.ctype(d.type)} {tmp} = {self.scalar(s, op)};")
                tmps.append(tmp)
            elif isinstance(r, Tile) and r.name in dst_names and r.name != d.name:
                tmp = self.declare_tile(r.shape, r.dtype, "swap")
                self.buf.line(f"memcpy({tmp}, {r.name}, sizeof({self.ctype(r.dtype)}) "
                              f"* {r.size});")
                tmps.append(Tile(tmp, r.shape, r.dtype, False))
            else:
                tmps.append(None)
        for d, s, tmp in zip(dsts, srcs, tmps):
            if isinstance(d, Scalar):
                self.buf.line(f"{d.expr} = {tmp};")
            elif isinstance(tmp, Tile):
                self.buf.line(f"memcpy({d.name}, {tmp.name}, sizeof({self.ctype(d.dtype)}) "
                              f"* {d.size});")
            else:
                self.copy_tile(d, s, op)

    def _same_storage(self, d: object, s: ir.Value) -> bool:
        r = self.vals.get(id(s))
        return isinstance(r, Tile) and isinstance(d, Tile) and r.name == d.name

    def emit_serial(self, op: ir.Operation) -> None:
        """``for (iv = lb; iv < ub; iv += step)`` with carried values in mutable storage."""
        self._loop(op, [op.regions[0].entry])

    def emit_pipeline(self, op: ir.Operation) -> None:
        """A pipeline runs its stages in order within each iteration (no overlap on the CPU)."""
        self._loop(op, [r.entry for r in op.regions])

    def _loop(self, op: ir.Operation, stages: list[ir.Block]) -> None:
        lb, ub, step = (self.scalar(v, op) for v in op.operands[:3])
        if step_may_be_nonpositive(op, self.ranges):
            # before anything of the loop: a step that is not positive fails like a check
            self._guard(CheckInfo.loop(op), f"{step} > 0", [(step, op.operand(2))])
        carries = [self.mutable_result(r, op, init)
                   for r, init in zip(op.results, op.operands[3:])]
        iv = self.fresh("iv")
        with self.buf.block(f"for (int64_t {iv} = {lb}; {iv} < {ub}; {iv} += {step})"):
            args: list[object] = list(carries)
            for k, block in enumerate(stages):
                self.bind(block.args[0], Scalar(iv, ir.index))
                for a, r in zip(block.args[1:], args):
                    self.bind(a, r)
                term = self.emit_block(block)
                if term is None or term.name != "yield":
                    raise self.unsupported(op, f"stage {k} does not end with yield")
                if k + 1 < len(stages):
                    args = self._pass_on(term.operands, block, op)
                else:
                    self.assign(carries, term.operands, term)
        for r, c in zip(op.results, carries):
            self.bind(r, c)

    def _pass_on(self, vals: Sequence[ir.Value], block: ir.Block, op: ir.Operation
                 ) -> list[object]:
        """The values one pipeline stage yields, as the next stage's arguments.

        A stage argument may overwrite its array only when the stage that yields it
        defined it and no other argument names the same array: ``old = acc`` in one
        stage yields one array as two arguments, and an update of one in place
        would change the other.
        """
        forms = [self.get(v, op) for v in vals]
        names = [f.name for f in forms if isinstance(f, Tile)]
        out: list[object] = []
        for v, r in zip(vals, forms):
            if isinstance(r, Tile) and not (r.owned and v.parent_block is block
                                            and names.count(r.name) == 1):
                r = Tile(r.name, r.shape, r.dtype, False)
            out.append(r)
        return out

    # -- parallel ------------------------------------------------------------------------
    def emit_parallel(self, op: ir.Operation) -> None:
        """One instance per coordinate; the outermost parallel is an OpenMP loop."""
        rank = op.attr("rank")
        exts = [self.scalar(v, op) for v in op.operands[:rank]]
        inits = op.operands[rank:]
        body = op.regions[0].entry
        snaps = body.args[rank:]
        results: list[object] = []
        for res, init, snap in zip(op.results, inits, snaps):
            if isinstance(res.type, ir.TileType) and snap.num_uses > 0:
                tile = self.new_tile(res)
                self.copy_tile(tile, init, op)
                results.append(tile)
            else:
                results.append(self.mutable_result(res, op, init))
        programs = self.plan.programs[ir.op_number(op)]
        use_omp = programs.threaded
        ev = [self.fresh("n") for _ in exts]
        for n, e in zip(ev, exts):
            self.buf.line(f"const int64_t {n} = {e};")
        coords = [self.name_of(a) for a in body.args[:rank]]
        if use_omp:
            # Dynamic chunks, about eight per thread: programs differ in cost (ragged edge
            # tiles) and the machine may be shared, so a static split waits for the slowest.
            # Threads are woken only when the programs together hold enough work to pay for
            # it (an estimate from the static tile sizes of one program; loops count once).
            total = " * ".join(ev)
            chunk = self.fresh("chunk")
            work, per = programs.work, programs.chunks_per_thread
            self.buf.line(f"const int64_t {chunk} = tc_max_i(1, ({total}) / "
                          f"({per} * TC_THREADS()));")
            self.buf.line(f"#pragma omp parallel for collapse({rank}) "
                          f"schedule(dynamic, {chunk}) "
                          f"if({total} > 1 && ({total}) * {work} >= {programs.threshold})")
        for c, n in zip(coords[:-1], ev[:-1]):
            self.buf.line(f"for (int64_t {c} = 0; {c} < {n}; ++{c})")
        with self.buf.block(f"for (int64_t {coords[-1]} = 0; {coords[-1]} < {ev[-1]}; "
                            f"++{coords[-1]})"):
            for a, c in zip(body.args[:rank], coords):
                self.bind(a, Scalar(c, ir.index))
            for a, init in zip(snaps, inits):
                r = self.get(init, op)
                self.bind(a, Tile(r.name, r.shape, r.dtype, False) if isinstance(r, Tile) else r)
            outermost = self.parallel_depth == 0
            if outermost:
                self.stop_label, self.stop_used = self.fresh("tc_stop"), False
            self.parallel_depth += 1
            term = self.emit_block(body)
            self.parallel_depth -= 1
            if term is None or term.name != "yield":
                raise self.unsupported(op, "parallel body does not end with yield")
            self._ancestor_updates(op, term, results)
            stopped = outermost and self.stop_used
            if stopped:
                self.buf.line(f"{self.stop_label}: ;")
        if outermost:
            self.stop_label = None
        if stopped:
            # instances that did not fail ran to their end; nothing after the nest may run
            self.buf.line("if (tc_st[0]) return tc_st[0];")
        for r, d in zip(op.results, results):
            self.bind(r, d)

    def _ancestor_updates(self, op: ir.Operation, y: ir.Operation, results: list[object]
                          ) -> None:
        pos = 0
        vals = y.operands
        for res in results:
            payload = vals[pos]
            pos += 1
            if isinstance(res, Scalar):
                self.buf.line(f"{res.expr} = {self.scalar(payload, y)};")
                continue
            assert isinstance(res, Tile)
            origins = [self.scalar(v, y) for v in vals[pos:pos + len(res.shape)]]
            pos += len(res.shape)
            src = self.materialize(payload, y)
            rank = len(res.shape)
            m = ir.IndexMap.tile_at_symbols(rank)
            strides = tuple(str(prod(res.shape[j + 1:])) for j in range(rank))
            exts = tuple(str(e) for e in res.shape)
            target = ViewRef(res.name, res.dtype, exts, m, tuple(origins), strides,
                             (Level(m, tuple(origins), exts),), payload)
            self.copies.write(target, src.shape, lambda lv, f, s=src: f"{lv} = {s.name}[{f}];")

    def emit_check(self, op: ir.Operation) -> None:
        """Unless the condition holds: claim the status word, write the values, leave."""
        if ir.op_number(op) in self.host_checks:
            self.buf.line("/* checked by the launcher before the call */")
            return
        self._guard(CheckInfo.of(op), self.scalar(op.operand(0), op),
                    [(self.scalar(v, op), v) for v in op.operands[1:]])

    def _guard(self, info: CheckInfo, cond: str, values: Sequence[tuple[str, ir.Value]]
               ) -> None:
        """Unless ``cond`` holds: claim the status word for ``info`` (a check's error), write
        ``values`` (C expressions of the reported IR values) and leave."""
        self.checks[info.op_id] = info
        with self.buf.block(f"if (__builtin_expect(!({cond}), 0))"):
            with self.buf.block(f"if (tc_fail(tc_st, TC_ERR_CHECK, {info.op_id}))"):
                for k, (x, v) in enumerate(values):
                    word = f"(int64_t)tc_d2u((double)({x}))" if v.type.is_float \
                        else f"(int64_t)({x})"
                    self.buf.line(f"tc_ck[{k}] = {word};")
            self._leave()

    def _leave(self) -> None:
        """After a failure: out of the function at top level, else to the end of the
        outermost instance (the function returns once the nest is done)."""
        if self.stop_label is None:
            self.buf.line("return tc_st[0];")
        else:
            self.stop_used = True
            self.buf.line(f"goto {self.stop_label};")

    def emit_arith(self, op: ir.Operation) -> None:
        """One scalar function; an integer division whose divisor may be zero tests it first
        and fails like a check when it is (in a ``map`` loop too: the elements before it are
        computed, nothing after the failing one)."""
        if divisor_may_be_zero(op, self.ranges):
            info = CheckInfo.division(op)
            self.checks[info.op_id] = info
            divisor = self.scalar(op.operand(1), op)
            with self.buf.block(f"if (__builtin_expect({divisor} == 0, 0))"):
                self.buf.line(f"tc_fail(tc_st, TC_ERR_ZERODIV, {info.op_id});")
                self._leave()
        super().emit_arith(op)

    # -- pure values ---------------------------------------------------------------------
    def emit_constant(self, op: ir.Operation) -> None:
        """A literal; a tile constant is a splat until something needs an array."""
        t = op.result.type
        value = op.attr("value")
        if isinstance(t, ir.ScalarType):
            super().emit_constant(op)
        elif isinstance(t, ir.TileType):
            shape = static_shape(t, op, self)
            self.bind(op.result, Splat(self.literal(value, t.dtype), shape, t.dtype))
        else:
            raise self.unsupported(op, f"constant of type {t}")

    def emit_iota(self, op: ir.Operation) -> None:
        """A coordinate tile: each element is its map of its coordinates, converted."""
        t = op.result.type
        shape = static_shape(t, op, self)
        syms = [self.scalar(v, op) for v in op.operands]
        dst = self.new_tile(op.result)
        idx = [self.fresh("i") for _ in shape]
        for j, e in enumerate(shape):
            self.buf.line(f"for (int64_t {idx[j]} = 0; {idx[j]} < {e}; ++{idx[j]})")
        value = affine_c(op.attr("map").results[0], idx, syms)
        self.buf.line(f"  {dst.name}[{CopyLoops.flat(idx, shape)}] = "
                      f"{self.cast_expr(value, ir.index, t.dtype, op)};")
        self.bind(op.result, dst)

    def alias(self, form: object) -> object:
        """A borrowed tile must not be overwritten in place through its alias."""
        if isinstance(form, Tile):
            return Tile(form.name, form.shape, form.dtype, False)
        return form

    def emit_sync(self, op: ir.Operation) -> None:
        """Within one CPU instance everything is ordered; a grid-wide barrier is not expressible."""
        scope = op.attr("scope")
        if scope == "grid" and self.parallel_depth > 0:
            raise self.unsupported(op, "a grid-scope sync inside a parallel instance")
        self.buf.line(f"/* sync({scope}): program order on the CPU */")
        for r in op.results:
            self.bind(r, TokenVal())

    def emit_map(self, op: ir.Operation) -> None:
        """A loop over the shape with the scalar region inlined (flat when possible)."""
        shape = tuple(int(e) for e in op.attr("shape").extents)
        n = prod(shape)
        block = op.regions[0].entry
        ops_forms = [self.get(v, op) for v in op.operands]
        outs: list[Tile] = []
        taken: set[int] = set()
        for res in op.results:
            rt = res.type
            tile = None
            for k, v in enumerate(op.operands):
                f = ops_forms[k]
                if (k not in taken and isinstance(f, Tile) and f.dtype is rt.dtype
                        and self.can_take(v, op)):
                    taken.add(k)
                    tile = Tile(f.name, f.shape, f.dtype, True)
                    break
            outs.append(tile if tile is not None else self.new_tile(res))
        nested = any(isinstance(f, Lazy) for f in ops_forms)
        idx = [self.fresh("i") for _ in shape] if nested else []
        e = self.fresh("e")
        if nested:
            for j, ext in enumerate(shape):
                self.buf.line(f"for (int64_t {idx[j]} = 0; {idx[j]} < {ext}; ++{idx[j]})")
            header = ""
        else:
            header = f"for (int64_t {e} = 0; {e} < {n}; ++{e})"
        with self.buf.block(header):
            if nested:
                self.buf.line(f"const int64_t {e} = {CopyLoops.flat(idx, shape)};")
            for a, f in zip(block.args, ops_forms):
                if isinstance(f, Scalar):
                    self.bind(a, f)
                    continue
                var = self.name_of(a)
                if isinstance(f, Tile):
                    src = f"{f.name}[{e}]"
                elif isinstance(f, Splat):
                    src = f.expr
                elif isinstance(f, Lazy):
                    src = self.lazy_at(f, idx)
                else:
                    raise self.unsupported(op, f"map operand of type {a.type}")
                self.buf.line(f"const {self.ctype(a.type)} {var} = {src};")
                self.bind(a, Scalar(var, a.type))
            term = self.emit_block(block)
            if term is None:
                raise self.unsupported(op, "map region does not end with yield")
            for out, v in zip(outs, term.operands):
                self.buf.line(f"{out.name}[{e}] = {self.scalar(v, term)};")
        for res, out in zip(op.results, outs):
            self.bind(res, out)

    def _poison(self, t: ir.ScalarType) -> str:
        """The value the reference gives unspecified elements (NaN for floats, 0 otherwise)."""
        return self.literal(float("nan"), t) if t.is_float else "0"

    # -- addressable effects ----------------------------------------------------------------
    def emit_memory(self, op: ir.Operation) -> None:
        """Manual storage: a local array of the memory element type, poisoned like the reference."""
        t = op.result.type
        shape = tuple(int(e) for e in t.shape)
        name = self.declare_tile(shape, t.dtype, "mem", mem=True)
        poison = {"f16": "0x7e00", "bf16": "0x7fc0"}.get(t.dtype.name, self._poison(t.dtype))
        self.buf.line(f"for (int64_t e = 0; e < {prod(shape)}; ++e) {name}[e] = {poison};")
        strides = tuple(str(prod(shape[j + 1:])) for j in range(len(shape)))
        self.bind(op.result, ViewRef(name, t.dtype, tuple(str(e) for e in shape),
                                     ir.IndexMap.identity(len(shape)), (), strides, (),
                                     op.result))

    def emit_view(self, op: ir.Operation) -> None:
        """Compose the map; a bounded view adds a validity level (no code is emitted)."""
        base = self.view(op.operand(0), op)
        syms = [self.scalar(v, op) for v in op.operands[1:]]
        held = []
        for s in syms:  # symbols are evaluated where the view is defined
            if s.isidentifier() or s.lstrip("-").isdigit() or s.startswith("INT64_C("):
                held.append(s)
            else:
                var = self.fresh("o")
                self.buf.line(f"const int64_t {var} = {s};")
                held.append(var)
        rt = op.result.type
        extents = [self.dim_expr(d, op) for d in rt.shape]
        bounded = op.attr("bounds", "total") == "bounded"
        number = ir.op_number(op)
        if not bounded:
            self.checks[number] = total_view_report(op)
        self.bind(op.result, base.sub(op.attr("map"), held, extents, bounded, number))

    def emit_load(self, op: ir.Operation) -> None:
        """Copy the valid elements of a view into a fresh tile; invalid ones get ``fill``."""
        view = self.view(op.operand(0), op)
        rt = op.result.type
        shape = static_shape(rt, op, self)
        dst = self.new_tile(op.result)
        fill = op.attr("fill")
        fill_c = self.literal(fill, rt.dtype) if fill is not None else self._poison(rt.dtype)
        conv = self.LOAD_CONVERT.get(rt.dtype.name, "{}")
        self.copies.read(view, shape, dst.name, conv, fill_c)
        self.bind(op.result, dst)

    def emit_store(self, op: ir.Operation) -> None:
        """Write the valid elements of a view."""
        view = self.view(op.operand(0), op)
        self.written.add(id(view.root))
        tv = op.operand(1)
        shape = static_shape(tv.type, op, self)
        conv = self.STORE_CONVERT.get(tv.type.dtype.name, "{}")
        r = self.get(tv, op)
        if isinstance(r, Splat):
            self.copies.write(view, shape, lambda lv, f: f"{lv} = {conv.format(r.expr)};")
            return
        src = self.materialize(tv, op)
        self.copies.write(view, shape,
                          lambda lv, f: f"{lv} = {conv.format(src.name + '[' + f + ']')};")

    def emit_atomic(self, op: ir.Operation) -> None:
        """Read-modify-write of the valid elements with atomic operations."""
        view = self.view(op.operand(0), op)
        self.written.add(id(view.root))
        tv = op.operand(1)
        t = tv.type.dtype
        kind = op.attr("kind")
        if t.name in ("f16", "bf16", "i1"):
            raise self.unsupported(op, f"atomic {kind} on {t} memory")
        shape = static_shape(tv.type, op, self)
        src = self.materialize(tv, op)
        if kind in ir.EXCHANGE_KINDS:
            self._emit_exchange(op, view, shape, src)
            return
        if t.is_float:
            fn = f"tc_atomic_{kind}_{t.name}"
            stmt = lambda lv, f: f"{fn}(&{lv}, {src.name}[{f}]);"  # noqa: E731
        elif kind == "add":
            stmt = lambda lv, f: (f"__atomic_fetch_add(&{lv}, {src.name}[{f}], "  # noqa: E731
                                  "__ATOMIC_RELAXED);")
        else:
            fn = f"tc_atomic_{kind}_{self.ctype(t)}"
            stmt = lambda lv, f: f"{fn}(&{lv}, {src.name}[{f}]);"  # noqa: E731
        self.copies.write(view, shape, stmt)

    def _emit_exchange(self, op: ir.Operation, view: ViewRef, shape: tuple[int, ...],
                       src: Tile) -> None:
        """``xchg``/``cas`` per valid element with the generic ``__atomic`` builtins, which
        exchange and compare the bytes (a float's bit pattern); the result starts as the
        fill, which the elements outside the view keep."""
        rt = op.result.type
        dst = self.new_tile(op.result)
        fill = op.attr("fill")
        fill_c = self.literal(fill, rt.dtype) if fill is not None else self._poison(rt.dtype)
        self.buf.line(f"for (int64_t e = 0; e < {prod(shape)}; ++e) {dst.name}[e] = {fill_c};")
        ct = self.ctype(rt.dtype)
        relaxed = "__ATOMIC_RELAXED"
        if op.attr("kind") == "xchg":
            def stmt(lv: str, f: str) -> str:
                return (f"{{ {ct} nv = {src.name}[{f}]; __atomic_exchange(&{lv}, &nv, "
                        f"&{dst.name}[{f}], {relaxed}); }}")
        else:
            cmp = self.materialize(op.operand(2), op)

            def stmt(lv: str, f: str) -> str:
                return (f"{{ {ct} nv = {src.name}[{f}]; {dst.name}[{f}] = {cmp.name}[{f}]; "
                        f"__atomic_compare_exchange(&{lv}, &{dst.name}[{f}], &nv, 0, "
                        f"{relaxed}, {relaxed}); }}")
        self.copies.write(view, shape, stmt)
        self.bind(op.result, dst)
