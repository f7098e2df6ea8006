"""Tensor-copy staging on the GPU: ``lib.matmul`` with ``tma`` on and off against torch.

For each shape and tile configuration, the kernel is compiled twice, with the plan variant
``tma=True`` (rings of warpgroup operands filled by ``tma.load`` on mbarriers,
docs/design/hopper.md) and ``tma=False`` (``cp.async`` from every thread), checked against
an f32 product of the same bf16 operands (output poisoned with NaN first) and timed with
``do_bench`` medians against ``torch.matmul`` in the same process. Ragged and fallback
shapes (arrays the in-kernel guard rejects) are checked for exactness only. Records go to
``benchmarks/results/cuda_tma-<device>-<date>.json``::

    PYTHONPATH=src python benchmarks/cuda_tma.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import Recorder, bench_ms, bf16_gemm, checked_matmul  # noqa: E402

CHECKED = ((200, 136, 160), (130, 130, 72), (64, 64, 300), (128, 128, 64), (1000, 1000, 1000))
"""Shapes checked for exactness only: ragged edges, B falling back (N = 130), A falling
back (K = 300), one trip, and a shape with every edge ragged."""
TIMED = (((4096, 4096, 4096), (128, 128, 64)), ((4096, 4096, 4096), (128, 256, 64)),
         ((2048, 2048, 2048), (128, 128, 64)), ((4096, 4096, 1024), (128, 256, 64)),
         ((8192, 8192, 8192), (128, 256, 64)))
"""(shape, tiles) timed with the tensor copies on and off."""
TOL = 1e-4


def _one(rec: Recorder, shape, tiles, tma: bool, timed: bool) -> None:
    import torch

    a, b, want = bf16_gemm(*shape)
    kern, tilec_ms, err, ok = checked_matmul(a, b, want, tiles, {"tma": tma}, timed, TOL)
    uses = "tc_tma_load_" in kern.executable().source
    torch_ms = bench_ms(lambda: torch.matmul(a, b)) if timed else None
    bm, bn, bk = tiles
    rec.add("matmul", shape, "bf16", tilec_ms, "torch.matmul", torch_ms,
            tiles=list(tiles), tma=tma, tma_in_source=uses, rel_err=err, exact=ok,
            note=f"{bm}x{bn}x{bk} tma={'on' if tma else 'off'}{'' if ok else ' MISMATCH'}")


def main() -> int:
    rec = Recorder("cuda_tma")
    for shape in CHECKED:
        for tma in (True, False):
            _one(rec, shape, (128, 128, 64), tma, False)
    for shape, tiles in TIMED:
        for tma in (True, False):
            _one(rec, shape, tiles, tma, True)
    rec.write()
    return 0 if all(r["exact"] for r in rec.records) else 1


if __name__ == "__main__":
    raise SystemExit(main())
