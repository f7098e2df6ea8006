"""The model's regret on recorded measurements, recomputed with the code as it is now.

``tune_matmul.py`` times every configuration of ``lib.matmul`` per shape and keeps the
times (``samples``). This script re-runs only the model: for every recorded shape it asks
``lib.matmul`` which configuration it would pick now (a call with no tile arguments and
no record, planned for the ``cuda`` target; no GPU is needed) and looks that
configuration's time up in the record:

    regret = t(pick now) / t(best recorded) - 1

So a change to the cost basis or to the shape buckets is judged against measurements
without running anything on the device. The figures it prints are only as good as the
recorded times (one device run each); a change that looks better here is confirmed by a
new ``tune_matmul.py`` run on held-out shapes.

``PYTHONPATH=src python benchmarks/model_regret.py results/tune_matmul-*.json``
(``--commit C`` keeps only records measured at commit ``C``). A pick is looked up at the
thread count it is priced at now when the record timed that one; otherwise at the
configuration's plan in the record (marked: such a figure is an estimate), and the
summary gives both. ``--grid`` replays the variants of ``cuda_mma_v6`` that its facts
cite (each of its coefficients changed alone) and prints the mean and maximum regret of each:
the fit that chose v6's values, reproducible from the records (``--grid v5``: v5's
variants, each of its coefficients changed alone, and v4's values, on v5's record);
``--set NAME=VALUE`` replays one variant (of v6's record) shape by shape.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# The replays patch the cost coefficients in this process (``coefficients``): a resolution
# must be priced now, never read from (or written to) the warm-start cache, whose key does
# not see an in-process patch (docs/design/warm_start.md).
os.environ["TILEC_WARM_START"] = "0"

GRID_V5 = [  # (label, coefficients changed from cuda_mma_v5's): the replays v5's facts cite
    ("cuda_mma_v5", {}),
    *((f"misaligned_chunk {v}", {"misaligned_chunk": float(v)}) for v in (0, 4, 12)),
    *((f"misaligned_step {v}", {"misaligned_step": float(v)}) for v in (0, 4000)),
    *((f"fill_target_subgroups {v}", {"fill_target_subgroups": v}) for v in (10, 14, 16)),
    *((f"exposed_tail_byte {v}", {"exposed_tail_byte": v}) for v in (0.6, 0.8, 1.3)),
    *((f"warp_step {v}", {"warp_step": float(v)}) for v in (80, 110)),
    ("v4's values", {"misaligned_chunk": 0.0, "misaligned_step": 0.0,
                     "fill_target_subgroups": 16, "exposed_tail_byte": 0.6}),
]
"""``cuda_mma_v5``'s grid (replayed on v5's record: v6's two values set back)."""

GRID_V6 = [  # (label, coefficients changed from cuda_mma_v6's): each alone
    ("cuda_mma_v6", {}),
    *((f"producer_subgroups {v}", {"producer_subgroups": v}) for v in (0, 8)),
    *((f"ring_tail_scale {v}", {"ring_tail_scale": v}) for v in (1.0, 0.5, 0.0)),
    *((f"ring_step_scale {v}", {"ring_step_scale": v}) for v in (1.0, 0.5, 0.125)),
    ("programs_share_units False", {"programs_share_units": False}),
    *((f"wgmma_fill_target_subgroups {v}", {"wgmma_fill_target_subgroups": v})
      for v in (0, 6, 8)),
    *((f"split_partial_byte {v}", {"split_partial_byte": v}) for v in (0.0, 0.0625, 0.25)),
]
"""``cuda_mma_v6``'s grid: each of its coefficients changed alone (the v5 value first)."""

V5_OF_V6 = {"producer_subgroups": 0, "ring_tail_scale": 1.0, "ring_step_scale": 1.0,
            "programs_share_units": False,
            "wgmma_fill_target_subgroups": 0, "split_partial_byte": 0.0}
"""The values that make v6's record v5's."""


def sample_shapes(paths: list[str], commit: str | None) -> list[dict[str, Any]]:
    """Per recorded shape: its extents, dtype and the time of every configuration at the
    plan the model priced it by (of several plans of one configuration, the lowest-scoring
    one: the planner's own), and of every (configuration, thread count) timed; the last
    record of a shape wins. Samples of a split of K (``split_k`` beside the thread count)
    are kept apart (``splits``: the model may pick one); those of another tuning variant
    (another ring, no producer warpgroup) are not a plan a model pick gets and are left
    out."""
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for p in paths:
        for r in json.loads(Path(p).read_text()):
            if not isinstance(r, dict) or not r.get("samples"):
                continue
            if commit and r.get("commit") not in commit.split(","):
                continue
            times, scores, threads, splits = {}, {}, {}, {}
            for s in r["samples"]:
                variant = s.get("variant") or {}
                if set(variant) - {"threads", "split_k"}:
                    continue  # another plan of the configuration (a tuning variant)
                key = json.dumps(s.get("config") or {}, sort_keys=True)
                if "split_k" in variant:
                    if s.get("search_ms"):
                        splits[(key, variant.get("threads"), variant["split_k"])] = \
                            float(s["search_ms"])
                    continue
                score = s.get("score") if s.get("score") is not None else float("inf")
                if not s.get("search_ms"):
                    continue
                if key not in times or score < scores[key]:
                    times[key], scores[key] = float(s["search_ms"]), score
                t = (s.get("variant") or {}).get("threads")
                if t is not None:
                    threads[(key, t)] = float(s["search_ms"])
            if len(times) >= 2:
                key = (tuple(r["shape"]), r["dtype"])
                out[key] = {"shape": tuple(r["shape"]), "dtype": r["dtype"], "times": times,
                            "threads": threads, "splits": splits, "commit": r.get("commit")}
    return list(out.values())


