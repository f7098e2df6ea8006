"""Scheduled -> Machine TileIR: explicit per-lane code for one target (lowering.md).

Each kernel function keeps its parameters. Its top-level scalar code stays
(it computes the launch grid); every group becomes

    parallel(grid extents) {level = "grid", threads = T}
      memory ... : mem<..., shared>          (the group's shared allocations)
      parallel(T) {level = "lane"}           (the SIMT region; %tid is its coordinate)
        ... per-lane code ...

Inside the SIMT region a Candidate tile value in distribution ``D`` becomes a
``Lowered`` value: the thread's registers of ``D``, as one or more register
arrays ``tile<P x dt>`` (the *parts*). Uniform scalars (shape symbols, grid
coordinates, loop counters and what is computed from them) are recomputed
by every thread. ``GroupLowering`` holds what one group's lowering shares:
the value environment, register conversions (a register renaming when each
thread already holds what it needs, else a repartition through shared
memory), per-thread views of memory, the shared-memory allocator
(``machine_allocator``) and the barrier tracker. The per-family rules live in
``machine_elementwise``, ``machine_memory``, ``machine_reduce`` and
``machine_matrix`` and register themselves in ``RULES``; ``machine_divisions``
guards integer divisions and ``machine_bounds`` reads whose runtime start may
leave their tile.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import tilec.ir as ir
from tilec.exec import TargetProfile, get_profile
from tilec.ir import dist_layout as L
from tilec.ir.allocation import shared_layout
from tilec.ir.atoms import WGMMA_ATOMS

from .machine_allocator import SharedAllocator
from .machine_sync import ROLE_BARRIER, BarrierTracker, weaken_independent_fences
from .options import LoweringBug, LoweringError, LowerOptions
from .scheduled_layouts import layout_of, use_layout

__all__ = ["Lowered", "Staged", "Forwarded", "GroupLowering", "RULES", "rule",
           "lower_scheduled_module"]

_STALE = object()
"""A memo entry ``rebase_tid`` shadows: made again where next asked for."""
_TID_MEMOS = ("lane", "warp", "thread0")
"""The memo keys whose values are made from the thread's number."""


@dataclass
class Lowered:
    """One thread's registers of a distributed tile: ``parts`` concatenate to ``layout.local``."""

    layout: L.DistLayout
    """The distribution."""
    parts: list[ir.Value]
    """Machine register arrays ``tile<P x dt>``, in register order."""

    @property
    def sizes(self) -> list[int]:
        """Registers per part."""
        return [int(p.type.shape[0]) for p in self.parts]

    @property
    def offsets(self) -> list[int]:
        """First register of each part."""
        out, acc = [], 0
        for s in self.sizes:
            out.append(acc)
            acc += s
        return out

    @property
    def dtype(self) -> ir.ScalarType:
        """Element type."""
        return self.parts[0].type.dtype


@dataclass(frozen=True)
class Staged:
    """A matrix operand that lives only in shared memory (a double-buffered stage version)."""

    view: ir.Value
    """The ``rows x cols`` view of the ring-buffer version holding this iteration's tile."""
    transposed: bool = False
    """The view is the transpose of the tile the ring holds (``x.T`` of a staged load): its
    rows run along the buffer's contiguous axis. As a B operand that is the K-major layout
    (``machine_matrix``)."""


@dataclass(frozen=True)
class Forwarded:
    """A matrix operand read from its source window (``forwarded``: the snapshot forwarding
    proof): nothing is loaded where the ``load`` is; the ``mma`` loads each lane's fragment
    elements through ``view`` with the load's ``fill``."""

    view: ir.Value
    """The ``rows x cols`` view of global memory holding the operand (a transposed one is a
    view of the load's view)."""
    fill: Any
    """The load's fill (what an element outside a ``bounded`` window reads), or None."""


Rule = Callable[["GroupLowering", ir.Operation], None]
RULES: dict[str, Rule] = {}
"""Opcode -> how it is lowered inside a group."""


def rule(*names: str) -> Callable[[Rule], Rule]:
    """Register the decorated function as the lowering of ``names``."""

    def deco(fn: Rule) -> Rule:
        for n in names:
            RULES[n] = fn
        return fn

    return deco


# -------------------------------------------------------------------- group lowering


