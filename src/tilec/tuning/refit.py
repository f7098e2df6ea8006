"""Refitting the cost basis from measured candidates, and the regret it leaves.

Each candidate of a tuning run keeps the *terms* of its model score
(``plan_terms``): the score is their sum. For ``cuda_mma_v2``, ``v3`` and ``v4``
these are the issue-slot components of every selected operation (math, fragment loads,
accumulator transfers, warp steps, staging, remaining elements; v3 adds the exposed
tail, v4 the exposed waits per K step), each already multiplied
by that operation's register-spill and latency factors and by its group's scale, and the
groups' offsets. For any other basis there is one term, the score. The refit finds one
non-negative weight per term, so that the weighted sum predicts the measured time:

    minimize  sum_i (sum_k w_k * terms_ik / t_i - 1)^2   over w >= 0

This is a relative least-squares fit, so a 10 us kernel counts as much as a 1 ms one.
It is solved exactly by Lawson-Hanson NNLS (``nnls``). A weight is in milliseconds per
unit; divided by ``unit``, the one weight shared by every term that fits best, it is the
factor by which the basis's coefficient for that component is off: ``math`` 1.3 means the
atoms cost 30% more issue slots than the basis says. It is inspectable, and it keeps the
basis's shape.

``refit`` scores the fitted model by leave-one-out regret. Each *sample set* (the
candidates of one shape) is held out in turn, the weights are fitted on the others, and
the held-out set's pick is compared with its best measured time:

    regret = t(pick) / t(best) - 1

The unfitted model (every weight 1) is scored the same way.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["TERMS", "plan_terms", "SampleSet", "nnls", "fit", "refit", "RefitReport",
           "sample_sets_from_files"]

TERMS = ("math", "fragment_loads", "accumulator", "warp_steps", "staging", "elements",
         "tail", "waits", "offset")
"""The score terms of ``cuda_mma_v2``, ``v3`` and ``v4`` (other bases have the single term
``score``)."""


def plan_terms(plan: Any) -> dict[str, float]:
    """The terms of a ``ModulePlan``'s score (their sum is the summed kernel score)."""
    out: dict[str, float] = {}
    for g in plan.groups:
        s = g.selected
        if s is None:
            continue
        scale = s.terms.scale
        out["offset"] = out.get("offset", 0.0) + s.terms.offset * scale
        for p in s.choices:
            f = dict(p.features)
            if "issue" not in f or "spill" not in f:
                out["score"] = out.get("score", 0.0) + p.score * scale
                continue
            factor = f["spill"] * f["latency"] * scale
            for term, feature in (("tail", "exposed_tail"), ("waits", "exposed_steps")):
                if f.get(feature):
                    out[term] = out.get(term, 0.0) + f[feature] * scale
            parts = {k: f.get(k, 0.0) for k in TERMS[:5]}
            parts["elements"] = f["issue"] - sum(parts.values())
            for k, v in parts.items():
                out[k] = out.get(k, 0.0) + v * factor
    return out


@dataclass
class SampleSet:
    """The measured candidates of one shape: terms and times."""

    name: str
    """What was measured (kernel, shape, dtype)."""
    labels: list[str]
    """Each candidate's configuration and variant."""
    terms: list[dict[str, float]]
    """Each candidate's score terms."""
    times: list[float]
    """Each candidate's measured milliseconds."""

    def matrix(self, names: Sequence[str]) -> np.ndarray:
        """Rows of terms in the order ``names``."""
        return np.array([[t.get(n, 0.0) for n in names] for t in self.terms], float)


def nnls(a: np.ndarray, b: np.ndarray, max_iter: int | None = None) -> np.ndarray:
    """Non-negative least squares, ``argmin ||a x - b||`` with ``x >= 0`` (Lawson-Hanson)."""
    m, n = a.shape
    x = np.zeros(n)
    passive = np.zeros(n, bool)
    w = a.T @ (b - a @ x)
    it, limit = 0, max_iter or 3 * n + 10
    tol = 1e-10 * max(1.0, float(np.abs(a).max(initial=0.0)))
    while (~passive).any() and w[~passive].max(initial=-np.inf) > tol and it < limit:
        it += 1
        j = int(np.argmax(np.where(passive, -np.inf, w)))
        passive[j] = True
        while True:
            z = np.zeros(n)
            z[passive] = np.linalg.lstsq(a[:, passive], b, rcond=None)[0]
            if (z[passive] > 0).all():
                x = z
                break
            neg = passive & (z <= 0)
            alpha = float(np.min(x[neg] / (x[neg] - z[neg])))
            x = x + alpha * (z - x)
            passive &= x > tol
            x[~passive] = 0.0
        w = a.T @ (b - a @ x)
    return x


def _names(sets: Iterable[SampleSet]) -> list[str]:
    seen: dict[str, None] = {}
    for s in sets:
        for t in s.terms:
            for k in t:
                seen.setdefault(k, None)
    return list(seen)


def _rows(sets: Sequence[SampleSet], names: Sequence[str]) -> np.ndarray:
    """Every candidate's terms over its measured time, one row each."""
    rows = [s.matrix(names) / np.array(s.times, float)[:, None] for s in sets]
    return np.vstack(rows) if rows else np.zeros((0, len(names)))


