"""Candidate TileIR to planner workloads: a thin, structural reading of each group.

A *group* is one instance of an outermost ``parallel`` nest; its programs are
the product of the nest's extents when they fold to constants. Each ``mma``
inside becomes a ``MatrixWorkload``: static shapes from its operand types,
executions from the enclosing ``serial``/``pipeline`` loops whose bounds fold
to constants (otherwise the count is unknown, one is assumed and the workload
says so).

The proofs read only structure and SSA use lists, which in Candidate TileIR
is the whole-group audit (tiles are pure values, so nothing else can observe
them):

* closed recurrence: the ``mma`` sits directly in a ``serial`` body, its
  accumulator is a carried block argument used only by it, and its result is
  used only by the body's ``yield`` in the same carried position;
* direct output: additionally, the loop's initial value is a literal splat
  ``constant`` and the loop result's only use is one ``store`` into global
  memory inside the group; a ``bounded`` destination must be proved in range
  for every program (interval arithmetic over constant grid extents) or needs
  the bounded-store capability;
* overwrite: a direct output whose literal is +0.0 and whose loop runs once;
* snapshot forwarding (``proofs/snapshot_forwarding.py``): each operand's fact, in the
  group's notes and the workload's ``forwarding``; with ``PlannerOptions.forward_snapshots``
  both proved make the workload's ``inputs_forwardable``;
* physical K: both operands are zero-filled ``load``s of ``bounded`` views
  whose K origin is affine in the loop's induction variable (or constant),
  with equal intervals, and the bounded-K capability is enabled;
* bounded M/N views (with ``bounded_mn_views``): ``proofs/bounded_views.py``.

These stand in for the effect and bounds proofs that ``plan/proofs`` will own;
anything they do not establish keeps the conservative answer.

A shape-generic module (symbolic extents bound at launch) can be read with
``shapes``: values for the function's shape symbols (``shapes_from_arrays``
derives them from the launch arguments). They only feed constant folding; the
module is not changed.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import tilec.ir as ir
from tilec.ir.dataflow import (
    carried_in,
    closed_recurrence,
    handed_from,
    invariant_in,
    matrix_uses,
    plain_transpose,
)
from tilec.ir.index_bounds import unit_term

from .options import PlannerOptions
from .proofs.bounded_views import bounded_mn
from .proofs.scalar_epilogue import ScalarEpilogue, epilogue_of
from .proofs.snapshot_forwarding import SnapshotForwarding, snapshot_forwarding
from .work import AffineExtent, GroupWorkload, MatrixWorkload, ScalarDomains

__all__ = ["GroupSite", "extract_groups", "fold_index", "shapes_from_arrays"]

_LOOPS = ("serial", "pipeline")
_FOLD = MappingProxyType({
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "floordiv": lambda a, b: a // b if b else None,
    "cdiv": lambda a, b: -(-a // b) if b else None,
    "min": min, "max": max})


@dataclass
class GroupSite:
    """One outermost ``parallel`` nest: its workload, or why it is not planned."""

    function: str
    """The enclosing function's name."""
    label: str
    """Stable identity, ``@function/parallel#i`` (i counts outermost nests in the module)."""
    op: ir.Operation
    """The ``parallel`` operation."""
    workload: GroupWorkload | None = None
    """The planner input, when the group is admitted."""
    reason: str | None = None
    """Why the group is not planned by the matrix mapper."""
    notes: list[str] = field(default_factory=list)
    """What extraction could not establish."""


def shapes_from_arrays(fn: ir.Function, arrays: Sequence[Any]) -> dict[str, int]:
    """Shape-symbol values of ``fn`` for launch arguments (objects with a ``shape``)."""
    out = {}
    for sym, (arg, axis) in zip(fn.shape_symbols, fn.attributes.get("shape_bindings", ())):
        out[sym] = int(arrays[arg].shape[axis])
    return out


def fold_index(v: ir.Value, values: Mapping[ir.Value, int] | None = None) -> int | None:
    """The integer an index value folds to through ``constant``/``arith``, or None.

    ``values`` gives known values of block arguments (bound shape symbols).
    """
    if values is not None and v in values:
        return values[v]
    op = v.defining_op
    if op is None:
        return None
    if op.name == "constant":
        val = op.attr("value")
        return val if isinstance(val, int) and not isinstance(val, bool) else None
    if op.name == "arith" and op.attr("fn") in _FOLD and op.num_operands == 2:
        a, b = fold_index(op.operand(0), values), fold_index(op.operand(1), values)
        if a is None or b is None:
            return None
        return _FOLD[op.attr("fn")](a, b)
    return None


