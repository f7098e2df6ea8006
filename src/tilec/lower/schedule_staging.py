"""The staging plan of a group's loops (part of the schedule, ``lower/schedule.py``): how a
loop's staged matrix operands are double-buffered, released (group barriers, mbarriers, a
producer warpgroup), walked (persistent groups, clusters) and how the tile after a
warp-specialized loop is stored (tensor stores). Every choice is proved legal here or
noted in the group's report with its reason; ``LowerOptions`` fields select among them
(docs/design/hopper.md, docs/design/warp_specialization.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

import tilec.ir as ir
from tilec.ir.atoms import SWIZZLE_ALIGN, SWIZZLE_BYTES, WGMMA_ATOMS, swizzle_slack
from tilec.ir.dataflow import depends_on, invariant_in, matrix_uses, plain_transpose
from tilec.ir.ranges import Range, analyze_ranges, divisor_may_be_zero, is_int_division
from tilec.plan import GroupPlan, MatrixCandidate
from tilec.plan.matrix import PRODUCER_RING_VERSIONS, fitting_versions

from .options import LoweringBug, LowerOptions
from .staged_windows import (
    TMA_ALIGN,
    column_origin_aligned,
    plain_window,
    tensor_store_blocker,
    tma_eligible,
)

if TYPE_CHECKING:
    from .schedule import GroupSchedule

__all__ = ["plan_staging", "beside_rings", "ring_bytes", "copies_per_version", "staged_loads",
           "coordinate_dependent",
           "multicast_loads", "depends_on", "static_shape", "mma_labels", "matrix_uses",
           "plain_transpose", "invariant_loads"]


def static_shape(t: ir.TileType) -> tuple[int, ...]:
    """The extents of a tile of the group (``schedule._schedule_group`` refused symbolic
    ones)."""
    try:
        return tuple(int(e) for e in t.shape)
    except ValueError:
        raise LoweringBug(f"internal: tile {t} has a symbolic extent past the check") from None


def mma_labels(mmas: Iterable[ir.Operation]) -> dict[ir.Operation, str]:
    """The planner's label of each of a group's ``mma`` operations, in group order
    (``mma#0``, ``mma#1`` ...: how its workloads and candidates name them)."""
    return {op: f"mma#{i}" for i, op in enumerate(mmas)}


def beside_rings(plan: GroupPlan | None, cands: list[MatrixCandidate | None]) -> int:
    """Shared bytes the planner counts for the group beside its staged operands: each
    candidate's footprint without its A and B (an accumulator's trip through shared
    memory, through the scratch pool of its type, which counts once: the largest) and the
    common allocations. The rings get what is left of the capacity."""
    if plan is None:
        return 0
    works = {w.op: w for w in plan.workload.ops}
    total = plan.workload.common_shared_bytes
    pools: dict[str, int] = {}
    for c in cands:
        if c is None or c.op not in works:
            continue
        w = works[c.op]
        st = w.staging_bytes()
        total += max(0, c.shared_bytes - c.pool_bytes - st["A"] - st["B"])
        if c.pool_bytes:  # the scratch pool of one type is shared: its largest use counts
            pools[w.acc_dtype] = max(pools.get(w.acc_dtype, 0), c.pool_bytes)
    return total + sum(pools.values())


def plan_staging(g: GroupSchedule, loop: ir.Operation, options: LowerOptions,
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
    planned = _planned_versions(g, staged, options) if wgmma and not window else None
    wanted = planned or options.wgmma_stages or (PRODUCER_RING_VERSIONS if roles else 3)
    # a cluster or ping-pong consumers, where asked for, copy every operand each iteration
    once = copied_once(loop, staged, bool(options.cluster and options.cluster > 1)
                       or bool(options.pingpong))
    versions = _ring_versions(staged, options, wanted, shared_limit, once) if wgmma \
        else options.stages
    if planned is not None:
        g.notes.append(f"{loop.name} at {loop.loc}: {planned} ring versions as planned "
                       "(PlannerOptions.plan_ring_versions)"
                       + ("" if versions == planned else
                          f", trimmed to {versions} to fit {shared_limit} bytes"))
    g.staging[loop] = window or versions
    if wgmma and (options.mbarrier_ring or roles):
        why = _ring_blocker(loop, g, staged, copies)
        if why is None:
            g.release[loop] = "mbarrier"
            held = _in_flight_blocker(loop, g, g.staging[loop], 1, staged)
            if held is None:
                g.in_flight[loop] = 1
            groups = "one wgmma group in flight" if held is None else \
                f"every wgmma group retired where it is issued: {held}"
            g.notes.append(f"{loop.name} at {loop.loc}: ring versions released through "
                           f"mbarriers ({groups}; tensor copies {g.staging[loop] - 1} "
                           "iterations ahead)")
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
                _plan_pingpong(g, loop, options, staged, shared_limit)
                _plan_turns(g, loop, options)
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
                                                       planned or options.wgmma_stages or 3,
                                                       shared_limit, once)
    if wgmma and options.wgmma_in_flight:
        why = _in_flight_blocker(loop, g, g.staging[loop], options.wgmma_in_flight,
                                 staged)
        if why is None:
            g.in_flight[loop] = options.wgmma_in_flight
            g.notes.append(f"{loop.name} at {loop.loc}: {options.wgmma_in_flight} wgmma "
                           "group(s) stay in flight across iterations (the ring is refilled "
                           "one iteration later)")
        else:
            g.notes.append(f"{loop.name} at {loop.loc}: every iteration waits for its wgmma "
                           f"group: {why}")


def _planned_versions(g: GroupSchedule,
                      staged: dict[ir.Operation, list[tuple[ir.Operation, int]]],
                      options: LowerOptions) -> int | None:
    """The ring versions the planner chose for the ``mma`` operations a loop stages for
    (``GroupSchedule.versions``), the fewest where they differ; None when it chose none or
    ``LowerOptions.wgmma_stages`` asks for a count explicitly (the explicit request wins)."""
    if options.wgmma_stages is not None:
        return None
    counts = [g.versions[m] for uses in staged.values() for m, _ in uses if m in g.versions]
    return min(counts) if counts else None


def _tile_bytes(ld: ir.Operation) -> int:
    return math.prod(static_shape(ld.result.type)) * ld.result.type.dtype.bytes


def _version_bytes(staged: dict[ir.Operation, list[tuple[ir.Operation, int]]],
                   once: set[ir.Operation]) -> int:
    """Shared bytes of one ring version: every staged operand's tile but those copied
    ``once`` (one buffer beside the versions, ``_once_bytes``)."""
    return sum(_tile_bytes(ld) for ld in staged if ld not in once)


def _once_bytes(once: set[ir.Operation]) -> int:
    """Shared bytes of the loop-invariant tiles copied once: one buffer each."""
    return sum(_tile_bytes(ld) for ld in once)


def copied_once(loop: ir.Operation, staged: dict[ir.Operation, list[tuple[ir.Operation, int]]],
                per_version: bool = False) -> set[ir.Operation]:
    """The staged loads of ``loop`` the lowering copies once into one buffer (``Staging``:
    a loop-invariant tile such as attention's query tile), none where ``per_version``
    (a cluster's producers, and ping-pong consumers, copy every operand each iteration:
    ``machine_roles.lower_roles_body``)."""
    return set() if per_version else invariant_loads(loop, staged)


def copies_per_version(g: GroupSchedule, loop: ir.Operation) -> bool:
    """Whether the warp-specialized group of ``loop`` copies even its loop-invariant tiles
    in every version: in a cluster, or with ping-pong consumers (``copied_once``)."""
    return loop in g.cluster or loop in g.pingpong


def ring_bytes(loop: ir.Operation, versions: int, per_version: bool = False) -> int:
    """Shared bytes of ``versions`` versions of ``loop``'s ring (its staged loads, a
    loop-invariant one in one buffer unless ``per_version``, with the swizzle slack; 0 when
    it stages none): what one loop's ring takes from the group's shared memory beside the
    other loops' rings, which are allocated at the same time."""
    staged = staged_loads(loop)
    if not staged:
        return 0
    once = copied_once(loop, staged, per_version)
    return versions * _version_bytes(staged, once) + _once_bytes(once) \
        + swizzle_slack(len(staged))


def fewest_versions(loop: ir.Operation) -> int:
    """The fewest ring versions ``plan_staging`` gives ``loop`` if it stages: a
    ``pipeline``'s window (exactly; 0 below 2, which stages nothing), else 2 (the planner's
    ``MatrixWorkload.min_ring_versions``)."""
    if loop.name == "pipeline":
        window = loop.attr("window")
        return int(window) if window is not None and window >= 2 else 0
    return 2


def _ring_versions(staged: dict[ir.Operation, list[tuple[ir.Operation, int]]],
                   options: LowerOptions, versions: int, shared_limit: int | None,
                   once: set[ir.Operation]) -> int:
    """``versions`` of a warpgroup ring, fewer (down to ``max(2, options.stages)``) where
    that many would not fit ``shared_limit`` (the tiles copied ``once`` in one buffer)."""
    if shared_limit is None:
        return versions
    return fitting_versions(versions, max(2, options.stages), _version_bytes(staged, once),
                            swizzle_slack(len(staged)) + _once_bytes(once), shared_limit)


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
    labels = mma_labels(g.mma)
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
                  staged: dict[ir.Operation, list[tuple[ir.Operation, int]]],
                  tensor_copies: bool) -> str | None:
    """Why the ring of ``loop`` cannot be released through mbarriers, or None: the target
    and options give tensor copies, and every staged operand feeds warpgroup instructions
    and may be filled by tensor copies. (Whether a group may stay in flight decides only
    which version an iteration releases, ``machine_ring``.)"""
    if not tensor_copies:
        return "the target or the options give no tensor copies"
    for ld, uses in staged.items():
        if not all(g.mma[m].realization in WGMMA_ATOMS for m, _ in uses):
            return f"the staged load at {ld.loc} feeds an instruction other than wgmma"
        if not tma_eligible(ld, g.layouts[ld.result]):
            return f"the staged load at {ld.loc} cannot be filled by tensor copies"
        view = plain_window(ld)
        if view is not None and not column_origin_aligned(view[0], ld.result.type.dtype):
            return (f"the staged load at {ld.loc} may start its rows off a {TMA_ALIGN}-byte "
                    "boundary (its column origin is not provably aligned), which a tensor "
                    "copy cannot take")
    return None


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
    ranges: dict[int, Range] | None = None  # the lowering's, computed where first needed
    for op in group.walk(include_self=False):
        r = op.results[0].type if op.results else None
        if not (op.name == "arith" and op.attr("fn") in _TILE_DIVISIONS
                and isinstance(r, ir.TileType) and not r.dtype.is_float):
            owner = op.parent_op  # a division in a map or reduce region, which the lowering
            # guards where its divisor may be zero (machine_divisions: a map's elements vote)
            if owner is None or owner.name not in ("map", "reduce") or not is_int_division(op):
                continue
            fn = group.function
            assert fn is not None, group
            ranges = ranges if ranges is not None else analyze_ranges(fn)
            if not divisor_may_be_zero(op, ranges):
                continue
        return (f"the integer tile division at {op.loc} checks its divisors with a barrier "
                "of every thread")
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


