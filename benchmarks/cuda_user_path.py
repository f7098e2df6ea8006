"""What a user gets on the GPU: library kernels called with no tile arguments and no plan
variant (the model's tiles and the default plan), against torch, Triton and the previous
default plan, in one process.

1. ``lib.matmul`` at the Hopper issue's shapes, bf16/f16 inputs with an output of the
   inputs' dtype (as torch's) and with an f32 output, f32 inputs computed exactly
   (``torch.backends.cuda.matmul.allow_tf32 = False`` for the peer) and with
   ``PRECISION="tf32"`` (TF32 allowed for the peer). Each call is timed
   with the default plan and (unless ``--no-old``) with the plan before the default
   producer warpgroup, persistent grid and fused epilogues (``warp_specialized=False,
   persistent=0, fuse_matrix_epilogues=False``) at the same tiles and thread count.
2. ``lib.gemm_bias_act`` with ``ACT="gelu"`` (bf16 inputs, f32 bias; an f32 and a bf16
   output) against an autotuned Triton kernel that fuses the bias and GELU the same way
   (written here, public Triton API; it stores C's type) and against torch unfused.
3. ``lib.linear`` (``A @ W.T``, a K-major weight) against ``torch.nn.functional.linear``,
   bf16 in and out, at the same shapes.

Every kernel's output is poisoned with NaN, checked against an f32 product (f64 for f32
inputs, exact or tf32) and timed with ``do_bench`` medians. Records go to
``benchmarks/results/cuda_user_path-<device>-<date>.json``::

    PYTHONPATH=src python benchmarks/cuda_user_path.py [--parts mm,gelu,linear] [--shapes ...]
        [--no-old]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import Recorder, bench_ms, checked_run  # noqa: E402

SHAPES = ("4096x4096x4096", "8192x8192x8192", "2048x2048x2048", "4096x4096x1024",
          "1000x1000x1000", "128x128x8192", "16x4096x4096")
OLD = {"warp_specialized": False, "persistent": 0, "fuse_matrix_epilogues": False,
       "split_k": 1}
"""The plan lib.matmul got by default before the default plan changed (and before the
model's pick split K for underfilled grids)."""


def _triton_gemm_gelu():
    """An autotuned Triton GEMM with the bias and GELU fused into its epilogue."""
    import triton
    import triton.language as tl

    configs = [triton.Config({"TM": m, "TN": n, "TK": k, "G": 8}, num_stages=s, num_warps=w)
               for m, n, k, s, w in ((128, 256, 64, 3, 8), (256, 128, 64, 3, 8),
                                     (128, 128, 64, 4, 4), (128, 128, 64, 3, 8),
                                     (128, 64, 64, 4, 4), (64, 128, 64, 4, 4))]

    @triton.autotune(configs=configs, key=["M", "N", "K"])
    @triton.jit
    def kernel(a, b, bias, c, M, N, K, TM: tl.constexpr, TN: tl.constexpr,
               TK: tl.constexpr, G: tl.constexpr):
        pid = tl.program_id(0)
        rows, cols = tl.cdiv(M, TM), tl.cdiv(N, TN)
        group = pid // (G * cols)
        first = group * G
        height = min(rows - first, G)
        pm = first + (pid % (G * cols)) % height
        pn = (pid % (G * cols)) // height
        om = pm * TM + tl.arange(0, TM)
        on = pn * TN + tl.arange(0, TN)
        ok = tl.arange(0, TK)
        acc = tl.zeros((TM, TN), dtype=tl.float32)
        for k0 in range(0, K, TK):
            x = tl.load(a + om[:, None] * K + (k0 + ok)[None, :],
                        mask=(om[:, None] < M) & ((k0 + ok)[None, :] < K), other=0.0)
            y = tl.load(b + (k0 + ok)[:, None] * N + on[None, :],
                        mask=((k0 + ok)[:, None] < K) & (on[None, :] < N), other=0.0)
            acc = tl.dot(x, y, acc)
        acc += tl.load(bias + on, mask=on < N, other=0.0)[None, :]
        acc = 0.5 * acc * (1.0 + tl.math.erf(acc * 0.7071067811865476))
        tl.store(c + om[:, None] * N + on[None, :], acc,
                 mask=(om[:, None] < M) & (on[None, :] < N))

    def run(a, b, bias, c):
        m, k = a.shape
        n = b.shape[1]
        grid = lambda meta: (triton.cdiv(m, meta["TM"]) * triton.cdiv(n, meta["TN"]),)  # noqa: E731
        kernel[grid](a, b, bias, c, m, n, k)

    return run


def matmuls(rec: Recorder, shapes: list[str], old: dict | None) -> bool:
    import torch

    import tilec as tc
    from tilec.lib import matmul

    bad = False
    cases = [(s, dt, out) for s in shapes for dt, out in (("bf16", "same"), ("bf16", "f32"))]
    cases += [("4096x4096x4096", "f16", "same"), ("4096x4096x4096", "f32", "f32"),
              ("4096x4096x4096", "tf32", "f32")]
    for shape, dt, out in cases:
        # the exact f32 peer computes in f32; the tf32 one is allowed TF32 (as tilec's
        # PRECISION="tf32")
        torch.backends.cuda.matmul.allow_tf32 = dt == "tf32"
        m, n, k = map(int, shape.split("x"))
        tdt = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32,
               "tf32": torch.float32}[dt]
        odt = tdt if out == "same" else torch.float32
        gen = torch.Generator(device="cuda").manual_seed(m + n + k)
        a = torch.randn(m, k, device="cuda", dtype=tdt, generator=gen)
        b = torch.randn(k, n, device="cuda", dtype=tdt, generator=gen)
        c = torch.empty(m, n, device="cuda", dtype=odt)
        f32_in = dt in ("f32", "tf32")  # compared with an f64 product
        want = (a.double() @ b.double()) if f32_in else a.float() @ b.float()
        torch_ms = bench_ms(lambda x=a, y=b: torch.matmul(x, y))
        tol = 1e-5 if dt == "f32" else 5e-3 if dt == "tf32" else \
            (1e-2 if odt != torch.float32 else 1e-4)
        prec = {"PRECISION": "tf32"} if dt == "tf32" else {}
        kern = tc.compile(matmul, a, b, c, target="cuda", **prec)
        tiles = dict(kern.selection.values)
        arms = [("default", kern)]
        try:
            if old is not None:
                arms.append(("old default", tc.compile(
                    matmul, a, b, c, target="cuda", **tiles, **prec,
                    variant={**kern.selection.variant, **old})))  # the priced thread count too
        except Exception as e:  # noqa: BLE001 - recorded
            print(f"old default at {tiles}: {type(e).__name__}: {e}")
        for name, kn in arms:
            ms, err, ok = checked_run(lambda f=kn, x=a, y=b, z=c: f(x, y, z), c, want, tol, f32_in)
            bad |= not ok
            rec.add(f"lib.matmul {name}", (m, n, k), dt, ms, "torch.matmul", torch_ms,
                    out_dtype=str(odt).replace("torch.", ""), tuned=False,
                    config=str(kern.selection), plan=name, rel_error=err,
                    resources=str(kn.executable().resources),
                    note=f"{name} {tiles} rel {err:.1e}{'' if ok else ' MISMATCH'}")
    return bad


