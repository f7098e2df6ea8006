"""Planning and reporting: ``plan_group``, ``plan_module``, ``GroupPlan``, ``ModulePlan``.

``plan_group`` runs the whole planner on one ``GroupWorkload``: enumerate the
matrix family (hard rejections first), price every legal candidate with the
selected cost basis, solve each thread count exactly, pick the lowest kernel
score. The resulting ``GroupPlan`` keeps everything: the selected
distribution, its footprint and work counts, every candidate with its
features and score, every rejection with its reason, the per-thread-count
outcome and the search counters. ``to_json`` gives it all; ``render`` gives a
readable summary (JSON has the complete lists).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import tilec.ir as ir
from tilec.exec import ExecStructure, TargetProfile, get_profile
from tilec.ir.atoms import SWIZZLE_ALIGN

from .cost import CostBasis, GroupTerms, Priced, select_basis
from .extract import extract_groups
from .matrix import Enumeration, Realization, Rejection, enumerate_group
from .options import PlannerOptions
from .proofs.split_k import split_loop
from .shared_ssa import SharedValue, render_shared_values
from .solver import Option, Problem, ProblemResult, SearchCounters, solve
from .work import GroupWorkload, MatrixWorkload

__all__ = ["Selection", "ThreadOutcome", "GroupPlan", "ModulePlan", "plan_group", "plan_module"]

_ADDITIVITY = ("operation scores are added independently: live ranges of different operations "
               "are treated as disjoint, the assumption under which Pareto pruning is exact")


@dataclass(frozen=True)
class Selection:
    """The chosen thread count and one realization per operation."""

    threads: int
    """Threads per group."""
    structure: ExecStructure | None
    """The execution structure (None for a scalar thread count that is not whole subgroups)."""
    choices: tuple[Priced, ...]
    """One priced candidate per operation, in workload order."""
    op_sum: float
    """Summed operation scores."""
    terms: GroupTerms
    """The thread-count terms (offset, scale)."""
    kernel_score: float
    """``(op_sum + offset) * scale``: the compared quantity."""
    shared_bytes: int
    """Group-shared bytes of the selected realizations (with their rings' minimum,
    ``MatrixCandidate.ring_bytes``) plus common allocations: what the capacity check saw."""
    released_bytes: int
    """Bytes released relative to the reference staging, less the rings' bytes."""
    capacity: int | None
    """The group-memory capacity checked."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description."""
        return {
            "threads": self.threads,
            "structure": None if self.structure is None else str(self.structure),
            "kernel_score": self.kernel_score, "operation_score_sum": self.op_sum,
            "group_terms": {"offset": self.terms.offset, "scale": self.terms.scale,
                            **dict(self.terms.features)},
            "footprint": {"shared_bytes": self.shared_bytes,
                          "released_bytes": self.released_bytes,
                          "shared_capacity": self.capacity},
            "operations": [_priced_json(p) for p in self.choices],
        }


@dataclass(frozen=True)
class ThreadOutcome:
    """What the solver found at one thread count."""

    threads: int
    """Threads per group."""
    result: ProblemResult
    """The solver's result (best combination or the reason there is none)."""
    terms: GroupTerms | None
    """The thread-count terms used."""
    chosen: tuple[Priced, ...] = ()
    """The priced option of each operation in the best combination (empty when there is
    none): what ``plan.split_price`` re-prices at this thread count."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description."""
        best = self.result.best
        return {"threads": self.threads,
                "kernel_score": None if best is None else best.score,
                "choices": None if best is None else list(best.choices),
                "shared_bytes": None if best is None else best.bytes,
                "reason": self.result.reason}


