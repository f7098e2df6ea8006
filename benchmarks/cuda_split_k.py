"""Time ``lib.matmul`` with its K loop split over programs (``split_k``) on skinny and
K-heavy shapes, next to ``torch.matmul`` in the same run.

For each shape and tile, ``split_k`` = 1 (no split) and the splits given are compiled as
plan variants (``tc.compile(..., variant={"split_k": S})``), checked against torch in
float32 (the output poisoned with NaN first) and timed with ``do_bench`` medians.
Records go to ``benchmarks/results/cuda_split_k-<device>-<date>.json``; these are the
measurements behind the split-K candidates that ``tc.tune`` tries.

    PYTHONPATH=src python benchmarks/cuda_split_k.py [--splits 1,2,4,8,16]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import Recorder, bench_ms, rel_error  # noqa: E402

SHAPES = (((128, 128, 8192), ((128, 128, 64), (64, 128, 64))),
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
                   help="comma-separated wgmma ring versions (wgmma_stages) to try")
    p.add_argument("--shape", default=None, help="only this MxNxK shape")
    args = p.parse_args()
    splits = [int(s) for s in args.splits.split(",")]
    stages = [int(s) for s in args.stages.split(",")]
    rec = Recorder("cuda_split_k")
    for (m, n, k), tiles in SHAPES:
        if args.shape and args.shape != f"{m}x{n}x{k}":
            continue
        gen = torch.Generator(device="cuda").manual_seed(m + n + k)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
        c = torch.empty(m, n, device="cuda", dtype=torch.float32)
        want = a.float() @ b.float()
        torch_ms = bench_ms(lambda x=a, y=b: torch.matmul(x, y))
        for (bm, bn, bk), st, s in [(t, st, s) for t in tiles for st in stages for s in splits]:
            variant = {"wgmma_stages": st, **({"split_k": s} if s > 1 else {})}
            tile = f"{bm}x{bn}x{bk}"
            try:
                kern = tc.compile(matmul, a, b, c, target="cuda", BM=bm, BN=bn, BK=bk,
                                  variant=variant)
                c.fill_(float("nan"))
                kern(a, b, c)
                torch.cuda.synchronize()
            except Exception as e:  # a variant that does not build is recorded
                rec.add("matmul", (m, n, k), "bf16", None, "torch", torch_ms, tile=tile,
                        split_k=s, wgmma_stages=st,
                        note=f"{type(e).__name__}: {str(e)[:160]}")
                continue
            err = rel_error(c, want)
            ms = bench_ms(lambda kk=kern, x=a, y=b, z=c: kk(x, y, z)) if err <= 1e-4 else None
            rec.add("matmul", (m, n, k), "bf16", ms, "torch", torch_ms, tile=tile,
                    split_k=s, wgmma_stages=st, rel_error=err,
                    resources=str(kern.resources),
                    note=f"{tile} split_k={s} stages={st} rel {err:.1e}")
    rec.write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
