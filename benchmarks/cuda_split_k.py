"""Time ``lib.matmul`` with its K loop split over programs (``split_k``) on skinny and
K-heavy shapes, next to ``torch.matmul`` in the same run.

For each shape and tile, ``split_k`` = 1 (no split) and the splits given are compiled as
plan variants (``tc.compile(..., variant={"split_k": S})``), checked against torch in
float32 (the output poisoned with NaN first) and timed with ``do_bench`` medians.
torch is timed before and after each shape's variants and the faster of the two is the peer
(its first timing of a shape has come out several times slower than later ones). With
``--tune``, the shape's model pick (a call without tile arguments) and the choice of
``tc.tune`` (its configuration and plan variant) are timed too, the latter with its regret
against the fastest variant of the sweep. Records go to
``benchmarks/results/cuda_split_k-<device>-<date>.json``; these are the measurements
behind the split-K candidates that ``tc.tune`` tries.

    PYTHONPATH=src python benchmarks/cuda_split_k.py [--splits 1,2,4,8,16] [--tune]
        [--stages default] [--shapes 128x128x8192 --tiles 128x64x64@256,32x32x64]
        [--configs 64x32x64@512:32,64x64x64@128:16]

``--user`` is what a user of the two skinny shapes gets, in one run: for 128x128x8192
and 16x4096x4096 (bf16), the configurations the H100 records ran fastest (``USER``),
the model's pick and ``tc.tune``'s choice at budget 8 (stored nowhere: ``store=False``,
so a run does not read an earlier run's record), the default plan (no ``wgmma_stages``)
and a per-shape elapsed time in each record (``elapsed_s``). On one H100 it is meant to
finish within 200 s (most of it is the two tuning runs).

    PYTHONPATH=src python benchmarks/cuda_split_k.py --user
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import Recorder, bench_ms, rel_error  # noqa: E402

SHAPES = (((128, 128, 8192), ((128, 128, 64), (64, 128, 64), (64, 64, 64), (64, 32, 64))),
          ((16, 4096, 4096), ((64, 128, 64), (64, 64, 64), (64, 256, 64))),
          ((4096, 4096, 1024), ((128, 128, 64),)),
          ((1000, 1000, 1000), ((128, 128, 64),)))
"""``(M, N, K)`` and the tiles tried for it."""

USER = (((128, 128, 8192), ("64x32x64@512:32", "32x64x64@512:32", "64x64x64@128:16",
                            "32x32x64@256:16")),
        ((16, 4096, 4096), ("64x64x64@128:4", "32x64x64@256:8", "64x64x64@128:8",
                            "64x128x64:4")))
"""``--user``: per shape, the explicit configurations (``BMxBNxBK[@threads]:splits``)
that the H100 and H200 split records ran fastest (cuda_split_k records of ee3d17a,
a1cade7 and 4da1b8e), timed beside the model's pick and the tuned choice."""


