"""The roofs of a machine, measured in the run, and the roofline plot of ``tilec bench``.

Two roofs bound what a kernel can reach: the bandwidth of a large array copy and the
throughput of a large matrix product by the peer library (numpy's BLAS on the CPU,
cuBLAS through torch, else cupy, on CUDA). Both are measured, not taken from a data
sheet, so the plot shows what this machine delivers today. A kernel sits at its
arithmetic intensity (flops per byte moved) and its achieved throughput.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .bench import do_bench

__all__ = ["Roofs", "RoofPoint", "measure_roofs", "plot_roofline", "COPY_BYTES", "MATMUL_N"]

COPY_BYTES = {"cpu": 64 << 20, "cuda": 256 << 20}
"""Bytes of the array the bandwidth roof copies, per device: more than the last-level
cache (CPU) or L2 (GPU), so the copy streams from memory."""
MATMUL_N = 2048
"""The throughput roof multiplies two ``MATMUL_N x MATMUL_N`` matrices."""


@dataclass(frozen=True)
class Roofs:
    """What this machine's memory and matrix units delivered in this run."""

    device: str
    """``cpu`` or ``cuda``."""
    copy_gbs: float
    """Bytes read plus bytes written per second by a large copy, in GB/s (1e9 bytes/s)."""
    copy_what: str
    """What was copied, e.g. ``numpy.copyto 64 MiB f32``."""
    matmul_gflops: float
    """``2 n^3`` flops per second of the peer's matrix product, in GFLOP/s."""
    matmul_what: str
    """What was multiplied, e.g. ``numpy.matmul 2048^3 f32``."""

    @property
    def ridge(self) -> float:
        """The arithmetic intensity (flop/byte) where the two roofs meet."""
        return self.matmul_gflops / self.copy_gbs


@dataclass(frozen=True)
class RoofPoint:
    """One measured kernel on the roofline."""

    label: str
    """What to write beside the point (the kernel's name)."""
    intensity: float
    """Flops per byte moved."""
    gflops: float
    """Achieved GFLOP/s."""
    who: str
    """``tilec`` or ``peer``: the marker."""


