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
from tilec.ir.atoms import (
    LANE_ATOMS,
    MMA_ATOMS,
    SWIZZLE_ALIGN,
    SWIZZLE_BYTES,
    WGMMA_ATOMS,
    swizzle_slack,
    wgmma_for,
)
from tilec.ir.layout_reduce import broadcast_image, in_place_reduction
from tilec.plan import GroupPlan, MatrixCandidate, ModulePlan, extract_groups, plan_group
from tilec.plan.proofs import split_loop

from .cloning import clone_module
from .options import LoweringBug, LoweringError, LowerOptions
from .staged_windows import tensor_store_blocker, tma_eligible
from .top_level import check_top_level

__all__ = ["schedule_module", "MmaChoice", "GroupSchedule", "layout_of", "use_layout",
           "block_arg_layout", "staged_loads", "coordinate_dependent", "multicast_loads",
           "SCHEDULE_ATTRS"]

SCHEDULE_ATTRS = ("exec", "layout", "mem", "use_layouts", "threads", "realization", "atom",
                  "distribution", "gm", "gn", "rm", "rn", "accumulator", "strategy",
                  "stage_layouts", "schedule", "versions", "in_flight", "release", "split_k",
                  "persistent", "traversal", "cluster", "tensor_store")
"""Attributes this pass adds (the Scheduled verifier's vocabulary)."""

_ANCHOR_MMA = 3
_ANCHOR_ROWS = 2


@dataclass(frozen=True)
class MmaChoice:
    """How one ``mma`` is realized."""

    realization: str
    """``mma.m16n8k16.bf16`` ... (an ``atom.call`` atom), ``ffma`` (lane FMAs) or ``reference``."""
    atom: str | None
    """The planner's atom id (None for the reference)."""
    distribution: str
    """``rectangle``, ``one_atom`` or ``scalar``."""
    gm: int
    """Subgroup rows."""
    gn: int
    """Subgroup columns."""
    rm: int
    """Atom rows per subgroup."""
    rn: int
    """Atom columns per subgroup."""
    accumulator: str
    """``resident``, ``direct`` or ``nonresident``."""
    layout: L.DistLayout
    """The accumulator's distribution."""


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
    split: dict[ir.Operation, int] = field(default_factory=dict)
    """The K loop split over programs per output tile, with the split count
    (``LowerOptions.split_k``; ``plan.proofs.split_loop`` proved it legal)."""


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


