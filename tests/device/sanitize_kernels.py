"""Launch a few warp-specialized kernels (and attention and ``A @ W.T``, whose rings hold
K-major and once-copied operands and whose second product reads A from registers) once
each, for ``compute-sanitizer``.

Not a test module (pytest does not collect it): run it under the sanitizer on the GPU::

    compute-sanitizer --tool racecheck python3 tests/device/sanitize_kernels.py
    compute-sanitizer --tool synccheck python3 tests/device/sanitize_kernels.py
    compute-sanitizer --tool racecheck python3 tests/device/sanitize_kernels.py pingpong

(a plan-variant field as argument: only the cases whose variant sets it).

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
    # ping-pong consumers: two consumer warpgroups on alternate tiles, their loops in turn
    ((520, 300, 384), (64, 128, 64), {"threads": 128, "warp_specialized": True,
                                      "persistent": 3, "pingpong": True}, "f32"),
    ((300, 520, 256), (64, 256, 64), {"threads": 128, "warp_specialized": True,
                                      "persistent": 2, "pingpong": True,
                                      "fuse_matrix_epilogues": True}, "bf16"),
    # the default plan (producer warpgroup, persistent grid of one program per SM in the
    # grouped traversal, fused cast), on more tiles than SMs
    ((2176, 2304, 192), (128, 128, 64), {}, "bf16"),
]


def main() -> int:
    import torch

    import tilec as tc
    from tilec.lib import matmul

    only = sys.argv[1] if len(sys.argv) > 1 else None  # a plan-variant word: those cases
    bad = 0
    for (m, n, k), (bm, bn, bk), variant, out in CASES:
        if only is not None and only not in variant:
            continue
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
    return 1 if bad + (_others() if only is None else 0) else 0


def _others() -> int:
    """``lib.linear`` with the default plan and attention (causal and not): mismatches."""
    import torch

    import tilec as tc
    from tilec.lib import linear
    from tilec.lib.attention import flash_attention

    bad = 0
    gen = torch.Generator(device="cuda").manual_seed(3)
    a = torch.randn(300, 320, device="cuda", dtype=torch.bfloat16, generator=gen)
    w = torch.randn(260, 320, device="cuda", dtype=torch.bfloat16, generator=gen)
    c = torch.full((300, 260), float("nan"), device="cuda", dtype=torch.float32)
    tc.compile(linear, a, w, c, target="cuda", BM=128, BN=128, BK=64)(a, w, c)
    torch.cuda.synchronize()
    want = a.float() @ w.float().T
    err = float((c - want).abs().max()) / max(1.0, float(want.abs().max()))
    bad += not err <= 1e-4
    print(f"linear 300x260x320: relative error {err:.3g}{'' if err <= 1e-4 else ' MISMATCH'}",
          flush=True)
    for causal in (False, True):
        q, k, v = (torch.randn(4, 200, 64, device="cuda", dtype=torch.bfloat16, generator=gen)
                   for _ in range(3))
        out = torch.full_like(q, float("nan"))
        kern = tc.compile(flash_attention, q, k, v, out, 0.125, target="cuda", BM=64, BN=64,
                          HEAD_DIM=64, CAUSAL=causal)
        kern(q, k, v, out, 0.125)
        torch.cuda.synchronize()
        want = torch.nn.functional.scaled_dot_product_attention(
            q.float(), k.float(), v.float(), scale=0.125, is_causal=causal)
        err = float((out.float() - want).abs().max()) / float(want.abs().max())
        bad += not err <= 2e-2
        print(f"attention causal={causal}: relative error {err:.3g}"
              f"{'' if err <= 2e-2 else ' MISMATCH'}", flush=True)
    return bad


if __name__ == "__main__":
    sys.exit(main())
