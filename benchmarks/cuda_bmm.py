"""Batched GEMM on the GPU: ``lib.batched_matmul`` against ``torch.bmm`` (cuBLAS).

``C[b] = A[b] @ B[b]`` for bf16 operands with f32 accumulation and a bf16 result (``--out
f32``: an f32 one; torch.bmm writes bf16), at
``--batch`` x ``--size``^3 (default 32 x 1024^3). Each tile configuration in ``TILES`` is
compiled, checked against torch (output poisoned with NaN first) and timed with
``do_bench`` medians (``cuda_gemm.best_tilec``); the best is compared with ``torch.bmm`` of
the same tensors (bf16 out, as cuBLAS computes it) measured in the same process. Every
configuration's time, error and resources are recorded, in
``benchmarks/results/cuda_bmm-<device>-<date>.json``::

    PYTHONPATH=src python benchmarks/cuda_bmm.py [--batch 32] [--size 1024] [--variant JSON]
        [--tiles 128x256x64,...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import Recorder, bench_ms  # noqa: E402
from cuda_gemm import best_tilec  # noqa: E402

TILES = ((128, 128, 64), (128, 128, 32), (128, 256, 64), (64, 128, 64), (128, 64, 64))
"""Tile configurations (BM, BN, BK) tried; the best is reported, all are recorded."""
TOL = 1e-2


def main() -> int:
    import torch

    from tilec.lib.matmul import batched_matmul

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--variant", default=None,
                   help='a plan variant as JSON, e.g. \'{"warp_specialized": true}\'')
    p.add_argument("--tiles", default=None, help="BMxBNxBK, comma-separated (default: TILES)")
    p.add_argument("--out", choices=("bf16", "f32"), default="bf16",
                   help="C's type (default bf16, what torch.bmm writes for bf16 operands)")
    args = p.parse_args()
    variant = json.loads(args.variant) if args.variant else None
    tiles = TILES if args.tiles is None else \
        [tuple(map(int, t.split("x"))) for t in args.tiles.split(",")]
    nb, n = args.batch, args.size
    gen = torch.Generator(device="cuda").manual_seed(nb + n)
    a = torch.randn(nb, n, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(nb, n, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    odt = {"bf16": torch.bfloat16, "f32": torch.float32}[args.out]
    c = torch.full((nb, n, n), float("nan"), device="cuda", dtype=odt)
    want = torch.bmm(a.float(), b.float()).to(odt)
    rec = Recorder("cuda_bmm")
    best_ms, note, per = best_tilec(batched_matmul, a, b, c, want, TOL, tiles, variant)
    torch_ms = bench_ms(lambda: torch.bmm(a, b))
    print(f"  torch.bmm: {torch_ms:.4f} ms", flush=True)
    flops = 2 * nb * n * n * n
    rec.add("batched_matmul", (nb, n, n, n), "bf16", best_ms, "torch.bmm", torch_ms, note=note,
            configs=per, variant=variant, out_dtype=args.out,
            tflops_tilec=flops / best_ms / 1e9 if best_ms else None)
    rec.write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