@dataclass
class GroupPlan:
    """The planner's complete account of one group."""

    group: str
    """The group's identity."""
    target: str
    """The target profile name."""
    workload: GroupWorkload
    """The planner input."""
    cost_basis: str | None
    """Name and version of the basis every score is in; None when nothing was scored."""
    coefficients: dict[str, Any] = field(default_factory=dict)
    """The basis's coefficients and their provenance."""
    selected: Selection | None = None
    """The choice, or None (see ``diagnostics`` and ``fallback``)."""
    candidates: list[Priced] = field(default_factory=list)
    """Every legal candidate with its features and score, in enumeration order."""
    rejected: list[Rejection] = field(default_factory=list)
    """Every rejected realization with its reason."""
    outcomes: list[ThreadOutcome] = field(default_factory=list)
    """Per searched thread count, the solver's outcome."""
    counters: dict[str, int] = field(default_factory=dict)
    """Search counters (enumeration and solver)."""
    fragment_budget: int | None = None
    """The explicit fragment scalars per lane every candidate was checked against."""
    diagnostics: list[str] = field(default_factory=list)
    """Why a search did not run or found nothing; what was assumed."""
    fallback: str | None = None
    """The path used instead when nothing is selected (the checked scalar reference)."""
    replaced: GroupPlan | None = None
    """A plan in another basis that found nothing and was replaced by this one."""
    summary: tuple[str, ...] = ()
    """Feature names the basis asks the text report to show per candidate."""
    options: PlannerOptions = field(default_factory=PlannerOptions)
    """The options used."""
    split_legal: bool = False
    """Whether the group's K loop may run split over programs (``plan/proofs/split_k.py``);
    ``plan_module`` checks it, so a split can be priced (``plan/split_price.py``)."""
    split_note: str = ""
    """The split proof's note: the loop it found, or why there is none (empty: not
    checked)."""

    def to_json(self) -> dict[str, Any]:
        """Everything, JSON-serializable."""
        return {
            "group": self.group, "location": self.workload.location, "target": self.target,
            "cost_basis": self.cost_basis, "coefficients": self.coefficients,
            "programs": self.workload.programs,
            "common_independent_elements": self.workload.common_elements,
            "exact_threads": self.workload.exact_threads,
            "admission": self.admission, "fragment_budget": self.fragment_budget,
            "operations": [w.to_json() for w in self.workload.ops],
            "selected": None if self.selected is None else self.selected.to_json(),
            "fallback": self.fallback,
            "candidates": [_priced_json(p) for p in self.candidates],
            "rejected": [r.to_json() for r in self.rejected],
            "thread_counts": [o.to_json() for o in self.outcomes],
            "counters": dict(self.counters),
            "split_k": {"legal": self.split_legal, "note": self.split_note},
            "diagnostics": list(self.diagnostics),
            "notes": list(self.workload.notes),
            "assumptions": [_ADDITIVITY] if self.cost_basis else [],
            "replaced": None if self.replaced is None else self.replaced.to_json(),
            "options": self.options.to_json(),
        }

    @property
    def admission(self) -> str:
        """How the group reached the matrix mapper: its own constraint, or automatically."""
        return "explicit_constraint" if self.workload.exact_threads is not None \
            else "automatic_cooperative"

    def render(self, top: int = 8) -> str:
        """A readable summary: selection, best candidates per operation, rejection reasons."""
        w = self.workload
        lines = [f"group {self.group}  ({w.location or 'unknown location'})",
                 f"  target {self.target}   cost basis {self.cost_basis or '-'}"
                 + (f"   [{self.coefficients.get('provenance', '')}]" if self.coefficients
                    else ""),
                 f"  programs {w.programs if w.programs is not None else '?'}   "
                 f"common scalar elements {w.common_elements}   admission {self.admission}   "
                 f"fragment budget {self.fragment_budget if self.fragment_budget else '-'}"]
        for op in w.ops:
            facts = []
            if op.recurrence is not None:
                facts.append(f"recurrence L={op.recurrence}")
            if op.direct_output:
                facts.append("direct output")
            if op.overwrite:
                facts.append("overwrite")
            if op.physical_k_proved:
                facts.append(f"mean physical K={float(op.mean_k):g}")
            if op.bounded_mn is not None and op.bounded_mn.proved:
                facts.append(f"bounded {op.bounded_mn.axes.upper()} views")
            execs = op.executions if op.executions_known else f"{op.executions} (assumed)"
            lines.append(f"  {op.op}: {op.m}x{op.n}x{op.k} {op.dtype}->{op.acc_dtype} "
                         f"{op.precision}  E={execs}  {', '.join(facts) or 'no proofs'}")
        if self.replaced is not None:
            lines.append(f"  replaced basis {self.replaced.cost_basis}: "
                         + "; ".join(self.replaced.diagnostics))
        if self.selected is not None:
            s = self.selected
            lines.append(f"  selected: {s.threads} threads"
                         + (f" {s.structure}" if s.structure is not None else "")
                         + f"   kernel score {s.kernel_score:.6g}"
                         + f"   shared {s.shared_bytes} B of {s.capacity if s.capacity else '-'}")
            for p in s.choices:
                c = p.candidate
                lines.append(f"    {c.op}: {c.label}  atom {c.atom.id if c.atom else '-'}  "
                             f"frag/lane {c.fragment_scalars}  score {p.score:.6g}")
        else:
            lines.append(f"  selected: none   fallback: {self.fallback or '-'}")
        for op in w.ops:
            if op.bounded_mn is not None and op.bounded_mn.proved:
                lines.append(f"  {op.op} bounded views: "
                             + "; ".join(a.describe() for a in (op.bounded_mn.m, op.bounded_mn.n)
                                         if a is not None))
        for d in self.diagnostics:
            lines.append(f"  ! {d}")
        for n in w.notes:
            lines.append(f"  note: {n}")
        c = self.counters
        if c:
            lines.append("  search: " + ", ".join(f"{k} {v}" for k, v in c.items()))
        scale = {o.threads: o.terms.scale for o in self.outcomes if o.terms is not None}
        for op in w.ops:
            mine = sorted((p for p in self.candidates if p.candidate.op == op.op),
                          key=lambda p: (p.score * scale.get(p.candidate.threads, 1.0),
                                         p.candidate.threads))
            if not mine:
                continue
            lines.append(f"  best {min(top, len(mine))} of {len(mine)} candidates for {op.op} "
                         f"(ordered by score x group scale):")
            extra = [f for f in self.summary if any(f == k for k, _ in mine[0].features)]
            lines.append(f"    {'threads':>7} {'realization':<34} {'warp':>7} {'atom':<18} "
                         f"{'frag':>4} {'shared B':>9} {'score':>10} {'x group':>7}"
                         + "".join(f" {_short(f):>9}" for f in extra))
            for p in mine[:top]:
                cand = p.candidate
                feats = dict(p.features)
                lines.append(f"    {cand.threads:>7} {cand.label.rsplit(' @', 1)[0]:<34} "
                             f"{_warp_tile(cand):>7} {cand.atom.id if cand.atom else '-':<18} "
                             f"{cand.fragment_scalars:>4} {cand.shared_bytes:>9} {p.score:>10.6g} "
                             f"{scale.get(cand.threads, 1.0):>7.3g}"
                             + "".join(f" {feats.get(f, float('nan')):>9.4g}" for f in extra))
        if self.rejected:
            reasons = Counter(_reason_kind(r.reason) for r in self.rejected)
            lines.append(f"  rejected {len(self.rejected)}:")
            for reason, count in sorted(reasons.items(), key=lambda t: (-t[1], t[0])):
                lines.append(f"    {count:>5} x {reason}")
        return "\n".join(lines)