def tensor_store_bytes(st: ir.Operation, buffers: int) -> int:
    """Shared bytes of the ``buffers`` chunk buffers a tensor-stored ``store`` uses, with
    their alignment."""
    rows = int(st.operand(1).type.shape[0])
    return buffers * rows * SWIZZLE_BYTES + SWIZZLE_ALIGN


def _ring_and_barrier_bytes(g: GroupSchedule, loop: ir.Operation,
                            staged: dict[ir.Operation, list[tuple[ir.Operation, int]]],
                            per_version: bool = False) -> int:
    """Shared bytes of the warp-specialized ring of ``loop``: its versions (a loop-invariant
    tile in one buffer, unless ``per_version`` or the group runs in a cluster or ping-pong)
    and their two barriers each from a 1024-byte aligned base; each buffer after the
    barriers may start up to 1024 bytes later (``ir.allocation``)."""
    once = copied_once(loop, staged, per_version or copies_per_version(g, loop))
    return g.staging[loop] * (_version_bytes(staged, once) + 16) + _once_bytes(once) \
        + SWIZZLE_ALIGN


def _plan_tensor_store(g: GroupSchedule, loop: ir.Operation, options: LowerOptions,
                       staged: dict[ir.Operation, list[tuple[ir.Operation, int]]],
                       shared_limit: int | None) -> None:
    """Send the tiles that the warp-specialized group of ``loop`` stores after it (``store``
    operations of the group body) through shared buffers and tensor stores, or note why
    not (``staged_windows.tensor_store_blocker``; the buffers, ``tensor_store_buffers``
    128-byte-wide chunks of the tile's rows each, must fit beside the ring in
    ``shared_limit``)."""
    if options.tensor_store is False:
        return
    n = options.tensor_store_buffers
    body = g.op.regions[0].entry
    ops = list(body.operations)
    after = ops[ops.index(loop) + 1:] if loop in ops else []
    used = _ring_and_barrier_bytes(g, loop, staged)
    for st in after:
        if st.name != "store":
            continue
        where = f"store at {st.loc}"
        lay = g.uses.get((st, 1)) or g.layouts.get(st.operand(1))
        why = "the stored value has no layout" if lay is None else tensor_store_blocker(st, lay)
        if why is None:
            need = tensor_store_bytes(st, n)
            if shared_limit is not None and used + need > shared_limit:
                why = (f"its {need} bytes of buffers do not fit beside the ring's {used} "
                       f"(the group has {shared_limit})")
        if why is not None:
            g.notes.append(f"{where}: stored from registers, not through tensor stores: {why}")
            continue
        used += need
        g.tensor_store[st] = n
        g.notes.append(f"{where}: through {n} swizzled shared buffers and "
                       "tensor stores, one per 128-byte column chunk")


