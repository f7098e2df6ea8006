"""Time ``lib.matmul`` (default plan) with 2, 3 and 4 cp.async pipeline stages.

For each dtype and tile, the lowering's ``stages`` option (ring-buffer versions of the
double-buffered K loop) is varied, and for warpgroup-instruction plans also
``wgmma_in_flight`` (0: wait for every iteration's group; 1: leave one in flight) and
``mbarrier_ring`` (``--ring 1``: versions released through mbarriers, one group in flight;
``--ring 2``: the same ring filled by a producer warpgroup, ``warp_specialized``); every
variant is checked against torch (output poisoned with NaN first) and timed with
``do_bench`` medians, next to ``torch.matmul`` in the same run. Records go to
``benchmarks/results/gemm_stages-<device>-<date>.json``; this is the measurement behind
the lowering's default stage count and groups in flight.

    PYTHONPATH=src python benchmarks/gemm_stages.py [--size 4096] [--stages 3,4] [--ring 0,1]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import (  # noqa: E402
    Recorder,
    add_case_filters,
    bench_ms,
    rel_error,
    selected,
    square_gemm,
)

CASES = (("bf16", (128, 128, 64)), ("bf16", (128, 256, 64)), ("bf16", (256, 128, 64)),
         ("bf16", (128, 128, 32)), ("bf16", (128, 256, 32)), ("bf16", (256, 128, 32)),
         ("f32", (128, 128, 32)), ("f32", (128, 256, 32)))
STAGES = (2, 3, 4)


def main() -> int:
    """Run every variant; write the records."""
    import torch

    import tilec.lower as lower
    from tilec.lower.options import LowerOptions
    from tilec.targets.cuda.backend import CUDABackend

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=4096)
    p.add_argument("--stages", default=",".join(map(str, STAGES)),
                   help="comma-separated ring versions to try")
    p.add_argument("--in-flight", default="0,1",
                   help="comma-separated wgmma groups in flight to try (wgmma plans only)")
    p.add_argument("--ring", default="0",
                   help="comma-separated mbarrier_ring choices to try (1: release the ring "
                        "through mbarriers; 2: and fill it from a producer warpgroup; wgmma "
                        "plans only)")
    add_case_filters(p)
    args = p.parse_args()
    n = args.size
    torch.backends.cuda.matmul.allow_tf32 = False
    rec = Recorder("gemm_stages")
    be = CUDABackend("cuda")
    for dt, (bm, bn, bk) in CASES:
        if not selected(args, dt, (bm, bn, bk)):
            continue
        a, b, c, want, comp = square_gemm(n, dt, (bm, bn, bk), n)
        torch_ms = bench_ms(lambda x=a, y=b: torch.matmul(x, y))
        variants = [(st, fl, ring) for st in map(int, args.stages.split(","))
                    for ring in map(int, args.ring.split(","))
                    for fl in (map(int, args.in_flight.split(",")) if not ring else [1])]
        for st, fl, ring in variants:
            opts = dataclasses.replace(LowerOptions(), stages=st, wgmma_stages=st,
                                       wgmma_in_flight=0 if ring else fl,
                                       mbarrier_ring=bool(ring),
                                       warp_specialized=ring == 2)
            try:
                m = lower.lower_to_machine(comp.module, be.profile, opts)
                exe = be.compile(m, comp.fn_name)
            except Exception as e:  # a variant that does not fit is recorded, not fatal
                rec.add("matmul", (n, n, n), dt, None, "torch", torch_ms,
                        tile=f"{bm}x{bn}x{bk}", stages=st, note=f"{type(e).__name__}: {e}")
                continue
            flying = sorted({int(op.attr("pending")) for op in m.walk()
                             if op.name == "atom.call"
                             and op.attr("catalog_id") == "wgmma.wait"})
            if fl and flying in ([], [0]):
                continue  # not a wgmma plan, or groups in flight not legal: same as fl = 0
            if ring and not any(op.name == "atom.call" and op.attr("catalog_id")
                                == "mbarrier.arrive" for op in m.walk()):
                continue  # the schedule did not apply the ring (noted in its report)
            if ring == 2 and not any(op.name == "if" and op.attr("roles") for op in m.walk()):
                continue  # nor the producer warpgroup
            c.fill_(float("nan"))
            exe(a, b, c, sync=True)
            err = rel_error(c, want)
            ok = err <= (1e-2 if dt == "bf16" else 1e-4)
            ms = bench_ms(lambda e=exe, x=a, y=b, z=c: e(x, y, z)) if ok else None
            rec.add("matmul", (n, n, n), dt, ms, "torch", torch_ms, tile=f"{bm}x{bn}x{bk}",
                    stages=st, in_flight=fl, mbarrier_ring=bool(ring),
                    warp_specialized=ring == 2, rel_error=err,
                    resources=str(exe.resources),
                    note=f"{bm}x{bn}x{bk} stages={st} in_flight={fl} ring={ring} "
                         f"{exe.resources}")
            print(f"{dt} {bm}x{bn}x{bk} stages={st} in_flight={fl} ring={ring}: {ms} ms (torch "
                  f"{torch_ms:.4f}), rel {err:.2e}, {exe.resources}", flush=True)
    rec.write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
