"""Shared helpers of the CUDA benchmarks: timing, records, and tilec kernels on torch tensors.

Run the benchmarks from the repository root with ``PYTHONPATH=src`` on a
machine with torch, triton and cuda-core (tilec itself need not be
installed). Timings are ``tilec.testing.do_bench`` medians (CUDA events, warm-up
excluded, L2 flushed before each call) on fresh random inputs, after a correctness check
against torch.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results"


def bench_ms(fn: Callable[[], Any]) -> float:
    """Median milliseconds of ``fn`` on the GPU (``tilec.testing.do_bench``: 25 ms warm-up,
    100 ms of timed calls, each timed with CUDA events after an L2 flush)."""
    from tilec.testing import do_bench

    return do_bench(fn, device="cuda").median_ms


def host_us_per_call(fn: Callable[[], Any], calls: int = 200) -> float:
    """Host microseconds per call of ``fn`` when enqueued back to back (launch overhead).

    Measured without synchronizing between calls; the GPU queue is deeper than ``calls``,
    so this is the host's cost of one call, not the kernel's time.
    """
    import time

    import torch

    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / calls * 1e6


def device_name() -> str:
    """The GPU's name, as a file-name-safe token."""
    import torch

    return re.sub(r"[^A-Za-z0-9]+", "-", torch.cuda.get_device_name()).strip("-")


def commit() -> str:
    """The repository's short commit: ``TILEC_COMMIT`` when set (a copy without git
    metadata), else ``git rev-parse``, else ``unknown``."""
    if os.environ.get("TILEC_COMMIT"):
        return os.environ["TILEC_COMMIT"]
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True, timeout=10).stdout.strip() \
            or "unknown"
    except OSError:
        return "unknown"


class Recorder:
    """Collects records and writes ``results/<benchmark>-<device>-<date>.json``."""

    def __init__(self, benchmark: str) -> None:
        self.benchmark = benchmark
        """The benchmark's name."""
        self.records: list[dict[str, Any]] = []
        """Everything recorded so far."""
        self.device = device_name()
        """The GPU."""
        self.date = datetime.date.today().isoformat()
        """Today (UTC of the machine)."""
        self.commit = commit()
        """The code measured."""
        self.time = datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M:%SZ")
        """When the run started (UTC); runs of one day share a file."""

    def add(self, kernel: str, shape: Sequence[int], dtype: str, tilec_ms: float | None,
            peer: str, peer_ms: float | None, **extra: Any) -> None:
        """One comparison (``ratio`` = peer time / tilec time; above 1 means tilec is faster)."""
        ratio = peer_ms / tilec_ms if tilec_ms and peer_ms else None
        rec = {"benchmark": self.benchmark, "kernel": kernel, "shape": list(shape),
               "dtype": dtype, "target": "cuda", "device": self.device, "date": self.date,
               "time": self.time, "commit": self.commit, "tilec_ms": tilec_ms, "peer": peer,
               "peer_ms": peer_ms, "ratio": ratio, **extra}
        self.records.append(rec)
        t = f"{tilec_ms:8.3f}" if tilec_ms else "     n/a"
        p = f"{peer_ms:8.3f}" if peer_ms else "     n/a"
        r = f"{ratio:6.2f}" if ratio else "   n/a"
        print(f"{kernel:28s} {dtype:6s} {'x'.join(map(str, shape)):16s} tilec {t} ms  "
              f"{peer:8s} {p} ms  ratio {r}  {extra.get('note', '')}", flush=True)

    def write(self) -> Path:
        """Write the records; returns the path."""
        RESULTS.mkdir(parents=True, exist_ok=True)
        path = RESULTS / f"{self.benchmark}-{self.device}-{self.date}.json"
        earlier: list[dict[str, Any]] = []
        if path.exists():  # keep every run of the day; each record names its commit and time
            try:
                loaded = json.loads(path.read_text())
                earlier = loaded if isinstance(loaded, list) else []
            except ValueError:
                earlier = []
        path.write_text(json.dumps(earlier + self.records, indent=1) + "\n")
        print(f"wrote {path}")
        return path


def host_like(t: Any) -> np.ndarray:
    """An empty numpy array with a tensor's shape and dtype (for capture only)."""
    import ml_dtypes
    import torch

    dt = {torch.float32: np.float32, torch.bfloat16: ml_dtypes.bfloat16,
          torch.float16: np.float16}[t.dtype]
    return np.empty(tuple(t.shape), dt)