def pick_now(m: int, n: int, k: int, dtype: str
             ) -> tuple[dict[str, int], int | None, int]:
    """The configuration ``lib.matmul`` picks by the model for this shape, the thread
    count it was priced at and the split of K it priced (1: none)."""
    import ml_dtypes
    import numpy as np

    from tilec.lib.matmul import matmul

    # arrays (never written) as the benchmark's tensors are: symbolic extents, bucketed
    # (a tc.array spec would make them static, which the model then sees unrounded)
    dt = ml_dtypes.bfloat16 if dtype == "bf16" else np.float32
    args = [np.empty((m, k), dt), np.empty((k, n), dt), np.empty((m, n), np.float32)]
    matmul.forget_resolutions()
    sel = matmul.resolve(args, "cuda")
    return dict(sel.values), sel.variant.get("threads"), sel.variant.get("split_k", 1)


@contextlib.contextmanager
def coefficients(**values: Any) -> Iterator[None]:
    """``cuda_mma_v6``'s sm_90 record (the default) with ``values`` changed, for the
    enclosed replays."""
    import tilec.plan.cost as cost
    from tilec.plan.cost.cuda_mma_v3 import derive

    base = cost.SM90_V6
    cost.SM90_V6 = derive(base, values, dict.fromkeys(values, "model_regret --grid"), "prior",
                          base.provenance)
    try:
        yield
    finally:
        cost.SM90_V6 = base


def replay(shapes: list[dict[str, Any]]
           ) -> list[tuple[str, dict[str, int], str, float | None, bool]]:
    """Per shape: its name, the pick now, the best recorded configuration, the regret (None
    when the pick was not timed) and whether the record timed the pick at the thread count
    it is priced at now (else the configuration's time at the record's plan is used). A
    pick with a split of K is looked up among the record's split samples only (None when
    that split was not timed); the floor is the fastest of every sample kept."""
    out = []
    for s in shapes:
        m, n, k = s["shape"]
        cfg, threads, split = pick_now(m, n, k, s["dtype"])
        key = json.dumps(cfg, sort_keys=True)
        best = min(s["times"], key=s["times"].get)
        floor = min([s["times"][best], *s["threads"].values(), *s["splits"].values()])
        if split > 1:
            t = s["splits"].get((key, threads, split))
            exact = t is not None
        else:
            exact = (key, threads) in s["threads"]
            t = s["threads"][(key, threads)] if exact else s["times"].get(key)
        out.append((f"{m}x{n}x{k} {s['dtype']}", cfg, best,
                    t / floor - 1 if t is not None else None, exact))
    return out


def _summary(rows: list[tuple[Any, ...]]) -> str:
    got = [r for *_, r, _ in rows if r is not None]
    exact = [r for *_, r, e in rows if r is not None and e]
    return (f"{statistics.mean(got):>7.1%} {max(got):>7.1%}   {len(exact):>2} at the priced "
            f"thread count: {statistics.mean(exact):.1%} mean, {max(exact):.1%} max"
            if exact else f"{statistics.mean(got):>7.1%} {max(got):>7.1%}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--commit", default=None,
                   help="only records measured at these commits (comma-separated)")
    p.add_argument("--grid", nargs="?", const="v6", choices=("v5", "v6"), default=None,
                   help="replay the grid a basis's values were chosen from (default v6)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="replay with this coefficient changed (repeatable; a Python literal)")
    args = p.parse_args()
    changed = {n: ast.literal_eval(v) for n, v in (kv.split("=", 1) for kv in args.set)}
    os.environ["TILEC_CACHE_DIR"] = tempfile.mkdtemp()  # no record applies: the model picks
    shapes = sample_shapes(args.files, args.commit)
    if not shapes:
        print("no recorded shapes with samples", file=sys.stderr)
        return 1
    if args.grid:
        print(f"{'variant':<36} {'mean':>7} {'max':>7}")
        grid = GRID_V6 if args.grid == "v6" else [(label, {**V5_OF_V6, **values})
                                                  for label, values in GRID_V5]
        for label, values in grid:
            with coefficients(**values):
                rows = replay(shapes)
            print(f"{label:<36} {_summary(rows)}", flush=True)
        return 0
    fmt = "BM={BM} BN={BN} BK={BK}".format
    print(f"{'shape':<22} {'pick now':<22} {'best recorded':<22} {'regret':>7}")
    with coefficients(**changed):
        rows = replay(shapes)
    for name, cfg, best, regret, exact in rows:
        if regret is None:
            print(f"{name:<22} pick {cfg} was not timed in the record")
            continue
        mark = "" if exact else "  (timed at another thread count)"
        print(f"{name:<22} {fmt(**cfg):<22} {fmt(**json.loads(best)):<22} {regret:>7.1%}{mark}")
    if any(r is not None for *_, r, _ in rows):
        n = sum(1 for *_, r, _ in rows if r is not None)
        print(f"regret over {n} shapes: mean, max {_summary(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
