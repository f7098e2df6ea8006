"""Launch a few warp-specialized kernels once each, for ``compute-sanitizer``.

Not a test module (pytest does not collect it): run it under the sanitizer on the GPU::

    compute-sanitizer --tool racecheck python3 tests/device/sanitize_kernels.py
    compute-sanitizer --tool synccheck python3 tests/device/sanitize_kernels.py

Each case is compiled first (NVRTC, outside any kernel), then launched once on small
operands and checked against torch, so the sanitizer's report covers exactly these
launches and a wrong result still fails the script."""

from __future__ import annotations

import sys

CASES = [  # (M, N, K), (BM, BN, BK), plan variant, output dtype
    ((200, 136, 320), (128, 128, 64), {"warp_specialized": True, "persistent": 3}, "f32"),
    ((300, 260, 200), (64, 64, 64), {"warp_specialized": True, "persistent": 4,
                                     "program_traversal": "grouped:2"}, "f32"),
    ((200, 130, 192), (128, 128, 64), {"warp_specialized": True, "persistent": 2}, "f32"),
    ((260, 520, 256), (128, 256, 64), {"warp_specialized": True, "wgmma_stages": 4,
                                       "persistent": 3, "fuse_matrix_epilogues": True},
     "bf16"),
    # the default plan (producer warpgroup, persistent grid of one program per SM in the
    # grouped traversal, fused cast), on more tiles than SMs
    ((2176, 2304, 192), (128, 128, 64), {}, "bf16"),
]


def main() -> int:
    import torch

    import tilec as tc
    from tilec.lib import matmul

    bad = 0
    for (m, n, k), (bm, bn, bk), variant, out in CASES:
        gen = torch.Generator(device="cuda").manual_seed(m + n + k)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
        odt = torch.float32 if out == "f32" else torch.bfloat16
        c = torch.full((m, n), float("nan"), device="cuda", dtype=odt)
        kern = tc.compile(matmul, a, b, c, target="cuda", BM=bm, BN=bn, BK=bk,
                          variant=variant)
        kern(a, b, c)
        torch.cuda.synchronize()
        want = (a.float() @ b.float()).to(odt).float()
        err = float((c.float() - want).abs().max())
        ok = err <= (1e-4 if out == "f32" else 1e-2) * max(1.0, float(want.abs().max()))
        bad += not ok
        print(f"{m}x{n}x{k} {bm}x{bn}x{bk} {variant} {out}: max error {err:.3g}"
              f"{'' if ok else ' MISMATCH'}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
