"""TF32 matrix products on the GPU: ``lib.matmul(PRECISION="tf32")`` against torch with TF32
allowed (cuBLAS), in one process.

For each shape: the model's pick (no tile arguments, the default plan: since the operand
swap, the TF32 warpgroup instruction), each tile configuration of ``--tiles`` on the
default plan, and the model's pick with ``tf32_operand_swap=False`` (the warp-wide
``mma.m16n8k8.tf32``, what ran before). Outputs are poisoned with NaN and checked against
the float64 product (relative error at most 5e-3, as TF32 allows), then timed with
``do_bench`` medians. Records go to ``benchmarks/results/cuda_tf32-<device>-<date>.json``::

    PYTHONPATH=src python benchmarks/cuda_tf32.py [--shapes 4096x4096x4096] [--tiles ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import Recorder, bench_ms, checked_run  # noqa: E402

TOL = 5e-3


def main() -> int:
    import torch

    import tilec as tc
    from tilec.lib.matmul import matmul

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", default="4096x4096x4096,8192x8192x8192,2048x2048x2048")
    p.add_argument("--tiles", default="128x256x32,256x128x32,128x128x32,128x256x64",
                   help="BMxBNxBK configurations timed beside the model's pick")
    args = p.parse_args()
    rec = Recorder("cuda_tf32")
    torch.backends.cuda.matmul.allow_tf32 = True
    bad = False
    for shape in args.shapes.split(","):
        m, n, k = map(int, shape.split("x"))
        gen = torch.Generator(device="cuda").manual_seed(m + n + k)
        a = torch.randn(m, k, device="cuda", generator=gen)
        b = torch.randn(k, n, device="cuda", generator=gen)
        c = torch.empty(m, n, device="cuda")
        want = a.double() @ b.double()
        torch_ms = bench_ms(lambda x=a, y=b: torch.matmul(x, y))
        arms: list[tuple[str, dict, dict]] = [("model pick", {}, {})]
        arms += [(f"{t}", dict(zip(("BM", "BN", "BK"), map(int, t.split("x")))), {})
                 for t in args.tiles.split(",") if t]
        arms.append(("model pick, no swap", {}, {"tf32_operand_swap": False}))
        for name, tiles, variant in arms:
            try:
                kern = tc.compile(matmul, a, b, c, target="cuda", PRECISION="tf32", **tiles,
                                  **({"variant": variant} if variant else {}))
                chosen = dict(kern.selection.values)
                src = kern.executable().source
            except Exception as e:  # noqa: BLE001 - recorded
                rec.add(f"matmul tf32 {name}", (m, n, k), "tf32", None, "torch", torch_ms,
                        note=f"{type(e).__name__}: {str(e).splitlines()[0][:160]}")
                continue
            ms, err, ok = checked_run(lambda f=kern, x=a, y=b, z=c: f(x, y, z), c, want, TOL,
                                      exact=True)
            bad |= not ok
            rec.add(f"matmul tf32 {name}", (m, n, k), "tf32", ms, "torch", torch_ms,
                    tiles=chosen, variant=variant, rel_error=err,
                    wgmma="k8.f32.tf32.tf32" in src, note="" if ok else "WRONG")
    rec.write()
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
