"""Copy batching on the GPU: ``lib.matmul`` with ``max_copy_batch`` unset and 1..16 against
torch, where the staged operands are copied synchronously.

Two cases run the synchronous copy path (``lower/machine_copies.py``) in every K step: a K
that is not a multiple of 8 (bf16 rows not 16-byte aligned: the operand A falls back from
``cp.async`` and tensor copies to loads and stores, one operand per guarded branch), and
``async_copies=False`` (both operands, so a batch may span them). Each kernel is checked
against an f32 product of the same bf16 operands (output poisoned with NaN first) and
timed with ``do_bench`` medians against ``torch.matmul`` in the same process. Records go
to ``benchmarks/results/cuda_copy_batch-<device>-<date>.json``::

    PYTHONPATH=src python benchmarks/cuda_copy_batch.py [--batches 1,2,4,8,16]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import Recorder, bench_ms, bf16_gemm, checked_matmul  # noqa: E402

TIMED = (((4096, 4096, 4100), (128, 128, 64), {}),
         ((4096, 4096, 4096), (128, 128, 64), {"async_copies": False}),
         ((2048, 2048, 2052), (64, 64, 32), {}))
"""(shape, tiles, variant without the batch) timed."""
TOL = 1e-4


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", default="1,2,4,8,16", help="max_copy_batch values to time")
    args = ap.parse_args(argv)
    batches = [None] + [int(b) for b in args.batches.split(",") if b]
    import torch

    rec = Recorder("cuda_copy_batch")
    for (m, n, k), tiles, base in TIMED:
        a, b, want = bf16_gemm(m, n, k)
        torch_ms = bench_ms(lambda a=a, b=b: torch.matmul(a, b))
        for batch in batches:
            variant = dict(base) if batch is None else {**base, "max_copy_batch": batch}
            kern, tilec_ms, err, ok = checked_matmul(a, b, want, tiles, variant, tol=TOL)
            report = kern.compilation().resources[0].get("copy_batch")
            name = f"{variant or 'default'}"
            bm, bn, bk = tiles
            rec.add("matmul", (m, n, k), "bf16", tilec_ms, "torch.matmul", torch_ms,
                    tiles=[bm, bn, bk], variant=variant, copy_batch=report, rel_err=err,
                    exact=ok, note=f"{bm}x{bn}x{bk} {name} {report}"
                                   f"{'' if ok else ' MISMATCH'}")
    rec.write()
    return 0 if all(r["exact"] for r in rec.records) else 1


if __name__ == "__main__":
    raise SystemExit(main())