class GroupLowering:
    """Lowers one Scheduled group into its SIMT region; see the module docstring."""

    def __init__(self, fn_lowering: _FunctionLowering, group: ir.Operation, builder: ir.Builder,
                 tid: ir.Value, threads: int, smem: SharedAllocator) -> None:
        self.fl = fn_lowering
        self.group = group
        """The Scheduled group ``parallel``."""
        self.b = builder
        """Where machine operations go."""
        self.tid = tid
        """The lane parallel's coordinate."""
        self.threads = threads
        """Threads of the group."""
        self.smem = smem
        """The group's shared memory."""
        planner = fn_lowering.options.planner
        self.sync = BarrierTracker(self, planner.enabled and planner.coalesce_group_barriers)
        """Barrier placement."""
        self.scopes: list[dict[Any, Any]] = [{}]
        """Value environments, innermost last (candidate value -> machine value/Lowered)."""
        self.target = fn_lowering.target
        """The target profile name (what messages say)."""
        self.profile = fn_lowering.profile
        """The target profile whose facts the lowering reads (None: no known profile)."""
        self.skip: set[ir.Operation] = set()
        """Scheduled operations realized elsewhere (staged loads and their views)."""
        self.ldmatrix_trans = fn_lowering.options.ldmatrix_trans
        """Whether 16-bit B fragments may use ``ldmatrix.x4.trans``."""
        self.async_copies = fn_lowering.options.async_copies \
            and self.profile is not None and self.profile.async_copies
        """Whether staged operands may be copied asynchronously (the profile's
        ``async_copies``: ``cp.async`` on CUDA)."""
        self.tma = self.async_copies and fn_lowering.options.tma \
            and self.profile is not None and self.profile.tensor_copies
        """Whether swizzled rings may be filled by tensor copies (``tma.load`` completing on
        an ``mbarrier``; the profile's ``tensor_copies``)."""
        self.loc: ir.Location | None = None
        """Where the Scheduled operation being lowered was written: the machine operations
        made for it take this location, so simulator and emitter messages point at the
        kernel's source line (None: the builder's)."""
        self.speculative = False
        """True while lowering ahead of program order (a staged load's address for a later
        iteration): what is computed there must not fail (``machine_divisions``)."""
        self.split_k: Any = None
        """The group's split K loop (``machine_split.SplitK``; None: no split)."""
        self.role_threads: int | None = None
        """Inside a role region of a warp-specialized group (``machine_roles``): the threads
        of that role, whose group barriers are named barrier ``ROLE_BARRIER`` over them
        (None: every thread of the group meets at a barrier)."""
        self.role_barrier = ROLE_BARRIER
        """The named barrier of the role region being lowered (``role_threads``): each
        ping-pong consumer meets at its own (``machine_roles``)."""
        self.tensor_stores: Any = None
        """Inside the consumers' region of a warp-specialized group where its tensor maps
        are legal: the ``machine_epilogue.TensorStores`` that lowers each ``store {
        tensor_store}`` (None: such stores are stored from registers)."""
        self.retire_block: ir.Block | None = None
        """The body of the staged loop being lowered: a warpgroup product there whose
        result only its yield reads is not waited for where it is issued
        (``machine_matrix._carried_only``) but before the yield."""
        self.deferred_retire = False
        """A product of ``retire_block`` is still in flight (wait before the yield)."""
        self.turns: Any = None
        """While the key loop of a group whose consumer warpgroups take turns is lowered
        (``machine_turns.WarpgroupTurns``): each warpgroup product asks it for its turn
        (None: no turns)."""
        self.copy_batch_realized = 0
        """The most chunks a synchronous staged copy loaded before storing them
        (``machine_copies``; 0: none was made)."""

    # -- environment ------------------------------------------------------------------
    def bind(self, v: ir.Value, x: Any) -> None:
        """Record the machine form of candidate value ``v`` in the current scope."""
        self.scopes[-1][v] = x

    def lookup(self, v: ir.Value) -> Any:
        """The machine form of ``v`` (rematerializing function-level scalars)."""
        for s in reversed(self.scopes):
            if v in s:
                return s[v]
        got = self.fl.outer_value(self, v)
        if got is None:
            raise LoweringBug(f"internal: {v!r} has no machine value (not lowered yet)")
        return got

    def memo(self, key: Any, make: Callable[[], Any]) -> Any:
        """A value cached in the innermost scope that has it, else made here (a key
        ``rebase_tid`` marked stale is made again)."""
        for s in reversed(self.scopes):
            if key in s:
                if s[key] is _STALE:
                    break
                return s[key]
        x = make()
        self.scopes[-1][key] = x
        return x

    def rebase_tid(self, tid: ir.Value) -> None:
        """From here to the end of the current scope, ``tid`` numbers the threads (a
        ping-pong consumer's own numbering from 0): the values made from the old number
        (``lane``, ``warp``, ``thread0``) are made again."""
        self.tid = tid
        for key in _TID_MEMOS:
            self.scopes[-1][key] = _STALE

    @contextmanager
    def scope(self, builder: ir.Builder) -> Iterator[None]:
        """Lower into another block (a nested region) with a fresh environment level."""
        saved = self.b
        self.b = builder
        self.scopes.append({})
        try:
            yield
        finally:
            self.scopes.pop()
            self.b = saved

    def scalar(self, v: ir.Value) -> ir.Value:
        """A uniform scalar's machine value."""
        x = self.lookup(v)
        if isinstance(x, Lowered):
            raise LoweringBug(f"internal: {v.type} value used as a scalar")
        return x

    def tile(self, v: ir.Value, want: L.DistLayout | None = None) -> Lowered:
        """A tile's registers, repartitioned into ``want`` when given and different."""
        x = self.lookup(v)
        if not isinstance(x, Lowered):
            raise LoweringBug(f"internal: {v.type} value has no registers")
        if want is None or want is x.layout:
            return x
        return self.memo(("convert", v, want), lambda: self.convert(x, want))

    def operand(self, op: ir.Operation, k: int) -> Lowered:
        """Operand ``k`` of a Scheduled op in the layout the op consumes it in."""
        return self.tile(op.operand(k), use_layout(op, k))

    # -- machine op helpers --------------------------------------------------------------
    def op(self, name: str, operands: Sequence[ir.Value], types: Sequence[ir.Type],
           attrs: dict[str, Any] | None = None, regions: Sequence[ir.Region] = (),
           names: Sequence[str | None] | None = None) -> ir.Operation:
        """Create ``name`` at the insertion point."""
        return self.b.create(name, list(operands), list(types), attrs or {}, regions,
                             loc=self.loc, result_names=names)

    def index(self, n: int) -> ir.Value:
        """An index constant (one per scope)."""
        return self.memo(("index", n), lambda: self.op("constant", [], [ir.index],
                                                         {"value": int(n)}).result)

    def arith(self, fn: str, *xs: ir.Value, type: ir.Type | None = None) -> ir.Value:
        """One scalar ``arith``."""
        t = type or (ir.i1 if fn in ("eq", "ne", "lt", "le", "gt", "ge")
                     else xs[1].type if fn == "select" else xs[0].type)
        return self.op("arith", xs, [t], {"fn": fn}).result

    def atom(self, catalog_id: str, operands: Sequence[ir.Value], types: Sequence[ir.Type],
             **attrs: Any) -> ir.Operation:
        """One ``atom.call``."""
        return self.op("atom.call", operands, types, {"catalog_id": catalog_id, **attrs})

    def lane(self) -> ir.Value:
        """``tid mod 32``."""
        return self.memo("lane", lambda: self.arith("rem", self.tid, self.index(32)))

    def warp(self) -> ir.Value:
        """``tid floordiv 32``."""
        return self.memo("warp", lambda: self.arith("floordiv", self.tid, self.index(32)))

    def splat(self, value: Any, n: int, dtype: ir.ScalarType) -> ir.Value:
        """A register array of ``n`` copies of a constant."""
        return self.op("constant", [], [ir.TileType((n,), dtype)], {"value": value}).result

    def slice(self, x: ir.Value, start: int, length: int) -> ir.Value:
        """Registers ``[start, start + length)`` of a register array."""
        if start == 0 and length == int(x.type.shape[0]):
            return x
        return self.op("reindex", [x], [ir.TileType((length,), x.type.dtype)],
                       {"map": ir.IndexMap(1, [ir.d(0) + start])}).result

    # -- views -------------------------------------------------------------------------
    def view(self, base: ir.Value, syms: Sequence[ir.Value], m: ir.IndexMap,
             shape: Sequence[int], bounded: bool) -> ir.Value:
        """A view of ``base`` of extents ``shape`` through ``m``."""
        bt = base.type
        return self.op("view", [base, *syms], [ir.MemoryType(tuple(shape), bt.dtype, bt.space)],
                       {"map": m, "bounds": "bounded" if bounded else "total"}).result

    def thread_view(self, base: ir.Value, layout: L.DistLayout, start: int, length: int,
                    pre: ir.IndexMap | None = None, pre_syms: Sequence[ir.Value] = (),
                    bounded: bool = False) -> ir.Value:
        """Thread ``tid``'s registers ``[start, start+length)`` of ``layout`` as a view of
        ``base`` (whose shape is the tile's, or ``pre``'s codomain: ``pre`` sends tile
        coordinates to ``base`` coordinates and reads ``pre_syms``)."""
        tm = layout.thread_map()
        if start:
            tm = ir.IndexMap(1, [e.substitute([ir.d(0) + start]) for e in tm.results], 1)
        m = pre.compose(tm) if pre is not None else tm
        syms = [*pre_syms, self.tid] if pre is not None else [self.tid]
        return self.view(base, syms, m, (length,), bounded or layout.masked)

    def typed(self, flat: ir.Value, shape: Sequence[int], row_pad: int = 0) -> ir.Value:
        """A row-major view of ``shape`` over a flat (or padded) buffer."""
        shape = tuple(int(e) for e in shape)
        if flat.type.rank == len(shape) and tuple(int(e) for e in flat.type.shape) == shape:
            return flat
        lin = ir.const(0)
        for k, e in enumerate(shape):
            step = e + row_pad if k == len(shape) - 1 else e
            lin = lin * step + ir.d(k) if k else ir.d(0)
        return self.view(flat, [], ir.IndexMap(len(shape), [lin]), shape, False)

    def scratch(self, shape: Sequence[int], dtype: ir.ScalarType) -> ir.Value:
        """The scratch pool seen as a tile-shaped buffer (transient; barriers guard reuse)."""
        n = max(1, math.prod(int(e) for e in shape))
        return self.typed(self.smem.pool(dtype, n), shape)

    # -- register arrays ---------------------------------------------------------------
    def split(self, x: Lowered, bounds: Sequence[int]) -> Lowered:
        """``x`` with parts cut at every boundary in ``bounds`` (a refinement)."""
        cuts = sorted(set(bounds) | set(x.offsets) | {x.layout.local})
        parts = []
        for off, size, part in zip(x.offsets, x.sizes, x.parts):
            inner = [c for c in cuts if off <= c <= off + size]
            for a, b_ in zip(inner, inner[1:]):
                parts.append(self.slice(part, a - off, b_ - a))
        return Lowered(x.layout, parts)

    def canonical(self, x: Lowered) -> Lowered:
        """``x`` in its layout's canonical parts (loops and branches carry those)."""
        want = x.layout.part_offsets
        if x.sizes == list(x.layout.parts):
            return x
        if set(x.offsets) <= set(want):
            return self.split(x, want)
        return self.convert(x, x.layout, force_shared=True)

    def build(self, layout: L.DistLayout, dtype: ir.ScalarType,
              make: Callable[[int, int], ir.Value]) -> Lowered:
        """A value made part by part (``make(start, length)``) in canonical parts."""
        return Lowered(layout, [make(o, n) for o, n in zip(layout.part_offsets, layout.parts)])

    # -- conversions ---------------------------------------------------------------------
    def convert(self, x: Lowered, dst: L.DistLayout, rmap: ir.IndexMap | None = None,
                syms: Sequence[ir.Value] = (), fill: Any = None,
                force_shared: bool = False) -> Lowered:
        """``x`` seen in ``dst`` (through reindex map ``rmap``): a register renaming when
        every thread holds what it needs, else a repartition through shared memory."""
        if not syms and not force_shared:
            pieces = L.register_map(x.layout, dst, rmap, x.sizes)
            if pieces is not None:
                parts = []
                for p in pieces:
                    src = x.parts[p.part]
                    ident = p.map.results[0] is ir.d(0) and p.length == int(src.type.shape[0])
                    parts.append(src if ident else self.op(
                        "reindex", [src], [ir.TileType((p.length,), x.dtype)],
                        {"map": p.map}).result)
                return Lowered(dst, parts)
        return self.repartition(x, dst, rmap, syms, fill)

    def repartition(self, x: Lowered, dst: L.DistLayout, rmap: ir.IndexMap | None,
                    syms: Sequence[ir.Value], fill: Any) -> Lowered:
        """Every thread stores its elements to scratch, barrier, every thread loads ``dst``."""
        buf = self.scratch(x.layout.shape, x.dtype)
        self.store_registers(buf, x)
        self.sync.read(buf)
        bounded = fill is not None or dst.masked

        def load(start: int, length: int) -> ir.Value:
            tv = self.thread_view(buf, dst, start, length, rmap, syms, bounded)
            attrs = {} if fill is None else {"fill": fill}
            return self.op("load", [tv], [ir.TileType((length,), x.dtype)], attrs).result

        return self.build(dst, x.dtype, load)

    def store_registers(self, mem: ir.Value, x: Lowered, atomic: str | None = None) -> None:
        """Write ``x``'s elements through ``mem`` (a view with the tile's shape); replicated
        layouts write from one owner thread per element."""
        self.sync.write(mem)
        owner = None
        if x.layout.replicated:
            owner = L.owner_predicate(x.layout)
            if owner is None:
                raise LoweringBug(f"internal: no owner threads for the replicated {x.layout}")

        def emit() -> None:
            for off, size, part in zip(x.offsets, x.sizes, x.parts):
                tv = self.thread_view(mem, x.layout, off, size)
                if atomic is None:
                    self.op("store", [tv, part], [])
                else:
                    self.op("atomic", [tv, part], [], {"kind": atomic})

        if owner is None or owner == (1, self.threads):
            emit()
            return
        self.guarded(self.owner_condition(*owner), emit)

    def owner_condition(self, m: int, n: int) -> ir.Value:
        """``tid mod m == 0 and tid < n`` (parts that are vacuous are left out)."""
        conds = []
        if m > 1:
            conds.append(self.arith("eq", self.arith("rem", self.tid, self.index(m)),
                                    self.index(0)))
        if n < self.threads:
            conds.append(self.arith("lt", self.tid, self.index(n)))
        c = conds[0]
        for extra in conds[1:]:
            c = self.arith("and", c, extra)
        return c

    def guarded(self, cond: ir.Value, body: Callable[[], None],
                attrs: dict[str, Any] | None = None,
                otherwise: Callable[[], None] | None = None) -> None:
        """``if cond { body } else { otherwise }`` with no results."""
        then, other = ir.Block(), ir.Block()
        self.op("if", [cond], [], attrs or {}, [ir.Region([then]), ir.Region([other])])
        with self.scope(ir.Builder(ir.InsertionPoint.at_end(then))):
            body()
            self.op("yield", [], [])
        with self.scope(ir.Builder(ir.InsertionPoint.at_end(other))):
            if otherwise is not None:
                otherwise()
            self.op("yield", [], [])

    def branches(self, cond: ir.Value, body: Callable[[], None],
                 otherwise: Callable[[], None], attrs: dict[str, Any] | None = None) -> None:
        """``guarded`` with the barrier tracker's state carried through both branches: each
        starts from what was pending before the ``if``, and what either leaves pending is
        pending after it."""
        before = self.sync.state()
        ends = []

        def arm(run: Callable[[], None]) -> Callable[[], None]:
            def go() -> None:
                self.sync.restore(before)
                run()
                ends.append(self.sync.state())
            return go

        self.guarded(cond, arm(body), attrs, arm(otherwise))
        self.sync.merge(*ends)

    def thread0(self) -> ir.Value:
        """``tid == 0``: the thread that issues tensor copies and manages the barriers."""
        return self.memo("thread0", lambda: self.arith("eq", self.tid, self.index(0)))

    def extent(self, d: ir.Dim) -> ir.Value:
        """An array extent as an index value (a shape-symbol parameter or a constant)."""
        if d.is_static:
            return self.index(int(d))
        fn = self.fl.src
        names = fn.shape_symbols
        k = names.index(str(d.value))
        return self.lookup(fn.args[len(fn.args) - len(names) + k])

    def affine(self, e: ir.AffineExpr, dims: Sequence[ir.Value] = (),
               syms: Sequence[ir.Value] = ()) -> ir.Value:
        """An index value computing ``e`` with ``d<i> = dims[i]`` and ``s<i> = syms[i]``."""
        acc: ir.Value | None = None
        for atom, c in e.terms:
            if atom[0] == "d":
                x = dims[atom[1]]
            elif atom[0] == "s":
                x = syms[atom[1]]
            else:
                inner = self.affine(atom[1], dims, syms)
                x = self.arith("floordiv" if atom[0] == "floordiv" else "rem", inner,
                               self.index(atom[2]))
            if c != 1:
                x = self.arith("mul", x, self.index(c))
            acc = x if acc is None else self.arith("add", acc, x)
        if acc is None:
            return self.index(e.constant)
        return acc if e.constant == 0 else self.arith("add", acc, self.index(e.constant))

    # -- driving -------------------------------------------------------------------------
    def lower_block(self, block: ir.Block) -> None:
        """Lower every operation of a Scheduled block except its terminator (and the staged
        loads a double-buffered loop has already issued, with their address views)."""
        for op in block.operations:
            if op.opdef.terminator or op in self.skip:
                continue
            self.lower_op(op)

    def lower_op(self, op: ir.Operation) -> None:
        """Lower one Scheduled operation."""
        fn = RULES.get(op.name)
        if fn is None:
            raise LoweringError(ir.format_located(f"'{op.name}' has no Machine lowering",
                                                  op.loc))
        outer = self.loc
        if op.loc.known:
            self.loc = op.loc
        try:
            fn(self, op)
        except LoweringError:
            raise
        except L.LayoutError as e:
            raise LoweringError(ir.format_located(f"'{op.name}': {e}", op.loc)) from e
        finally:
            self.loc = outer