PINGPONG_CONSUMERS = 2
"""Consumer warpgroups of a ping-pong group (``LowerOptions.pingpong``)."""


def _plan_pingpong(g: GroupSchedule, loop: ir.Operation, options: LowerOptions,
                   staged: dict[ir.Operation, list[tuple[ir.Operation, int]]],
                   shared_limit: int | None) -> None:
    """Give the persistent warp-specialized group of ``loop`` two consumer warpgroups that
    take alternate output tiles (``LowerOptions.pingpong``), or note why not: the group must
    be persistent and not in a cluster (a cluster's peers release each other's versions),
    its tile one warpgroup's (128 threads), and each consumer's tensor-store buffers must
    fit beside the ring (the consumers store concurrently, each into its own)."""
    if not options.pingpong:
        return
    where = f"{loop.name} at {loop.loc}"
    why = None
    if loop not in g.persistent:
        why = "only a persistent group's consumers can take alternate tiles"
    elif loop in g.cluster:
        why = "the group runs in a cluster"
    elif g.threads != 128:
        why = (f"the tile takes {g.threads // 128} consumer warpgroups; ping-pong consumers "
               "each compute a whole tile with one")
    elif shared_limit is not None:
        # and the two turn barriers
        need = _ring_and_barrier_bytes(g, loop, staged, per_version=True) \
            + PINGPONG_CONSUMERS * 8 \
            + PINGPONG_CONSUMERS * sum(tensor_store_bytes(st, n)
                                   for st, n in g.tensor_store.items())
        if need > shared_limit:
            why = (f"both consumers' store buffers and the ring take {need} bytes (the group "
                   f"has {shared_limit})")
    if why is not None:
        g.notes.append(f"{where}: no ping-pong consumers: {why}")
        return
    g.pingpong[loop] = PINGPONG_CONSUMERS
    g.notes.append(f"{where}: ping-pong: {PINGPONG_CONSUMERS} consumer warpgroups take "
                   "alternate output tiles, their K loops in turn (128 more threads)")


