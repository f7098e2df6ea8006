"""The SIMT simulator: executes Machine TileIR on numpy, threads of a group in lock-step.

Machine TileIR (docs/design/lowering.md) is a grid ``parallel`` whose body
allocates per-group shared memory and holds one lane-level ``parallel`` of
``T`` threads. The simulator runs:

* function- and group-level code (index arithmetic, constants) in the
  reference interpreter, which it subclasses;
* grid instances one after another in row-major order, or in the order of the
  grid's ``traversal`` (``ir.traversal``) when it has one (``max_groups`` stops
  early); a grid with ``cluster = n`` runs the ``n`` groups of each cluster together,
  as co-routines (``simt_cluster``); every ``memory`` of space ``shared`` is a fresh,
  NaN-poisoned array per group; two instances writing one global element is reported
  (``simt_races.ProgramWrites``);
* the lane-level body for all ``T`` threads at once: every per-thread value
  carries a leading thread axis (``tile<Lxdt>`` is an array ``(T, L)``, a
  scalar an array ``(T,)``); values defined outside the body are broadcast.

Control flow inside the body: ``if`` on a per-thread condition runs both
regions under thread masks and merges the results with ``np.where`` (nested
masks compose); ``serial``/``pipeline`` bounds must agree across the active
threads (else a divergence error); inactive threads make no memory accesses
and execute no atoms. ``atom.call`` goes to ``simt_atoms``; the lane-level memory
operations are ``simt_access``'s (``simt_indexed``'s for data-dependent addresses);
memory accesses and the cp.async model are in ``simt_memory``, the race detectors in
``simt_races``.

Errors: ``SimulationError`` (race, out_of_range, divergence, unsupported, hang:
``errors.KINDS``) names the offending operations with their locations; runtime errors of the
program itself are those of the reference interpreter: ``KernelAssertionError``
(a failed check), ``KernelArithmeticError`` (an integer division by zero: the
lowering's ``check {kind = "zerodiv"}``, or a division itself),
``KernelIndexError`` (a tile slice out of range: the lowering's ``check {kind =
"index"}``), ``KernelLoopError`` (a loop step that is not positive: the lowering's
``check {kind = "step"}``) and ``InterpretError``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.exec import resolve_profile_name
from tilec.ir.atoms import WGMMA_ATOMS
from tilec.support import progress
from tilec.targets import numerics as nx
from tilec.targets.kernel_checks import CheckInfo, HostChecks, KernelFailure

from . import simt_access, simt_indexed, simt_mpp, simt_simdgroup  # noqa: F401  (registers its atoms)
from .backend import bind_arguments, contiguous_arguments
from .errors import SimulationError, describe_op
from .interpreter import Interpreter, InterpretError, poison_value, reduce_contributions
from .memref import MemRef
from .simt_atoms import ATOM_IMPLS, diverged, run_atom
from .simt_bulk import BulkStores
from .simt_cluster import Member, run_clusters
from .simt_mbarrier import Mbarriers
from .simt_memory import (
    AsyncCopies,
    GroupClock,
    LaneView,
    Storage,
    lane_broadcast,
    lane_coords,
    value_name,
)
from .simt_races import GridClock, ProgramWrites
from .simt_roles import Registers, run_roles
from .simt_split import SplitWorkspace
from .simt_turns import TurnLedger
from .simt_wgmma import InFlightGroups

__all__ = ["simulate_module", "SimtBackend", "SimtExecutable",
           "make_backend", "LANE_OPS"]

_INT_DIVISIONS = ("floordiv", "rem", "cdiv")


def _dtype(t: ir.Type) -> np.dtype:
    return nx.np_dtype(t.dtype if isinstance(t, (ir.TileType, ir.MemoryType)) else t)


def _extreme_threads(active: np.ndarray, a: np.ndarray) -> tuple[int, int]:
    """The active threads holding the first smallest and the first largest of ``a`` (one value
    per active thread): the two a divergence message names."""
    threads = np.flatnonzero(active)
    return int(threads[np.argmin(a)]), int(threads[np.argmax(a)])


def _unsupported(op: ir.Operation, why: str) -> SimulationError:
    return SimulationError(f"{describe_op(op)}: {why}", "unsupported", [op])


# ------------------------------------------------------------------ host level


class _Host(Interpreter):
    """The reference interpreter with grid-level ``parallel`` replaced by group simulation."""

    def __init__(self, module: ir.Module, max_groups: int | None,
                 names: dict[int, str], label: str = "simulating") -> None:
        super().__init__(module)
        self.max_groups = max_groups
        """Stop after this many groups (None: run the whole grid)."""
        self.label = label
        """What the terminal's progress row says while the grid runs."""
        self.groups_run = 0
        """Groups simulated so far."""
        self._names = names
        self._globals: dict[int, Storage] = {}
        self._grid = GridClock()
        self.split = SplitWorkspace()
        """The running launch's split-K partials and counters (``simt_split``)."""

    @property
    def grid(self) -> GridClock:
        """The running launch and program."""
        return self._grid

    # The interpreter's per-operation hook: everything but the Machine-form structure is
    # the reference's own implementation.
    def _execute(self, op: ir.Operation, env: dict[ir.Value, Any]) -> None:
        level = op.attr("level") if op.name == "parallel" else None
        if level == "grid":
            self._run_grid(op, env)
        elif level == "lane":
            raise _unsupported(op, "a lane-level parallel must be the body of a grid-level one")
        elif op.name == "atom.call":
            raise _unsupported(op, "atom.call outside the lane-level parallel")
        else:
            super()._execute(op, env)

    def global_storage(self, root: np.ndarray) -> Storage:
        """The ``Storage`` of a kernel argument (one per array)."""
        st = self._globals.get(id(root))
        if st is None:
            st = Storage(root, "global", self._names.get(id(root), "(an argument)"))
            st.programs = ProgramWrites(st, self._grid)
            self._globals[id(root)] = st
        return st

    def lane_view(self, x: MemRef | LaneView) -> LaneView:
        """A memory value of the host interpreter as a simulator view."""
        if isinstance(x, LaneView):
            return x
        return LaneView(self.global_storage(x.root), x.shape, x.map, x.syms, x.guards)

    # -- grid and group --------------------------------------------------------
    def _run_grid(self, op: ir.Operation, env: dict[ir.Value, Any]) -> None:
        rank = op.attr("rank")
        if op.num_operands != rank or op.results:
            raise _unsupported(op, "a grid-level parallel with inits (ancestor updates)")
        extents = [max(int(env[v]), 0) for v in op.operands]
        block = op.regions[0].entry
        self._grid.start(tuple(extents))
        self.split = SplitWorkspace()  # the launcher's workspace: counters zero, no partials
        total = math.prod(extents)
        if self.max_groups is not None:
            total = max(min(total, self.max_groups - self.groups_run), 0)
        trav = op.attr("traversal")
        # the programs in the order the target numbers them (ir.traversal: a bijection the
        # verifier checked; a wrong one leaves points unrun, which the poisoned outputs show)
        points = np.ndindex(*extents) if trav is None else \
            (tuple(pt) for pt in ir.traversal_points(trav, extents).tolist())
        with progress(f"{self.label}: groups", total=total) as shown:
            if op.attr("cluster"):  # whole clusters, co-simulated (simt_cluster)
                run_clusters(self, op, block, env, extents, shown)
                points = iter(())
            for program, point in enumerate(points):
                if self.max_groups is not None and self.groups_run >= self.max_groups:
                    return
                self._grid.program = program
                for a, c in zip(block.args, point):
                    env[a] = np.int64(c)
                self._run_group(op, block, env)
                self.groups_run += 1
                shown.advance()
        left = self.split.count
        if left and (self.max_groups is None or self.groups_run < self.max_groups):
            tile, n = next(iter(left.items()))
            raise SimulationError(f"split-K: only {n} of the programs of tile {tile} arrived "
                                  "(the counter would stay nonzero into the next launch)",
                                  "hang", [op])

    def _run_group(self, grid: ir.Operation, block: ir.Block, env: dict[ir.Value, Any],
                   cluster: Member | None = None) -> None:
        """One program; ``cluster``: the group in its running cluster (``simt_cluster``)."""
        clock = GroupClock()
        lane_parallels = 0
        for op in block.operations:
            name = op.name
            if name == "yield":
                if op.num_operands:
                    raise _unsupported(op, "a grid-level parallel yielding updates")
                if cluster is not None:
                    cluster.end(grid)
                return
            if name == "memory":
                t = op.result.type
                dt = _dtype(t)
                if t.space != "shared":
                    raise _unsupported(op, f"group-level memory in space {t.space!r}")
                st = Storage.shared(self.shape_of(t), dt, value_name(op.result), op, clock)
                env[op.result] = LaneView.of(st)
                if cluster is not None:
                    cluster.storages[op] = st
            elif name == "view":
                base = self.lane_view(env[op.operand(0)])
                syms = tuple(np.int64(env[v]) for v in op.operands[1:])
                env[op.result] = base.view(op.attr("map"), syms, self.shape_of(op.result.type),
                                           op.attr("bounds", "total") == "total", op)
            elif name == "parallel" and op.attr("level") == "lane":
                lane_parallels += 1
                if lane_parallels > 1:
                    raise _unsupported(op, "a second lane-level parallel in one group body "
                                           "(lowering.md: exactly one)")
                self._run_lanes(grid, op, env, clock, cluster)
            elif op.opdef.effect == "pure" and not op.regions:
                super()._execute(op, env)
            else:
                raise _unsupported(op, "only memory, view, pure index code and the lane-level "
                                       "parallel may appear in a group body")
        raise _unsupported(grid, "the group body does not end in yield")

    def _run_lanes(self, grid: ir.Operation, op: ir.Operation, env: dict[ir.Value, Any],
                   clock: GroupClock, cluster: Member | None = None) -> None:
        if op.attr("rank") != 1 or op.num_operands != 1 or op.results:
            raise _unsupported(op, "the lane-level parallel takes exactly one extent, no inits")
        lanes = int(env[op.operand(0)])
        declared = grid.attr("threads")
        if declared is not None and int(declared) != lanes:
            raise _unsupported(op, f"the lane-level parallel runs {lanes} threads but the grid "
                                   f"declares threads = {declared}")
        if lanes <= 0:
            return
        if cluster is not None:  # the detector's mirror lanes
            cluster.prepare(clock, lanes)
        group = LaneRunner(self, env, lanes, clock)
        if cluster is not None:
            cluster.attach(group, op)
        region = op.regions[0]
        outs = group.run_region(region, [np.arange(lanes, dtype=np.int64)],
                                np.ones(lanes, bool))
        if outs:
            raise _unsupported(op, "a lane-level parallel yielding values")
        group.finish()