def tilec_kernel(kernel: Any, tensors: Sequence[Any], constexprs: dict[str, Any],
                 variant: dict[str, Any] | None = None) -> tuple[Any, str]:
    """A CUDA executable for a library kernel, lowered with the default plan (or with plan
    ``variant``, through the public ``tc.compile``).

    Returns ``(executable or None, note)``; the note gives the resources, or why it failed.
    """
    import tilec
    from tilec.driver import lower_for
    from tilec.targets.cuda.backend import CUDABackend

    be = CUDABackend("cuda")
    args = [host_like(t) if hasattr(t, "shape") else t for t in tensors]
    try:
        if variant:
            exe = tilec.compile(kernel, *tensors, target="cuda", variant=variant,
                                **constexprs).executable()
            return exe, f"lowered with {variant}; {exe.resources}"
        compiled = tilec.compile(kernel, *args, target="reference", **constexprs)
        machine = lower_for(compiled.module, compiled.fn_name, "cuda")
        exe = be.compile(machine, compiled.fn_name)
        return exe, f"lowered; {exe.resources}"
    except Exception as e:
        return None, f"tilec unavailable ({type(e).__name__}: {str(e).splitlines()[0][:160]})"


def checked_run(fn: Callable[[], Any], out: Any, want: Any, tol: float, exact: bool = False
                ) -> tuple[float | None, float, bool]:
    """Run ``fn`` into ``out`` poisoned with NaN and compare with ``want`` (in float64 when
    ``exact``): (median ms, timed only when right; relative error; right)."""
    import torch

    out.fill_(float("nan"))
    fn()
    torch.cuda.synchronize()
    err = rel_error(out.double() if exact else out.float(), want)
    ok = err <= tol
    return (bench_ms(fn) if ok else None), err, ok


def rel_error(got: Any, want: Any) -> float:
    """``max |got - want| / max |want|`` in float64."""
    g, w = got.double(), want.double()
    return float((g - w).abs().max() / w.abs().max().clamp_min(1e-30))


def add_case_filters(p: Any) -> None:
    """``--dtype`` and ``--tile`` options that pick one case of a GEMM sweep."""
    p.add_argument("--dtype", default=None, help="only this dtype (bf16, f32)")
    p.add_argument("--tile", default=None,
                   help="only these BMxBNxBK tiles, e.g. 128x128x64,128x256x64")


def selected(args: Any, dtype: str, tile: Sequence[int]) -> bool:
    """Whether the ``--dtype``/``--tile`` filters keep this case."""
    name = "x".join(str(t) for t in tile)
    return not ((args.dtype and dtype != args.dtype)
                or (args.tile and name not in args.tile.split(",")))


def square_gemm(n: int, dtype: str, tile: Sequence[int], seed: int) -> tuple[Any, ...]:
    """Fresh ``n x n`` inputs of ``dtype`` (``bf16``/``f32``) on the GPU, an f32 output, the
    f32 product, and ``lib.matmul`` for ``tile`` compiled to Candidate form:
    ``(a, b, c, want, compiled)``."""
    import torch

    import tilec
    from tilec.lib.matmul import matmul

    tdt = torch.bfloat16 if dtype == "bf16" else torch.float32
    gen = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(n, n, device="cuda", dtype=tdt, generator=gen)
    b = torch.randn(n, n, device="cuda", dtype=tdt, generator=gen)
    c = torch.empty(n, n, device="cuda", dtype=torch.float32)
    bm, bn, bk = tile
    comp = tilec.compile(matmul, host_like(a), host_like(b), host_like(c), target="reference",
                         BM=bm, BN=bn, BK=bk)
    return a, b, c, a.float() @ b.float(), comp


def bf16_gemm(m: int, n: int, k: int) -> tuple[Any, Any, Any]:
    """Seeded bf16 ``A`` (m x k) and ``B`` (k x n) on the GPU and their f32 product."""
    import torch

    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    return a, b, a.float() @ b.float()


def checked_matmul(a: Any, b: Any, want: Any, tiles: Sequence[int], variant: dict[str, Any],
                   timed: bool = True, tol: float = 1e-4) -> tuple[Any, float | None, float,
                                                                   bool]:
    """``lib.matmul`` of ``a @ b`` into a NaN-poisoned f32 ``C`` under plan ``variant``
    (through ``tc.compile``), checked against ``want``: ``(kernel, median ms or None,
    relative error, right)``; timed only when ``timed`` and right."""
    import torch

    import tilec as tc
    from tilec.lib import matmul

    c = torch.full((a.shape[0], b.shape[1]), float("nan"), device="cuda",
                   dtype=torch.float32)
    bm, bn, bk = tiles
    kern = tc.compile(matmul, a, b, c, target="cuda", BM=bm, BN=bn, BK=bk, variant=variant)
    kern(a, b, c)
    torch.cuda.synchronize()
    err = float((c - want).abs().max()) / max(1.0, float(want.abs().max()))
    ok = not bool(torch.isnan(c).any()) and err < tol
    ms = bench_ms(lambda: kern(a, b, c)) if timed and ok else None
    return kern, ms, err, ok