TURN_WARPGROUPS = 2
"""Consumer warpgroups taking turns (``LowerOptions.warpgroup_turns``)."""


def _plan_turns(g: GroupSchedule, loop: ir.Operation, options: LowerOptions) -> None:
    """Let the consumer warpgroups of the warp-specialized ``loop`` take turns at its
    products (``LowerOptions.warpgroup_turns``), or note why not: two consumer warpgroups
    (each owning half the tile's rows), every group retired where it is issued (a group in
    flight would straddle a turn), no cluster (untried), and exactly two warpgroup products
    per iteration, directly in the loop's body (a product under a condition would take its
    turns unevenly)."""
    if not options.warpgroup_turns:
        return
    where = f"{loop.name} at {loop.loc}"
    products = [op for op in loop.walk(include_self=False)
                if op.name == "mma" and g.mma[op].realization in WGMMA_ATOMS]
    why = None
    if g.threads != 128 * TURN_WARPGROUPS:
        why = (f"the tile takes {g.threads // 128} consumer warpgroup(s); turns are "
               f"between {TURN_WARPGROUPS}")
    elif loop in g.in_flight:
        why = "a wgmma group stays in flight across iterations"
    elif loop in g.cluster:
        why = "the group runs in a cluster"
    elif len(products) != 2:
        why = (f"the loop has {len(products)} warpgroup product(s) per iteration; turns "
               "alternate two")
    elif any(op.parent is not loop.regions[0].entry for op in products):
        why = "a warpgroup product lies inside a nested region"
    if why is not None:
        g.notes.append(f"{where}: no warpgroup turns: {why}")
        return
    g.turns[loop] = TURN_WARPGROUPS
    g.notes.append(f"{where}: warpgroup turns: the {TURN_WARPGROUPS} consumer warpgroups "
                   "issue their products in turn, one's softmax beside the other's products")


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