def _ancestors(op: ir.Operation, stop: ir.Operation | None) -> list[ir.Operation]:
    """Enclosing operations of ``op`` strictly inside ``stop``, innermost first."""
    out = []
    p = op.parent_op
    while p is not None and p is not stop:
        out.append(p)
        p = p.parent_op
    return out


def _literal(v: ir.Value) -> float | None:
    op = v.defining_op
    if op is None or op.name != "constant" or not isinstance(op.result.type, ir.TileType):
        return None
    val = op.attr("value")
    return float(val) if isinstance(val, (int, float)) else None


_Affine = tuple[int, dict[ir.Value, int]]


class _Reader:
    """Reads one function's groups with its bound shape symbols (no state beyond them)."""

    def __init__(self, fn: ir.Function, options: PlannerOptions,
                 shapes: Mapping[str, int] | None) -> None:
        self.options = options
        """The planner options (capabilities gate some facts)."""
        self.dims: dict[str, int] = dict(shapes or {})
        """Values of symbolic extents by name."""
        names = fn.shape_symbols
        trailing = fn.args[len(fn.args) - len(names):] if names else []
        self.values: dict[ir.Value, int] = {a: self.dims[n] for n, a in zip(names, trailing)
                                            if n in self.dims}
        """Values of the function's shape-symbol parameters."""
        self.fn = fn
        """The function read."""
        self._forwarding: SnapshotForwarding | None = None

    @property
    def forwarding(self) -> SnapshotForwarding:
        """The function's snapshot-forwarding facts (proved once, on first use)."""
        if self._forwarding is None:
            self._forwarding = snapshot_forwarding(self.fn)
        return self._forwarding

    # -- folding -------------------------------------------------------------------
    def index(self, v: ir.Value) -> int | None:
        """``fold_index`` with the bound shape symbols."""
        return fold_index(v, self.values)

    def dim(self, d: ir.Dim) -> int | None:
        """A static or bound extent."""
        return int(d) if d.is_static else self.dims.get(str(d.value))

    def size(self, t: ir.Type) -> int | None:
        """Elements of a tile/memory type, when every extent is known."""
        shape = getattr(t, "shape", None)
        if shape is None:
            return None
        dims = [self.dim(e) for e in shape]
        return None if any(e is None for e in dims) else math.prod(dims)  # type: ignore[arg-type]

    def trips(self, loop: ir.Operation) -> int | None:
        """Trip count of a counted loop whose bounds fold."""
        lb, ub, step = (self.index(loop.operand(i)) for i in range(3))
        if lb is None or ub is None or step is None or step <= 0:
            return None
        return max(0, -(-(ub - lb) // step))

    def executions(self, op: ir.Operation, group: ir.Operation) -> tuple[int, bool]:
        """(product of enclosing loop trip counts, all known); unknown trips count as one."""
        total, known = 1, True
        for a in _ancestors(op, group):
            if a.name in _LOOPS:
                t = self.trips(a)
                if t is None:
                    known = False
                else:
                    total *= t
        return total, known

    def affine(self, v: ir.Value) -> _Affine | None:
        """``v`` as ``constant + sum(coeff * block argument)`` through constant arithmetic."""
        c = self.index(v)
        if c is not None:
            return c, {}
        if isinstance(v, ir.BlockArgument):
            return 0, {v: 1}
        op = v.defining_op
        if op is None or op.name != "arith" or op.num_operands != 2:
            return None
        fn = op.attr("fn")
        a, b = self.affine(op.operand(0)), self.affine(op.operand(1))
        if a is None or b is None:
            return None
        if fn in ("add", "sub"):
            sign = 1 if fn == "add" else -1
            terms = dict(a[1])
            for k, x in b[1].items():
                terms[k] = terms.get(k, 0) + sign * x
            return a[0] + sign * b[0], {k: x for k, x in terms.items() if x}
        if fn == "mul" and (not a[1] or not b[1]):
            const, other = (a[0], b) if not a[1] else (b[0], a)
            return const * other[0], {k: const * x for k, x in other[1].items() if const * x}
        return None

    def arg_range(self, arg: ir.Value) -> tuple[int, int] | None:
        """Inclusive bounds of a parallel coordinate or a loop induction variable."""
        if not isinstance(arg, ir.BlockArgument):
            return None
        owner = arg.owner.parent_op
        if owner is None:
            return None
        if owner.name == "parallel" and arg.index < owner.attr("rank"):
            ext = self.index(owner.operand(arg.index))
            return (0, ext - 1) if ext is not None and ext > 0 else None
        if owner.name in _LOOPS and arg.index == 0:
            lb, step = self.index(owner.operand(0)), self.index(owner.operand(2))
            trips = self.trips(owner)
            if lb is None or step is None or not trips:
                return None
            return lb, lb + step * (trips - 1)
        return None

    # -- proofs ----------------------------------------------------------------------
    def view_in_range(self, view: ir.Operation) -> bool:
        """True when every element of the view lies in its base, for every instance."""
        base_t, view_t = view.operand(0).type, view.result.type
        base = [self.dim(e) for e in base_t.shape]
        ext = [self.dim(e) for e in view_t.shape]
        if any(e is None for e in base + ext):
            return False
        imap: ir.IndexMap = view.attr("map")
        for j, expr in enumerate(imap.results):
            lo = hi = expr.constant
            for atom, c in expr.terms:
                if atom[0] == "d" and c == 1:
                    hi += ext[atom[1]] - 1  # type: ignore[operator]
                elif atom[0] == "s":
                    aff = self.affine(view.operand(1 + atom[1]))
                    if aff is None:
                        return False
                    lo, hi = lo + c * aff[0], hi + c * aff[0]
                    for arg, k in aff[1].items():
                        r = self.arg_range(arg)
                        if r is None:
                            return False
                        lo += min(c * k * r[0], c * k * r[1])
                        hi += max(c * k * r[0], c * k * r[1])
                else:
                    return False
            if lo < 0 or hi > base[j] - 1:  # type: ignore[operator]
                return False
        return True

    def global_sink(self, v: ir.Value, group: ir.Operation
                    ) -> tuple[ir.Operation | None, str | None, ScalarEpilogue | None]:
        """The single global ``store`` of ``v`` inside ``group`` (with, when it is reached
        through a proved scalar epilogue, a note saying so and the epilogue), or None and
        the reason."""
        if v.num_uses != 1:
            return None, f"the accumulator result has {v.num_uses} uses, not one sink", None
        use = next(iter(v.uses))
        st = use.owner
        epi = None
        if st.name == "map":  # a scalar epilogue between the accumulator and its store
            if not self.options.fuse_matrix_epilogues:
                return None, ("the accumulator passes through a map (fused only with "
                              "PlannerOptions.fuse_matrix_epilogues)"), None
            epi, why = epilogue_of(v)
            if epi is None:
                return None, f"no scalar epilogue: {why}", None
            use = next(iter(epi.map.results[0].uses))
            st = use.owner
            fused = f"through the scalar epilogue ({', '.join(epi.ops)}) at {epi.map.loc}"
        else:
            fused = None
        if st.name != "store" or use.index != 1 or not group.is_ancestor_of(st):
            return None, "the accumulator result is not stored by the group", None
        dst = st.operand(0)
        if not isinstance(dst.type, ir.MemoryType) or dst.type.space != "global":
            return None, "the sink is not a global store", None
        view = dst.defining_op
        if view is not None and view.name == "view" and view.attr("bounds") == "bounded" \
                and not self.options.bounded_store and not self.view_in_range(view):
            return None, ("a bounded destination not proved in range needs the bounded-store "
                          "capability"), None
        return st, fused, epi

    def aligned_rows(self, load_v: ir.Value) -> float:
        """The fraction of an operand's tile rows that start 16-byte aligned: the row pitch
        of the memory its load reads (row-major: the innermost extent times the element
        size), ``gcd(pitch, 16) / 16``; 1.0 when the pitch is not known."""
        ld = load_v.defining_op
        if ld is None or ld.name != "load":
            return 1.0
        src = ld.operand(0)
        view = src.defining_op
        if view is not None and view.name == "view":
            src = view.operand(0)
        t = src.type
        if not isinstance(t, ir.MemoryType) or t.rank < 2:
            return 1.0
        inner = self.dim(t.shape[-1])
        if inner is None:
            return 1.0
        return math.gcd(inner * t.dtype.bytes, 16) / 16

    def ring_versions(self, mma: ir.Operation, group: ir.Operation) -> int | None:
        """Versions of the ring of ``mma``'s ``ring`` operands when the program fixes them
        (``MatrixWorkload.ring_versions``): the window (2 or more) of the ``pipeline`` that
        holds their loads; else None."""
        fixed = None
        for v in mma.operands[:2]:
            how, loop = self._staging(v, group)
            window = loop.attr("window") if how == "ring" and loop is not None \
                and loop.name == "pipeline" else None
            if window is not None and window >= 2:
                fixed = max(fixed or 0, int(window))
        return fixed

    @staticmethod
    def _source_load(v: ir.Value) -> ir.Operation | None:
        """The ``load`` operand ``v`` comes from through plain transposes and a
        ``pipeline``'s stage hand-offs, or None."""
        while True:
            op = v.defining_op
            if op is not None and plain_transpose(op):
                v = op.operand(0)
                continue
            handed = handed_from(v)
            if handed is None:
                break
            v = handed
        return op if op is not None and op.name == "load" else None

    @staticmethod
    def b_major(v: ir.Value, group: ir.Operation) -> str:
        """How the lowering lays out B operand ``v`` in its staging buffer
        (``MatrixWorkload.b_major``): ``k`` when ``v`` is an odd number of plain transposes
        (through stage hand-offs) of a load in a loop of the group whose every use is a
        matrix operand (``ir.dataflow.matrix_uses``: the lowering stages the load itself
        and reads its transposed view, a K-major B); ``n`` otherwise (the operand's own
        ``K x N`` tile is stored: ``machine_matrix._stage``)."""
        flips = 0
        while True:
            op = v.defining_op
            if op is not None and plain_transpose(op):
                v, flips = op.operand(0), flips + 1
                continue
            handed = handed_from(v)
            if handed is None:
                break
            v = handed
        if flips % 2 == 0 or op is None or op.name != "load" \
                or _Reader.operand_staging(op.result, group) == "value" \
                or matrix_uses(op.result) is None:
            return "n"
        return "k"

    @staticmethod
    def operand_staging(v: ir.Value, group: ir.Operation) -> str:
        """How the lowering stages matrix operand ``v`` (``MatrixWorkload.a_staging``): a
        load (seen through plain transposes and a ``pipeline``'s stage hand-offs, as
        ``schedule_staging.matrix_uses`` follows them) inside a loop of the group is copied
        every execution (``ring``) unless it is the same tile on every iteration of its
        innermost one-stage loop (``once``); anything else, a load outside every loop
        included, is held in registers and stored for each execution (``value``)."""
        return _Reader._staging(v, group)[0]

    @staticmethod
    def _staging(v: ir.Value, group: ir.Operation) -> tuple[str, ir.Operation | None]:
        """``operand_staging`` and the innermost loop of ``group`` around the load (None
        for ``value``)."""
        op = _Reader._source_load(v)
        loop = op.parent_op if op is not None else None
        while loop is not None and loop is not group and loop.name not in _LOOPS:
            loop = loop.parent_op
        if op is None or loop is None or loop is group:
            return "value", None
        return ("once" if invariant_in(op, loop) else "ring"), loop

    def k_interval(self, load_v: ir.Value, k_axis: int, loop: ir.Operation | None, k: int
                   ) -> AffineExtent | None:
        """The physical K of one operand read through a zero-filled bounded view, if provable."""
        ld = load_v.defining_op
        if ld is None or ld.name != "load":
            return None
        fill = ld.attr("fill", 0)
        if fill != 0 or math.copysign(1.0, float(fill)) < 0:
            return None
        view = ld.operand(0).defining_op
        term = unit_term(view, k_axis) if view is not None else None
        if view is None or term is None:
            return None
        j, origin = term
        extent = self.dim(view.operand(0).type.shape[j])
        if extent is None:
            return None
        # origin = constant + sum(c * symbol), every symbol affine in the loop iv only
        const, coeff = origin.constant, 0
        iv = loop.regions[0].entry.args[0] if loop is not None else None
        for atom, c in origin.terms:
            aff = self.affine(view.operand(1 + atom[1]))
            if aff is None or any(arg is not iv for arg in aff[1]):
                return None
            const += c * aff[0]
            coeff += c * aff[1].get(iv, 0) if iv is not None else 0
        src = extent - const
        if coeff == 0:
            return AffineExtent(src, (), (), k)
        assert loop is not None
        lb, step, trips = self.index(loop.operand(0)), self.index(loop.operand(2)), \
            self.trips(loop)
        if lb is None or step is None or not trips:
            return None
        # actual K(t) = min(k, source extent - origin(lb + step * t))
        return AffineExtent(src - coeff * lb, (-coeff * step,), (trips,), k)

    # -- workloads -------------------------------------------------------------------
    def mma_workload(self, mma: ir.Operation, group: ir.Operation, index: int,
                     notes: list[str], mmas: Sequence[ir.Operation] = ()
                     ) -> tuple[MatrixWorkload | None, set[int]]:
        """One mma's workload and the ids of the scalar-domain ops it accounts for."""
        a, b, c = (v.type for v in mma.operands)
        name = f"mma#{index}"
        if not all(isinstance(t, ir.TileType) and all(e.is_static for e in t.shape)
                   for t in (a, b, c)):
            notes.append(f"{name}: symbolic tile shape; not planned")
            return None, set()
        m, k = (int(e) for e in a.shape)
        n = int(b.shape[1])
        policy = mma.attr("policy")
        execs, known = self.executions(mma, group)
        if execs == 0:
            notes.append(f"{name}: an enclosing loop runs zero times; one execution assumed")
            execs = 1
        if not known:
            notes.append(f"{name}: an enclosing trip count is not a constant; executions are "
                         f"unknown and {execs} is assumed")
        rec = closed_recurrence(mma)
        recurrence, direct, overwrite, epi_tiles = None, False, False, 0
        domains = ScalarDomains()
        owned: set[int] = set()
        parent = mma.parent_op
        loop_for_k = parent if parent is not None and parent.name in _LOOPS else None
        if rec is None:
            notes.append(f"{name}: no closed recurrence (resident accumulator not proved)")
        else:
            loop, pos = rec
            length = self.trips(loop)
            recurrence = length if (length and known) else 1
            if not (length and known):
                notes.append(f"{name}: recurrence length unknown; residency priced as length 1")
            per = execs // recurrence
            init_v = loop.operand(3 + pos)
            lit = _literal(init_v)
            sink, why, epi = self.global_sink(loop.results[pos], group)
            domains = ScalarDomains(m * n * execs, m * n * per if lit is not None else 0,
                                    m * n * per if sink is not None else 0)
            if lit is not None and init_v.defining_op is not None:
                owned.add(init_v.defining_op.id)
            if sink is not None:
                owned.add(sink.id)
            if lit is None:
                notes.append(f"{name}: the initial accumulator is not a literal fill; no "
                             f"direct output")
            elif sink is None:
                notes.append(f"{name}: no direct output ({why})")
            else:
                direct = True
                if epi is not None:  # the proof of a fused scalar epilogue, for the report
                    notes.append(f"{name}: direct output {why}")
                    epi_tiles = epi.tile_operands
                overwrite = (lit == 0.0 and math.copysign(1.0, lit) > 0 and recurrence == 1
                             and length == 1)
        physical = None
        if self.options.bounded_k_views:
            ka = self.k_interval(mma.operand(0), 1, loop_for_k, k)
            kb = self.k_interval(mma.operand(1), 0, loop_for_k, k)
            if ka is not None and ka == kb:
                physical = ka
            else:
                notes.append(f"{name}: physical K not proved (needs equal zero-filled bounded "
                             f"K views); nominal K kept")
        fwd = self.forwarding
        facts = (fwd.why_not(mma, 0), fwd.why_not(mma, 1))
        said = [f"{x} refused: {why}" if why else
                f"{x} proved (effect, noalias, bounds, dominance, nonescape)"
                for x, why in zip("AB", facts)]
        notes.append(f"{name}: snapshot forwarding: {'; '.join(said)}")
        forwardable = not any(facts) and self.options.forward_snapshots
        bounded = None
        if self.options.bounded_mn_views:
            bounded = bounded_mn(mma, group, self.affine, self.dim)
            if bounded.reasons:
                notes.append(f"{name}: bounded M/N views: {'; '.join(bounded.reasons)}")
        w = MatrixWorkload(
            op=name, m=m, n=n, k=k, dtype=str(a.dtype), acc_dtype=str(c.dtype),
            precision=policy.precision if policy is not None else "exact", executions=execs,
            executions_known=known, recurrence=recurrence, direct_output=direct,
            overwrite=overwrite, physical_k=physical, domains=domains,
            inputs_forwardable=forwardable, forwarding=facts, location=str(mma.loc),
            epilogue_tiles=epi_tiles, a_aligned_rows=self.aligned_rows(mma.operand(0)),
            b_aligned_rows=self.aligned_rows(mma.operand(1)),
            a_staging=self.operand_staging(mma.operand(0), group),
            b_staging=self.operand_staging(mma.operand(1), group),
            ring_versions=self.ring_versions(mma, group), bounded_mn=bounded,
            b_major=self.b_major(mma.operand(1), group))
        src = accumulator_source(mma, mmas)
        if src is not None:
            w = dataclasses.replace(w, a_from=f"mma#{src}")
        return w, owned

    def common_elements(self, group: ir.Operation, owned: set[int],
                        carried: set[tuple[int, int]], notes: list[str]) -> int:
        """Scalar element work of the group outside the operations' removable domains."""
        total = 0
        unknown = 0
        for op in group.walk(include_self=False):
            if op.id in owned or op.name in ("mma", "view", "memory", "parallel") + _LOOPS:
                continue
            if op.name == "yield":
                vals = [v for i, v in enumerate(op.operands) if (op.id, i) not in carried]
            elif op.name in ("store", "atomic"):
                vals = [op.operand(1)]
            else:
                vals = list(op.results)
            vals = [v for v in vals if isinstance(v.type, ir.TileType)]
            if not vals:
                continue
            execs, known = self.executions(op, group)
            for v in vals:
                size = self.size(v.type)
                if size is None or not known:
                    unknown += 1
                    continue
                total += size * execs
        if unknown:
            notes.append(f"{unknown} scalar tile value(s) have symbolic sizes or counts and "
                         f"are not counted in the common work")
        return total

    def site(self, fn_name: str, par: ir.Operation, index: int) -> GroupSite:
        """The group of one outermost ``parallel``."""
        label = f"@{fn_name}/parallel#{index}"
        site = GroupSite(fn_name, label, par)
        inner = list(par.walk(include_self=False))
        if any(o.name == "parallel" for o in inner):
            site.reason = "nested parallel scope: not admitted by the matrix mapper"
            return site
        mmas = [o for o in inner if o.name == "mma"]
        if not mmas:
            site.reason = "no mma: not a matrix group"
            return site
        if not self.options.map_gpu_cooperative_programs:
            site.reason = "cooperative program mapping disabled by PlannerOptions"
            return site
        rank = par.attr("rank")
        extents = [self.index(v) for v in par.operands[:rank]]
        programs = math.prod(extents) if all(e is not None for e in extents) else None  # type: ignore[arg-type]
        if programs is None:
            site.notes.append("program count is symbolic; waves use one program")
        constraint = par.attr("constraint")
        exact = getattr(constraint, "threads", None)
        ops: list[MatrixWorkload] = []
        owned: set[int] = set()
        carried: set[tuple[int, int]] = set()
        for i, mma in enumerate(mmas):
            w, own = self.mma_workload(mma, par, i, site.notes, mmas)
            if w is None:
                continue
            ops.append(w)
            owned |= own
            rec = closed_recurrence(mma)
            if rec is not None:
                carried.add((mma.parent.terminator.id, rec[1]))
        if not ops:
            site.reason = "no mma with static shapes"
            return site
        common = self.common_elements(par, owned, carried, site.notes)
        site.workload = GroupWorkload(group=label, ops=tuple(ops), programs=programs,
                                      common_elements=common, exact_threads=exact,
                                      location=str(par.loc), notes=tuple(site.notes))
        return site


_FREE_TILES = ("iota", "constant")
"""Tile operations whose values the lowering builds in whatever layout their user needs."""


def _within(op: ir.Operation, block: ir.Block | None) -> bool:
    """Whether ``op`` lies in ``block`` or in ``if`` regions nested in it (no loop between:
    each iteration of ``block``'s loop runs it at most once)."""
    blk = op.parent
    while blk is not None and blk is not block:
        owner = blk.parent_op
        if owner is None or owner.name != "if":
            return False
        blk = owner.parent
    return blk is block


def _carried_source(v: ir.Value, mma: ir.Operation) -> ir.Value | None:
    """For a value carried by the ``serial`` loop whose body holds ``mma`` (a software-
    pipelined loop's scores, computed one iteration ahead), the value its body yields for
    the next iteration, when its initial value is a free tile (``tc.zeros``); else None."""
    nxt = carried_in(v)
    if nxt is None:
        return None
    assert isinstance(v, ir.BlockArgument) and v.owner.parent_op is not None
    init = v.owner.parent_op.operand(3 + v.index - 1).defining_op
    ok = _within(mma, v.owner) and init is not None and init.name in _FREE_TILES
    return nxt if ok else None


def accumulator_source(mma: ir.Operation, mmas: Sequence[ir.Operation]) -> int | None:
    """The index in ``mmas`` of the product whose accumulator ``mma``'s A operand is computed
    from element by element, or None (``MatrixWorkload.a_from``).

    Followed back from A: ``map`` operands of A's shape, both arms of an ``if``'s result.
    Other operands of a map may be scalars, coordinate tiles and constants, or broadcasts
    of tiles of lower rank (a row statistic ``m[:, None]``). Anything else of A's shape (a
    load, a transpose, a reduction) and more than one source product refuse. The source
    must be in ``mma``'s block or one enclosing it through ``if`` regions: a loop that holds
    both then reads a product's result in the loop, so it keeps no warpgroup group in
    flight (``_in_flight_blocker``), which a register A operand needs. A value carried by
    that loop is followed to what its body yields for the next iteration (a
    software-pipelined loop's scores, ``_carried_source``)."""
    a = mma.operand(0)
    shape = a.type.shape
    found: set[int] = set()
    seen: set[ir.Value] = set()
    stack = [a]
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        op = v.defining_op
        if op is None:
            nxt = _carried_source(v, mma)
            if nxt is None:
                return None
            stack.append(nxt)
            continue
        if op.name == "mma":
            if op not in mmas or op is mma or not _within(mma, op.parent):
                return None
            found.add(mmas.index(op))
        elif op.name == "map":
            for x in op.operands:
                t = x.type
                if not isinstance(t, ir.TileType):
                    continue
                if t.shape == shape:
                    d = x.defining_op
                    if d is not None and d.name in _FREE_TILES:
                        continue
                    if d is not None and d.name == "reindex" \
                            and d.operand(0).type.rank < t.rank:
                        continue  # a broadcast of a lower-rank tile
                    stack.append(x)
                elif t.rank != 0:
                    return None
        elif op.name == "if":
            k = list(op.results).index(v)
            for region in op.regions:
                stack.append(region.entry.terminator.operand(k))
        else:
            return None
    return found.pop() if len(found) == 1 else None


def extract_groups(module: ir.Module, options: PlannerOptions | None = None,
                   shapes: Mapping[str, Mapping[str, int]] | Mapping[str, int] | None = None
                   ) -> list[GroupSite]:
    """Every outermost ``parallel`` nest of ``module``, in order, with its workload or reason.

    ``shapes`` binds shape symbols: either ``{symbol: value}`` for every function or
    ``{function name: {symbol: value}}``.
    """
    options = options or PlannerOptions()
    sites: list[GroupSite] = []
    for fn in module:
        bound = shapes.get(fn.name) if shapes and isinstance(shapes.get(fn.name), Mapping) \
            else shapes
        reader = _Reader(fn, options, bound)  # type: ignore[arg-type]
        for op in fn.walk():
            if op.name != "parallel" or any(a.name == "parallel" for a in _ancestors(op, None)):
                continue
            sites.append(reader.site(fn.name, op, len(sites)))
    return sites

