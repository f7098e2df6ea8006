"""Row operations on the GPU: f32 softmax and layernorm 8192x8192, tilec vs torch.

Each case checks tilec's result against torch, then times both with
``do_bench`` medians on fresh random inputs; records go to
``benchmarks/results/cuda_rowops-<device>-<date>.json`` (with GB/s: one
read and one write of the matrix).

    PYTHONPATH=src python benchmarks/cuda_rowops.py [--variants JSON;JSON...]

``--variants`` times each case once per plan variant (``{}`` is the default plan), e.g.
``'{};{"coalesce_group_barriers": false}'`` for the barrier sequence with and without
coalescing; each record names its variant.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import Recorder, bench_ms, rel_error, tilec_kernel  # noqa: E402

M = N = 8192
EPS = 1e-5


def main() -> int:
    """Run both cases (under each variant); write the records."""
    import torch

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variants", default="{}",
                   help="plan variants as JSON objects separated by ';' ({} = default)")
    variants = [json.loads(v) for v in p.parse_args().variants.split(";")]

    from tilec.lib.norms import layernorm
    from tilec.lib.softmax import softmax

    rec = Recorder("cuda_rowops")
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(M, N, device="cuda", generator=gen) * 4
    w = torch.randn(N, device="cuda", generator=gen)
    b = torch.randn(N, device="cuda", generator=gen)
    nbytes = 2 * M * N * 4
    cases = (
        ("softmax", softmax, lambda y: [x, y], {"BM": 1, "BN": N},
         lambda: torch.softmax(x, dim=1)),
        ("layernorm", layernorm, lambda y: [x, w, b, y, EPS], {"BM": 1, "BN": N},
         lambda: torch.nn.functional.layer_norm(x, (N,), w, b, EPS)),
    )
    for (name, kernel, args_of, constexprs, peer), variant in \
            ((c, v) for c in cases for v in variants):
        y = torch.full_like(x, float("nan"))
        exe, note = tilec_kernel(kernel, args_of(y), constexprs, variant or None)
        want = peer()
        tilec_ms = None
        if exe is not None:
            exe(*args_of(y), sync=True)
            err = rel_error(y, want)
            if not err <= 1e-4:
                note += f"; WRONG RESULT (rel. error {err:.3g}), not timed"
            else:
                tilec_ms = bench_ms(lambda exe=exe, y=y, args_of=args_of: exe(*args_of(y)))
                note += f"; rel. error {err:.2g}"
        torch_ms = bench_ms(peer)
        rec.add(name, (M, N), "f32", tilec_ms, "torch", torch_ms, note=note, variant=variant,
                gbps_tilec=nbytes / tilec_ms / 1e6 if tilec_ms else None,
                gbps_peer=nbytes / torch_ms / 1e6)
    rec.write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