_SHORT = MappingProxyType({"fragment_loads": "frag lds", "warp_steps": "warp stp",
                           "resident_subgroups": "resident", "registers": "regs est"})


def _warp_tile(c: Any) -> str:
    """``rows x columns`` of one subgroup's rectangle ('-' for the reference realizations)."""
    if c.atom is None or c.distribution is None or c.realization == Realization.ONE_ATOM:
        return "-"
    am, an, _ = c.atom.shape
    return f"{c.distribution.rm * am}x{c.distribution.rn * an}"


def _short(feature: str) -> str:
    """A column heading of at most 9 characters for a feature name."""
    return _SHORT.get(feature, feature[:9])


def _reason_kind(reason: str) -> str:
    """A rejection reason without its numbers' context, for grouping in the text view."""
    return reason.split(":", 1)[0] if ":" in reason else reason


def _priced_json(p: Priced) -> dict[str, Any]:
    d = p.candidate.to_json()
    d["work"] = p.work.to_json()
    d["features"] = dict(p.features)
    d["score"] = p.score
    return d


@dataclass
class ModulePlan:
    """The plans of every group of a module."""

    target: str
    """The target profile name."""
    groups: list[GroupPlan] = field(default_factory=list)
    """One plan per admitted group, in module order."""
    unplanned: list[dict[str, str]] = field(default_factory=list)
    """Groups the matrix mapper did not take, with the reason."""
    options: PlannerOptions = field(default_factory=PlannerOptions)
    """The options used."""
    profile: TargetProfile | None = None
    """The target profile."""
    realization: Any = None
    """The target's own realization plan, for a target that plans one beside the matrix
    family (cpu: programs over OpenMP threads, vector lanes, register micro-tiles): any
    object with ``render()`` and ``to_json()``; None otherwise."""
    shared_values: list[SharedValue] = field(default_factory=list)
    """Every pure multi-consumer value and its choice (``options.shared_ssa``;
    ``shared_ssa.plan_shared_values``), on the module this plan planned."""
    rewrites: list[str] = field(default_factory=list)
    """Rewrites of the module made before planning, one line each (the TF32 operand swap,
    ``options.tf32_operand_swap``)."""

    def to_json(self) -> dict[str, Any]:
        """Everything, JSON-serializable."""
        return {"target": self.target,
                "profile": None if self.profile is None else self.profile.to_json(),
                "options": self.options.to_json(),
                "groups": [g.to_json() for g in self.groups],
                "unplanned": list(self.unplanned),
                "shared_values": [v.to_json() for v in self.shared_values],
                "rewrites": list(self.rewrites),
                "realization": None if self.realization is None
                else self.realization.to_json()}

    def render(self) -> str:
        """A readable summary of every group."""
        out = [f"plan for {self.target}: {len(self.groups)} matrix group(s)"]
        out += [f"rewrite: {r}" for r in self.rewrites]
        for g in self.groups:
            out.append(g.render())
        for u in self.unplanned:
            out.append(f"group {u['group']}: not planned ({u['reason']})")
        trav = self.options.program_traversal
        if trav is not None:
            out.append(f"program traversal: {trav} (the lowering numbers every grid of rank 2 "
                       "or more so; a rank-1 grid stays row-major)")
        if self.shared_values or self.options.shared_ssa != "retain":
            out.append(render_shared_values(self.options.shared_ssa, self.shared_values))
        if self.realization is not None:
            out.append(self.realization.render())
        return "\n".join(out)