# ------------------------------------------------------------------ lane level

LaneImpl = Callable[["LaneRunner", ir.Operation, list[Any], np.ndarray], Sequence[Any]]
"""``(group, op, per-thread operands, active mask) -> per-thread results``."""

LANE_OPS: dict[str, LaneImpl] = {}
"""Opcode to its implementation inside the lane-level body."""


def lane_op(*names: str) -> Callable[[LaneImpl], LaneImpl]:
    """Register the decorated function for ``names`` inside the lane-level body."""

    def deco(fn: LaneImpl) -> LaneImpl:
        for n in names:
            LANE_OPS[n] = fn
        return fn

    return deco


_MISSING = object()


class LaneRunner:
    """Runs the lane-level body of one group: all threads at once, under an active-thread mask."""

    def __init__(self, host: _Host, host_env: dict[ir.Value, Any], lanes: int,
                 clock: GroupClock) -> None:
        self.host = host
        """The host interpreter (shapes, global storage)."""
        self.lanes = lanes
        """Threads in the group (``T``)."""
        self.clock = clock
        """The group's barrier epoch."""
        self.copies = AsyncCopies(lanes)
        """The group's cp.async state."""
        self.wgmma = InFlightGroups(lanes // 128, clock)
        """The group's warpgroup instruction groups not yet retired."""
        self.cluster: Member | None = None
        """The group in its running cluster (``simt_cluster``; None: no cluster)."""
        self.mbarriers = Mbarriers(lanes, clock, clock.width or None)
        """The group's shared-memory barriers and tma.load copies."""
        self.bulk = BulkStores(lanes, clock)
        """The group's tensor stores in flight and proxy fences."""
        self.registers = Registers(lanes)
        """The group's register budgets per warpgroup (``setmaxnreg``)."""
        self.named_barriers: dict[int, np.ndarray] = {}
        """Per named barrier id, the set of threads that meet at it (``simt_roles``: one set
        per id)."""
        self.turns = TurnLedger()
        """The warpgroups' turns (``barrier.turn``), replayed at the end of the body."""
        self.roles: Any = None
        """The running role split's baton (``simt_roles``), None outside one."""
        self.env: dict[ir.Value, Any] = {}
        """Per-thread values (leading axis ``T``); uniform ones are broadcast on first use."""
        self._host_env = host_env
        self._diverged: list[ir.Operation] = []

    # -- values ----------------------------------------------------------------
    def get(self, v: ir.Value) -> Any:
        """The per-thread value of ``v``."""
        x = self.env.get(v, _MISSING)
        if x is not _MISSING:
            return x
        x = self._host_env.get(v, _MISSING)
        if x is _MISSING:
            raise InterpretError(None, f"a value of type {v.type} is used before it is defined")
        x = self._broadcast(x)
        self.env[v] = x
        return x

    def _broadcast(self, x: Any) -> Any:
        if isinstance(x, (LaneView, MemRef)):
            return self.host.lane_view(x)
        if x is None:
            return None
        if isinstance(x, tuple):
            return tuple(self._broadcast(e) for e in x)
        a = np.asarray(x)
        return np.broadcast_to(a, (self.lanes,) + a.shape)

    def divergence_cause(self) -> ir.Operation | None:
        """The innermost ``if`` that made some threads inactive (for divergence messages)."""
        return self._diverged[-1] if self._diverged else None

    # -- regions ---------------------------------------------------------------
    def run_region(self, region: ir.Region, args: Sequence[Any], active: np.ndarray
                   ) -> list[Any]:
        """Run ``region`` for the ``active`` threads; returns the operands of its ``yield``."""
        if len(region.blocks) != 1:
            owner = region.owner if isinstance(region.owner, ir.Operation) else None
            raise SimulationError("unstructured control flow (several blocks) in the lane-level "
                                  "body", "unsupported", [owner] if owner is not None else [])
        block = region.entry
        for a, v in zip(block.args, args):
            self.env[a] = v
        for op in block.operations:
            if op.name == "yield":
                return [self.get(v) for v in op.operands]
            self.execute(op, active)
        raise InterpretError(region.owner if isinstance(region.owner, ir.Operation) else None,
                             "a block ends without a terminator")

    def execute(self, op: ir.Operation, active: np.ndarray) -> None:
        """Run one operation of the lane-level body."""
        impl = LANE_OPS.get(op.name)
        if impl is None:
            raise _unsupported(op, f"'{op.name}' is not executable inside the lane-level body")
        args = [self.get(v) for v in op.operands]
        if self.wgmma.groups and not (op.name == "atom.call"
                                      and op.attr("catalog_id") in WGMMA_ATOMS):
            self.wgmma.check_operands(op, args)
        try:
            results = impl(self, op, args, active)
        except (SimulationError, InterpretError, KernelFailure):
            raise
        except ZeroDivisionError as e:
            raise _division_error(self, op, e) from None
        except Exception as e:  # a runtime failure of the program, located at its operation
            raise InterpretError(op, f"{type(e).__name__}: {e}") from e
        for r, v in zip(op.results, results):
            self.env[r] = v

    def run_branch(self, cause: ir.Operation, region: ir.Region, args: Sequence[Any],
                   active: np.ndarray, parent: np.ndarray) -> list[Any]:
        """Run a region under a mask narrower than ``parent`` because of ``cause``."""
        narrowed = not np.array_equal(active, parent)
        if narrowed:
            self._diverged.append(cause)
        try:
            return self.run_region(region, args, active)
        finally:
            if narrowed:
                self._diverged.pop()

    def uniform(self, op: ir.Operation, what: str, x: Any, active: np.ndarray) -> int:
        """The value ``x`` has in every active thread (a divergence error if they disagree)."""
        a = np.broadcast_to(np.asarray(x), (self.lanes,))[active]
        lo, hi = int(a.min()), int(a.max())
        if lo != hi:
            t_lo, t_hi = _extreme_threads(active, a)
            raise diverged(self, op, f"{what} differs across threads (thread {t_lo}: {lo}, "
                                     f"thread {t_hi}: {hi}); loop bounds must be uniform "
                                     "across the group")
        return lo

    # -- scalar regions of map and reduce -------------------------------------------
    def run_elementwise(self, region: ir.Region, args: Sequence[Any], rank: int,
                        active: np.ndarray) -> list[Any]:
        """Run a scalar region once over arrays ``(T, *shape)`` (``rank`` trailing axes).

        Values from outside the region are per-thread scalars, reshaped to
        broadcast against the arrays; ``active`` only keeps inactive threads
        from faulting (their results are never observed).
        """
        block = region.entry
        local: dict[ir.Value, Any] = dict(zip(block.args, args))

        def get(v: ir.Value) -> Any:
            x = local.get(v, _MISSING)
            return lane_broadcast(self.get(v), rank) if x is _MISSING else x

        for op in block.operations:
            if op.name == "yield":
                return [get(v) for v in op.operands]
            vals = [get(v) for v in op.operands]
            name = op.name
            try:
                if name == "constant":
                    if not isinstance(op.result.type, ir.ScalarType):
                        raise _unsupported(op, "a tile constant inside a scalar region")
                    out = [nx.from_python(op.attr("value"), _dtype(op.result.type))]
                elif name == "arith":
                    out = [_arith(op, vals, active)]
                elif name == "if":
                    out = self._select_if(op, vals[0], rank, active)
                elif name == "tuple":
                    out = [tuple(vals)]
                elif name == "tuple_get":
                    out = [vals[0][op.attr("index")]]
                else:
                    raise _unsupported(op, f"'{name}' inside a map/reduce region")
            except (SimulationError, InterpretError):
                raise
            except ZeroDivisionError as e:
                raise _division_error(self, op, e) from None
            except Exception as e:
                raise InterpretError(op, f"{type(e).__name__}: {e}") from e
            for r, v in zip(op.results, out):
                local[r] = v
        raise InterpretError(None, "a scalar region ends without yield")

    def _select_if(self, op: ir.Operation, cond: Any, rank: int, active: np.ndarray
                   ) -> list[Any]:
        for region in op.regions:
            for inner in region.walk():
                if inner.opdef.effect not in ("pure", "control") or inner.name == "call":
                    raise _unsupported(op, f"'{inner.name}' inside an 'if' evaluated per "
                                           "element: only pure scalar code can be selected")
        then = self.run_elementwise(op.regions[0], [], rank, active)
        other = self.run_elementwise(op.regions[1], [], rank, active)
        return [nx.evaluate("select", (cond, a, b), _dtype(r.type), _dtype(r.type))
                for a, b, r in zip(then, other, op.results)]

    def finish(self) -> None:
        """End of the body: land copies no thread waited for (nothing can observe them); a
        warpgroup instruction group never retired, or a barrier whose transaction count is
        not zero, is an error."""
        self.copies.wait(np.ones(self.lanes, bool), 0)
        self.wgmma.finish()
        self.mbarriers.finish()
        self.bulk.finish()
        self.turns.finish()


def _arith(op: ir.Operation, args: list[Any], active: np.ndarray | None = None) -> Any:
    fn = op.attr("fn")
    operand_type = op.operand(1 if fn == "select" else 0).type
    odt = _dtype(operand_type)
    if active is not None and fn in _INT_DIVISIONS and not nx.is_float_dtype(odt):
        # Inactive threads compute too (lock-step); their divisors must not fault.
        divisor = np.asarray(args[1])
        if divisor.ndim and divisor.shape[0] == active.shape[0]:
            mask = active.reshape((-1,) + (1,) * (divisor.ndim - 1))
            args = [args[0], np.where(mask, divisor, 1).astype(divisor.dtype)]
    return nx.evaluate(fn, args, odt, _dtype(op.result.type))


def _division_error(g: LaneRunner, op: ir.Operation, e: ZeroDivisionError) -> Exception:
    """A zero divisor in the lane-level body: the program's error, at the division (the
    lowering guards every division it may meet, so this is Machine IR written without)."""
    if op.name != "arith":
        return InterpretError(op, f"{type(e).__name__}: {e}")
    return CheckInfo.division(op).failure(g.host.kernel_name)


def _full(x: Any, shape: tuple[int, ...], dt: np.dtype) -> np.ndarray:
    a = np.asarray(x)
    if a.dtype != dt:
        a = a.astype(dt)
    return np.broadcast_to(a, shape) if a.shape != shape else a


# ------------------------------------------------------------------ lane-level operations


@lane_op("constant")
def _constant(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
              ) -> Sequence[Any]:
    t = op.result.type
    dt = _dtype(t)
    shape = g.host.shape_of(t) if isinstance(t, ir.TileType) else ()
    return [np.full((g.lanes,) + shape, nx.from_python(op.attr("value"), dt), dt)]


@lane_op("iota")
def _iota(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
          ) -> Sequence[Any]:
    t = op.result.type
    shape = g.host.shape_of(t)
    values = lane_coords(op.attr("map"), shape, args, g.lanes)[0]
    return [nx.cast(values, _dtype(t))]


@lane_op("arith")
def _lane_arith(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
                ) -> Sequence[Any]:
    return [_full(_arith(op, args, active), (g.lanes,), _dtype(op.result.type))]


@lane_op("tuple")
def _tuple(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
           ) -> Sequence[Any]:
    return [tuple(args)]


@lane_op("tuple_get")
def _tuple_get(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
               ) -> Sequence[Any]:
    return [args[0][op.attr("index")]]


@lane_op("map")
def _map(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
         ) -> Sequence[Any]:
    shape = g.host.shape_of(op.attr("shape"))
    rank = len(shape)
    ew = [x if isinstance(v.type, ir.TileType) else lane_broadcast(x, rank)
          for v, x in zip(op.operands, args)]
    outs = g.run_elementwise(op.regions[0], ew, rank, active)
    return [_full(v, (g.lanes,) + shape, _dtype(r.type)) for v, r in zip(outs, op.results)]


@lane_op("reduce")
def _reduce(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
            ) -> Sequence[Any]:
    # The reference's semantics (tileir.md, "Aggregation") with the thread axis kept in front.
    n_in = op.attr("n_inputs")
    inputs = [np.asarray(x) for x in args[:n_in]]
    dts = [_dtype(v.type) for v in op.operands[n_in:]]
    shape = inputs[0].shape[1:]
    axes = sorted(op.attr("axes"))
    kept = [a for a in range(len(shape)) if a not in axes]
    out_shape = (g.lanes,) + tuple(shape[a] for a in kept)
    count = math.prod(shape[a] for a in axes)
    perm = [0] + [a + 1 for a in kept] + [a + 1 for a in axes]
    moved = [np.transpose(x, perm).reshape(out_shape + (count,)) for x in inputs]
    seeds = [_full(lane_broadcast(s, len(kept)), out_shape, dt)
             for s, dt in zip(args[n_in:], dts)]
    return reduce_contributions(op, moved, seeds, lambda region, xs: g.run_elementwise(
        region, xs, np.ndim(xs[-1]) - 1, active), _full)


@lane_op("reindex")
def _reindex(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
             ) -> Sequence[Any]:
    src = np.asarray(args[0])
    extents = src.shape[1:]
    t = op.result.type
    shape, dt = g.host.shape_of(t), _dtype(t)
    coords = lane_coords(op.attr("map"), shape, args[1:], g.lanes)
    ok = np.ones((g.lanes,) + shape, bool)
    for c, e in zip(coords, extents):
        ok &= (c >= 0) & (c < e)
    fill = op.attr("fill")
    bad = ~ok & active.reshape((-1,) + (1,) * len(shape))
    if fill is None and bad.any():
        k = tuple(int(x) for x in np.argwhere(bad)[0])
        raise InterpretError(op, f"thread {k[0]}: element {k[1:]} reads outside the source "
                                 f"tile of shape {extents} (a reindex without fill must stay "
                                 f"in range)")
    lane = np.broadcast_to(np.arange(g.lanes).reshape((-1,) + (1,) * len(shape)), ok.shape)
    clipped = tuple(np.clip(c, 0, max(e - 1, 0)) for c, e in zip(coords, extents))
    out = src[(lane,) + clipped].astype(dt, copy=False)
    if not ok.all():
        out = np.where(ok, out, nx.from_python(0 if fill is None else fill, dt))
    return [out]


@lane_op("mma")
def _mma(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
         ) -> Sequence[Any]:
    # A per-thread tile product (the lane FFMA realization): the reference's strict order.
    a, b, c = (np.asarray(x) for x in args)
    out = np.array(c, copy=True)
    precision = op.attr("policy").precision
    for t in np.flatnonzero(active):
        out[t] = nx.matmul(a[t], b[t], c[t], precision)
    return [out]


lane_op("memory")(simt_access.memory_op)
lane_op("view")(simt_access.view_op)
lane_op("load")(simt_access.load_op)
lane_op("store")(simt_access.store_op)
lane_op("atomic")(simt_access.atomic_op)


@lane_op("if")
def _if(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
        ) -> Sequence[Any]:
    cond = np.broadcast_to(np.asarray(args[0], bool), (g.lanes,))
    masks = (active & cond, active & ~cond)
    if op.attr("roles") is not None:
        return run_roles(g, op, masks, active)
    outs = [g.run_branch(op, region, [], m, active) if m.any() else None
            for region, m in zip(op.regions, masks)]
    then, other = outs
    if then is None or other is None:
        taken = then if then is not None else other
        return taken if taken is not None else [_idle_value(g, r.type) for r in op.results]
    merged = []
    for a, b, r in zip(then, other, op.results):
        if isinstance(r.type, (ir.TileType, ir.ScalarType)):
            a, b = np.asarray(a), np.asarray(b)
            merged.append(np.where(cond.reshape((-1,) + (1,) * (a.ndim - 1)), a, b))
        elif a is b:
            merged.append(a)
        else:
            raise _unsupported(op, f"an 'if' whose branches yield different {r.type} values")
    return merged


def _idle_value(g: LaneRunner, t: ir.Type) -> Any:
    """A placeholder result for an operation no thread executed."""
    if isinstance(t, (ir.TileType, ir.ScalarType)):
        dt = _dtype(t)
        shape = g.host.shape_of(t) if isinstance(t, ir.TileType) else ()
        return np.full((g.lanes,) + shape, poison_value(dt), dt)
    return None


def _loop(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
          ) -> Sequence[Any]:
    lb = g.uniform(op, f"the lower bound of '{op.name}'", args[0], active)
    ub = g.uniform(op, f"the upper bound of '{op.name}'", args[1], active)
    step = g.uniform(op, f"the step of '{op.name}'", args[2], active)
    if step <= 0:
        raise InterpretError(op, f"loop step must be positive, got {step}")
    carried = list(args[3:])
    for iv in range(lb, ub, step):
        values = carried
        for stage in op.regions:
            values = g.run_region(stage, [np.full(g.lanes, iv, np.int64)] + values, active)
        carried = values
    return carried


lane_op("serial", "pipeline")(_loop)
lane_op("load_scalar")(simt_indexed.load_scalar)
lane_op("gather")(simt_indexed.gather_op)
lane_op("scatter")(simt_indexed.scatter_op)


@lane_op("atom.call")
def _atom_call(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
               ) -> Sequence[Any]:
    return run_atom(g, op, args, active)


@lane_op("check")
def _check(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
           ) -> Sequence[Any]:
    # The lowering gives a check uniform operands, so the whole group stops together; a
    # check its threads disagree on would leave some threads running past it.
    cond = np.broadcast_to(np.asarray(args[0], bool), (g.lanes,))[active]
    if cond.all():
        return []
    if cond.any():
        t_bad, t_ok = _extreme_threads(active, cond)
        raise diverged(g, op, f"the condition of a check differs across threads (thread {t_ok} "
                              f"passes, thread {t_bad} fails); a check must be uniform across "
                              "the group")
    first = int(np.flatnonzero(active)[0])
    values = [np.broadcast_to(np.asarray(v), (g.lanes,))[first] for v in args[1:]]
    raise CheckInfo.of(op).failure(g.host.kernel_name, values)


@lane_op("sync")
def _sync(g: LaneRunner, op: ir.Operation, args: list[Any], active: np.ndarray
          ) -> Sequence[Any]:
    if op.attr("scope") != "group":
        raise _unsupported(op, f"sync at scope {op.attr('scope')!r}: Machine TileIR uses "
                               "catalog atoms; only a group-scope sync is read as barrier.group")
    ATOM_IMPLS["barrier.group"](g, op, [], active)
    return [None] * len(op.results)


# ------------------------------------------------------------------ entry points


def simulate_module(module: ir.Module, fn_name: str, args: list, *,
                    max_groups: int | None = None, verify: bool = False) -> None:
    """Run Machine TileIR function ``@fn_name`` on user-level ``args``, writing arrays in place.

    ``args`` follow tileir.md's parameter convention (shape symbols come from
    the arrays through ``shape_bindings``). ``max_groups`` stops after that
    many groups (row-major); ``verify`` first runs ``ir.verify(module,
    "machine")``. Raises ``SimulationError`` for races, out-of-range
    accesses, divergence and unsupported Machine IR.
    """
    fn = module.lookup(fn_name)
    if fn is None:
        known = ", ".join(f"@{f.name}" for f in module)
        raise KeyError(f"no function @{fn_name} in the module (it has {known})")
    form = fn.attributes.get("form")
    if form != "machine":
        raise SimulationError(f"@{fn_name} is not Machine TileIR (form = {form!r}); lower it "
                              "with tilec.lower.lower_to_machine first", "unsupported")
    if verify:
        ir.verify(module, "machine")
    entry = bind_arguments(fn, args)
    HostChecks(fn).run(entry)
    with contiguous_arguments(entry) as entry:
        names = {id(a.root): f"%{p.name_hint}" if p.name_hint else f"parameter {i}"
                 for i, (p, a) in enumerate(zip(fn.args, entry)) if isinstance(a, MemRef)}
        _Host(module, max_groups, names, f"simulating @{fn_name}").run(fn, entry)


class SimtExecutable:
    """A Machine TileIR function ready to simulate; call it with the user arguments."""

    def __init__(self, module: ir.Module, fn_name: str) -> None:
        self.module = module
        """The Machine TileIR module."""
        self.fn_name = fn_name
        """The entry function."""
        self.source = str(module)
        """The printed Machine TileIR (this target's "generated source")."""

    def __call__(self, *args: Any) -> None:
        """Simulate on ``args`` (arrays are written in place)."""
        simulate_module(self.module, self.fn_name, list(args))


class SimtBackend:
    """Runs kernels through the SIMT simulator for one hardware profile."""

    pipeline = ("plan", "schedule", "machine", "allocate", "build")
    """The stages the compile driver runs (``tilec.driver``): the simulator runs Machine
    TileIR."""

    def __init__(self, name: str = "simt:cuda:sm_90", profile: str = "cuda:sm_90") -> None:
        self.name = name
        """The target name as registered."""
        self.profile = profile
        """The hardware profile the Machine TileIR is lowered for."""

    def compile(self, machine: ir.Module, fn_name: str) -> SimtExecutable:
        """An executable over a Machine TileIR module (Candidate modules go through
        ``tilec.driver.compile_module``, which plans and lowers them first)."""
        fn = machine.lookup(fn_name)
        if fn is None:
            raise KeyError(f"no function @{fn_name} in the module")
        if fn.attributes.get("form") != "machine":
            raise SimulationError(f"@{fn_name} is not Machine TileIR; lower it with "
                                  f"tilec.driver.compile_module(module, {fn_name!r}, "
                                  f"{self.name!r})", "unsupported")
        return SimtExecutable(machine, fn_name)

    def build(self, machine: ir.Module, fn_name: str, source: None = None) -> SimtExecutable:
        """The driver's build stage: an executable over the Machine module."""
        return self.compile(machine, fn_name)


def make_backend(target_name: str = "simt:cuda:sm_90") -> SimtBackend:
    """The registry factory: ``simt:<profile>`` (default profile ``cuda:sm_90``:
    ``resolve_profile_name``, as the planner reads the name)."""
    return SimtBackend(target_name, resolve_profile_name(target_name))
