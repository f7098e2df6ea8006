"""GEMM on the GPU: tilec vs torch (cuBLAS) and a plain Triton tiled kernel.

Cases: bf16 4096^3 (f32 accumulation), exact f32 4096^3 (TF32 off), bf16
1000^3. For each case, every tilec tile configuration in ``TILES`` is
compiled, checked against torch (output poisoned with NaN first) and timed
with ``do_bench`` medians on fresh random inputs; the best is compared with
torch and with the best of the Triton peer's configurations. Records go to
``benchmarks/results/cuda_gemm-<device>-<date>.json``.

    PYTHONPATH=src python benchmarks/cuda_gemm.py
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import (  # noqa: E402
    Recorder,
    bench_ms,
    host_us_per_call,
    rel_error,
    tilec_kernel,
)

CASES = (("bf16", 4096, 4096, 4096), ("f32", 4096, 4096, 4096), ("bf16", 1000, 1000, 1000))
TOL = {"bf16": 1e-2, "f32": 1e-4}


def triton_matmul() -> Any:
    """A plain tiled Triton GEMM (masked loads, f32 accumulation), or None without Triton."""
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def tiled(a, b, c, M, N, K, lda, ldb, ldc, BM: tl.constexpr, BN: tl.constexpr,
              BK: tl.constexpr, IEEE: tl.constexpr):
        pm = tl.program_id(0)
        pn = tl.program_id(1)
        rows = pm * BM + tl.arange(0, BM)
        cols = pn * BN + tl.arange(0, BN)
        ks = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            kk = k + ks
            x = tl.load(a + rows[:, None] * lda + kk[None, :],
                        mask=(rows[:, None] < M) & (kk[None, :] < K), other=0.0)
            y = tl.load(b + kk[:, None] * ldb + cols[None, :],
                        mask=(kk[:, None] < K) & (cols[None, :] < N), other=0.0)
            acc = tl.dot(x, y, acc, input_precision="ieee" if IEEE else "tf32")
        tl.store(c + rows[:, None] * ldc + cols[None, :], acc,
                 mask=(rows[:, None] < M) & (cols[None, :] < N))

    configs = ((128, 128, 64, 4, 3), (128, 256, 64, 8, 3), (64, 128, 32, 4, 4),
               (128, 64, 32, 4, 4))

    def run(a: Any, b: Any, c: Any, cfg: tuple[int, ...]) -> None:
        M, K = a.shape
        N = b.shape[1]
        bm, bn, bk, warps, stages = cfg
        grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))
        tiled[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=bm, BN=bn,
                    BK=bk, IEEE=a.dtype.is_floating_point and a.element_size() == 4,
                    num_warps=warps, num_stages=stages)

    def best(a: Any, b: Any, c: Any) -> tuple[float | None, str]:
        out: tuple[float | None, str] = (None, "")
        for cfg in configs:
            try:
                ms = bench_ms(lambda cfg=cfg: run(a, b, c, cfg))
            except Exception:  # a configuration that does not fit this GPU
                continue
            if out[0] is None or ms < out[0]:
                out = (ms, "x".join(map(str, cfg)))
        return out

    return run, best, configs


TILES = ((128, 128, 32), (128, 256, 32), (128, 64, 32), (64, 128, 32), (64, 64, 32),
         (128, 128, 64), (256, 128, 32), (128, 256, 64), (256, 128, 64))
"""tilec's tile configurations (BM, BN, BK); like the Triton peer, the best one is reported
(every configuration's time is recorded too). Threads and warp tiles are the planner's."""


def best_tilec(matmul: Any, a: Any, b: Any, c: Any, want: Any, tol: float,
               tiles: Any = TILES, variant: dict[str, Any] | None = None
               ) -> tuple[float | None, str, dict[str, Any]]:
    """Compile (with plan ``variant``, if any), check and time every tile configuration in
    ``tiles``; ``(best ms, note, per-config)``."""
    import torch

    per: dict[str, Any] = {}
    best: tuple[float | None, str] = (None, "")
    for bm, bn, bk in tiles:
        key = f"{bm}x{bn}x{bk}"
        exe, note = tilec_kernel(matmul, [a, b, c], {"BM": bm, "BN": bn, "BK": bk}, variant)
        if exe is None:
            per[key] = {"error": note}
            continue
        c.fill_(float("nan"))
        exe(a, b, c, sync=True)
        torch.cuda.synchronize()
        err = rel_error(c, want)
        if not err <= tol:
            per[key] = {"error": f"WRONG RESULT (rel. error {err:.3g}), not timed",
                        "resources": str(exe.resources)}
            continue
        ms = bench_ms(lambda e=exe: e(a, b, c))
        per[key] = {"ms": ms, "rel_error": err, "resources": str(exe.resources),
                    "host_us_per_call": host_us_per_call(lambda e=exe: e(a, b, c))}
        print(f"  tilec {key}: {ms:.4f} ms (host {per[key]['host_us_per_call']:.1f} us/call), "
              f"rel. error {err:.2g}, {exe.resources}", flush=True)
        if best[0] is None or ms < best[0]:
            best = (ms, key)
    if best[0] is None:
        return None, "tilec: no configuration compiled and matched", per
    return best[0], f"tilec tile {best[1]}, {per[best[1]]['resources']}", per


def main() -> int:
    """Run every case; write the records."""
    import torch

    from tilec.lib.matmul import matmul

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    rec = Recorder("cuda_gemm")
    tri = triton_matmul()
    for dt, m, n, k in CASES:
        tdt = torch.bfloat16 if dt == "bf16" else torch.float32
        gen = torch.Generator(device="cuda").manual_seed(m + n + k)
        a = torch.randn(m, k, device="cuda", dtype=tdt, generator=gen)
        b = torch.randn(k, n, device="cuda", dtype=tdt, generator=gen)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
        want = a.float() @ b.float() if dt == "bf16" else a @ b
        tilec_ms, note, per = best_tilec(matmul, a, b, c, want, TOL[dt])
        shape = (m, n, k)
        torch_ms = bench_ms(lambda x=a, y=b: torch.matmul(x, y))
        torch_host = host_us_per_call(lambda x=a, y=b: torch.matmul(x, y))
        rec.add("matmul", shape, dt, tilec_ms, "torch", torch_ms, note=note, configs=per,
                torch_host_us_per_call=torch_host,
                tflops_tilec=2 * m * n * k / tilec_ms / 1e9 if tilec_ms else None)
        if tri is not None:
            run, best, _ = tri
            c2 = torch.empty_like(c)
            t_ms, cfg = best(a, b, c2)
            if t_ms is not None:
                t_err = rel_error(c2, want)
                rec.add("matmul", shape, dt, tilec_ms, "triton", t_ms,
                        note=f"triton tiled {cfg}, rel. error {t_err:.2g}")
    rec.write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
