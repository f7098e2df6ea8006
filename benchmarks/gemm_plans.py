"""Time forced plans of ``lib.matmul`` on the GPU: threads x warp grid per tile and dtype.

Each configuration forces one planner candidate (``LowerOptions.force_matrix``:
the direct-output rectangle with the given warp grid ``gm x gn`` at the given
thread count, fragment budget 255), checks the result against torch and times
it with ``do_bench`` medians. This is the measurement the ``cuda_mma_v2``
coefficients are fitted to; records go to
``benchmarks/results/gemm_plans-<device>-<date>.json``.

    PYTHONPATH=src python benchmarks/gemm_plans.py [--size 4096] [--dtype bf16] [--tile 128x128x32]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import (  # noqa: E402
    Recorder,
    add_case_filters,
    bench_ms,
    rel_error,
    selected,
    square_gemm,
)

# (dtype, (BM, BN, BK), [(threads, gm, gn), ...])
CASES = (
    ("bf16", (128, 128, 32), [(128, 2, 2), (128, 1, 4), (128, 4, 1), (256, 2, 4), (256, 4, 2),
                              (256, 1, 8), (256, 8, 1), (512, 4, 4), (1024, 4, 8)]),
    ("f32", (128, 128, 32), [(128, 2, 2), (128, 1, 4), (128, 4, 1), (256, 2, 4), (256, 4, 2),
                             (256, 1, 8), (256, 8, 1), (512, 4, 4), (1024, 4, 8)]),
    ("bf16", (64, 64, 32), [(32, 1, 1), (64, 1, 2), (64, 2, 1), (128, 2, 2), (128, 1, 4),
                            (128, 4, 1), (256, 2, 4), (256, 4, 2)]),
    ("f32", (64, 64, 32), [(64, 1, 2), (64, 2, 1), (128, 2, 2), (256, 2, 4), (256, 4, 2)]),
    ("bf16", (128, 256, 32), [(256, 2, 4), (256, 4, 2), (256, 1, 8), (512, 2, 8), (512, 4, 4)]),
)


def forced(module: Any, threads: int, gm: int, gn: int) -> tuple[Any, Any]:
    """Lowering options realizing the direct-output ``gm x gn`` rectangle at ``threads``."""
    from tilec.exec import get_profile
    from tilec.lower.options import LowerOptions
    from tilec.plan import extract_groups, plan_group

    opts = LowerOptions()
    popts = dataclasses.replace(opts.planner, threads=threads, max_fragment_scalars_per_lane=255)
    site = next(s for s in extract_groups(module, popts, None) if s.workload is not None)
    gp = plan_group(site.workload, get_profile("cuda:sm_90"), popts)
    for p in gp.candidates:
        c = p.candidate
        if (c.realization == "rectangle" and c.accumulator == "direct"
                and c.distribution.gm == gm and c.distribution.gn == gn):
            return dataclasses.replace(opts, planner=popts, force_matrix={"mma#0": c}), c
    return None, None


def main() -> int:
    """Run every configuration; write the records."""
    import torch

    import tilec.lower as lower
    from tilec.targets.cuda.backend import CUDABackend

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=4096)
    add_case_filters(p)
    args = p.parse_args()
    size = args.size
    torch.backends.cuda.matmul.allow_tf32 = False
    rec = Recorder("gemm_plans")
    be = CUDABackend("cuda")
    for dt, (bm, bn, bk), configs in CASES:
        if not selected(args, dt, (bm, bn, bk)):
            continue
        a, b, c, want, comp = square_gemm(size, dt, (bm, bn, bk), 1)
        for threads, gm, gn in configs:
            opts, cand = forced(comp.module, threads, gm, gn)
            if opts is None:
                print(f"{dt} {bm}x{bn}x{bk} {threads} {gm}x{gn}: no such candidate")
                continue
            d, (am, an, _) = cand.distribution, cand.atom.shape
            exe = be.compile(lower.lower_to_machine(comp.module, "cuda:sm_90", opts),
                             comp.fn_name)
            c.fill_(float("nan"))
            exe(a, b, c, sync=True)
            torch.cuda.synchronize()
            ms = bench_ms(lambda e=exe, x=a, y=b, z=c: e(x, y, z))
            rec.add("matmul_plan", (size, size, size), dt, ms, "-", None,
                    tile=f"{bm}x{bn}x{bk}", threads=threads, warp_grid=f"{gm}x{gn}",
                    warp_tile=f"{d.rm * am}x{d.rn * an}", fragment_scalars=cand.fragment_scalars,
                    resources=str(exe.resources), rel_error=rel_error(c, want))
    rec.write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
