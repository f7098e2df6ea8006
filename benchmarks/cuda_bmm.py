"""Batched GEMM on the GPU: ``lib.batched_matmul`` against ``torch.bmm`` (cuBLAS).

``C[b] = A[b] @ B[b]`` for bf16 operands with f32 accumulation and an f32 result, at
``--batch`` x ``--size``^3 (default 32 x 1024^3). Each tile configuration in ``TILES`` is
compiled, checked against torch (output poisoned with NaN first) and timed with
``do_bench`` medians; the best is compared with ``torch.bmm`` of the same tensors (bf16 out,
as cuBLAS computes it) measured in the same process. Every configuration's time, the
planner's plan summary and the executable's resources are recorded, in
``benchmarks/results/cuda_bmm-<device>-<date>.json``::

    PYTHONPATH=src python benchmarks/cuda_bmm.py [--batch 32] [--size 1024]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import Recorder, bench_ms, rel_error, tilec_kernel  # noqa: E402

TILES = ((128, 128, 64), (128, 128, 32), (128, 256, 64), (64, 128, 64), (128, 64, 64))
"""Tile configurations (BM, BN, BK) tried; the best is reported, all are recorded."""
TOL = 1e-2


def main() -> int:
    import torch

    from tilec.lib.matmul import batched_matmul

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--size", type=int, default=1024)
    args = p.parse_args()
    nb, n = args.batch, args.size
    gen = torch.Generator(device="cuda").manual_seed(nb + n)
    a = torch.randn(nb, n, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(nb, n, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    c = torch.full((nb, n, n), float("nan"), device="cuda", dtype=torch.float32)
    want = torch.bmm(a.float(), b.float())
    rec = Recorder("cuda_bmm")
    per: dict[str, Any] = {}
    best: tuple[float | None, str] = (None, "")
    for bm, bn, bk in TILES:
        key = f"{bm}x{bn}x{bk}"
        exe, note = tilec_kernel(batched_matmul, [a, b, c], {"BM": bm, "BN": bn, "BK": bk})
        if exe is None:
            per[key] = {"error": note}
            print(f"  tilec {key}: {note}", flush=True)
            continue
        c.fill_(float("nan"))
        exe(a, b, c, sync=True)
        torch.cuda.synchronize()
        err = rel_error(c, want)
        if not err <= TOL:
            per[key] = {"error": f"WRONG RESULT (rel. error {err:.3g}), not timed"}
            print(f"  tilec {key}: {per[key]['error']}", flush=True)
            continue
        ms = bench_ms(lambda e=exe: e(a, b, c))
        per[key] = {"ms": ms, "rel_error": err, "resources": str(exe.resources)}
        print(f"  tilec {key}: {ms:.4f} ms, rel. error {err:.2g}, {exe.resources}", flush=True)
        if best[0] is None or ms < best[0]:
            best = (ms, key)
    torch_ms = bench_ms(lambda: torch.bmm(a, b))
    print(f"  torch.bmm: {torch_ms:.4f} ms", flush=True)
    note = (f"tilec tile {best[1]}, {per[best[1]]['resources']}" if best[0] is not None
            else "tilec: no configuration compiled and matched")
    flops = 2 * nb * n * n * n
    rec.add("batched_matmul", (nb, n, n, n), "bf16", best[0], "torch.bmm", torch_ms, note=note,
            configs=per, tflops_tilec=flops / best[0] / 1e9 if best[0] else None)
    rec.write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