def _structure(profile: TargetProfile, threads: int, programs: int | None
               ) -> ExecStructure | None:
    if threads % profile.subgroup_width:
        return None
    return profile.structure(threads, programs)


def plan_group(work: GroupWorkload, target: str | TargetProfile,
               options: PlannerOptions | None = None, basis: CostBasis | None = None
               ) -> GroupPlan:
    """Plan one group exactly within the matrix family; see the module docstring.

    ``basis`` replaces the basis ``options`` select (e.g. one with fitted coefficients).
    """
    options = options or PlannerOptions()
    profile = get_profile(target) if isinstance(target, str) else target
    if basis is None:
        basis = select_basis(profile, options)
    elif basis.profile.family != profile.family:
        raise ValueError(f"basis {basis.name} was built for {basis.profile.name}, "
                         f"not {profile.name}")
    plan = GroupPlan(work.group, profile.name, work, None if basis is None else basis.name,
                     {} if basis is None else basis.coefficients_json(), options=options,
                     summary=tuple(getattr(basis, "summary", ())))
    if not options.enabled:
        plan.fallback = "reference path (planner disabled)"
        plan.diagnostics.append("PlannerOptions.enabled is False")
        return plan
    if basis is None:
        plan.fallback = "the target's own realization (no matrix family)"
        plan.diagnostics.append(f"{profile.name} has no subgroup matrix atoms and no matrix "
                                f"cost basis; the target realizes matrix products itself")
        return plan
    en = enumerate_group(work, profile, options, basis.families)
    if options.threads is not None and work.exact_threads is not None \
            and options.threads != work.exact_threads:
        plan.diagnostics.append(f"the program's exact constraint of {work.exact_threads} "
                                f"threads overrides PlannerOptions.threads={options.threads}")
    _fill(plan, en, basis, work, profile)
    if basis.name == "metal_cross_family_v1" and plan.selected is not None:
        from tilec.plan.cost.cross_family import family_summary

        plan.diagnostics.extend(family_summary(plan.candidates, plan.selected.threads,
                                               plan.selected.choices))
    if plan.selected is None and basis.name == "metal_mpp_memory_v3" \
            and options.cost_basis is None and not en.search.diagnostic:
        fallback = plan_group(work, profile, dataclasses.replace(options, metal_mpp="off"))
        fallback.diagnostics.append(_mpp_fallback_reason(plan))
        fallback.replaced = plan
        return fallback
    return plan


def _mpp_fallback_reason(plan: GroupPlan) -> str:
    """Why an MPP-only plan found nothing, for the fallback's diagnostics. Candidates that
    obey the descriptor rule but fit no combination (group memory) come first: the rule's
    rejections of other factorizations alone would wrongly suggest the rule is to blame."""
    why = []
    if plan.candidates:
        counts = sorted({p.candidate.threads for p in plan.candidates})
        at = ", ".join(map(str, counts)) if len(counts) <= 4 else \
            f"{counts[0]} to {counts[-1]} ({len(counts)} counts)"
        fits = sorted({o.result.reason for o in plan.outcomes
                       if o.result.best is None and o.result.reason})
        why.append(f"candidates obeying the descriptor rule at {at} threads fit no "
                   f"combination: {'; '.join(fits[:2]) or 'no feasible combination'}")
    rules = sorted({r.reason for r in plan.rejected if r.atom and r.atom.startswith("mpp")},
                   key=lambda x: (not x.startswith("MPP matmul2d"), x))
    why.extend(rules[:4])
    return "no legal MPP plan; planned with the SIMD-group reference basis" \
        + (f" (MPP: {'; '.join(why)})" if why else "")