def main() -> int:
    """Run every shape, tile and split; write the records."""
    import torch

    import tilec as tc
    from tilec.lib import matmul

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--splits", default="1,2,4,8,16", help="comma-separated split counts")
    p.add_argument("--stages", default="3",
                   help="comma-separated wgmma ring versions (wgmma_stages) to try; "
                        "'default' names none (the default plan: a producer warpgroup and "
                        "its ring where the schedule's rule gives them)")
    p.add_argument("--shape", default=None, help="only this MxNxK shape")
    p.add_argument("--shapes", default=None,
                   help="MxNxK, comma-separated: these shapes instead of the built-in ones "
                        "(with --tiles)")
    p.add_argument("--tune", action="store_true",
                   help="also time the model's pick and the choice of tc.tune")
    p.add_argument("--budget", type=int, default=4, help="tc.tune's budget")
    p.add_argument("--tiles", default=None,
                   help="BMxBNxBK[@threads], comma-separated: these tiles for every shape "
                        "(@threads fixes the thread count, as a model pick does)")
    p.add_argument("--configs", default=None,
                   help="BMxBNxBK[@threads]:splits, comma-separated: exactly these "
                        "configurations for every shape (instead of tiles x splits)")
    p.add_argument("--user", action="store_true",
                   help="the skinny shapes' recorded best configurations, the model's pick "
                        "and tc.tune's choice at budget 8, default plan (see the docstring)")
    args = p.parse_args()
    splits = [int(s) for s in args.splits.split(",")]
    stages = [None if s == "default" else int(s) for s in args.stages.split(",")]
    if args.shapes and not (args.tiles or args.configs):
        p.error("--shapes needs --tiles or --configs")
    if args.user:
        args.tune, args.budget, stages = True, 8, [None]
    shapes = SHAPES if not args.shapes else tuple(
        (tuple(int(x) for x in s.split("x")), ()) for s in args.shapes.split(","))
    configs: dict[tuple[int, int, int], tuple[str, ...]] = {}
    if args.user:
        shapes = tuple((shape, ()) for shape, _ in USER)
        configs = dict(USER)
    rec = Recorder("cuda_split_k")
    for (m, n, k), tiles in shapes:
        if args.shape and args.shape != f"{m}x{n}x{k}":
            continue
        t_shape = time.perf_counter()
        if args.tiles:
            tiles = tuple(args.tiles.split(","))
        chosen = args.configs.split(",") if args.configs else configs.get((m, n, k))
        if chosen:  # explicit configurations: (tile, stages, split)
            jobs = [(c.split(":")[0], st, int(c.split(":")[1]) if ":" in c else 1)
                    for c in chosen for st in stages]
        else:
            jobs = [(t, st, s) for t in tiles for st in stages for s in splits]
        gen = torch.Generator(device="cuda").manual_seed(m + n + k)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
        c = torch.empty(m, n, device="cuda", dtype=torch.float32)
        want = a.float() @ b.float()
        torch_first = bench_ms(lambda x=a, y=b: torch.matmul(x, y))
        rows: list[dict] = []
        for t, st, s in jobs:
            spec, _, threads = t.partition("@") if isinstance(t, str) else ("", "", "")
            bm, bn, bk = map(int, spec.split("x")) if spec else t
            variant = {**({"wgmma_stages": st} if st is not None else {}),
                       **({"split_k": s} if s > 1 else {}),
                       **({"threads": int(threads)} if threads else {})}
            tile = f"{bm}x{bn}x{bk}" + (f"@{threads}" if threads else "")
            try:
                kern = tc.compile(matmul, a, b, c, target="cuda", BM=bm, BN=bn, BK=bk,
                                  variant=variant or None)
                c.fill_(float("nan"))
                kern(a, b, c)
                torch.cuda.synchronize()
            except Exception as e:  # a variant that does not build is recorded
                rows.append({"ms": None, "tile": tile, "split_k": s, "wgmma_stages": st,
                             "note": f"{type(e).__name__}: {str(e)[:160]}"})
                continue
            err = rel_error(c, want)
            ms = bench_ms(lambda kk=kern, x=a, y=b, z=c: kk(x, y, z)) if err <= 1e-4 else None
            rows.append({"ms": ms, "tile": tile, "split_k": s, "wgmma_stages": st,
                         "rel_error": err, "resources": str(kern.resources),
                         "threads": kern.plan.groups[0].selected.threads
                         if kern.plan.groups and kern.plan.groups[0].selected else None,
                         "note": f"{tile} split_k={s} stages={st} rel {err:.1e}"})
        if args.tune:
            rows += _chosen(tc, matmul, a, b, c, want, args.budget, rows)
        torch_ms = min(torch_first, bench_ms(lambda x=a, y=b: torch.matmul(x, y)))
        elapsed = round(time.perf_counter() - t_shape, 1)
        for r in rows:
            ms = r.pop("ms")
            rec.add("matmul", (m, n, k), "bf16", ms, "torch", torch_ms,
                    torch_first_ms=torch_first, elapsed_s=elapsed, **r)
        print(f"{m}x{n}x{k}: {len(rows)} timings in {elapsed} s; torch {torch_ms:.4f} ms",
              flush=True)
    rec.write()
    return 0


def _chosen(tc: Any, matmul: Any, a: Any, b: Any, c: Any, want: Any, budget: int,
            rows: list[dict]) -> list[dict]:
    """The model's pick and tc.tune's choice for these inputs, timed and checked."""
    out = []
    best = min((r["ms"] for r in rows if r["ms"]), default=None)
    model = tc.compile(matmul, a, b, c, target="cuda")
    pick = model.selection
    res = tc.tune(matmul, a, b, c, target="cuda", budget=budget, progress=False, store=False)
    sel = res.selected
    arms = [("model pick", model,
             {"tuned": False, "selection": pick.source,
              "pick": " ".join(f"{k}={v}" for k, v in {**pick.values,
                                                       **pick.variant}.items())})]
    if sel is not None:
        arms.append((sel.label, tc.compile(matmul, a, b, c, target="cuda", **sel.config,
                                           variant=sel.variant or None),
                     {"tuned": True, "budget": budget,
                      "tune_seconds": round(sum(res.seconds.values()), 1),
                      "tune_candidates": len(res.candidates)}))
    for name, kern, extra in arms:
        c.fill_(float("nan"))
        kern(a, b, c)
        err = rel_error(c, want)
        ms = bench_ms(lambda kk=kern, x=a, y=b, z=c: kk(x, y, z)) if err <= 1e-4 else None
        if extra["tuned"] and ms and best:
            extra["regret"] = ms / min(best, ms) - 1
        out.append({"ms": ms, "tile": name, "rel_error": err, **extra,
                    "note": f"{name} rel {err:.1e}"})
    return out


if __name__ == "__main__":
    raise SystemExit(main())