def linears(rec: Recorder, shapes: list[str]) -> bool:
    """``lib.linear`` (``A @ W.T``, W N x K: K-major B operands) with the model's tiles and
    the default plan against ``torch.nn.functional.linear``, bf16 in and out."""
    import torch

    import tilec as tc
    from tilec.lib import linear

    bad = False
    for shape in shapes:
        m, n, k = map(int, shape.split("x"))
        gen = torch.Generator(device="cuda").manual_seed(m + n + k + 1)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        want = a.float() @ w.float().T
        torch_ms = bench_ms(lambda x=a, y=w: torch.nn.functional.linear(x, y))
        kern = tc.compile(linear, a, w, c, target="cuda")
        ms, err, ok = checked_run(lambda f=kern, x=a, y=w, z=c: f(x, y, z), c, want, 1e-2)
        bad |= not ok
        rec.add("lib.linear default", (m, n, k), "bf16", ms, "torch linear", torch_ms,
                out_dtype="bfloat16", tuned=False, config=str(kern.selection), plan="default",
                rel_error=err, resources=str(kern.executable().resources),
                note=f"{dict(kern.selection.values)} rel {err:.1e}{'' if ok else ' MISMATCH'}")
    return bad


def gelu(rec: Recorder, old: dict | None, outs: tuple[str, ...] = ("float32", "bfloat16")) -> bool:
    import torch

    import tilec as tc
    from tilec.lib.matmul import gemm_bias_act

    m = n = k = 4096
    gen = torch.Generator(device="cuda").manual_seed(7)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    bias = torch.randn(n, device="cuda", dtype=torch.float32, generator=gen)
    exact = torch.nn.functional.gelu(a.float() @ b.float() + bias)
    tri = _triton_gemm_gelu()
    bad = False
    for out in outs:  # an f32 output, and the bf16 one a bf16 model writes (C's type)
        dt = getattr(torch, out)
        c = torch.empty(m, n, device="cuda", dtype=dt)
        want = exact.to(dt).float()
        tol = 1e-3 if dt == torch.float32 else 1e-2
        tri_ms, tri_err, _ = checked_run(lambda c=c: tri(a, b, bias, c), c, want, float("inf"))
        unfused_ms = bench_ms(
            lambda dt=dt: torch.nn.functional.gelu(torch.matmul(a, b).float() + bias).to(dt))
        kern = tc.compile(gemm_bias_act, a, b, bias, c, target="cuda", ACT="gelu")
        tiles = dict(kern.selection.values)
        arms = [("default", kern)]
        if old is not None:
            arms.append(("old default", tc.compile(
                gemm_bias_act, a, b, bias, c, target="cuda", ACT="gelu",
                variant={**kern.selection.variant, **old}, **tiles)))
        for name, kn in arms:
            ms, err, ok = checked_run(lambda f=kn, c=c: f(a, b, bias, c), c, want, tol)
            bad |= not ok
            for peer, peer_ms in (("triton fused", tri_ms), ("torch unfused", unfused_ms)):
                rec.add(f"lib.gemm_bias_act gelu {name}", (m, n, k), "bf16", ms, peer,
                        peer_ms, out_dtype=out, tuned=False, config=str(kern.selection),
                        plan=name, rel_error=err,
                        peer_rel_error=tri_err if peer == "triton fused" else None,
                        resources=str(kn.executable().resources),
                        note=f"{name} {out} out {tiles} rel {err:.1e}"
                             f"{'' if ok else ' MISMATCH'}")
    return bad


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--parts", default="mm,gelu,linear",
                   help="mm, gelu, linear (comma-separated)")
    p.add_argument("--shapes", default=",".join(SHAPES), help="MxNxK, comma-separated")
    p.add_argument("--no-old", action="store_true",
                   help="time only the default plan (not the plan before it)")
    args = p.parse_args()
    old = None if args.no_old else OLD
    rec = Recorder("cuda_user_path")
    bad = False
    parts = args.parts.split(",")
    try:
        if "mm" in parts:
            bad |= matmuls(rec, args.shapes.split(","), old)
        if "gelu" in parts:
            bad |= gelu(rec, old)
        if "linear" in parts:
            bad |= linears(rec, args.shapes.split(","))
    finally:
        rec.write()
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
