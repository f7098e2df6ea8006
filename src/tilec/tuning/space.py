"""The search space: tunable configurations x the planner's legal plan variants.

For every configuration of a kernel's tunables (minus the ones the caller
fixed) the kernel is captured and planned for the target with the call's
extents (bucketed). A configuration that does not capture (a ``static_assert``,
an illegal tile) or does not plan is a ``Rejection`` with its reason. Each
planned configuration gives one candidate per thread count the solver found a
legal combination for, best first (``threads_per_config`` of them): a
thread count fixes the planner's selection (``PlannerOptions.threads``), so a
variant is a different plan of the same configuration. Where the model prices a
split of the configuration's K loop below its unsplit plan
(``plan.split_price.best_split``: a small grid with a long K loop), one more
candidate is that split at the thread count it was priced at (``split_k`` and
``threads`` in its variant), ranked by the split's price: the shortlist of a
K-heavy or skinny product then holds the small tiles whose splits the model
prices lowest rather than the tiles whose unsplit grids do. The candidates are
ranked by the model (the sum of the groups' kernel scores at that thread
count) and the best ``budget`` are shortlisted; the rest are rejections that
say where they ranked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import tilec.ir as ir
from tilec.frontend.tunables import configurations, plan_configuration
from tilec.plan.split_price import best_split

from .refit import plan_terms

__all__ = ["Candidate", "Rejection", "Space", "enumerate_space", "shortlist", "label"]


def label(config: Mapping[str, Any], variant: Mapping[str, Any] | None = None) -> str:
    """``BM=128 BN=256 BK=64`` (with `` threads=256`` for a variant)."""
    text = " ".join(f"{k}={v}" for k, v in config.items())
    if variant:
        text += " | " + " ".join(f"{k}={v}" for k, v in variant.items())
    return text


@dataclass
class Candidate:
    """One configuration with one plan variant, and what happened to it."""

    config: dict[str, Any]
    """The tunable values."""
    variant: dict[str, Any]
    """The plan-space choices (``{"threads": 256}``; empty: the planner's own selection)."""
    score: float | None
    """The model's score (summed selected kernel scores; None: not priced)."""
    plan: str = ""
    """A one-line summary of the plan (threads, realizations, shared bytes)."""
    model_rank: int | None = None
    """Position in the model's order (0: the model's pick)."""
    terms: dict[str, float] = field(default_factory=dict)
    """The score's terms (``refit.plan_terms``; they sum to ``score``), for refitting
    (empty for a split of K: ``score`` is then the split's price, which they do not sum
    to)."""
    k_steps: int | None = None
    """The fewest iterations of the configuration's accumulating K loops at the call's
    extents (None: not known): how far a split of K can go (``tune`` tries a ``split_k``
    variant only where each split keeps ``split_price.MIN_STEPS_PER_SPLIT`` steps)."""
    compile_s: float | None = None
    """Seconds to build it (in a worker process, or here)."""
    validation: str = ""
    """``ok``, or what failed (a mismatch with the reference, an error)."""
    search_ms: float | None = None
    """Median device milliseconds per call in the search."""
    search_spread: float | None = None
    """(max - min) / median of the search batches."""
    host_ms: float | None = None
    """Median host milliseconds per call (launch and synchronization included)."""
    replay_ms: float | None = None
    """Median device milliseconds per call over the replay (finalists only)."""
    replay_batches: list[float] = field(default_factory=list)
    """Every replay batch's milliseconds per call, in the order they ran."""

    @property
    def label(self) -> str:
        """Configuration and variant as text."""
        return label(self.config, self.variant)

    @property
    def ok(self) -> bool:
        """True when it validated (or validation was skipped on request)."""
        return self.validation in ("ok", "not validated")

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description."""
        from tilec.frontend.tunables import _json_value

        return {"config": {k: _json_value(v) for k, v in self.config.items()},
                "variant": dict(self.variant), "score": self.score, "plan": self.plan,
                "model_rank": self.model_rank, "terms": dict(self.terms), "label": self.label,
                "compile_s": self.compile_s,
                "validation": self.validation, "search_ms": self.search_ms,
                "search_spread": self.search_spread, "host_ms": self.host_ms,
                "replay_ms": self.replay_ms, "replay_batches": list(self.replay_batches)}


@dataclass(frozen=True)
class Rejection:
    """A configuration or candidate that was not chosen, and why."""

    config: dict[str, Any]
    """The tunable values."""
    variant: dict[str, Any]
    """The plan variant (empty for a configuration rejected before planning)."""
    stage: str
    """Where: ``capture``, ``plan``, ``shortlist``, ``compile``, ``validate`` or ``run``."""
    reason: str
    """Why."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description."""
        from tilec.frontend.tunables import _json_value

        return {"config": {k: _json_value(v) for k, v in self.config.items()},
                "variant": dict(self.variant), "stage": self.stage, "reason": self.reason}


@dataclass
class Space:
    """The enumerated space of one tuning run."""

    candidates: list[Candidate]
    """Every legal candidate, in the model's order (priced ones first)."""
    rejections: list[Rejection]
    """Every configuration that did not capture or plan."""
    configurations: int
    """How many configurations the tunables give."""


def _summary(plan: Any, threads: int | None) -> str:
    parts = []
    for g in plan.groups:
        s = g.selected
        if s is None:
            parts.append(f"{g.group}: scalar reference")
            continue
        ops = ", ".join(f"{p.candidate.realization} "
                        f"{p.candidate.atom.id if p.candidate.atom else ''}".strip()
                        for p in s.choices)
        parts.append(f"{g.group}: {s.threads} threads, {ops}, shared {s.shared_bytes} B")
    if not parts:
        return "no matrix group" + (f"; {threads} threads" if threads else "")
    return "; ".join(parts)


def _thread_scores(plan: Any) -> list[tuple[int, float]]:
    """(threads, summed score) for every thread count every group can use, best first."""
    per: dict[int, float] = {}
    counts: dict[int, int] = {}
    for g in plan.groups:
        for o in g.outcomes:
            if o.result.best is not None:
                per[o.threads] = per.get(o.threads, 0.0) + float(o.result.best.score)
                counts[o.threads] = counts.get(o.threads, 0) + 1
    full = [(t, s) for t, s in per.items() if counts[t] == len(plan.groups)]
    return sorted(full, key=lambda ts: (ts[1], ts[0]))


def enumerate_space(module_of: Callable[[dict[str, Any]], tuple[ir.Module, str]],
                    target: str, tunables: Mapping[str, Any], fixed: Mapping[str, Any],
                    buckets: Sequence[tuple[int, ...]] | None,
                    threads_per_config: int = 2) -> Space:
    """Every configuration captured and planned; see the module docstring."""
    cands: list[Candidate] = []
    rejs: list[Rejection] = []
    configs = configurations(tunables, fixed)
    for cfg in configs:
        plan, stage, reason = plan_configuration(module_of, target, cfg, buckets)
        if plan is None:
            if stage == "none":
                cands.append(Candidate(dict(cfg), {}, None, reason))
            else:
                rejs.append(Rejection(dict(cfg), {}, stage, reason))
            continue
        if not plan.groups or any(g.selected is None for g in plan.groups):
            cands.append(Candidate(dict(cfg), {}, None, _summary(plan, None)))
            continue
        steps = [w.recurrence for g in plan.groups for w in g.workload.ops
                 if w.executions_known and w.recurrence]
        k_steps = min(steps) if steps else None
        for threads, score in _thread_scores(plan)[:threads_per_config]:
            chosen = plan
            if threads != plan.groups[0].selected.threads:
                chosen = plan_configuration(module_of, target, cfg, buckets, threads)[0]
            cands.append(Candidate(dict(cfg), {"threads": threads}, score,
                                   _summary(chosen, threads), terms=plan_terms(chosen),
                                   k_steps=k_steps))
        split = best_split(plan)
        if split is not None:  # the configuration with its K loop split, as the model prices it
            cands.append(Candidate(dict(cfg), {"threads": split.threads,
                                               "split_k": split.splits}, split.score,
                                   f"{_summary(plan, split.threads)}; split_k={split.splits}",
                                   k_steps=k_steps))
    order = sorted(range(len(cands)), key=lambda i: (cands[i].score is None,
                                                     cands[i].score or 0.0, i))
    ranked = [cands[i] for i in order]
    for r, c in enumerate(ranked):
        c.model_rank = r if c.score is not None else None
    return Space(ranked, rejs, len(configs))


def shortlist(space: Space, budget: int | None) -> tuple[list[Candidate], list[Rejection]]:
    """The best ``budget`` candidates in the model's order (None: all of them) and a
    rejection for each of the others, saying where it ranked."""
    if budget is None or budget >= len(space.candidates):
        return list(space.candidates), []
    keep = space.candidates[:budget]
    out = []
    for i, c in enumerate(space.candidates[budget:], start=budget):
        what = f"model score {c.score:.6g}" if c.score is not None else "not priced"
        out.append(Rejection(c.config, c.variant, "shortlist",
                             f"{what}, rank {i + 1} of {len(space.candidates)}; the budget "
                             f"keeps the best {budget}"))
    return keep, out