def _fill(plan: GroupPlan, en: Enumeration, basis: CostBasis, work: GroupWorkload,
          profile: TargetProfile) -> None:
    """Price, solve and record everything in ``plan``."""
    plan.rejected = list(en.rejections)
    if en.search.diagnostic is not None:
        plan.diagnostics.append(en.search.diagnostic)
        plan.fallback = "none: the search did not run"
    capacity = profile.shared_bytes_per_group
    base = work.common_shared_bytes + sum(sum(w.staging_bytes().values()) for w in work.ops)
    positions = {w.op: i for i, w in enumerate(work.ops)}
    problems: list[Problem] = []
    priced: dict[int, list[list[Priced]]] = {}
    terms: dict[int, GroupTerms] = {}
    for t in en.search.counts:
        per_op = []
        for oe in en.by_threads[t]:
            ps = [basis.price(c, oe.op, work.programs) for c in oe.candidates]
            plan.candidates.extend(ps)
            per_op.append(ps)
        priced[t] = per_op
        terms[t] = basis.group_terms(t, work)
        problems.append(Problem(t, tuple(tuple(_option(p, oe.op, positions) for p in ps)
                                         for ps, oe in zip(per_op, en.by_threads[t])),
                                base, capacity, terms[t].offset, terms[t].scale))
    best, results, sc = solve(problems)
    plan.outcomes = [ThreadOutcome(r.key, r, terms.get(r.key),
                                   () if r.best is None else
                                   tuple(priced[r.key][i][j] for i, j in enumerate(r.best.choices)))
                     for r in results]
    plan.counters = {"thread_counts": len(en.search.counts),
                     "realizations_examined": en.enumerated,
                     "candidates": len(plan.candidates), "rejected": len(plan.rejected),
                     **_solver_counters(sc)}
    plan.fragment_budget = en.budget
    if best is None:
        if en.search.diagnostic is None:
            reasons = sorted({r.reason or "" for r in results})
            plan.diagnostics.append("no capacity-feasible legal combination at any thread "
                                    "count" + (f": {'; '.join(reasons)}" if reasons else ""))
            plan.fallback = "checked scalar reference"
        return
    chosen = tuple(priced[best.key][i][j] for i, j in enumerate(best.choices))
    plan.selected = Selection(best.key, _structure(profile, best.key, work.programs), chosen,
                              best.op_sum, terms[best.key], best.score, best.bytes,
                              best.released, capacity)


def _option(p: Priced, w: MatrixWorkload, positions: dict[str, int]) -> Option:
    """The solver's view of one priced candidate: the bytes it releases beside its ring, its
    accumulator's scratch pool (one per accumulator type) and the swizzled base's alignment
    (both paid once by the group), and, for
    a warpgroup candidate whose A is an earlier product's accumulator, the A staging it
    does not need where that product is a warpgroup candidate too."""
    c = p.candidate
    bonus = None
    if c.register_a and w.a_from in positions and positions[w.a_from] < positions[w.op]:
        bonus = (positions[w.a_from], Realization.WGMMA.value, c.register_a)
    pools = ((f"scratch {w.acc_dtype}", c.pool_bytes),) if c.pool_bytes else ()
    if c.realization == Realization.WGMMA:  # one aligned base for every swizzled buffer
        pools += (("swizzled base", SWIZZLE_ALIGN),)
    return Option(p.score, c.released_bytes - c.ring_bytes, pools, c.realization.value, bonus)


def _solver_counters(sc: SearchCounters) -> dict[str, int]:
    return {f"dp_{k}": v for k, v in sc.to_json().items()}


def plan_module(module: ir.Module, target: str, options: PlannerOptions | None = None,
                shapes: Mapping[str, Any] | None = None) -> ModulePlan:
    """Plan every matrix group of a Candidate TileIR module for ``target``.

    ``shapes`` optionally binds the shape symbols of a shape-generic module
    (``{symbol: value}``, or per function ``{name: {symbol: value}}``; see
    ``shapes_from_arrays``) so that programs and trip counts are known.
    """
    options = options or PlannerOptions()
    profile = get_profile(target)
    mp = ModulePlan(profile.name, options=options, profile=profile)
    for site in extract_groups(module, options, shapes):
        if site.workload is None:
            mp.unplanned.append({"group": site.label, "location": str(site.op.loc),
                                 "reason": site.reason or "not admitted"})
            continue
        gp = plan_group(site.workload, profile, options)
        loop, gp.split_note = split_loop(site.op, profile, 2)
        gp.split_legal = loop is not None
        mp.groups.append(gp)
    return mp
