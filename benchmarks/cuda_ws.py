"""Warp-specialized rings on the GPU: ``lib.matmul`` with the producer warpgroup against the
plain mbarrier ring and torch.

For each shape of the Hopper issue's table and each tile configuration, the kernel is
compiled (public API, ``variant=``) with the planner's default plan (``default``), with one
wgmma group left in flight in the ordinary ring (``inflight``), as the mbarrier ring
(``mbarrier_ring``, thread 0 of the consumers refills) and warp-specialized
(``warp_specialized``: a producer warpgroup refills) with 3, 4 and 6 ring versions (the
schedule keeps as many as shared memory holds), warp-specialized with the grouped program
traversal, and persistent (132 programs, one per compute unit of the H200, each walking
output tiles), and with the cast to a 16-bit output fused into the accumulator's registers
(``fuse_matrix_epilogues``; it changes only ``--out same``); each is checked against an f32
product of the same operands (output poisoned with NaN first) and timed with ``do_bench``
medians against ``torch.matmul`` in the same process. The output is f32 (``--out same``: the
inputs' dtype, as torch's is).
Records go to ``benchmarks/results/cuda_ws-<device>-<date>.json``::

    PYTHONPATH=src python benchmarks/cuda_ws.py [--shapes 4096x4096x4096,...] [--out same]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import Recorder, bench_ms, rel_error  # noqa: E402

SHAPES = ("4096x4096x4096", "2048x2048x2048", "4096x4096x1024", "8192x8192x8192",
          "1000x1000x1000")
TILES = ((128, 128, 64), (128, 256, 64))
VARIANTS = (("default", {}),
            ("inflight", {"wgmma_in_flight": 1}),
            ("ring", {"mbarrier_ring": True}),
            ("ws3", {"warp_specialized": True, "wgmma_stages": 3}),
            ("ws4", {"warp_specialized": True, "wgmma_stages": 4}),
            ("ws4+grouped:8", {"warp_specialized": True, "wgmma_stages": 4,
                               "program_traversal": "grouped:8"}),
            ("ws6", {"warp_specialized": True, "wgmma_stages": 6}),
            ("ws4+persistent", {"warp_specialized": True, "wgmma_stages": 4,
                                "persistent": 132}),
            ("ws4+persistent+grouped:8", {"warp_specialized": True, "wgmma_stages": 4,
                                          "persistent": 132, "program_traversal": "grouped:8"}),
            ("ws3+persistent", {"warp_specialized": True, "wgmma_stages": 3,
                                "persistent": 132}),
            ("ws4+epilogue", {"warp_specialized": True, "wgmma_stages": 4,
                              "fuse_matrix_epilogues": True}),
            ("ws4+persistent+epilogue", {"warp_specialized": True, "wgmma_stages": 4,
                                         "persistent": 132, "fuse_matrix_epilogues": True}))
"""(name, plan variant) pairs; the ring keeps the default version count."""


def main() -> int:
    import torch

    import tilec as tc
    from tilec.lib import matmul

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", default=",".join(SHAPES), help="MxNxK, comma-separated")
    p.add_argument("--dtypes", default="bf16", help="bf16, f16 (comma-separated)")
    p.add_argument("--out", default="f32", help="output dtype: f32 or same (as the inputs)")
    p.add_argument("--variants", default=",".join(n for n, _ in VARIANTS))
    p.add_argument("--tiles", default=",".join("x".join(map(str, t)) for t in TILES),
                   help="BMxBNxBK, comma-separated")
    args = p.parse_args()
    rec = Recorder("cuda_ws")
    names = args.variants.split(",")
    bad = False
    for dt in args.dtypes.split(","):
        tdt = {"bf16": torch.bfloat16, "f16": torch.float16}[dt]
        odt = torch.float32 if args.out == "f32" else tdt
        for shape in args.shapes.split(","):
            m, n, k = map(int, shape.split("x"))
            gen = torch.Generator(device="cuda").manual_seed(m + n + k)
            a = torch.randn(m, k, device="cuda", dtype=tdt, generator=gen)
            b = torch.randn(k, n, device="cuda", dtype=tdt, generator=gen)
            c = torch.empty(m, n, device="cuda", dtype=odt)
            want = a.float() @ b.float()
            torch_ms = bench_ms(lambda x=a, y=b: torch.matmul(x, y))
            for bm, bn, bk in (tuple(map(int, t.split("x"))) for t in args.tiles.split(",")):
                for name, variant in VARIANTS:
                    if name not in names:
                        continue
                    try:
                        kern = tc.compile(matmul, a, b, c, target="cuda", BM=bm, BN=bn,
                                          BK=bk, variant=variant)
                        src = kern.executable().source
                    except Exception as e:  # a configuration that does not fit: recorded
                        rec.add("matmul", (m, n, k), dt, None, "torch.matmul", torch_ms,
                                out_dtype=str(odt).replace("torch.", ""), tiles=[bm, bn, bk],
                                variant=variant, variant_name=name,
                                note=f"{bm}x{bn}x{bk} {name} {type(e).__name__}: "
                                     f"{str(e).splitlines()[0]}")
                        continue
                    ws = "setmaxnreg" in src or "bar.sync 1," in src
                    c.fill_(float("nan"))
                    kern(a, b, c)
                    torch.cuda.synchronize()
                    err = rel_error(c.float(), want)
                    ok = err <= (1e-2 if odt != torch.float32 else 1e-4)
                    bad |= not ok
                    ms = bench_ms(lambda f=kern, x=a, y=b, z=c: f(x, y, z)) if ok else None
                    res = kern.executable().resources
                    rec.add("matmul", (m, n, k), dt, ms, "torch.matmul", torch_ms,
                            out_dtype=str(odt).replace("torch.", ""), tiles=[bm, bn, bk],
                            variant=variant, variant_name=name, warp_specialized_in_source=ws,
                            rel_error=err, resources=str(res),
                            note=f"{bm}x{bn}x{bk} {name} {res}{'' if ok else ' MISMATCH'}")
    rec.write()
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