# --------------------------------------------------------------------- functions


class _FunctionLowering:
    """Lowers one Scheduled function into a Machine function."""

    def __init__(self, fn: ir.Function, options: LowerOptions) -> None:
        self.src = fn
        self.options = options
        self.target = fn.attributes.get("target", "")
        self.profile: TargetProfile | None = _profile_or_none(self.target)
        attrs = {k: v for k, v in fn.attributes.items() if k != "form"}
        attrs["form"] = "machine"
        self.out = ir.Function(fn.name, [a.type for a in fn.args], fn.result_types,
                               [a.name_hint for a in fn.args], attrs, fn.loc)
        self.top: dict[ir.Value, ir.Value] = dict(zip(fn.args, self.out.args))
        """Function-level candidate values -> their machine copies at function level."""
        self.groups: list[dict[str, Any]] = []
        """Per group: thread count and shared bytes (reported)."""
        self.ranges: dict[int, Any] | None = None
        """Value ranges of ``src`` (``ir.ranges``), computed when a division or a
        runtime slice asks."""

    def outer_value(self, g: GroupLowering, v: ir.Value) -> ir.Value | None:
        """A function-level scalar inside a group: parameters directly, pure top-level
        operations recomputed in the SIMT region (so it only reads parameters and ids)."""
        if isinstance(v, ir.BlockArgument) and v.owner is self.src.entry:
            return self.top[v]
        d = v.defining_op
        if d is None or d.parent is not self.src.entry or d.opdef.effect != "pure" or d.regions:
            return None
        copies = g.scopes[0]
        if v in copies:
            return copies[v]
        ops = [g.lookup(x) for x in d.operands]
        new = ir.Operation(d.name, ops, [r.type for r in d.results],
                           {k: a for k, a in d.attributes.items() if k != "exec"}, loc=d.loc,
                           result_names=[r.name_hint for r in d.results])
        g.sim_entry.insert_op(new, g.sim_anchor)
        for r, nr in zip(d.results, new.results):
            copies[r] = nr
        return copies[v]

    def run(self) -> ir.Function:
        """Lower the whole function."""
        if self.profile is not None and not self.profile.f64:
            bad = ir.f64_user(self.src)
            if bad is not None:
                raise LoweringError(ir.format_located(
                    f"{self.target} has no 64-bit floating point ('{bad.name}' uses f64); "
                    "compute in f32 for this target", bad.loc))
        b = ir.Builder(ir.InsertionPoint.at_end(self.out.entry))
        for op in self.src.entry.operations:
            if op.name == "parallel" and op.attr("exec") == "grid":
                self.lower_group(op, b)
            elif op.name == "return":
                b.create("return", [self.top[v] for v in op.operands], loc=op.loc)
            else:
                new = _copy_scalar_op(op, self.top)
                b.insert(new)
        return self.out

    def lower_group(self, par: ir.Operation, b: ir.Builder) -> None:
        """One group: the grid parallel, its shared memory and the SIMT region."""
        from .machine_cluster import cluster_of, pair_extents
        from .machine_copies import copy_batch_report
        from .machine_roles import (
            PRODUCER_THREADS,
            TileWalk,
            consumer_sets,
            lower_roles_body,
            roles_loop_of,
        )
        from .machine_split import SplitK, lower_split_body, split_op_of

        rank = par.attr("rank")
        threads = par.attr("threads")
        roles_loop = roles_loop_of(par)
        sets = consumer_sets(roles_loop) if roles_loop is not None else 1
        lanes = threads * sets + (PRODUCER_THREADS if roles_loop is not None else 0)
        extents = [self.top[v] for v in par.operands[:rank]]
        names = [a.name_hint for a in par.regions[0].entry.args]
        split_op = split_op_of(par)
        attrs: dict[str, Any] = {"rank": rank, "level": "grid", "threads": lanes}
        persistent = roles_loop.attr("persistent") if roles_loop is not None else None
        cluster = cluster_of(roles_loop, par.regions[0].entry) \
            if roles_loop is not None else None
        if persistent:  # one axis numbers the programs; each walks output tiles
            def arith(fn: str, x: ir.Value, y: ir.Value | int, name: str = "") -> ir.Value:
                if isinstance(y, int):
                    y = b.create("constant", [], [ir.index], {"value": y}, loc=par.loc).result
                return b.create("arith", [x, y], [ir.index], {"fn": fn}, loc=par.loc,
                                result_names=[name] if name else None).result

            walked = extents if cluster is None else \
                pair_extents(extents, cluster, lambda e, n: arith("cdiv", e, n))
            tiles = walked[0]
            for e in walked[1:]:
                tiles = arith("mul", tiles, e, "tiles")
            if cluster is None:
                extents = [arith("min", tiles, int(persistent), "programs")]
            else:  # whole clusters, each walking pair tiles
                n = cluster.size
                extents = [arith("mul", arith("min", tiles, int(persistent) // n), n,
                                 "programs")]
                attrs["cluster"] = n
            names = ["program"]
            attrs.update(rank=1)
        if split_op is not None:  # a leading grid axis numbers the K splits
            splits = int(split_op.attr("split_k"))
            extents = [b.create("constant", [], [ir.index], {"value": splits}, loc=par.loc,
                                result_names=["splits"]).result, *extents]
            names = ["split", *names]
            attrs.update(rank=rank + 1, split_k=splits)
        grid_block = ir.Block([ir.index] * len(extents), names)
        grid = b.create("parallel", extents, [], attrs, [ir.Region([grid_block])],
                        loc=par.loc)
        gb = ir.Builder(ir.InsertionPoint.at_end(grid_block), par.loc)
        count = gb.create("constant", [], [ir.index], {"value": lanes},
                          result_names=["nthreads"]).result
        smem = SharedAllocator(ir.Builder(ir.InsertionPoint.at_end(grid_block), par.loc))
        lane_block = ir.Block([ir.index], ["tid"])
        gb.create("parallel", [count], [], {"rank": 1, "level": "lane"},
                  [ir.Region([lane_block])])
        gb.create("yield")
        lb = ir.Builder(ir.InsertionPoint.at_end(lane_block), par.loc)
        anchor = lb.create("constant", [], [ir.index], {"value": 0}, result_names=["c0"])
        g = GroupLowering(self, par, lb, lane_block.args[0], threads, smem)
        g.sim_entry = lane_block  # type: ignore[attr-defined]
        g.sim_anchor = anchor  # type: ignore[attr-defined]
        g.scopes[0][("index", 0)] = anchor.result
        coords = list(grid_block.args[1:] if split_op is not None else grid_block.args)
        trav = roles_loop.attr("traversal") if roles_loop is not None else None
        trav = trav if trav is not None else self.options.planner.program_traversal
        parsed = ir.parse_traversal(trav) if trav is not None else None
        assert not isinstance(parsed, str), parsed  # PlannerOptions checked it
        if not persistent:  # a persistent group binds each walked tile's coordinates
            for a, na in zip(par.regions[0].entry.args, coords):
                g.bind(a, na)
        if persistent:
            walk = TileWalk(par, grid_block.args[0], int(persistent),
                            parsed if rank >= 2 else None, cluster)
            lower_roles_body(g, par.regions[0].entry, roles_loop, walk)
        elif roles_loop is not None:
            lower_roles_body(g, par.regions[0].entry, roles_loop)
        elif split_op is None:
            g.lower_block(par.regions[0].entry)
        else:
            g.split_k = SplitK(split_op, splits, grid_block.args[0])
            lower_split_body(g, par.regions[0].entry, g.split_k, coords)
        lb.create("yield")
        independent = None
        planner = self.options.planner
        if planner.elide_independent_subgroup_barriers and planner.enabled \
                and planner.coalesce_group_barriers and self.profile is not None:
            independent = weaken_independent_fences(g.sync, lane_block, lanes,
                                                    self.profile.subgroup_width)
        smem.finish()
        # Move the allocations before the lane parallel (they were created at the block end).
        lane_par = lane_block.parent_op
        for a in smem.allocs:
            op = a.placeholder
            op.remove_self()
            grid_block.insert_op(op, lane_par)
        limit = self.shared_limit()
        # the buffers and every swizzled buffer's alignment slack, not the alignment of the
        # others: not a bound. What is checked is what the allocate stage places
        need = smem.bytes
        align = self.profile.shared_alignment if self.profile is not None else None
        placed = shared_layout(grid, align).launch_bytes if align else need
        if limit is not None and need > limit:  # the placement's exact figure
            need = min(need, placed)
        grid.attributes["shared_bytes"] = need
        if limit is not None and placed > limit:
            raise LoweringError(ir.format_located(
                f"the group needs {placed} bytes of shared memory; {self.target} allows "
                f"{limit} per group (smaller tiles, or fewer staged operands)", par.loc))
        groups = _warpgroup_residency(grid_block, lanes, max(need, placed), self.profile)
        if groups > 1:
            grid.attributes["min_groups"] = groups
        before, after = g.sync.sites
        info: dict[str, Any] = {"threads": lanes, "shared_bytes": need}
        if independent is not None:  # the proof's sites no longer group barriers
            after -= independent.count("subgroup") + independent.count("none")
            info["subgroup_barrier_sites"] = independent.count("subgroup")
            info["independent_subgroups"] = independent.to_json()
        info["group_barrier_sites"] = {"before": before, "after": after}
        if roles_loop is not None:
            info["producer_threads"] = PRODUCER_THREADS
        if split_op is not None:
            info["split_k"] = splits
        if persistent:
            info["persistent"] = int(persistent)
        if sets > 1:
            info["pingpong"] = sets
        if cluster is not None:
            info["cluster"] = {"groups": cluster.size, "axis": cluster.axis,
                               "multicast": sorted(f"{ld.name} at {ld.loc}"
                                                   for ld in cluster.shared)}
        copies = copy_batch_report(g)
        if copies is not None:
            info["copy_batch"] = copies
        if parsed is not None:
            if persistent and rank >= 2:
                info["traversal"] = f"{parsed[0]}:{parsed[1]} (the order of each program's " \
                                    "tiles)"
            elif grid.attr("rank") >= 2:
                grid.attributes["traversal"] = parsed
                info["traversal"] = f"{parsed[0]}:{parsed[1]}"
            else:
                info["traversal"] = "row-major (a grid of rank 1 has no rows to group)"
        self.groups.append(info)

    def shared_limit(self) -> int | None:
        """The target's shared memory per group (None when unknown)."""
        return None if self.profile is None else self.profile.shared_bytes_per_group


def _profile_or_none(target: str) -> TargetProfile | None:
    """The profile a Scheduled function was planned for (None: none is named, or unknown)."""
    try:
        return get_profile(target) if target else None
    except ValueError:
        return None


def _warpgroup_residency(grid_block: ir.Block, threads: int, shared_bytes: int,
                         p: TargetProfile | None) -> int:
    """Groups per compute unit to ask the compiler to fit (``min_groups``) for a group that
    issues warpgroup instructions: as many as shared memory holds, while each lane keeps its
    accumulators plus ``WGMMA_OTHER_REGISTERS``; 1 (no request) otherwise. Warpgroup
    instructions wait for their operands, so a second resident group is what hides that."""
    from tilec.plan.matrix import WGMMA_OTHER_REGISTERS

    acc = 0
    for op in grid_block.parent_op.walk():  # type: ignore[union-attr]
        if op.name == "atom.call" and op.attr("catalog_id") in WGMMA_ATOMS:
            acc = max(acc, int(op.attr("n")) // 2)
    if not acc or p is None:
        return 1
    if p.shared_bytes_per_unit is None or p.registers_per_unit is None or not shared_bytes:
        return 1
    groups = p.shared_bytes_per_unit // (shared_bytes + 1024)  # 1 KB reserved per group
    while groups > 1 and p.registers_per_unit // (groups * threads) < acc + WGMMA_OTHER_REGISTERS:
        groups -= 1
    return max(1, min(groups, p.max_resident_groups_per_unit or groups))


def _copy_scalar_op(op: ir.Operation, vmap: dict[ir.Value, ir.Value]) -> ir.Operation:
    """A function-level scalar operation, copied without its scheduling attributes."""
    if op.regions:
        raise LoweringError(ir.format_located(f"function-level '{op.name}' with regions is not "
                                              "lowered", op.loc))
    new = ir.Operation(op.name, [vmap[v] for v in op.operands], [r.type for r in op.results],
                       {k: a for k, a in op.attributes.items() if k != "exec"}, loc=op.loc,
                       result_names=[r.name_hint for r in op.results])
    vmap.update(zip(op.results, new.results))
    return new


def lower_scheduled_module(module: ir.Module, options: LowerOptions | None = None
                           ) -> tuple[ir.Module, list[dict[str, Any]]]:
    """The Machine form of a Scheduled module, and per group its threads and shared bytes."""
    # The rule modules register themselves on import.
    from . import (  # noqa: F401
        machine_control,
        machine_elementwise,
        machine_indexed,
        machine_matrix,
        machine_memory,
        machine_reduce,
    )

    options = options or LowerOptions()
    out = ir.Module()
    report: list[dict[str, Any]] = []
    for fn in module:
        fl = _FunctionLowering(fn, options)
        out.add_function(fl.run())
        report.extend(fl.groups)
    return out, report


def layout_or_none(v: ir.Value) -> L.DistLayout | None:
    """``layout_of`` for tiles, None for scalars."""
    return layout_of(v) if isinstance(v.type, ir.TileType) else None
