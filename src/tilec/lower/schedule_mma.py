"""The scheduling of ``mma`` operations: the planner's candidate committed as an ``MmaChoice``
(realization, distribution, accumulator, layout), and the facts that adjust it before the
group's layouts are assigned: bounded K and bounded M/N views (``skips_k_tail``,
``skips_outside``), forwarded snapshots (``mark_forwarded``), and the candidates forced by
``LowerOptions.force_matrix`` (``matrix_candidates``). Used by ``schedule``."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import tilec.ir as ir
from tilec.ir import dist_layout as L
from tilec.ir.atoms import (
    LANE_ATOMS,
    MMA_ATOMS,
    MPP_ATOMS,
    MPP_REALIZATIONS,
    SIMDGROUP_ATOM,
    wgmma_of,
)
from tilec.plan import GroupPlan, MatrixCandidate
from tilec.plan.proofs import snapshot_forwarding, subgroup_extents

from .mpp_operands import direct_operand_refusal
from .options import LoweringBug, LowerOptions
from .schedule_staging import mma_labels, plain_transpose, static_shape

if TYPE_CHECKING:
    from .schedule import GroupSchedule

__all__ = ["MmaChoice", "mma_choice", "mark_forwarded", "bounded_k", "bounded_mn",
           "matrix_candidates", "skips_k_tail", "skips_outside"]


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
    physical_k: bool = False
    """The K steps past the planner's proved physical K are skipped and their columns not
    staged (``machine_bounded_k``; ``PlannerOptions.bounded_k_views``)."""
    forwarded: bool = False
    """A and B are read from their source windows (the planner's forwarded candidate,
    ``plan/proofs/snapshot_forwarding.py``): their loads (and plain transposes) are marked
    ``forwarded`` and are neither staged nor loaded into registers."""
    bounded_mn: str = ""
    """The axes (``"m"``, ``"n"``, ``"mn"``) along which accumulator rectangles outside the
    arrays are not computed (``machine_bounded_mn``; ``PlannerOptions.bounded_mn_views``)."""


def mma_choice(op: ir.Operation, cand: MatrixCandidate | None, threads: int,
                notes: list[str]) -> MmaChoice:
    a_t, _, c_t = (v.type for v in op.operands)
    m, n = static_shape(c_t)
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
    elif atom_id in MPP_ATOMS and cand.realization == "mpp":
        # the accumulator between operations: the lane-FMA layout of the 8x8 atom grid
        # (documented); MPP's cooperative tensors live inside one operation (machine_mpp)
        lane = LANE_ATOMS[SIMDGROUP_ATOM]
        realization, am, an, frag = MPP_ATOMS[atom_id], lane.am, lane.an, lane.c
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
        wg = wgmma_of(atom_id)
        if wg is None:
            notes.append(f"{atom_id} has no warpgroup instruction; the scalar reference is used")
            return ref
        realization = wg.catalog_id
    if cand.realization == "simdgroup":
        if atom_id != SIMDGROUP_ATOM:
            notes.append(f"{atom_id} has no simdgroup realization; the scalar reference is used")
            return ref
        # the accumulator between executions: the lane-FMA layout (documented); the opaque
        # fragments live inside one execution (machine_simdgroup)
        realization = "simdgroup"
    if realization in ("ffma", "simdgroup", *MPP_REALIZATIONS):
        layout = L.lane_tile((m, n), threads, d.gm, d.gn, d.rm, d.rn, am, an, frag.map,
                             frag.regs)
    else:
        layout = L.fragment_acc((m, n), threads, d.gm, d.gn, d.rm, d.rn, am, an, frag.map,
                                frag.regs)
    forwarded = cand.forwarded and (realization in MMA_ATOMS or realization in MPP_REALIZATIONS)
    return MmaChoice(realization, atom_id, "rectangle", d.gm, d.gn, d.rm, d.rn,
                     cand.accumulator, layout, forwarded=forwarded)


def _snapshot_chain(v: ir.Value) -> list[ir.Operation] | None:
    """The plain transposes and the load that matrix operand ``v`` is read through (the
    load last), or None when it is no such chain."""
    chain = []
    op = v.defining_op
    while op is not None and plain_transpose(op):
        chain.append(op)
        op = op.operand(0).defining_op
    if op is None or op.name != "load":
        return None
    return chain + [op]


def _staged_use(g: GroupSchedule, x: ir.Operation, marked: dict[ir.Operation, Any]) -> bool:
    """Whether snapshot ``x`` has a consumer that is neither marked nor a forwarded mma."""
    return any(not (u.owner in marked or (u.owner.name == "mma" and u.index < 2
                                          and g.mma[u.owner].forwarded))
               for u in x.result.uses)


def _mpp_direct_refusal(op: ir.Operation) -> str | None:
    """Why an MPP ``mma`` cannot read its operands as device tensors (``mpp_operands``)."""
    for j, role in ((0, "A"), (1, "B")):
        chain = _snapshot_chain(op.operand(j))
        why = "its snapshot is not a load" if chain is None \
            else direct_operand_refusal(chain[-1])
        if why:
            return f"MPP direct operand {role}: {why}"
    return None


def mark_forwarded(g: GroupSchedule) -> None:
    """Mark the snapshots the forwarded choices read (``forwarded``), so that they are
    neither staged nor loaded; a choice whose snapshot another, staged, consumer also reads
    is staged too (its copy exists anyway), until no choice changes. The planner's proof
    (``snapshot_forwarding``) admits only mma and relabeling uses; forced candidates may
    still mix realizations."""
    proof = None
    for op, ch in list(g.mma.items()):
        if not ch.forwarded:
            continue
        fn = op.function
        proof = proof or (snapshot_forwarding(fn) if fn is not None else None)
        why = "not in a function" if proof is None else \
            proof.why_not(op, 0) or proof.why_not(op, 1)
        if not why and ch.realization in MPP_REALIZATIONS:
            why = _mpp_direct_refusal(op)
        if why:  # a forced candidate: the proof decides, not the request
            g.mma[op] = dataclasses.replace(ch, forwarded=False)
            g.notes.append(f"the mma at {op.loc} is staged: snapshot forwarding refused ({why})")
    while True:
        marked: dict[ir.Operation, list[ir.Operation]] = {}
        for op, ch in g.mma.items():
            if not ch.forwarded:
                continue
            for j in range(2):
                for x in _snapshot_chain(op.operand(j)) or ():
                    marked.setdefault(x, []).append(op)
        demote = {m for x, ms in marked.items() if _staged_use(g, x, marked) for m in ms}
        if not demote:
            break
        for m in demote:
            g.mma[m] = dataclasses.replace(g.mma[m], forwarded=False)
            g.notes.append(f"the mma at {m.loc} is staged: a staged mma reads its operands too")
    for x in marked:
        x.attributes["forwarded"] = True
    for op, ch in g.mma.items():
        if ch.forwarded:
            g.notes.append(f"the mma at {op.loc} reads A and B from their source windows "
                           "(snapshot forwarding): no staging")



def skips_k_tail(realization: str) -> bool:
    """Whether a Machine realization of ``mma`` can skip its K tail (``machine_bounded_k``):
    lane FMAs, ``mma.sync`` atoms and the scalar reference; not the warpgroup instructions
    (their K is the tensor copy's box) nor ``simdgroup``."""
    return realization in ("ffma", "reference") or realization in MMA_ATOMS


def skips_outside(realization: str) -> bool:
    """Whether a Machine realization of ``mma`` can skip the accumulator rectangles outside
    its bounded M/N views (``machine_bounded_mn``): the same as ``skips_k_tail``, lane FMAs,
    ``mma.sync`` atoms and the scalar reference; a warpgroup instruction computes its whole
    tile and ``simdgroup`` fragments are opaque."""
    return skips_k_tail(realization)


def bounded_k(ch: MmaChoice, label: str, plan: GroupPlan | None, options: LowerOptions,
               notes: list[str]) -> MmaChoice:
    """``ch`` realizing bounded K views when the option is on, the planner proved the
    physical K of ``label`` and the realization can skip its K tail; a note says why not."""
    if not options.planner.bounded_k_views or plan is None:
        return ch
    work = next((w for w in plan.workload.ops if w.op == label), None)
    if work is None or not work.physical_k_proved:
        return ch  # the planner's report says why physical K was not proved
    if not skips_k_tail(ch.realization):
        notes.append(f"{label}: bounded K views not realized by the {ch.realization} "
                     f"realization; the whole K tile is staged and read")
        return ch
    notes.append(f"{label}: bounded K views realized: K steps past the physical K are "
                 f"skipped and synchronous copies stage only their chunks")
    return replace(ch, physical_k=True)


def bounded_mn(ch: MmaChoice, label: str, plan: GroupPlan | None, options: LowerOptions,
                notes: list[str]) -> MmaChoice:
    """``ch`` skipping the accumulator rectangles outside its bounded M/N views when the
    option is on, the planner proved an axis of ``label`` and the realization can skip; a
    note says what was realized (with the subgroup rectangles the grid leaves empty or
    partial) or why not."""
    if not options.planner.bounded_mn_views or plan is None:
        return ch
    work = next((w for w in plan.workload.ops if w.op == label), None)
    fact = None if work is None else work.bounded_mn
    if fact is None or not fact.proved:
        return ch  # the planner's report says why
    if not skips_outside(ch.realization):
        notes.append(f"{label}: bounded M/N views not realized by the {ch.realization} "
                     f"realization (its tile is one collective instruction or opaque "
                     f"fragments); the whole tile is computed")
        return ch
    counts = []
    if ch.distribution == "rectangle" and ch.atom is not None:
        am, an = (MMA_ATOMS[ch.atom].am, MMA_ATOMS[ch.atom].an) if ch.atom in MMA_ATOMS \
            else (LANE_ATOMS[ch.atom].am, LANE_ATOMS[ch.atom].an)
        for ax, local, count in ((fact.m, ch.rm * am, ch.gm), (fact.n, ch.rn * an, ch.gn)):
            got = None if ax is None else subgroup_extents(ax, local, count)
            if got is not None:
                counts.append(f"{ax.axis} subgroup rectangles: {got[0]} empty, {got[1]} "
                              f"partial over the grid")
    notes.append(f"{label}: bounded {fact.axes.upper()} views realized: rectangles outside "
                 "the arrays skip their fragment loads and matrix steps"
                 + (f" ({'; '.join(counts)})" if counts else ""))
    return replace(ch, bounded_mn=fact.axes)


def matrix_candidates(mmas: list[ir.Operation], plan: GroupPlan | None,
                       options: LowerOptions) -> dict[ir.Operation, MatrixCandidate | None]:
    out: dict[ir.Operation, MatrixCandidate | None] = {}
    chosen = {}
    if plan is not None and plan.selected is not None:
        chosen = {p.candidate.op: p.candidate for p in plan.selected.choices}
    for op, label in mma_labels(mmas).items():
        if options.force_matrix is not None and label in options.force_matrix:
            out[op] = options.force_matrix[label]
        elif options.matrix_realizations:
            out[op] = chosen.get(label)
        else:
            out[op] = None
    return out


# -------------------------------------------------------------------- reductions
