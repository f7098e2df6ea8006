"""The model's price of a split of K: a group's selected plan re-priced as ``S`` programs
per output tile, each running a ``1/S`` share of the K loop, plus the partials' traffic.

``LowerOptions.split_k = S`` realizes it (docs/design/split_k.md); this module lets the
model choose it, with the tiles, instead of a rule added after the tiles were chosen. The
split workload is the group's with

    programs   P * S
    each mma whose K loop is split (a proved recurrence of L steps):
               recurrence ceil(L / S), executions E' = (E / L) * ceil(L / S)
    common elements  less (E - E') * (m + n) * k per mma: the operand tiles the steps a
               program no longer runs would have loaded

and the selected candidates (same threads, same realizations) are priced on it by the
basis, which adds what the split costs (``split_combine``: the partials stored and read
back). The kernel score is then ``GroupTerms.finalize`` at the split program count, so the
waves, underfill and the shorter loop are the basis's own. What is not re-priced: the
operations' scalar element domains and the common work after the loop, which stay as
unsplit (the combining program runs them once per tile; the others skip them, which this
overstates). A basis without ``split_combine``, or one that returns None, prices no
split.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tilec.exec import get_profile

from .cost import basis_named
from .report import GroupPlan, ModulePlan
from .work import GroupWorkload

__all__ = ["SPLITS", "split_workload", "split_score", "best_split"]

SPLITS = (2, 4, 8, 16)
"""The split counts the model prices (powers of two, as the tuning variants and the split
sweep use)."""

MIN_STEPS_PER_SPLIT = 4
"""Fewest K steps a split keeps: shorter loops are mostly prologue and combine (the H100
split sweep, benchmarks/cuda_split_k.py at 5747c4f: 128x128x8192 at 64x64x64 tiles ran
0.0147 ms with 16 splits of 8 steps and 0.0151 with 32 of 4)."""


def split_workload(work: GroupWorkload, splits: int) -> GroupWorkload | None:
    """``work`` with its K loops split ``splits`` ways (see the module docstring), or None
    when it cannot be priced: the program count or an operation's recurrence is not known."""
    if work.programs is None or splits < 2:
        return None
    ops = []
    operands = 0  # operand tile elements the K loops load per program, before and after
    for w in work.ops:
        if w.recurrence is None or not w.executions_known:
            return None
        steps = -(-w.recurrence // splits)
        ops.append(dataclasses.replace(w, recurrence=steps, split_k=splits,
                                       executions=(w.executions // w.recurrence) * steps))
        operands += (w.executions - ops[-1].executions) * (w.m + w.n) * w.k
    return dataclasses.replace(work, programs=work.programs * splits, ops=tuple(ops),
                               common_elements=max(0, work.common_elements - operands))


def _basis(plan: GroupPlan) -> Any:
    """The basis ``plan`` was priced in (by name, with its target's coefficients)."""
    return basis_named(plan.cost_basis, get_profile(plan.target)) \
        if plan.cost_basis is not None else None


def split_score(plan: GroupPlan, splits: int, basis: Any = None) -> float | None:
    """The kernel score of ``plan``'s selection with its K loop split ``splits`` ways, in
    its own basis (``basis``: that basis, when the caller has it); None when it cannot be
    priced (nothing selected, the split proof does not hold, the counts are unknown, or
    the basis prices no split)."""
    sel = plan.selected
    if sel is None or not plan.split_legal or plan.cost_basis is None:
        return None
    work = split_workload(plan.workload, splits)
    if work is None:
        return None
    basis = basis or _basis(plan)
    combine = getattr(basis, "split_combine", None)
    if combine is None:
        return None
    total = 0.0
    for choice, w in zip(sel.choices, work.ops):
        priced = basis.price(choice.candidate, w, work.programs)
        extra = combine(priced, w, splits)
        if extra is None:
            return None
        total += priced.score + extra
    return basis.group_terms(sel.threads, work).finalize(total)


def best_split(plan: ModulePlan) -> tuple[int, float] | None:
    """The split count (``SPLITS``) and summed kernel score that price lowest for a plan of
    one group, when some split prices below the unsplit selection; else None (also for
    plans of several groups: ``split_k`` splits every group alike, which this does not
    price)."""
    if len(plan.groups) != 1 or plan.groups[0].selected is None:
        return None
    g = plan.groups[0]
    steps = min((w.recurrence for w in g.workload.ops if w.recurrence), default=0)
    best: tuple[int, float] | None = None
    unsplit = g.selected.kernel_score
    basis = _basis(g) if steps >= SPLITS[0] * MIN_STEPS_PER_SPLIT else None
    for s in SPLITS:
        if steps < s * MIN_STEPS_PER_SPLIT:
            break
        score = split_score(g, s, basis)
        if score is not None and score < (unsplit if best is None else best[1]):
            best = (s, score)
    return best