def _unit(a: np.ndarray) -> float:
    """The one weight shared by every term that fits the rows ``a`` best (ms per unit)."""
    r = a.sum(axis=1)
    return float(r.sum() / (r ** 2).sum()) if r.any() else 1.0


def fit(sets: Sequence[SampleSet], names: Sequence[str] | None = None) -> dict[str, float]:
    """The non-negative weight of every term, fitted to every set's candidates (ms per
    unit); a term no candidate has gets the one weight shared by every term that fits
    best, so a set that alone has it is priced as the basis prices it."""
    names = list(names or _names(sets))
    a = _rows(sets, names)
    used = a.any(axis=0)
    w = np.full(len(names), _unit(a))  # a term the sets never use: the basis's own price
    if a.shape[0] and used.any():
        w[used] = nnls(a[:, used], np.ones(a.shape[0]))
    return dict(zip(names, (float(v) for v in w)))


def _regret(s: SampleSet, weights: Mapping[str, float], names: Sequence[str]) -> tuple[float, str]:
    pred = s.matrix(names) @ np.array([weights.get(n, 1.0) for n in names])
    i = int(np.argmin(pred))
    return s.times[i] / min(s.times) - 1.0, s.labels[i]


@dataclass
class RefitReport:
    """The fitted weights and the leave-one-out regret before and after the fit."""

    weights: dict[str, float]
    """Every term's weight, fitted on every set (milliseconds per unit of the term)."""
    unit: float = 1.0
    """The basis's own milliseconds per unit: the one weight shared by every term that
    fits best (``weights / unit`` = 1 means the basis prices that term as measured)."""
    regret_before: dict[str, float] = field(default_factory=dict)
    """Per set, the unfitted model's regret."""
    regret_after: dict[str, float] = field(default_factory=dict)
    """Per set, the regret of the weights fitted without that set."""
    picks: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Per set, the (unfitted, refitted) pick."""

    def summary(self, which: str) -> tuple[float, float]:
        """(mean, max) regret, ``which`` = ``before`` or ``after``."""
        vals = list((self.regret_before if which == "before" else self.regret_after).values())
        return (statistics.mean(vals), max(vals)) if vals else (0.0, 0.0)

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description."""
        return {"weights": self.weights, "unit": self.unit,
                "relative_weights": {k: v / self.unit for k, v in self.weights.items()},
                "regret_before": self.regret_before,
                "regret_after": self.regret_after,
                "picks": {k: list(v) for k, v in self.picks.items()},
                "mean_max_before": self.summary("before"),
                "mean_max_after": self.summary("after")}

    def render(self) -> str:
        """The weights and a table of regrets."""
        lines = [f"term weights relative to the basis (1 = the basis as it is; the basis "
                 f"fits at {self.unit:.4g} ms per unit):"]
        lines += [f"  {k:<16} {v / self.unit:8.3f}" for k, v in self.weights.items()]
        lines.append(f"{'held-out set':<40} {'before':>8} {'after':>8}")
        for k in self.regret_before:
            lines.append(f"{k[:40]:<40} {self.regret_before[k]:>8.1%} "
                         f"{self.regret_after.get(k, float('nan')):>8.1%}")
        (mb, xb), (ma, xa) = self.summary("before"), self.summary("after")
        lines.append(f"mean / max regret: before {mb:.1%} / {xb:.1%}, "
                     f"after (leave one out) {ma:.1%} / {xa:.1%}")
        return "\n".join(lines)


def refit(sets: Sequence[SampleSet]) -> RefitReport:
    """Fit on every set, and score by leave-one-out regret (see the module docstring)."""
    sets = [s for s in sets if len(s.times) >= 2]
    names = _names(sets)
    report = RefitReport(fit(sets, names), unit=_unit(_rows(sets, names)))
    for i, s in enumerate(sets):
        before, pick_b = _regret(s, {}, names)
        w = fit([x for j, x in enumerate(sets) if j != i], names) if len(sets) > 1 \
            else report.weights
        after, pick_a = _regret(s, w, names)
        report.regret_before[s.name] = before
        report.regret_after[s.name] = after
        report.picks[s.name] = (pick_b, pick_a)
    return report


def _set_of(name: str, cands: Iterable[Mapping[str, Any]]) -> SampleSet | None:
    labels, terms, times = [], [], []
    for c in cands:
        t, ms = c.get("terms"), c.get("search_ms")
        if t and ms:
            labels.append(str(c.get("label") or c.get("config")))
            terms.append({k: float(v) for k, v in t.items()})
            times.append(float(ms))
    return SampleSet(name, labels, terms, times) if len(times) >= 2 else None


def sample_sets_from_files(paths: Iterable[str | Path]) -> list[SampleSet]:
    """Sample sets from tuning records (their candidates) and benchmark result files (lists
    of objects with ``samples``: candidates with ``terms`` and ``search_ms``)."""
    out = []
    for p in paths:
        body = json.loads(Path(p).read_text())
        entries = body if isinstance(body, list) else [body]
        for e in entries:
            if not isinstance(e, dict):
                continue
            if "candidates" in e and "key" in e:
                key = e["key"]
                got = _set_of(f"{key.get('kernel')} {key.get('shapes')} {key.get('target')}",
                              e["candidates"])
            elif "samples" in e:
                got = _set_of(f"{e.get('kernel')} {e.get('shape')} {e.get('dtype')}",
                              e["samples"])
            else:
                got = None
            if got is not None:
                out.append(got)
    return out
