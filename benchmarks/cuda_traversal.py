"""Grouped program traversal on the GPU: ``lib.matmul`` with ``program_traversal`` off and
``grouped:G`` against torch.

For each shape and tile configuration the kernel is compiled with the plan variant
``program_traversal = "grouped:1"`` (row-major block numbering: one row block at a time;
leaving the option unset is not row-major, the default persistent walk is grouped) and
``grouped:G`` for each ``G``
(``ir.traversal``: ``G`` row blocks at a time, so that a wave of blocks shares ``G`` row
blocks of A and fewer column blocks of B in L2), checked against an f32 product of the same
bf16 operands (output poisoned with NaN first) and timed with ``do_bench`` medians against
``torch.matmul`` in the same process. Records go to
``benchmarks/results/cuda_traversal-<device>-<date>.json``::

    PYTHONPATH=src python benchmarks/cuda_traversal.py [--groups 4,8,16]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import Recorder, bench_ms, bf16_gemm, checked_matmul  # noqa: E402

TIMED = (((4096, 4096, 4096), (128, 128, 64)), ((4096, 4096, 4096), (128, 256, 64)),
         ((8192, 8192, 8192), (128, 256, 64)), ((4096, 4096, 1024), (128, 256, 64)),
         ((2048, 2048, 2048), (128, 128, 64)))
"""(shape, tiles) timed."""
TOL = 1e-4


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", default="4,8,16", help="group sizes G to time")
    args = ap.parse_args(argv)
    groups = [None] + [int(g) for g in args.groups.split(",") if g]
    import torch

    rec = Recorder("cuda_traversal")
    for (m, n, k), tiles in TIMED:
        a, b, want = bf16_gemm(m, n, k)
        torch_ms = bench_ms(lambda a=a, b=b: torch.matmul(a, b))
        for g in groups:
            variant = {"program_traversal": f"grouped:{1 if g is None else g}"}
            _, tilec_ms, err, ok = checked_matmul(a, b, want, tiles, variant, tol=TOL)
            name = "row-major" if g is None else f"grouped:{g}"
            bm, bn, bk = tiles
            rec.add("matmul", (m, n, k), "bf16", tilec_ms, "torch.matmul", torch_ms,
                    tiles=[bm, bn, bk], traversal=name, rel_err=err, exact=ok,
                    note=f"{bm}x{bn}x{bk} {name}{'' if ok else ' MISMATCH'}")
    rec.write()
    return 0 if all(r["exact"] for r in rec.records) else 1


if __name__ == "__main__":
    raise SystemExit(main())
