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
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import Recorder, bench_ms, rel_error  # noqa: E402

SHAPES = (((128, 128, 8192), ((128, 128, 64), (64, 128, 64), (64, 64, 64), (64, 32, 64))),
          ((16, 4096, 4096), ((64, 128, 64), (64, 64, 64), (64, 256, 64))),
          ((4096, 4096, 1024), ((128, 128, 64),)),
          ((1000, 1000, 1000), ((128, 128, 64),)))
"""``(M, N, K)`` and the tiles tried for it."""


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
    args = p.parse_args()
    splits = [int(s) for s in args.splits.split(",")]
    stages = [None if s == "default" else int(s) for s in args.stages.split(",")]
    if args.shapes and not args.tiles:
        p.error("--shapes needs --tiles")
    shapes = SHAPES if not args.shapes else tuple(
        (tuple(int(x) for x in s.split("x")), ()) for s in args.shapes.split(","))
    rec = Recorder("cuda_split_k")
    for (m, n, k), tiles in shapes:
        if args.shape and args.shape != f"{m}x{n}x{k}":
            continue
        if args.tiles:
            tiles = tuple(args.tiles.split(","))
        gen = torch.Generator(device="cuda").manual_seed(m + n + k)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
        c = torch.empty(m, n, device="cuda", dtype=torch.float32)
        want = a.float() @ b.float()
        torch_first = bench_ms(lambda x=a, y=b: torch.matmul(x, y))
        rows: list[dict] = []
        for t, st, s in [(t, st, s) for t in tiles for st in stages for s in splits]:
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
        for r in rows:
            ms = r.pop("ms")
            rec.add("matmul", (m, n, k), "bf16", ms, "torch", torch_ms,
                    torch_first_ms=torch_first, **r)
    rec.write()
    return 0


def _chosen(tc: Any, matmul: Any, a: Any, b: Any, c: Any, want: Any, budget: int,
            rows: list[dict]) -> list[dict]:
    """The model's pick and tc.tune's choice for these inputs, timed and checked."""
    out = []
    best = min((r["ms"] for r in rows if r["ms"]), default=None)
    model = tc.compile(matmul, a, b, c, target="cuda")
    res = tc.tune(matmul, a, b, c, target="cuda", budget=budget, progress=False)
    sel = res.selected
    arms = [("model pick", model, {"tuned": False})]
    if sel is not None:
        arms.append((sel.label, tc.compile(matmul, a, b, c, target="cuda", **sel.config,
                                           variant=sel.variant or None),
                     {"tuned": True, "tune_seconds": round(sum(res.seconds.values()), 1)}))
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