def _static(t: ir.TileType) -> tuple[int, ...]:
    """The extents of a tile of the group (``_schedule_group`` refused symbolic ones)."""
    try:
        return tuple(int(e) for e in t.shape)
    except ValueError:
        raise LoweringBug(f"internal: tile {t} has a symbolic extent past the check") from None


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
        n = math.prod(_static(t))
        chunk = L.vector_width(t.dtype, int(t.shape[-1]) if t.shape else 1)
        best = max(best, -(-n // chunk))
    threads = 1 << (best - 1).bit_length()
    return max(32, min(options.max_threads, threads))


# ----------------------------------------------------------------- matrix choices


def _mma_choice(op: ir.Operation, cand: MatrixCandidate | None, threads: int,
                notes: list[str]) -> MmaChoice:
    a_t, _, c_t = (v.type for v in op.operands)
    m, n = _static(c_t)
    ref = MmaChoice("reference", None, "scalar", 1, 1, 1, 1, "nonresident",
                    L.blocked((m, n), threads, c_t.dtype))
    if cand is None or cand.realization == "scalar" or cand.atom is None:
        return ref
    atom_id = cand.atom.id
    strict = op.attr("policy").order == "strict_fold"
    if atom_id in MMA_ATOMS and strict:
        notes.append(f"{atom_id} sums in hardware order; a strict_fold mma keeps the scalar "
                     "reference")
        return ref
    if atom_id in MMA_ATOMS:
        mma = MMA_ATOMS[atom_id]
        realization, am, an, frag = atom_id, mma.am, mma.an, mma.c
    elif atom_id in LANE_ATOMS:
        lane = LANE_ATOMS[atom_id]
        realization, am, an, frag = "ffma", lane.am, lane.an, lane.c
    else:
        notes.append(f"{atom_id} has no Machine realization here; the scalar reference is used")
        return ref
    d = cand.distribution
    if d is None:
        raise LoweringBug(f"internal: the planner's {cand.realization} candidate of "
                          f"{cand.op} ({atom_id}) has no subgroup distribution")
    if cand.realization == "one_atom":
        layout = L.one_atom((m, n), threads, am, an, frag.map, frag.regs)
        return MmaChoice(realization, atom_id, "one_atom", 1, d.subgroups, 1, 1, "nonresident",
                         layout)
    if cand.realization == "wgmma":
        wg = wgmma_for(mma.in_dtype) if atom_id in MMA_ATOMS else None
        if wg is None:
            notes.append(f"{atom_id} has no warpgroup instruction; the scalar reference is used")
            return ref
        realization = wg.catalog_id
    if realization == "ffma":
        layout = L.lane_tile((m, n), threads, d.gm, d.gn, d.rm, d.rn, am, an, frag.map,
                             frag.regs)
    else:
        layout = L.fragment_acc((m, n), threads, d.gm, d.gn, d.rm, d.rn, am, an, frag.map,
                                frag.regs)
    return MmaChoice(realization, atom_id, "rectangle", d.gm, d.gn, d.rm, d.rn,
                     cand.accumulator, layout)


def _mma_labels(mmas: Iterable[ir.Operation]) -> dict[ir.Operation, str]:
    """The planner's label of each of a group's ``mma`` operations, in group order
    (``mma#0``, ``mma#1`` ...: how its workloads and candidates name them)."""
    return {op: f"mma#{i}" for i, op in enumerate(mmas)}


def _matrix_candidates(mmas: list[ir.Operation], plan: GroupPlan | None,
                       options: LowerOptions) -> dict[ir.Operation, MatrixCandidate | None]:
    out: dict[ir.Operation, MatrixCandidate | None] = {}
    chosen = {}
    if plan is not None and plan.selected is not None:
        chosen = {p.candidate.op: p.candidate for p in plan.selected.choices}
    for op, label in _mma_labels(mmas).items():
        if options.force_matrix is not None and label in options.force_matrix:
            out[op] = options.force_matrix[label]
        elif options.matrix_realizations:
            out[op] = chosen.get(label)
        else:
            out[op] = None
    return out


# -------------------------------------------------------------------- reductions


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
    shape = _static(op.operand(0).type)
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
    first such operand of a chain of ``map``s), where a matrix atom realizes it."""
    op = v.defining_op
    if op is None or depth == 0:
        return None
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
    cands = _matrix_candidates(mmas, plan, options)
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
    for op in mmas:
        g.mma[op] = _mma_choice(op, cands[op], threads, g.notes)
    for op in inner:
        if op.name == "reduce":
            g.reduce[op] = _reduce_plan(op, threads, options, g)
    _assign_layouts(g, inner)
    beside = _beside_rings(plan, list(cands.values()))
    for op in inner:
        if op.name in ("serial", "pipeline"):
            _plan_staging(g, op, options, profile.shared_bytes_per_group - beside,
                          profile.async_copies and profile.tensor_copies,
                          profile.compute_units)
    if options.persistent and mmas and not g.persistent \
            and not any(n.startswith("not persistent") for n in g.notes):
        g.notes.append("not persistent: only a warp-specialized group walks tiles "
                       "(warp_specialized, on a target with warpgroup instructions and "
                       "tensor copies)")
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


def _beside_rings(plan: GroupPlan | None, cands: list[MatrixCandidate | None]) -> int:
    """Shared bytes the planner counts for the group beside its staged operands: each
    candidate's footprint without its A and B (an accumulator's trip through shared
    memory) and the common allocations. The rings get what is left of the capacity."""
    if plan is None:
        return 0
    works = {w.op: w for w in plan.workload.ops}
    total = plan.workload.common_shared_bytes
    for c in cands:
        if c is None or c.op not in works:
            continue
        st = works[c.op].staging_bytes()
        total += max(0, c.shared_bytes - st["A"] - st["B"])
    return total


def _plan_staging(g: GroupSchedule, loop: ir.Operation, options: LowerOptions,
                  shared_limit: int | None = None, tensor_copies: bool = False,
                  units: int | None = None) -> None:
    """Double-buffer a loop's matrix operand loads: ``pipeline`` with ``window >= 2``, and
    ``serial`` loops too (automatic software pipelining) unless disabled. A loop feeding
    warpgroup instructions gets ``wgmma_stages`` versions (by default 4 with a producer
    warpgroup, else 3), fewer (down to 2) when that many would not fit ``shared_limit``:
    the group's shared memory less what the planner counts beside the rings
    (``_beside_rings``). ``units``: the profile's compute units (a persistent grid's
    default size)."""
    window = loop.attr("window") if loop.name == "pipeline" else None
    if loop.name == "pipeline" and (window is None or window < 2):
        return
    if loop.name == "serial" and not options.double_buffer:
        return
    staged = staged_loads(loop)
    if not staged:
        return
    if any(g.mma[m].realization == "reference" for uses in staged.values() for m, _ in uses):
        g.notes.append(f"{loop.name} at {loop.loc}: the scalar reference does not stage ahead")
        return
    wgmma = any(g.mma[m].realization in WGMMA_ATOMS
                for uses in staged.values() for m, _ in uses)
    copies = tensor_copies and options.tma and options.async_copies
    ws = options.warp_specialized
    auto = wgmma and ws is None and copies
    why_roles = None
    if wgmma and (ws or auto):
        why_roles = (_auto_roles_blocker(g, staged) if auto else None) \
            or _roles_blocker(loop, g, options)
        if auto and why_roles is not None:
            g.notes.append(f"{loop.name} at {loop.loc}: no producer warpgroup by default: "
                           f"{why_roles}")
    roles = bool(ws) or (auto and why_roles is None)  # a producer asked for (or the default)
    versions = _ring_versions(staged, options, options.wgmma_stages or (4 if roles else 3),
                              shared_limit) if wgmma else options.stages
    g.staging[loop] = window or versions
    if wgmma and (options.mbarrier_ring or roles):
        why = _ring_blocker(loop, g, staged, g.staging[loop], copies)
        if why is None:
            g.release[loop] = "mbarrier"
            g.in_flight[loop] = 1
            g.notes.append(f"{loop.name} at {loop.loc}: ring versions released through "
                           "mbarriers (one wgmma group in flight, tensor copies "
                           f"{g.staging[loop] - 1} iterations ahead)")
            if roles and why_roles is None:
                g.release[loop] = "producer"
                how = " by default" if auto else ""
                g.notes.append(f"{loop.name} at {loop.loc}: warp-specialized{how}: a "
                               "producer warpgroup issues the copies for "
                               f"{g.threads // 128} consumer warpgroup(s) (128 more "
                               f"threads), {g.staging[loop]} ring versions")
                _plan_persistent(g, loop, options, units)
                _plan_cluster(g, loop, options)
                _plan_tensor_store(g, loop, options, staged, shared_limit)
            elif ws:
                g.notes.append(f"{loop.name} at {loop.loc}: not warp-specialized: "
                               f"{why_roles}")
            return
        if options.mbarrier_ring or ws:
            g.notes.append(f"{loop.name} at {loop.loc}: no mbarrier ring: {why}")
        elif auto:  # the default's producer needs the ring: the ordinary ring instead
            g.notes.append(f"{loop.name} at {loop.loc}: no producer warpgroup by default: "
                           f"{why}")
            g.staging[loop] = window or _ring_versions(staged, options,
                                                       options.wgmma_stages or 3,
                                                       shared_limit)
    if wgmma and options.wgmma_in_flight:
        why = _in_flight_blocker(loop, g, g.staging[loop], options.wgmma_in_flight)
        if why is None:
            g.in_flight[loop] = options.wgmma_in_flight
            g.notes.append(f"{loop.name} at {loop.loc}: {options.wgmma_in_flight} wgmma "
                           "group(s) stay in flight across iterations (the ring is refilled "
                           "one iteration later)")
        else:
            g.notes.append(f"{loop.name} at {loop.loc}: every iteration waits for its wgmma "
                           f"group: {why}")


def _ring_versions(staged: dict[ir.Operation, list[tuple[ir.Operation, int]]],
                   options: LowerOptions, versions: int, shared_limit: int | None) -> int:
    """``versions`` of a warpgroup ring, fewer (down to ``max(2, options.stages)``) where
    that many would not fit ``shared_limit``."""
    if shared_limit is None:
        return versions
    per = sum(math.prod(_static(ld.result.type)) * ld.result.type.dtype.bytes for ld in staged)
    slack = swizzle_slack(len(staged))
    while versions > max(2, options.stages) and versions * (per + 8) + slack > shared_limit:
        versions -= 1
    return versions


def _auto_roles_blocker(g: GroupSchedule,
                        staged: dict[ir.Operation, list[tuple[ir.Operation, int]]]
                        ) -> str | None:
    """Why the default plan (``warp_specialized=None``) gives a staged wgmma loop no
    producer warpgroup, or None. The rule is the H100 sweep's (benchmarks/cuda_ws.py at
    eab1943, docs/design/warp_specialization.md): with two consumer warpgroups (256
    threads: 128-row tiles) the producer ran 128x256x64 tiles 1.2-1.75x faster at every
    measured shape and 128x128x64 and 128x64x64 faster at most; with one consumer
    warpgroup it was slower as often as faster; and where an operand's rows are not 16-byte
    aligned (bf16 3000x500x2000) the tensor copies fall back in the kernel and the
    producer ran up to 1.6x slower. The call's pitches are the planner's
    (``MatrixWorkload.a_aligned_rows``); without a plan there is no default."""
    if g.threads != 256:
        return f"{g.threads // 128 or 1} consumer warpgroup(s), not two"
    if g.plan is None:
        return "no matrix plan prices the group"
    works = {w.op: w for w in g.plan.workload.ops}
    labels = _mma_labels(g.mma)
    for uses in staged.values():
        for m, _ in uses:
            w = works.get(labels[m])
            if w is None:
                return f"the planner has no workload for the mma at {m.loc}"
            if w.a_aligned_rows < 1.0 or w.b_aligned_rows < 1.0:
                return (f"the operand rows of the mma at {m.loc} are not all 16-byte aligned "
                        "(the tensor copies would fall back)")
    return None


def _ring_blocker(loop: ir.Operation, g: GroupSchedule,
                  staged: dict[ir.Operation, list[tuple[ir.Operation, int]]], versions: int,
                  tensor_copies: bool) -> str | None:
    """Why the ring of ``loop`` cannot be released through mbarriers, or None: the target
    and options give tensor copies, every staged operand feeds warpgroup instructions and
    may be filled by tensor copies, and one instruction group may stay in flight."""
    if not tensor_copies:
        return "the target or the options give no tensor copies"
    for ld, uses in staged.items():
        if not all(g.mma[m].realization in WGMMA_ATOMS for m, _ in uses):
            return f"the staged load at {ld.loc} feeds an instruction other than wgmma"
        if not tma_eligible(ld, g.layouts[ld.result]):
            return f"the staged load at {ld.loc} cannot be filled by tensor copies"
    return _in_flight_blocker(loop, g, versions, 1)


_ROLE_FREE_OPS = ("constant", "arith", "view")
"""Operations that may precede a warp-specialized loop in the group body: every thread
(the producer warpgroup too) runs them, so they must neither access memory nor
synchronize."""

_TILE_DIVISIONS = ("div", "floordiv", "rem", "cdiv")


def _roles_blocker(loop: ir.Operation, g: GroupSchedule, options: LowerOptions
                   ) -> str | None:
    """Why the mbarrier ring of ``loop`` cannot get a producer warpgroup of its own, or
    None. The producer's code is the loop's copies only, split from the consumers' before
    the loop, so the loop must sit directly in the group body after operations that any
    thread may run (``_ROLE_FREE_OPS``), the group must be one or two whole warpgroups, no
    split K (its protocol meets every thread after the loop), and nothing in the group may
    need a barrier of every thread (an integer tile division's zero vote)."""
    group = g.op
    if loop.parent is not group.regions[0].entry:
        return "the loop is not directly in the group body"
    if g.threads % 128 or g.threads // 128 not in (1, 2):
        return f"the group's {g.threads} threads are not one or two whole warpgroups"
    if options.split_k > 1:
        return "split-K meets every thread of the group after the loop"
    for op in loop.parent.operations:
        if op is loop:
            break
        if op.name not in _ROLE_FREE_OPS:
            return (f"the '{op.name}' at {op.loc} before the loop would run on the producer's "
                    "threads too")
    for op in group.walk(include_self=False):
        r = op.results[0].type if op.results else None
        if op.name == "arith" and op.attr("fn") in _TILE_DIVISIONS \
                and isinstance(r, ir.TileType) and not r.dtype.is_float:
            return (f"the integer tile division at {op.loc} checks its divisors with a "
                    "barrier of every thread")
    return None


def _plan_persistent(g: GroupSchedule, loop: ir.Operation, options: LowerOptions,
                     units: int | None = None) -> None:
    """Make the warp-specialized group of ``loop`` a persistent grid of at most
    ``options.persistent`` programs (each walks output tiles, both roles carrying the ring's
    phases from tile to tile), or note why not: the loop's bounds must not depend on the
    group's coordinates (every role computes them once, before its walk). By default
    (``persistent=None``) ``units`` programs (the launch takes ``min(tiles, units)``),
    walking the tiles in the grouped traversal unless the options name one (the loop's
    ``traversal``); not where the shapes are static and give fewer than two output tiles
    per unit. The H100 sweep (benchmarks/cuda_ws.py at eab1943) ran 128x256x64 and
    128x128x64 tiles so 5-25% faster at 4096^3, 4096x4096x1024 and 8192^3, and from 7%
    slower to 4% faster with fewer tiles than compute units (one tile per program)."""
    count = options.persistent
    auto = count is None
    if auto:
        programs = g.plan.workload.programs if g.plan is not None else None
        if not units:
            g.notes.append(f"{loop.name} at {loop.loc}: not persistent by default: the "
                           "profile does not give its compute units")
            return
        if programs is not None and programs < 2 * units:
            g.notes.append(f"{loop.name} at {loop.loc}: not persistent by default: "
                           f"{programs} output tiles, fewer than two per compute unit "
                           f"({units})")
            return
        count = units
    if not count:
        return
    body = g.op.regions[0].entry
    varying = coordinate_dependent(body)
    for k, what in enumerate(("start", "end", "step")):
        d = loop.operand(k)
        if d in body.args or d.defining_op in varying:
            g.notes.append(f"{loop.name} at {loop.loc}: not persistent: the loop's {what} "
                           "depends on the program's coordinates")
            return
    g.persistent[loop] = count
    if auto and options.planner.program_traversal is None:
        g.traversal[loop] = ("grouped", 8)
    trav = g.traversal.get(loop)
    g.notes.append(f"{loop.name} at {loop.loc}: persistent{' by default' if auto else ''}: "
                   f"at most {count} programs walk the output tiles in the "
                   f"{'grid' if trav is None else ':'.join(map(str, trav))} traversal order")


TENSOR_STORE_BUFFERS = 2
"""Shared buffers of a tensor-stored tile: one chunk is written while the last one's store
reads the other."""


def _plan_tensor_store(g: GroupSchedule, loop: ir.Operation, options: LowerOptions,
                       staged: dict[ir.Operation, list[tuple[ir.Operation, int]]],
                       shared_limit: int | None) -> None:
    """Send the tiles that the warp-specialized group of ``loop`` stores after it (``store``
    operations of the group body) through shared buffers and tensor stores, or note why
    not (``staged_windows.tensor_store_blocker``; the buffers, two 128-byte-wide chunks of
    the tile's rows each, must fit beside the ring in ``shared_limit``)."""
    if options.tensor_store is False:
        return
    body = g.op.regions[0].entry
    ops = list(body.operations)
    after = ops[ops.index(loop) + 1:] if loop in ops else []
    per = sum(math.prod(_static(ld.result.type)) * ld.result.type.dtype.bytes for ld in staged)
    # the rings and their two barriers per version from a 1024-byte aligned base; each
    # buffer after the barriers may start up to 1024 bytes later (``ir.allocation``)
    used = g.staging[loop] * (per + 16) + SWIZZLE_ALIGN
    for st in after:
        if st.name != "store":
            continue
        where = f"store at {st.loc}"
        lay = g.uses.get((st, 1)) or g.layouts.get(st.operand(1))
        why = "the stored value has no layout" if lay is None else tensor_store_blocker(st, lay)
        if why is None:
            rows = int(st.operand(1).type.shape[0])
            need = TENSOR_STORE_BUFFERS * rows * SWIZZLE_BYTES + SWIZZLE_ALIGN
            if shared_limit is not None and used + need > shared_limit:
                why = (f"its {need} bytes of buffers do not fit beside the ring's {used} "
                       f"(the group has {shared_limit})")
        if why is not None:
            g.notes.append(f"{where}: stored from registers, not through tensor stores: {why}")
            continue
        used += need
        g.tensor_store[st] = TENSOR_STORE_BUFFERS
        g.notes.append(f"{where}: through {TENSOR_STORE_BUFFERS} swizzled shared buffers and "
                       "tensor stores, one per 128-byte column chunk")


def _plan_cluster(g: GroupSchedule, loop: ir.Operation, options: LowerOptions) -> None:
    """Run the persistent group of ``loop`` in clusters of ``options.cluster`` groups, or
    note why not. The cluster's groups take neighbouring tiles along the grid's last axis
    but one (else its last axis) such that some staged operand's window does not depend on
    that axis: that operand is copied once per cluster, half by each group's producer, into
    every group's ring (multicast)."""
    n = options.cluster
    if not n or n == 1:
        return
    where = f"{loop.name} at {loop.loc}"
    if loop not in g.persistent:
        g.notes.append(f"{where}: no cluster: only a persistent group's programs pair up")
        return
    if g.persistent[loop] < n:
        g.notes.append(f"{where}: no cluster: at most {g.persistent[loop]} programs")
        return
    body = g.op.regions[0].entry
    rank = len(body.args)
    for axis in ([rank - 2, rank - 1] if rank >= 2 else [0]):
        shared = multicast_loads(loop, body.args[axis])
        if shared:
            g.cluster[loop] = (n, axis)
            names = ", ".join(f"{ld.name} at {ld.loc}" for ld in shared)
            g.notes.append(f"{where}: clusters of {n} groups on neighbouring tiles of grid "
                           f"axis {axis}; multicast: {names}")
            return
    g.notes.append(f"{where}: no cluster: every staged operand's window depends on both "
                   "tile axes")


def multicast_loads(loop: ir.Operation, coordinate: ir.Value) -> list[ir.Operation]:
    """The staged loads of ``loop`` whose window does not depend on the group coordinate
    ``coordinate``: the operands a cluster along that axis copies once and multicasts."""
    return [ld for ld in staged_loads(loop) if not depends_on(ld, {coordinate}, loop)]


def depends_on(op: ir.Operation, seeds: set[ir.Value], within: ir.Operation) -> bool:
    """Whether an operand of ``op`` depends on ``seeds`` (SSA values of the group body)
    through the operations that define it; the arguments of ``within``'s regions other than
    its counter (the carried values) count as dependent."""
    seen: set[ir.Value] = set()
    counters = {r.entry.args[0] for r in within.regions if r.entry.args}
    carried = {a for r in within.regions for a in r.entry.args} - counters
    stack = list(op.operands)
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        if v in seeds or v in carried:
            return True
        d = v.defining_op
        if d is not None:
            stack.extend(d.operands)
    return False


def coordinate_dependent(body: ir.Block, ops: list[ir.Operation] | None = None
                         ) -> set[ir.Operation]:
    """The operations of group body ``body`` (or of ``ops``, a prefix of its operations)
    whose results depend on the group's coordinates."""
    out: set[ir.Operation] = set()
    args = set(body.args)
    for op in body.operations if ops is None else ops:
        if any(v in args or v.defining_op in out for v in op.operands):
            out.add(op)
    return out


def _in_flight_blocker(loop: ir.Operation, g: GroupSchedule, versions: int, lag: int
                       ) -> str | None:
    """Why the warpgroup instructions of ``loop`` must retire in the iteration that issued
    them, or None when ``lag`` groups may stay in flight.

    In flight across the back edge, an instruction still reads its ring version and still
    writes its accumulator registers. So the ring must have a version to spare (the refill
    goes ``lag`` iterations later: ``versions >= 2 + lag``), and each accumulator must be
    carried from the loop's own argument straight to its ``yield`` with no other reader in
    the loop (the next iteration's instruction is its only consumer until the wait after the
    loop)."""
    if versions < 2 + lag:
        return f"{versions} ring versions leave none to spare (in flight needs {2 + lag})"
    if len(loop.regions) != 1:
        return "a multi-stage pipeline hands values between stages"
    body = loop.regions[0].entry
    term = body.terminator
    for op in loop.walk(include_self=False):
        if op.name != "mma" or g.mma[op].realization not in WGMMA_ATOMS:
            continue
        acc = op.operand(2)
        if op.parent is not body:
            return f"the mma at {op.loc} is inside a nested region"
        if not (isinstance(acc, ir.BlockArgument) and acc.owner is body and acc.index > 0):
            return f"the accumulator of the mma at {op.loc} is not the loop's carried value"
        if len(list(acc.uses)) != 1:
            return f"the accumulator of the mma at {op.loc} has another reader in the loop"
        uses = list(op.result.uses)
        if len(uses) != 1 or uses[0].owner is not term or uses[0].index != acc.index - 1:
            return f"the result of the mma at {op.loc} is read in the loop or not carried"
    return None


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
                # accumulator's own registers: its result keeps their layout
                for use in loop.results[pos].uses:
                    if use.owner.name == "map":
                        forced[(use.owner, use.index)] = ch.layout
                        fixed[use.owner.results[0]] = ch.layout
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
    """The serial loop whose carried value the mma's accumulator is, if any."""
    c = op.operand_named("acc")
    loop = op.parent_op
    if loop is None or loop.name != "serial" or not isinstance(c, ir.BlockArgument):
        return None
    if c.owner is not op.parent or c.index == 0:
        return None
    y = op.parent.terminator
    if y is None or c.num_uses != 1 or op.result.num_uses != 1:
        return None
    use = next(iter(op.result.uses))
    if use.owner is not y or use.index != c.index - 1:  # yielded back into its own slot
        return None
    return loop


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
        cl.assign(v, L.blocked(_static(v.type), g.threads, v.type.dtype))


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
        if want is None and op.name == "reindex" and k == 0:
            res = cl.assigned(op.result)
            if res is not None and op.num_operands == 1:
                want = L.image(res, op.attr("map"), _static(v.type))
        if want is None and op.name == "map":
            # an elementwise consumer reads its operands in its own layout: a free producer
            # (a coordinate tile, a constant) takes it instead of a repartition
            res = cl.assigned(op.results[0])
            if res is not None and _static(v.type) == res.shape:
                want = res
        if want is None and op.name in ("store", "atomic"):
            want = L.blocked(_static(v.type), g.threads, v.type.dtype)
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
    if op.name in ("store", "atomic") and k == 1:
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


def _matrix_uses(v: ir.Value) -> list[tuple[ir.Operation, int]] | None:
    """The (mma, operand) pairs ``v`` reaches, through pipeline stage hand-offs; None when it
    has another use."""
    out: list[tuple[ir.Operation, int]] = []
    for u in v.uses:
        op = u.owner
        if op.name == "mma" and u.index < 2:
            out.append((op, u.index))
            continue
        loop = op.parent_op
        if op.name == "yield" and loop is not None and loop.name == "pipeline":
            stage = next(i for i, r in enumerate(loop.regions) if r is op.parent_region)
            if stage + 1 < len(loop.regions):
                more = _matrix_uses(loop.regions[stage + 1].entry.args[u.index + 1])
                if more is None:
                    return None
                out.extend(more)
                continue
        return None
    return out or None


def _mem_plan(v: ir.Value) -> str:
    """``shared`` when every use stages it as a matrix operand, else ``regs``."""
    return "shared" if _matrix_uses(v) is not None else "regs"


def _address_is_iteration_local(load: ir.Operation, loop: ir.Operation,
                                stage: ir.Block) -> bool:
    """True when the load's address reads only its stage's counter and loop invariants."""
    stack, seen = [load.operand_named("memory")], set()
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        if isinstance(v, ir.BlockArgument):
            if v.owner is stage:
                if v.index != 0:
                    return False
                continue
            owner = v.owner.parent_op
            if owner is not None and (owner is loop or loop.is_ancestor_of(owner)):
                return False
            continue
        d = v.defining_op
        if d is None or not (loop.is_ancestor_of(d)):
            continue
        if d.parent is not stage or d.name not in ("view", "arith", "constant"):
            return False
        stack.extend(d.operands)
    return True


def staged_loads(loop: ir.Operation) -> dict[ir.Operation, list[tuple[ir.Operation, int]]]:
    """Loads of a loop whose values only feed matrix operands in the same iteration and whose
    addresses depend on the iteration counter alone: they can be staged ahead."""
    out: dict[ir.Operation, list[tuple[ir.Operation, int]]] = {}
    for region in loop.regions:
        stage = region.entry
        for op in stage.operations:
            if op.name != "load" or not isinstance(op.result.type, ir.TileType):
                continue
            if op.result.type.rank != 2:
                continue
            uses = _matrix_uses(op.result)
            if uses and _address_is_iteration_local(op, loop, stage):
                out[op] = uses
    return out


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


# ---------------------------------------------------------------- reading back


def layout_of(v: ir.Value) -> L.DistLayout:
    """The distribution a Scheduled value was given (results and block arguments)."""
    if isinstance(v, ir.OpResult):
        attr = v.owner.attr("layout")
        lay = attr[v.index] if isinstance(attr, tuple) else attr
    else:
        lay = block_arg_layout(v)  # type: ignore[arg-type]
    if not isinstance(lay, L.DistLayout):
        raise LoweringBug(f"value {v!r} has no distribution in the Scheduled form")
    return lay


def block_arg_layout(a: ir.BlockArgument) -> L.DistLayout | None:
    """A block argument's layout: a loop's carried result, a pipeline stage's record."""
    owner = a.owner.parent_op
    if owner is None:
        return None
    if owner.name == "serial":
        lay = owner.attr("layout")
        return (lay[a.index - 1] if isinstance(lay, tuple) else lay) if a.index else None
    if owner.name == "pipeline":
        stage = next(i for i, r in enumerate(owner.regions) if r is a.owner.parent)
        return owner.attr("stage_layouts")[stage][a.index]
    if owner.name == "parallel" and owner.attr("exec") == "group":
        rank = owner.attr("rank")
        if a.index < rank:
            return None
        k = a.index
        return use_layout(owner, k) or layout_of(owner.operand(k))
    return None


def use_layout(op: ir.Operation, k: int) -> L.DistLayout | None:
    """The layout ``op`` consumes operand ``k`` in, when it differs from the producer's."""
    uses = op.attr("use_layouts")
    return uses[k] if uses is not None else None