def measure_roofs(device: str, *, copy_bytes: int | None = None,
                  matmul_n: int | None = None, rep_ms: float = 100.0) -> Roofs:
    """Time a large copy and a large matrix product on ``device`` with ``do_bench``
    (``COPY_BYTES[device]`` and ``MATMUL_N`` unless given)."""
    nbytes = copy_bytes or COPY_BYTES[device]
    n = matmul_n or MATMUL_N
    if device == "cpu":
        import numpy as np

        src = np.ones(nbytes // 4, np.float32)
        dst = np.empty_like(src)
        a = np.ones((n, n), np.float32)
        b = np.ones((n, n), np.float32)
        c = np.empty((n, n), np.float32)
        copy = lambda: np.copyto(dst, src)
        mm = lambda: np.matmul(a, b, out=c)
        copy_what, mm_what = "numpy.copyto", f"numpy.matmul {n}^3 f32"
    elif device == "cuda":
        copy, mm, copy_what, mm_what = _cuda_roof_calls(nbytes, n)
    else:
        raise ValueError(f"measure_roofs: device is 'cpu' or 'cuda', got {device!r}")
    # Both arrays of the copy exceed the cache, so a flush would only add wall time.
    t_copy = do_bench(copy, device=device, flush_l2=False, rep_ms=rep_ms, min_reps=3)
    t_mm = do_bench(mm, device=device, flush_l2=False, rep_ms=rep_ms, min_reps=3)
    return Roofs(device, 2 * nbytes / t_copy.median_ms / 1e6,
                 f"{copy_what} {nbytes >> 20} MiB (read + write)",
                 2 * n**3 / t_mm.median_ms / 1e6, mm_what)


def _cuda_roof_calls(nbytes: int, n: int) -> tuple[Any, Any, str, str]:
    """The copy and the product on the GPU: torch (bf16, cuBLAS's tensor cores), else cupy
    (f32)."""
    try:
        import torch

        src = torch.ones(nbytes // 4, dtype=torch.float32, device="cuda")
        dst = torch.empty_like(src)
        a = torch.randn(n, n, dtype=torch.bfloat16, device="cuda")
        b = torch.randn(n, n, dtype=torch.bfloat16, device="cuda")
        c = torch.empty(n, n, dtype=torch.bfloat16, device="cuda")
        return (lambda: dst.copy_(src), lambda: torch.matmul(a, b, out=c), "torch copy_",
                f"torch.matmul {n}^3 bf16")
    except ImportError:
        pass
    try:
        import cupy
    except ImportError:
        raise RuntimeError("measuring the CUDA roofs needs torch or cupy") from None
    src = cupy.ones(nbytes // 4, dtype=cupy.float32)
    dst = cupy.empty_like(src)
    a = cupy.ones((n, n), dtype=cupy.float32)
    b = cupy.ones((n, n), dtype=cupy.float32)
    c = cupy.empty((n, n), dtype=cupy.float32)
    return (lambda: cupy.copyto(dst, src), lambda: cupy.matmul(a, b, out=c), "cupy.copyto",
            f"cupy.matmul {n}^3 f32")


def plot_roofline(path: str | Path, roofs: Roofs, points: Sequence[RoofPoint], *,
                  title: str, notes: Sequence[str] = ()) -> None:
    """Write a log-log roofline PNG: the two roofs, each point, and ``notes`` (what was left
    out, and why) under the axes. Needs matplotlib (the ``bench`` extra); no pyplot, so
    the caller's matplotlib backend is left alone."""
    import numpy as np
    from matplotlib.figure import Figure

    xs_pts = [p.intensity for p in points if p.intensity > 0]
    lo = min([roofs.ridge, *xs_pts]) / 10
    hi = max([roofs.ridge, *xs_pts]) * 10
    xs = np.geomspace(lo, hi, 256)
    fig = Figure(figsize=(8, 5.5 + 0.18 * len(notes)))
    ax = fig.add_subplot(1, 1, 1)
    ax.loglog(xs, np.minimum(roofs.copy_gbs * xs, roofs.matmul_gflops), color="black", lw=1.5)
    ax.axvline(roofs.ridge, color="grey", lw=0.6, ls=":")
    ax.text(lo * 1.5, roofs.copy_gbs * lo * 1.5 / 1.6,
            f"copy {roofs.copy_gbs:.3g} GB/s\n({roofs.copy_what})", fontsize=8, va="top")
    ax.text(hi / 1.3, roofs.matmul_gflops * 1.08,
            f"matmul {roofs.matmul_gflops:.4g} GFLOP/s ({roofs.matmul_what})",
            fontsize=8, ha="right", va="bottom")
    style = {"tilec": dict(marker="o", color="tab:blue"),
             "peer": dict(marker="x", color="tab:orange")}
    for who, st in style.items():
        pts = [p for p in points if p.who == who]
        if pts:
            ax.scatter([p.intensity for p in pts], [p.gflops for p in pts], label=who, **st)
            for p in pts:
                ax.annotate(p.label, (p.intensity, p.gflops), textcoords="offset points",
                            xytext=(5, -10 if who == "peer" else 4), fontsize=7, color=st["color"])
    top = max([roofs.matmul_gflops, *(p.gflops for p in points)])
    bottom = min([roofs.copy_gbs * lo, *(p.gflops for p in points if p.gflops > 0)])
    ax.set_ylim(bottom / 2, top * 3)
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity (flop / byte)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", lw=0.3, alpha=0.5)
    if points:
        ax.legend(loc="lower right", fontsize=8)
    if notes:
        fig.text(0.01, 0.01, "\n".join(notes), fontsize=7, va="bottom", family="monospace")
        fig.subplots_adjust(bottom=0.12 + 0.03 * len(notes))
    fig.savefig(str(path), dpi=120)
