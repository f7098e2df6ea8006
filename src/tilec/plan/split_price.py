"""The model's price of a split of K: a group's plan re-priced as ``S`` programs per output
tile, each running a ``1/S`` share of the K loop, plus the partials' traffic.

``LowerOptions.split_k = S`` realizes it (docs/design/split_k.md); this module lets the
model choose it, with the tiles, instead of a rule added after the tiles were chosen. The
split workload is the group's with

    programs   P * S
    each mma whose K loop is split (a proved recurrence of L steps):
               recurrence ceil(L / S), executions E' = (E / L) * ceil(L / S)
    common elements  less (E - E') * (m + n) * k per mma: the operand tiles the steps a
               program no longer runs would have loaded

and the best combination at a thread count (same threads, same realizations) is priced on
it by the basis, which adds what the split costs (``split_combine``: the partials stored
and read back). The kernel score is then ``GroupTerms.finalize`` at the split program
count, so the waves, underfill and the shorter loop are the basis's own. What is not
re-priced: the operations' scalar element domains and the common work after the loop,
which stay as unsplit (the combining program runs them once per tile; the others skip
them, which this overstates). A basis without ``split_combine``, or one that returns None,
prices no split.

A split is priced at every thread count the planner found a combination for (its best
combination there, ``ThreadOutcome.chosen``), not only at the unsplit selection's: the
thread count that prices an unsplit grid lowest need not be the one whose split prices
lowest (128x128x8192 at 32x32x64 tiles: unsplit, 384 threads price lowest, and their best
split is 8 ways; at 256 threads the 16-way split prices lower than any split at 384, and
the H100 split sweep ran it in 0.0150 ms against 0.0194 for 8 ways at 256 and 0.0205 for
the tuner's 8 ways at 384). The pick takes the tiles, the thread count and the split
together.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from tilec.exec import get_profile

from .cost import basis_named
from .report import GroupPlan, ModulePlan
from .work import GroupWorkload

__all__ = ["SPLITS", "MIN_STEPS_PER_SPLIT", "SplitPick", "split_workload", "split_score",
           "best_split"]

SPLITS = (2, 4, 8, 16)
"""The split counts the model prices (powers of two, as the tuning variants and the split
sweep use). Not 32, which the tuner measures (``CUDABackend.tuning_variants``) although
the H100 sweep (ee3d17a) ran 128x128x8192 fastest with 32 splits at four of its five
tiles: priced at every thread count, 32 splits move the pick to 32x32x64 tiles at 128
threads, which no record timed, on the strength of the underfill term alone (four-warp
programs priced 1.5x at two per SM and 1x at four), and the records contradict that term
here (64x32x64 and 32x64x64 at 128 threads ran as fast as at 512 with 16 splits, which
the model prices 2.7x higher) and the one timing of 32x32x64 with 32 splits (384 threads,
5747c4f) was 13% slower than with 16."""

MIN_STEPS_PER_SPLIT = 4
"""Fewest K steps a split keeps: shorter loops are mostly prologue and combine (the H100
split sweep, benchmarks/cuda_split_k.py at 5747c4f: 128x128x8192 at 64x64x64 tiles ran
0.0147 ms with 16 splits of 8 steps and 0.0151 with 32 of 4)."""


@dataclass(frozen=True)
class SplitPick:
    """The split of K that prices lowest for a plan of one group."""

    splits: int
    """Programs per output tile (one of ``SPLITS``)."""
    score: float
    """Its kernel score (``split_score``), comparable with the unsplit selection's."""
    threads: int
    """The thread count it was priced at (the kernel is compiled at it)."""


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


def _chosen(plan: GroupPlan, threads: int | None) -> tuple[int, tuple[Any, ...]] | None:
    """The thread count and the priced options of ``plan``'s best combination at
    ``threads`` (None: the selection's), or None when there is none."""
    sel = plan.selected
    if sel is None:
        return None
    if threads is None or threads == sel.threads:
        return sel.threads, tuple(sel.choices)
    for o in plan.outcomes:
        if o.threads == threads and o.chosen:
            return threads, tuple(o.chosen)
    return None


def split_score(plan: GroupPlan, splits: int, basis: Any = None,
                threads: int | None = None) -> float | None:
    """The kernel score of ``plan``'s best combination at ``threads`` (None: the
    selection's) with its K loop split ``splits`` ways, in its own basis (``basis``: that
    basis, when the caller has it); None when it cannot be priced (nothing selected, no
    combination at that thread count, the split proof does not hold, the counts are
    unknown, or the basis prices no split)."""
    got = _chosen(plan, threads)
    if got is None or not plan.split_legal or plan.cost_basis is None:
        return None
    work = split_workload(plan.workload, splits)
    if work is None:
        return None
    basis = basis or _basis(plan)
    combine = getattr(basis, "split_combine", None)
    if combine is None:
        return None
    t, chosen = got
    total = 0.0
    for choice, w in zip(chosen, work.ops):
        priced = basis.price(choice.candidate, w, work.programs)
        extra = combine(priced, w, splits)
        if extra is None:
            return None
        total += priced.score + extra
    return basis.group_terms(t, work).finalize(total)


def best_split(plan: ModulePlan) -> SplitPick | None:
    """The split count (``SPLITS``) and thread count that price lowest together for a plan
    of one group, every thread count with a combination tried (the module docstring says
    why), when that split prices below the unsplit selection; else None (also for plans of
    several groups: ``split_k`` splits every group alike, which this does not price). Ties
    keep the fewer splits, then the selection's thread count, then fewer threads."""
    if len(plan.groups) != 1 or plan.groups[0].selected is None:
        return None
    g = plan.groups[0]
    steps = min((w.recurrence for w in g.workload.ops if w.recurrence), default=0)
    if steps < SPLITS[0] * MIN_STEPS_PER_SPLIT:
        return None
    basis = _basis(g)
    threads = (g.selected.threads, *sorted(o.threads for o in g.outcomes
                                           if o.chosen and o.threads != g.selected.threads))
    best: SplitPick | None = None
    for s in SPLITS:
        if steps < s * MIN_STEPS_PER_SPLIT:
            break
        for t in threads:
            score = split_score(g, s, basis, t)
            if score is not None and score < (g.selected.kernel_score if best is None
                                              else best.score):
                best = SplitPick(s, score, t)
    return best
