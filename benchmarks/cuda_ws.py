"""Warp-specialized rings on the GPU: ``lib.matmul`` with the producer warpgroup against the
plain mbarrier ring and torch.

For each shape of the Hopper issue's table, each tile configuration and each plan variant
(``--variants``: names of ``+``-joined words, see ``variant_of``; ``plain`` is the ordinary
ring, ``ws4`` the producer warpgroup with 4 ring versions, ``persistent`` one program per
compute unit walking output tiles, ``grouped:8`` the grouped traversal, ``epilogue`` the cast
to a 16-bit output fused into the accumulator's registers, ``default`` the planner's own
plan), the kernel is compiled (public API, ``variant=``), checked against an f32 product of
the same operands (output poisoned with NaN first) and timed with ``do_bench`` medians
against ``torch.matmul`` in the same process (``--act gelu``: ``lib.gemm_bias_act`` with an
f32 bias against torch's unfused product, bias and activation). The output is f32
(``--out same``: the
inputs' dtype, as torch's is).
Records go to ``benchmarks/results/cuda_ws-<device>-<date>.json``::

    PYTHONPATH=src python benchmarks/cuda_ws.py [--shapes 4096x4096x4096,...] [--out same]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import Recorder, bench_ms, rel_error  # noqa: E402

SHAPES = ("4096x4096x4096", "2048x2048x2048", "4096x4096x1024", "8192x8192x8192",
          "1000x1000x1000")
TILES = ((128, 128, 64), (128, 256, 64))
VARIANTS = ("default", "inflight", "ring", "ws3", "ws4", "ws4+grouped:8", "ws6",
            "ws4+persistent", "ws4+persistent+grouped:8", "ws3+persistent", "ws4+epilogue",
            "ws4+persistent+epilogue")
"""Variant names run when ``--variants`` is not given (see ``variant_of``)."""


def variant_of(name: str, units: int) -> dict:
    """The plan variant a name spells: ``+``-joined words, each setting options.
    ``default`` (nothing), ``plain`` (no producer warpgroup, no persistent grid), ``inflight``
    (one wgmma group in flight in the ordinary ring), ``ring`` (the mbarrier ring), ``wsN``
    (a producer warpgroup, ``N`` ring versions; the schedule keeps as many as shared
    memory holds), ``persistent`` (one program per compute unit, ``units``),
    ``grouped:G`` (the grouped program traversal), ``epilogue`` (a cast to a 16-bit
    output fused into the accumulator's registers; it changes only ``--out same``),
    ``cluster`` (clusters of two programs multicasting their shared operand), ``regstore``
    (the output stored from registers, not through shared buffers and tensor stores),
    ``pingpong`` (two consumer warpgroups taking alternate tiles of a persistent group of
    one), ``tN`` (``N`` threads per group: ``t128`` makes a 128x128 tile one warpgroup's),
    ``sbN`` (``N`` tensor-store chunk buffers instead of two: ``ws3+sb4`` trades a ring
    version for stores that never wait within a 128x256 bf16 tile)."""
    out: dict = {}
    for word in name.split("+"):
        if word == "default":
            continue
        if word == "plain":
            out.update(warp_specialized=False, persistent=0)
        elif word == "inflight":
            out["wgmma_in_flight"] = 1
        elif word == "ring":
            out["mbarrier_ring"] = True
        elif re.fullmatch(r"ws\d+", word):
            out.update(warp_specialized=True, wgmma_stages=int(word[2:]))
        elif word == "persistent":
            out["persistent"] = units
        elif word.startswith("grouped:"):
            out["program_traversal"] = word
        elif word == "epilogue":
            out["fuse_matrix_epilogues"] = True
        elif word == "cluster":
            out["cluster"] = 2
        elif word == "regstore":
            out["tensor_store"] = False
        elif word == "pingpong":
            out["pingpong"] = True
        elif re.fullmatch(r"t\d+", word):
            out["threads"] = int(word[1:])
        elif re.fullmatch(r"sb\d+", word):
            out["tensor_store_buffers"] = int(word[2:])
        else:
            raise SystemExit(f"unknown variant word {word!r} in {name!r}")
    return out


def main() -> int:
    import torch

    import tilec as tc
    from tilec.lib import matmul
    from tilec.lib.matmul import gemm_bias_act

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", default=",".join(SHAPES), help="MxNxK, comma-separated")
    p.add_argument("--dtypes", default="bf16", help="bf16, f16 (comma-separated)")
    p.add_argument("--out", default="f32", help="output dtype: f32 or same (as the inputs)")
    p.add_argument("--variants", default=",".join(VARIANTS),
                   help="variant names (see variant_of), comma-separated")
    p.add_argument("--tiles", default=",".join("x".join(map(str, t)) for t in TILES),
                   help="BMxBNxBK, comma-separated")
    p.add_argument("--act", default=None,
                   help="time lib.gemm_bias_act with this activation (an f32 bias; the peer is "
                        "torch unfused) instead of lib.matmul")
    args = p.parse_args()
    rec = Recorder("cuda_ws")
    units = torch.cuda.get_device_properties(0).multi_processor_count
    variants = [(name, variant_of(name, units)) for name in args.variants.split(",")]
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
            kernel, name_k, peer = matmul, "matmul", "torch.matmul"
            extra: list = []
            if args.act is not None:
                bias = torch.randn(n, device="cuda", generator=gen)
                acts = {"gelu": torch.nn.functional.gelu, "relu": torch.relu,
                        "silu": torch.nn.functional.silu, "tanh": torch.tanh}
                f = acts[args.act]
                want = f(want + bias)
                kernel, name_k, peer = gemm_bias_act, f"gemm_bias_act {args.act}", \
                    "torch unfused"
                extra = [bias]
                torch_ms = bench_ms(lambda x=a, y=b, f=f, z=bias, o=odt:
                                    f(torch.matmul(x, y).float() + z).to(o))
            else:
                torch_ms = bench_ms(lambda x=a, y=b: torch.matmul(x, y))
            for bm, bn, bk in (tuple(map(int, t.split("x"))) for t in args.tiles.split(",")):
                for name, variant in variants:
                    try:
                        kern = tc.compile(kernel, a, b, *extra, c, target="cuda", BM=bm,
                                          BN=bn, BK=bk, variant=variant,
                                          **({"ACT": args.act} if args.act else {}))
                        src = kern.executable().source
                    except Exception as e:  # a configuration that does not fit: recorded
                        rec.add(name_k, (m, n, k), dt, None, peer, torch_ms,
                                out_dtype=str(odt).replace("torch.", ""), tiles=[bm, bn, bk],
                                variant=variant, variant_name=name,
                                note=f"{bm}x{bn}x{bk} {name} {type(e).__name__}: "
                                     f"{str(e).splitlines()[0]}")
                        continue
                    ws = "setmaxnreg" in src or "bar.sync 1," in src
                    c.fill_(float("nan"))
                    kern(a, b, *extra, c)
                    torch.cuda.synchronize()
                    err = rel_error(c.float(), want)
                    ok = err <= (1e-2 if odt != torch.float32 else 1e-4)
                    bad |= not ok
                    ms = bench_ms(lambda f=kern, x=a, y=b, z=c, e=extra: f(x, y, *e, z)) \
                        if ok else None
                    res = kern.executable().resources
                    rec.add(name_k, (m, n, k), dt, ms, peer, torch_ms,
                            out_dtype=str(odt).replace("torch.", ""), tiles=[bm, bn, bk],
                            variant=variant, variant_name=name, warp_specialized_in_source=ws,
                            rel_error=err, resources=str(res),
                            note=f"{bm}x{bn}x{bk} {name} {res}{'' if ok else ' MISMATCH'}")
    rec.write()
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
