"""Attention forward on the GPU: ``tilec.lib.flash_attention`` vs torch's
``scaled_dot_product_attention``, bf16/f16 in and out, f32 statistics; ``--causal`` runs
``CAUSAL=True`` against ``is_causal=True`` (half the products: TFLOP/s count the unmasked
half).
The peer gets 4-D ``(B, H, S, D)`` views, the layout its fused kernels take (3-D
operands send it down the unfused math path, which an earlier version of this script
timed by mistake: its 2026-12-05 ratios are not against the fused peer).

Each case checks tilec's output against sdpa, then times both with ``do_bench`` medians;
records (with TFLOP/s: 4 * B * H * S * S * D) go to
``benchmarks/results/cuda_attention-<device>-<date>.json``.

    PYTHONPATH=src python benchmarks/cuda_attention.py [--shapes 4x32x4096x128,...]
        [--tiles 64x64,128x64] [--dtypes bf16,f16] [--causal] [--variant JSON ...]
        [--pipeline no|yes|both]

Each ``--variant`` (repeatable; ``default`` for the plan a user gets) is timed against the
same peer figure, in the same process; ``--pipeline`` times the kernel's ``PIPELINE`` form
(each key block's scores one iteration ahead of its softmax) instead of, or beside, the
plain one.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import Recorder, bench_ms, rel_error, tilec_kernel  # noqa: E402


def _pairs(text: str) -> list[tuple[int, ...]]:
    return [tuple(int(x) for x in item.split("x")) for item in text.split(",")]


def main() -> int:
    """Run every shape x dtype x tile case; write the records."""
    import torch

    from tilec.lib.attention import flash_attention

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", default="4x32x4096x128,4x32x4096x64",
                   help="BxHxSxD, comma-separated")
    p.add_argument("--tiles", default="64x64,64x32", help="BMxBN query x key rows")
    p.add_argument("--dtypes", default="bf16")
    p.add_argument("--causal", action="store_true", help="causal attention on both sides")
    p.add_argument("--variant", action="append", default=None,
                   help='plan variant as JSON (e.g. \'{"threads": 128}\'), repeatable; '
                        "default: the plan a user gets")
    p.add_argument("--pipeline", choices=("no", "yes", "both"), default="no",
                   help="time flash_attention's PIPELINE form (yes), the plain one (no) or both")
    a = p.parse_args()
    variants = [None if v == "default" else json.loads(v) for v in a.variant or ["default"]]
    rec = Recorder("cuda_attention")
    dtypes = {"bf16": torch.bfloat16, "f16": torch.float16}
    for (b, h, s, d) in _pairs(a.shapes):
        for dn in a.dtypes.split(","):
            dt = dtypes[dn]
            gen = torch.Generator(device="cuda").manual_seed(s + d)
            q, k, v = (torch.randn(b * h, s, d, device="cuda", dtype=dt, generator=gen)
                       for _ in range(3))
            scale = 1.0 / d ** 0.5

            # the peer sees (B, H, S, D) views of the same memory: with 3-D (B*H, S, D)
            # operands sdpa takes its unfused math path, not the flash kernel
            q4, k4, v4 = (x.view(b, h, s, d) for x in (q, k, v))

            def peer(q=q4, k=k4, v=v4, scale=scale):
                return torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, scale=scale, is_causal=a.causal)

            want = peer().view(b * h, s, d)
            peer_ms = bench_ms(peer)
            flops = 4 * b * h * s * s * d // (2 if a.causal else 1)
            forms = {"no": (False,), "yes": (True,), "both": (False, True)}[a.pipeline]
            for (bm, bn), variant, piped in ((t, v, f) for t in _pairs(a.tiles)
                                             for v in variants for f in forms):
                out = torch.full_like(q, float("nan"))
                args = [q, k, v, out, scale]
                consts = {"BM": bm, "BN": bn, "HEAD_DIM": d, "CAUSAL": a.causal}
                if piped:
                    consts["PIPELINE"] = True
                exe, note = tilec_kernel(flash_attention, args, consts, variant)
                tilec_ms = None
                if exe is not None:
                    exe(*args, sync=True)
                    err = rel_error(out, want)
                    if not err <= 2e-2:
                        note += f"; WRONG RESULT (rel. error {err:.3g}), not timed"
                    else:
                        tilec_ms = bench_ms(lambda exe=exe, args=args: exe(*args))
                        note += f"; rel. error {err:.2g}"
                kind = ("causal attention" if a.causal else "attention") \
                    + (" pipelined" if piped else "")
                rec.add(f"{kind} BM{bm} BN{bn}", (b, h, s, d), dn, tilec_ms, "torch sdpa",
                        peer_ms, note=note, variant=variant,
                        tflops_tilec=flops / tilec_ms / 1e9 if tilec_ms else None,
                        tflops_peer=flops / peer_ms / 1e9)
    rec.write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