def _in_flight_blocker(loop: ir.Operation, g: GroupSchedule, versions: int, lag: int,
                       staged: dict[ir.Operation, list[tuple[ir.Operation, int]]]
                       ) -> str | None:
    """Why the warpgroup instructions of ``loop`` must retire in the iteration that issued
    them, or None when ``lag`` groups may stay in flight.

    In flight across the back edge, an instruction still reads its ring version and still
    writes its accumulator registers. So the ring must have a version to spare (the refill
    goes ``lag`` iterations later: ``versions >= 2 + lag``), both operands must come from
    the ring (``staged``: an operand the lowering stores into its one staging buffer in
    every iteration, such as a transposed A, would be overwritten by the next iteration
    while the instruction still reads it), and each accumulator must be carried from the
    loop's own argument straight to its ``yield`` with no other reader in the loop (the
    next iteration's instruction is its only consumer until the wait after the loop)."""
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
        ringed = {k for uses in staged.values() for m, k in uses if m is op}
        for k in (0, 1):
            if k not in ringed:
                return (f"operand {'AB'[k]} of the mma at {op.loc} is not copied into the ring "
                        "(it is stored into its staging buffer in every iteration)")
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


def invariant_loads(loop: ir.Operation, loads: Iterable[ir.Operation] | None = None
                    ) -> set[ir.Operation]:
    """The staged loads of a one-stage loop (``loads``, default ``staged_loads(loop)``)
    whose address does not read the iteration counter, when nothing in the loop writes
    memory: the same tile every iteration, so their ring keeps one version, copied once
    before the first iteration (``Staging``; e.g. attention's query tile, loaded where the
    key loop first reads it)."""
    return {ld for ld in (staged_loads(loop) if loads is None else loads)
            if invariant_in(ld, loop)}


def staged_loads(loop: ir.Operation) -> dict[ir.Operation, list[tuple[ir.Operation, int]]]:
    """Loads of a loop whose values only feed matrix operands in the same iteration and whose
    addresses depend on the iteration counter alone: they can be staged ahead."""
    out: dict[ir.Operation, list[tuple[ir.Operation, int]]] = {}
    for region in loop.regions:
        stage = region.entry
        for op in stage.operations:
            if op.name != "load" or not isinstance(op.result.type, ir.TileType):
                continue
            if op.result.type.rank != 2 or op.attr("forwarded"):
                continue  # a forwarded snapshot is read where it is (schedule_mma.mark_forwarded)
            uses = matrix_uses(op.result)
            if uses and _address_is_iteration_local(op, loop, stage):
                out[op] = uses
    return out
