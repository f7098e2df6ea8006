"""Candidate -> Scheduled TileIR: commit the planner's choices as attributes (lowering.md).

``schedule_module`` copies the Candidate module and, for every group (an
outermost ``parallel``), decides:

* the thread count (the matrix plan's, a forced candidate's, or a heuristic
  from the tile sizes for groups without matrix operations);
* each ``mma``'s realization (atom, distribution, accumulator mode), taken
  from the planner's selection, or the checked scalar reference;
* each ``reduce``'s strategy (``lane``, ``warp_shuffle``, ``shared``,
  ``serial``) and the row layouts it reads and produces;
* a distribution (``DistLayout``) for every tile value and a memory plan
  (``regs`` / ``shared``), and where an operand is consumed in another
  distribution than it is produced in, an explicit repartition record
  (``use_layouts``).

Layouts are assigned by classes: values that must share a distribution
(elementwise operands and results, loop-carried values, a resident
accumulator) form one class; anchors (matrix accumulators, row reductions)
fix a class's layout; the remaining classes take what their consumers demand
(the source of a broadcast takes the layout that makes the broadcast a
register renaming), and otherwise the coalesced ``blocked`` layout.
Operations are not changed, only annotated.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import tilec.ir as ir
from tilec.exec import TargetProfile, get_profile
from tilec.ir import dist_layout as L
from tilec.ir.dataflow import carried_in, closed_recurrence
from tilec.ir.layout_reduce import broadcast_image, in_place_reduction
from tilec.plan import GroupPlan, ModulePlan, extract_groups, plan_group
from tilec.plan.proofs import split_loop

from .cloning import clone_module
from .options import LoweringBug, LoweringError, LowerOptions
from .schedule_mma import (
    MmaChoice,
    bounded_k,
    bounded_mn,
    mark_forwarded,
    matrix_candidates,
    mma_choice,
    skips_k_tail,
    skips_outside,
)
from .schedule_staging import (
    beside_rings,
    coordinate_dependent,
    copies_per_version,
    fewest_versions,
    invariant_loads,
    matrix_uses,
    mma_labels,
    multicast_loads,
    plain_transpose,
    plan_staging,
    ring_bytes,
    staged_loads,
    static_shape,
    tensor_store_bytes,
)
from .top_level import check_top_level

__all__ = ["schedule_module", "MmaChoice", "GroupSchedule", "staged_loads", "invariant_loads",
           "coordinate_dependent", "multicast_loads",
           "SCHEDULE_ATTRS", "skips_k_tail", "skips_outside"]

SCHEDULE_ATTRS = ("exec", "layout", "mem", "use_layouts", "threads", "realization", "atom",
                  "distribution", "gm", "gn", "rm", "rn", "accumulator", "strategy",
                  "stage_layouts", "schedule", "versions", "in_flight", "release", "split_k",
                  "persistent", "traversal", "cluster", "pingpong", "turns", "tensor_store",
                  "physical_k", "forwarded", "bounded_mn")
"""Attributes this pass adds (the Scheduled verifier's vocabulary)."""

_ANCHOR_MMA = 3
_ANCHOR_ROWS = 2


@dataclass
class GroupSchedule:
    """Every decision for one group, before it is written as attributes."""

    op: ir.Operation
    """The group's ``parallel``."""
    threads: int
    """Threads per group."""
    plan: GroupPlan | None
    """The planner's report (None when the group has no matrix operation)."""
    mma: dict[ir.Operation, MmaChoice] = field(default_factory=dict)
    """Realization per ``mma``."""
    reduce: dict[ir.Operation, tuple[str, L.DistLayout | None, L.DistLayout]] = \
        field(default_factory=dict)
    """Per ``reduce``: strategy, required input layout (None: any) and result layout."""
    layouts: dict[ir.Value, L.DistLayout] = field(default_factory=dict)
    """The distribution of every tile value of the group."""
    uses: dict[tuple[ir.Operation, int], L.DistLayout] = field(default_factory=dict)
    """Operands consumed in another distribution than produced (repartitions)."""
    notes: list[str] = field(default_factory=list)
    """What was decided and why (kept in the report)."""
    staging: dict[ir.Operation, int] = field(default_factory=dict)
    """Loops whose matrix operands are double-buffered, with the ring-buffer versions."""
    in_flight: dict[ir.Operation, int] = field(default_factory=dict)
    """Staged loops whose warpgroup instruction groups stay in flight across the back edge:
    groups left pending at the end of an iteration (``wgmma.wait`` with that many)."""
    release: dict[ir.Operation, str] = field(default_factory=dict)
    """Staged loops whose ring versions are released through shared-memory barriers rather
    than a group barrier: ``"mbarrier"`` (``LowerOptions.mbarrier_ring``: thread 0 of the
    group refills) or ``"producer"`` (``LowerOptions.warp_specialized``: a producer
    warpgroup of its own refills; ``lower/machine_roles.py``)."""
    persistent: dict[ir.Operation, int] = field(default_factory=dict)
    """Warp-specialized loops whose group runs as a persistent grid: at most this many
    programs, each walking output tiles (``LowerOptions.persistent``;
    ``lower/machine_roles.py``)."""
    traversal: dict[ir.Operation, tuple[str, int]] = field(default_factory=dict)
    """Persistent loops whose walk takes its own traversal (the default plan's grouped
    order where the options name none)."""
    tensor_store: dict[ir.Operation, int] = field(default_factory=dict)
    """``store`` operations after a warp-specialized loop whose tile goes through this many
    shared buffers and tensor stores (``LowerOptions.tensor_store``)."""
    cluster: dict[ir.Operation, tuple[int, int]] = field(default_factory=dict)
    """Persistent loops whose programs run in clusters: (groups per cluster, the grid axis
    along which a cluster's groups take neighbouring tiles) (``LowerOptions.cluster``)."""
    pingpong: dict[ir.Operation, int] = field(default_factory=dict)
    """Persistent loops whose group has this many (2) consumer warpgroup sets taking
    alternate tiles (``LowerOptions.pingpong``)."""
    turns: dict[ir.Operation, int] = field(default_factory=dict)
    """Warp-specialized loops whose this many (2) consumer warpgroups take turns at their
    two warpgroup products per iteration (``LowerOptions.warpgroup_turns``)."""
    split: dict[ir.Operation, int] = field(default_factory=dict)
    """The K loop split over programs per output tile, with the split count
    (``LowerOptions.split_k``; ``plan.proofs.split_loop`` proved it legal)."""
    versions: dict[ir.Operation, int] = field(default_factory=dict)
    """Per ``mma``, the ring versions the planner chose with its candidate
    (``MatrixCandidate.ring_versions``, ``PlannerOptions.plan_ring_versions``): the staging
    plan places them instead of choosing its own (``schedule_staging.plan_staging``)."""


# ---------------------------------------------------------------------- entry point


def schedule_module(module: ir.Module, target: str, options: LowerOptions | None = None,
                    plan: ModulePlan | None = None) -> tuple[ir.Module, list[GroupSchedule]]:
    """A Scheduled copy of ``module`` for ``target`` and the decisions per group.

    ``plan`` is the planner's result for ``module`` (``plan.plan_module`` with
    ``options.planner`` and ``options.shapes``); without it every group is planned here."""
    options = options or LowerOptions()
    planned = {g.group: g for g in plan.groups} if plan is not None else None
    profile = get_profile(target)
    for fn in module:
        check_top_level(fn, profile.name)
    out, _ = clone_module(module)
    shapes = dict(options.shapes) if options.shapes else None
    sites = {s.op: s for s in extract_groups(out, options.planner, shapes)}
    groups: list[GroupSchedule] = []
    for fn in out:
        for op in fn.walk():
            if op.name != "parallel" or _enclosing_parallel(op) is not None:
                continue
            site = sites.get(op)
            group_plan = None
            if site is not None and site.workload is not None:
                group_plan = planned.get(site.label) if planned is not None else None
                if group_plan is None:
                    group_plan = plan_group(site.workload, profile, options.planner)
            g = _schedule_group(op, profile, options, group_plan)
            _annotate(g, op)
            groups.append(g)
        fn.attributes["form"] = "scheduled"
        fn.attributes["target"] = profile.name
        for block in fn.body.blocks:
            for op in block.operations:
                op.attributes.setdefault("exec", "uniform")
    return out, groups


def _enclosing_parallel(op: ir.Operation) -> ir.Operation | None:
    p = op.parent_op
    while p is not None and p.name != "parallel":
        p = p.parent_op
    return p


# ------------------------------------------------------------------------- helpers


def _tile_values(group: ir.Operation) -> list[ir.Value]:
    """Every tile-typed value defined inside the group, in program order."""
    out: list[ir.Value] = []
    for op in group.walk(include_self=False):
        for r in op.regions:
            for b in r.blocks:
                out.extend(a for a in b.args if isinstance(a.type, ir.TileType))
        out.extend(r for r in op.results if isinstance(r.type, ir.TileType))
    return out


def _pow2_floor(n: int) -> int:
    return 1 << (max(1, n).bit_length() - 1)


def _heuristic_threads(group: ir.Operation, options: LowerOptions) -> int:
    """Threads for a group without a matrix plan: enough for 16-byte chunks of its largest
    tile, a whole number of 32-lane subgroups, at most ``max_threads``."""
    if options.threads is not None:
        return options.threads
    if options.planner.threads is not None:
        return options.planner.threads
    exact = getattr(group.attr("constraint"), "threads", None)
    if exact is not None:  # the program's own request (tc.parallel(..., threads=N))
        return int(exact)
    best = 32
    for v in _tile_values(group):
        t = v.type
        n = math.prod(static_shape(t))
        chunk = L.vector_width(t.dtype, int(t.shape[-1]) if t.shape else 1)
        best = max(best, -(-n // chunk))
    threads = 1 << (best - 1).bit_length()
    return max(32, min(options.max_threads, threads))


# ----------------------------------------------------------------- matrix choices


def _team(rows: int, cols: int, threads: int, v: int) -> int:
    """Threads per row: spread the rows over all threads, within the row's chunks."""
    per_row = max(1, threads // max(1, rows))
    limit = min(per_row, cols // v)
    team = _pow2_floor(limit)
    while team > 1 and (cols % (team * v) or threads % team):
        team //= 2
    return team


def _reduce_plan(op: ir.Operation, threads: int, options: LowerOptions,
                 g: GroupSchedule | None = None
                 ) -> tuple[str, L.DistLayout | None, L.DistLayout]:
    n_in = op.attr("n_inputs")
    shape = static_shape(op.operand(0).type)
    axes = tuple(op.attr("axes"))
    kept = tuple(e for i, e in enumerate(shape) if i not in axes)
    state_t = op.results[0].type
    serial = ("serial", None, L.blocked(kept, threads, state_t.dtype))
    if not options.row_reductions or not shape or axes != (len(shape) - 1,):
        return serial
    cols = shape[-1]
    rows = math.prod(shape[:-1])
    v = min(L.vector_width(op.operand(k).type.dtype, cols) for k in range(n_in))
    tree = op.attr("policy").allows_tree and ir.merge_laws(op) is not None
    if tree and n_in == 1 and g is not None:
        # rows of a matrix accumulator (or of elementwise work on one): reduced where the
        # accumulator holds them, no repartition (ir.layout_reduce)
        src = _accumulator_layout(op.operand(0), g)
        out = broadcast_image(src) if src is not None else None
        if out is not None and not isinstance(in_place_reduction(src, out), str):
            return "in_place", src, out
    if not tree:
        if cols > 64:
            return serial
        team = 1
    else:
        team = _team(rows, cols, threads, v)
    try:
        lay_in = L.rows(shape, threads, team, v)
        lay_out = L.row_reduced(kept, threads, team)
    except L.LayoutError:
        return serial
    strategy = "lane" if team == 1 else "warp_shuffle" if team <= 32 else "shared"
    return strategy, lay_in, lay_out


def _accumulator_layout(v: ir.Value, g: GroupSchedule, depth: int = 6
                        ) -> L.DistLayout | None:
    """The accumulator layout of the matrix product ``v`` is, or is elementwise work on (the
    first such operand of a chain of ``map``s, or both arms of an ``if``, or the value a
    loop carries from one iteration's product to the next), where a matrix atom realizes
    it."""
    op = v.defining_op
    if depth == 0:
        return None
    if op is None:
        # a value a loop carries (a software-pipelined loop's scores, computed one
        # iteration ahead): the layout of what its body yields, which the carried class
        # shares (``_carried_edges``)
        nxt = carried_in(v)
        return None if nxt is None else _accumulator_layout(nxt, g, depth - 1)
    if op.name == "mma":
        ch = g.mma.get(op)
        ok = ch is not None and ch.distribution == "rectangle" and ch.atom is not None
        return ch.layout if ok else None  # type: ignore[union-attr]
    if op.name == "serial" and isinstance(v, ir.OpResult):
        # a loop's result is its accumulator's registers where the product stays resident
        y = op.regions[0].entry.terminator
        mma = y.operand(v.index).defining_op if y is not None else None
        ch = g.mma.get(mma) if mma is not None else None
        if ch is not None and ch.accumulator in ("resident", "direct") \
                and _recurrence_loop(mma) is op:
            return _accumulator_layout(mma.result, g, depth - 1)
        return None
    if op.name == "map":
        for x in op.operands:
            if isinstance(x.type, ir.TileType) and x.type.shape == v.type.shape:
                got = _accumulator_layout(x, g, depth - 1)
                if got is not None:
                    return got
    if op.name == "if" and isinstance(v, ir.OpResult):
        # either arm's value (e.g. scores masked only in some iterations): one layout both
        # arms give
        arms = [r.entry.terminator for r in op.regions]
        got = [_accumulator_layout(y.operand(v.index), g, depth - 1) if y is not None
               else None for y in arms]
        if got and got[0] is not None and all(x is got[0] for x in got):
            return got[0]
    return None


# ---------------------------------------------------------------------- classes


class _Classes:
    """Union-find over tile values that must share one distribution."""

    def __init__(self) -> None:
        self.parent: dict[ir.Value, ir.Value] = {}
        self.anchor: dict[ir.Value, tuple[int, L.DistLayout]] = {}
        self.layout: dict[ir.Value, L.DistLayout] = {}

    def find(self, v: ir.Value) -> ir.Value:
        p = self.parent.setdefault(v, v)
        if p is v:
            return v
        root = self.find(p)
        self.parent[v] = root
        return root

    def union(self, a: ir.Value, b: ir.Value) -> None:
        if a.type is not b.type:
            return
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.parent[rb] = ra
            if rb in self.anchor:
                self.set_anchor(ra, *self.anchor.pop(rb))

    def set_anchor(self, v: ir.Value, priority: int, layout: L.DistLayout) -> None:
        r = self.find(v)
        old = self.anchor.get(r)
        if old is None or priority > old[0]:
            self.anchor[r] = (priority, layout)

    def assigned(self, v: ir.Value) -> L.DistLayout | None:
        return self.layout.get(self.find(v))

    def assign(self, v: ir.Value, layout: L.DistLayout) -> bool:
        r = self.find(v)
        if r in self.layout:
            return False
        self.layout[r] = layout
        return True


def _carried_edges(op: ir.Operation) -> Iterable[tuple[ir.Value, ir.Value]]:
    """Pairs of values a structured op requires to share a layout."""
    if op.name in ("serial", "pipeline"):
        inits = op.operands[3:]
        first = op.regions[0].entry
        last_yield = op.regions[-1].entry.terminator
        for k, (init, res) in enumerate(zip(inits, op.results)):
            yield res, first.args[k + 1]
            yield res, init
            if last_yield is not None:
                yield res, last_yield.operand(k)
        for s in range(1, len(op.regions)):
            prev = op.regions[s - 1].entry.terminator
            blk = op.regions[s].entry
            if prev is not None:
                for k, a in enumerate(blk.args[1:]):
                    yield a, prev.operand(k)
    elif op.name == "parallel":
        rank = op.attr("rank")
        for init, a in zip(op.operands[rank:], op.regions[0].entry.args[rank:]):
            yield init, a
    elif op.name == "if":
        for r in op.regions:
            y = r.entry.terminator
            if y is not None:
                for res, v in zip(op.results, y.operands):
                    yield res, v
    elif op.name == "map":
        for v in op.operands:
            if isinstance(v.type, ir.TileType):
                for res in op.results:
                    yield res, v
        for a, b in zip(op.results, op.results[1:]):
            yield a, b
    elif op.name == "reduce":
        n_in = op.attr("n_inputs")
        for a, b in zip(op.operands[:n_in], op.operands[1:n_in]):
            yield a, b
        for a, b in zip(op.results, op.results[1:]):
            yield a, b


def _schedule_group(par: ir.Operation, profile: TargetProfile, options: LowerOptions,
                    plan: GroupPlan | None) -> GroupSchedule:
    inner = list(par.walk(include_self=False))
    for op in inner:
        for r in op.results:
            if isinstance(r.type, ir.TileType) and not all(d.is_static for d in r.type.shape):
                raise LoweringError(ir.format_located(
                    f"'{op.name}' makes {r.type}, whose extents are not all constants; "
                    "tiles are static", op.loc))
        if op.name == "memory" and op.result.type.space not in ("local", "shared"):
            raise LoweringError(ir.format_located(
                f"manual memory in space {op.result.type.space!r} is not realized (local and "
                "shared are, as group shared memory)", op.loc))
        if op.name == "call":
            raise LoweringError(ir.format_located("calls are not lowered; inline helpers",
                                                  op.loc))
    if len(par.operands) > par.attr("rank"):
        raise LoweringError(ir.format_located("a group with ancestor updates (parallel inits) "
                                              "is not lowered yet", par.loc))
    mmas = [o for o in inner if o.name == "mma"]
    cands = matrix_candidates(mmas, plan, options)
    counts = {c.threads for c in cands.values() if c is not None}
    if len(counts) > 1:
        raise LoweringBug(f"forced matrix candidates disagree on the thread count: {counts}")
    threads = counts.pop() if counts else _heuristic_threads(par, options)
    if threads > profile.max_threads_per_group:
        raise LoweringError(ir.format_located(
            f"{threads} threads per group exceed the {profile.name} limit of "
            f"{profile.max_threads_per_group}", par.loc))
    if threads % profile.subgroup_width:
        raise LoweringError(ir.format_located(
            f"{threads} threads per group is not a whole number of {profile.subgroup_width}-lane "
            f"subgroups, which {profile.name} groups are made of", par.loc))
    g = GroupSchedule(par, threads, plan)
    if plan is not None and plan.selected is None and not options.force_matrix:
        g.notes.append("matrix planner found no plan (" + "; ".join(plan.diagnostics)
                       + "): the checked scalar reference realizes every mma")
        if mmas and plan.fallback == "checked scalar reference":
            _warn_scalar_fallback(mmas[0], profile.name, plan.diagnostics)
    for op, label in mma_labels(mmas).items():
        g.mma[op] = bounded_mn(bounded_k(mma_choice(op, cands[op], threads, g.notes),
                                           label, plan, options, g.notes),
                                label, plan, options, g.notes)
    g.versions = {op: c.ring_versions for op, c in cands.items()
                  if c is not None and c.ring_versions is not None}
    mark_forwarded(g)
    for op in inner:
        if op.name == "reduce":
            g.reduce[op] = _reduce_plan(op, threads, options, g)
    _assign_layouts(g, inner)
    beside = beside_rings(plan, list(cands.values()))
    # Every loop's ring is allocated at once: a loop gets what is left beside the rings of
    # the loops before it (as placed, with the buffers of their tensor stores) and the
    # fewest versions of each loop after it (two, or a pipeline's window: as counted by the
    # planner), so that several K loops in one group fit together.
    loops = [op for op in inner if op.name in ("serial", "pipeline")]
    reserve = [ring_bytes(op, fewest_versions(op)) for op in loops]
    later = sum(reserve)
    placed = 0
    for op, counted in zip(loops, reserve):
        later -= counted
        stores = set(g.tensor_store)
        plan_staging(g, op, options, profile.shared_bytes_per_group - beside - placed - later,
                     profile.async_copies and profile.tensor_copies, profile.compute_units)
        placed += ring_bytes(op, g.staging.get(op, 0), copies_per_version(g, op))
        placed += sum(tensor_store_bytes(st, n) for st, n in g.tensor_store.items()
                      if st not in stores)
    if options.persistent and mmas and not g.persistent \
            and not any(n.startswith("not persistent") for n in g.notes):
        g.notes.append("not persistent: only a warp-specialized group walks tiles "
                       "(warp_specialized, on a target with warpgroup instructions and "
                       "tensor copies)")
    if options.pingpong and mmas and not g.pingpong \
            and not any("no ping-pong consumers" in n for n in g.notes):
        g.notes.append("no ping-pong consumers: only a persistent warp-specialized group's "
                       "consumers take alternate tiles")
    if options.warpgroup_turns and mmas and not g.turns \
            and not any("no warpgroup turns" in n for n in g.notes):
        g.notes.append("no warpgroup turns: only the consumers of a warp-specialized loop "
                       "take turns")
    if options.split_k > 1 and mmas:
        loop, note = split_loop(par, profile, options.split_k)
        if loop is not None:
            g.split[loop] = options.split_k
            g.notes.append(note)
        else:
            g.notes.append(f"no split-K: {note}")
    return g


def _warn_scalar_fallback(mma: ir.Operation, profile: str, why: list[str]) -> None:
    """A ``PerformanceWarning`` attributed to the ``mma``'s source line (where Python's
    warning machinery shows it, with that line): no matrix plan fits, the checked scalar
    reference realizes the group's matrix products."""
    text = (f"no matrix plan for {profile} fits this group ({'; '.join(why)}): the checked "
            "scalar reference realizes its matrix products, far slower than the matrix "
            "instructions (smaller tiles or fewer staged operands may fit)")
    loc = mma.loc
    if loc.known:
        warnings.warn_explicit(ir.PerformanceWarning(text), ir.PerformanceWarning,
                               loc.filename, loc.line, module="tilec")
    else:
        warnings.warn(ir.PerformanceWarning(text), stacklevel=3)


def _assign_layouts(g: GroupSchedule, inner: list[ir.Operation]) -> None:
    cl = _Classes()
    values = _tile_values(g.op)
    for v in values:
        cl.find(v)
    for op in inner:
        for a, b in _carried_edges(op):
            cl.union(a, b)
    forced: dict[tuple[ir.Operation, int], L.DistLayout] = {}
    # Values whose layout a realization fixes whatever their class gets: a class can hold
    # several such requirements (an mma result seeding another mma's loop, two recurrences
    # joined by an elementwise op or a shared initial value) and only one anchor wins it.
    fixed: dict[ir.Value, L.DistLayout] = {}
    for op, ch in g.mma.items():
        acc_in, res = op.operand_named("acc"), op.result
        mode = ch.accumulator
        loop = _recurrence_loop(op)
        # Every realization reads C in its accumulator layout and leaves D in it, so a C of
        # another class layout is a repartition record, never a silent mismatch.
        forced[(op, 2)] = ch.layout
        fixed[res] = ch.layout
        if mode in ("resident", "direct") and loop is not None:
            cl.union(res, acc_in)
            cl.set_anchor(res, _ANCHOR_MMA, ch.layout)
            # The carried slot stays in the accumulator's registers for the whole loop; the
            # initial value converts into it on entry and consumers of the loop result
            # convert out of it (the rules for loop operands and uses in ``_required``).
            pos = acc_in.index - 1  # type: ignore[attr-defined]
            fixed[acc_in] = fixed[loop.results[pos]] = ch.layout
            if mode == "direct":
                # a proved scalar epilogue (plan.proofs.scalar_epilogue) runs on the
                # accumulator's own registers: its result keeps their layout, and so do
                # its loaded tile operands (a bias row's reindex, a residual), which the
                # anchor hands down to them (``_demand``) before the store's demand for a
                # blocked value could, so each owner loads what it reads, no repartition
                for use in loop.results[pos].uses:
                    if use.owner.name == "map":
                        forced[(use.owner, use.index)] = ch.layout
                        fixed[use.owner.results[0]] = ch.layout
                        cl.set_anchor(use.owner.results[0], _ANCHOR_MMA, ch.layout)
            if mode == "resident":
                # D leaves through shared staging (not directly).
                blocked = L.blocked(ch.layout.shape, g.threads, res.type.dtype)
                for use in loop.results[pos].uses:
                    if use.owner.name in ("store", "atomic"):
                        forced[(use.owner, use.index)] = blocked
        else:
            cl.set_anchor(res, _ANCHOR_MMA, ch.layout)
            if loop is not None or ch.distribution == "scalar":
                cl.set_anchor(acc_in, _ANCHOR_MMA if loop is not None else 1,
                              L.blocked(ch.layout.shape, g.threads, res.type.dtype))
    for op, (_strategy, lay_in, lay_out) in g.reduce.items():
        if lay_in is not None:
            for k in range(op.attr("n_inputs")):
                cl.set_anchor(op.operand(k), _ANCHOR_ROWS, lay_in)
                forced[(op, k)] = lay_in
        for r in op.results:
            cl.set_anchor(r, _ANCHOR_ROWS, lay_out)
    for op in inner:
        if op.name == "atomic" and op.results:
            # an exchange (xchg, cas) is issued once per element and keeps each old value in
            # the register that held the new one: operands and result in one layout that
            # holds every element once
            lay = L.blocked(static_shape(op.result.type), g.threads, op.result.type.dtype)
            fixed[op.result] = lay
            for k in range(1, op.num_operands):
                forced[(op, k)] = lay
    for root, (_, lay) in cl.anchor.items():
        cl.layout[root] = lay
    _propagate(g, inner, cl, forced)
    for v in values:
        g.layouts[v] = cl.assigned(v)  # type: ignore[assignment]
    # Some producers fix their result's layout whatever the class got (another anchor of the
    # class may have won): the consumers then record a repartition.
    g.layouts.update(fixed)
    for op, (_strategy, _lay_in, lay_out) in g.reduce.items():
        for r in op.results:
            g.layouts[r] = lay_out
    _record_uses(g, inner, forced)


def _recurrence_loop(op: ir.Operation) -> ir.Operation | None:
    """The loop whose carried value the mma's accumulator is, if any
    (``ir.dataflow.closed_recurrence``)."""
    rec = closed_recurrence(op)
    return rec[0] if rec is not None else None


def _propagate(g: GroupSchedule, inner: list[ir.Operation], cl: _Classes,
               forced: dict[tuple[ir.Operation, int], L.DistLayout]) -> None:
    """Give unanchored classes what their consumers demand, else the blocked layout."""
    order = list(reversed(inner))
    while True:
        changed = True
        while changed:
            changed = False
            for op in order:
                changed |= _demand(g, op, cl, forced)
        left = [v for v in _tile_values(g.op) if cl.assigned(v) is None]
        if not left:
            return
        # elementwise work on a distributed value stays in its distribution (a cast of a
        # matrix accumulator to the next product's operand type: no repartition first)
        if any(_inherit(v, cl) for v in left):
            continue
        v = left[-1]
        cl.assign(v, L.blocked(static_shape(v.type), g.threads, v.type.dtype))


def _inherit(v: ir.Value, cl: _Classes) -> bool:
    """Give the result of an elementwise ``map`` its first distributed operand's layout (of
    the same shape); True when it did."""
    op = v.defining_op
    if op is None or op.name != "map":
        return False
    for x in op.operands:
        if isinstance(x.type, ir.TileType) and x.type.shape == v.type.shape:
            lay = cl.assigned(x)
            if lay is not None:
                return bool(cl.assign(v, lay))
    return False


def _demand(g: GroupSchedule, op: ir.Operation, cl: _Classes,
            forced: dict[tuple[ir.Operation, int], L.DistLayout]) -> bool:
    """Assign operand classes from what ``op`` needs of them; True when something changed."""
    changed = False
    for k, v in enumerate(op.operands):
        if not isinstance(v.type, ir.TileType) or cl.assigned(v) is not None:
            continue
        want = forced.get((op, k))
        if want is None and op.name == "reindex" and k == 0 and plain_transpose(op) \
                and matrix_uses(v) is not None:
            # x.T read only as a B operand: x is staged whole in shared memory (a K-major
            # B), so its registers are only its copy's, in the copy layout
            want = L.blocked(static_shape(v.type), g.threads, v.type.dtype)
        if want is None and op.name == "reindex" and k == 0:
            res = cl.assigned(op.result)
            if res is not None and op.num_operands == 1:
                want = L.image(res, op.attr("map"), static_shape(v.type))
        if want is None and op.name == "map":
            # an elementwise consumer reads its operands in its own layout: a free producer
            # (a coordinate tile, a constant) takes it instead of a repartition
            res = cl.assigned(op.results[0])
            if res is not None and static_shape(v.type) == res.shape:
                want = res
        if want is None and (op.name in ("store", "atomic") or (op.name == "scatter" and k == 2)):
            want = L.blocked(static_shape(v.type), g.threads, v.type.dtype)
        if want is None and op.name in ("gather", "scatter") and k == 1:
            # indices are read in the layout of the elements they address
            want = cl.assigned(op.result if op.name == "gather" else op.operand(2))
        if want is not None:
            changed |= cl.assign(v, want)
    return changed


def _required(g: GroupSchedule, op: ir.Operation, k: int,
              forced: dict[tuple[ir.Operation, int], L.DistLayout]) -> L.DistLayout | None:
    """The layout ``op`` consumes operand ``k`` in (None: whatever it is produced in)."""
    if (op, k) in forced:
        return forced[(op, k)]
    v = op.operand(k)
    if op.name == "map":
        return g.layouts[op.results[0]]
    if op.name in ("serial", "pipeline") and k >= 3:
        return g.layouts[op.results[k - 3]]
    if op.name == "yield":
        parent = op.parent_op
        if parent is None:
            return None
        if parent.name == "if":
            return g.layouts[parent.results[k]]
        if parent.name in ("serial", "pipeline"):
            stage = next(i for i, r in enumerate(parent.regions) if r is op.parent_region)
            if stage == len(parent.regions) - 1:
                return g.layouts[parent.results[k]]
            nxt = parent.regions[stage + 1].entry.args[k + 1]
            return g.layouts[nxt]
    if op.name == "gather" and k == 1:
        return g.layouts[op.result]
    if op.name == "scatter" and k == 1:
        return _required(g, op, 2, forced) or g.layouts[op.operand(2)]
    if op.name in ("store", "atomic", "scatter") and k == 1 + (op.name == "scatter"):
        lay = g.layouts[v]
        if lay.replicated and L.owner_predicate(lay) is None:
            return L.blocked(lay.shape, g.threads, v.type.dtype)
    return None


def _record_uses(g: GroupSchedule, inner: list[ir.Operation],
                 forced: dict[tuple[ir.Operation, int], L.DistLayout]) -> None:
    for op in inner:
        for k, v in enumerate(op.operands):
            if not isinstance(v.type, ir.TileType):
                continue
            want = _required(g, op, k, forced)
            if want is not None and want is not g.layouts[v]:
                g.uses[(op, k)] = want


# -------------------------------------------------------------------- annotation


def _layout_attr(values: Iterable[ir.Value], g: GroupSchedule) -> Any:
    items = [g.layouts.get(v) if isinstance(v.type, ir.TileType) else None for v in values]
    return items[0] if len(items) == 1 else tuple(items)



def _mem_plan(v: ir.Value) -> str:
    """``shared`` when every use stages it as a matrix operand, else ``regs``."""
    return "shared" if matrix_uses(v) is not None else "regs"


def _annotate(g: GroupSchedule, par: ir.Operation) -> None:
    par.attributes["level"] = "grid"
    par.attributes["threads"] = g.threads
    par.attributes["exec"] = "grid"
    for op in par.walk(include_self=False):
        if _in_scalar_region(op, par):
            continue
        op.attributes["exec"] = "group"
        tiles = [r for r in op.results if isinstance(r.type, ir.TileType)]
        if tiles:
            op.attributes["layout"] = _layout_attr(op.results, g)
            mems = [(_mem_plan(r) if isinstance(r.type, ir.TileType) else None)
                    for r in op.results]
            op.attributes["mem"] = mems[0] if len(mems) == 1 else tuple(mems)
        if op.name == "memory":
            op.attributes["mem"] = "shared"
        uses = [g.uses.get((op, k)) for k in range(op.num_operands)]
        if any(u is not None for u in uses):
            op.attributes["use_layouts"] = tuple(uses)
        if op.name == "mma":
            ch = g.mma[op]
            op.attributes.update(realization=ch.realization, distribution=ch.distribution,
                                 accumulator=ch.accumulator, gm=ch.gm, gn=ch.gn, rm=ch.rm,
                                 rn=ch.rn)
            if ch.atom is not None:
                op.attributes["atom"] = ch.atom
            if ch.physical_k:
                op.attributes["physical_k"] = True
            if ch.forwarded:
                op.attributes["forwarded"] = True
            if ch.bounded_mn:
                op.attributes["bounded_mn"] = ch.bounded_mn
        if op.name == "reduce":
            op.attributes["strategy"] = g.reduce[op][0]
        if op in g.staging:
            op.attributes["schedule"] = "double_buffer"
            op.attributes["versions"] = g.staging[op]
            if op in g.in_flight:
                op.attributes["in_flight"] = g.in_flight[op]
            if op in g.release:
                op.attributes["release"] = g.release[op]
            if op in g.persistent:
                op.attributes["persistent"] = g.persistent[op]
            if op in g.traversal:
                op.attributes["traversal"] = g.traversal[op]
            if op in g.cluster:
                op.attributes["cluster"] = g.cluster[op]
            if op in g.pingpong:
                op.attributes["pingpong"] = g.pingpong[op]
            if op in g.turns:
                op.attributes["turns"] = g.turns[op]
        if op in g.split:
            op.attributes["split_k"] = g.split[op]
        if op in g.tensor_store:
            op.attributes["tensor_store"] = g.tensor_store[op]
        if op.name == "pipeline":
            op.attributes["stage_layouts"] = tuple(
                tuple(g.layouts.get(a) if isinstance(a.type, ir.TileType) else None
                      for a in r.entry.args) for r in op.regions)


def _in_scalar_region(op: ir.Operation, group: ir.Operation) -> bool:
    """True inside a ``map``/``reduce`` body (scalar code, bound with its enclosing op)."""
    p = op.parent_op
    while p is not None and p is not group:
        if p.name in ("map", "reduce"):
            return True
        p = p.parent_op
    return False
