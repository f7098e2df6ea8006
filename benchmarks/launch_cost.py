"""Launch cost: host microseconds per call of a compiled kernel, with nothing else to do.

What one call costs the caller beyond the kernel's own work: binding and checking the
arguments, finding the executable, launching. Measured per target, in one process:

* ``cpu``: ``lib.matmul`` 16^3 f32 on numpy arrays (one program, a few hundred
  nanoseconds of arithmetic, so the call's overhead dominates), called back to back through
  ``compiled(a, b, c)`` and through the jit entry ``matmul(a, b, c)``; the peer is
  ``np.matmul(a, b, out=c)``;
* ``cuda`` (where it runs): ``lib.matmul`` 128^3 bf16 (f32 out) on torch tensors, enqueued
  back to back without synchronizing (``cuda_common.host_us_per_call``: the GPU's queue is
  deeper than the calls, so this is the host's cost of one call); the peer is
  ``torch.matmul`` of the same tensors, measured in the same process.

Every timing is the median of ``--rounds`` rounds of ``--calls`` calls; on cuda the
entries take turns within each round. Records
(``kernel``, ``shape``, ``dtype``, ``target``, ``device``, ``date``, ``commit``,
``tilec_ms`` = milliseconds per call, ``peer``, ``peer_ms``, ``ratio = peer_ms /
tilec_ms``, plus ``entry``: ``compiled`` or ``kernel``) go to
``benchmarks/results/launch_cost-<device>-<date>.json``::

    PYTHONPATH=src python benchmarks/launch_cost.py [--targets cpu,cuda] [--profile]

``--profile`` prints a cProfile of the cpu ``compiled(...)`` loop (what a call spends its
time on).
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cpu import append_records, commit, machine  # noqa: E402

CPU_N = 16
CUDA_N = 128


def us_per_call(fn: Callable[[], Any], calls: int, rounds: int) -> float:
    """Median over ``rounds`` of the mean host microseconds of ``calls`` back-to-back calls."""
    fn()
    per = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        per.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(per)


def _record(base: dict[str, Any], entry: str, shape: list[int], dtype: str, target: str,
            device: str, us: float, peer: str, peer_us: float) -> dict[str, Any]:
    return {**base, "kernel": "lib.matmul", "entry": entry, "shape": shape, "dtype": dtype,
            "target": target, "device": device, "tilec_ms": round(us / 1e3, 6),
            "tilec_us": round(us, 2), "peer": peer, "peer_ms": round(peer_us / 1e3, 6),
            "peer_us": round(peer_us, 2), "ratio": round(peer_us / us, 4)}


def measure_cpu(base: dict[str, Any], calls: int, rounds: int, profile: bool
                ) -> list[dict[str, Any]]:
    """``compiled(...)`` and ``matmul(...)`` on numpy arrays against ``np.matmul``."""
    import numpy as np

    import tilec as tc
    from tilec.lib.matmul import matmul

    n = CPU_N
    a = np.ones((n, n), np.float32)
    b = np.ones((n, n), np.float32)
    c = np.zeros((n, n), np.float32)
    tiles = {"BM": n, "BN": n, "BK": n}
    k = tc.compile(matmul, a, b, c, target="cpu", **tiles)
    k(a, b, c)
    assert float(c[0, 0]) == n, float(c[0, 0])
    if profile:
        import cProfile
        import pstats

        pr = cProfile.Profile()
        pr.enable()
        for _ in range(2000):
            k(a, b, c)
        pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(18)
    compiled = us_per_call(lambda: k(a, b, c), calls, rounds)
    jit = us_per_call(lambda: matmul(a, b, c, **tiles), calls, rounds)
    peer = us_per_call(lambda: np.matmul(a, b, out=c), calls, rounds)
    device = machine()["cpu"]
    out = [_record(base, "compiled", [n, n, n], "f32", "cpu", device, compiled,
                   "np.matmul(out=)", peer),
           _record(base, "kernel", [n, n, n], "f32", "cpu", device, jit, "np.matmul(out=)",
                   peer)]
    for r in out:
        print(f"cpu  {r['entry']:8s} {r['tilec_us']:7.2f} us/call; {r['peer']} "
              f"{r['peer_us']:.2f} us", flush=True)
    return out


def measure_cuda(base: dict[str, Any], calls: int, rounds: int) -> list[dict[str, Any]]:
    """``compiled(...)`` and ``matmul(...)`` on torch tensors against ``torch.matmul``."""
    import torch
    from cuda_common import device_name, host_us_per_call

    import tilec as tc
    from tilec.lib.matmul import matmul

    n = CUDA_N
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = torch.zeros(n, n, device="cuda", dtype=torch.float32)
    k = tc.compile(matmul, a, b, c, target="cuda")
    k(a, b, c)
    torch.cuda.synchronize()
    err = float((c - a.float() @ b.float()).abs().max())
    assert err < 1e-2 * n, err

    # The three entries take turns in every round, so drift in the host's speed
    # (clocks, other processes) falls on all of them alike.
    fns = {"compiled": lambda: k(a, b, c), "kernel": lambda: matmul(a, b, c),
           "peer": lambda: torch.matmul(a, b)}
    per: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            per[name].append(host_us_per_call(fn, calls))
    compiled, jit, peer = (statistics.median(per[name]) for name in fns)
    device = device_name()
    out = [_record(base, "compiled", [n, n, n], "bf16", "cuda", device, compiled,
                   "torch.matmul", peer),
           _record(base, "kernel", [n, n, n], "bf16", "cuda", device, jit, "torch.matmul",
                   peer)]
    for r in out:
        print(f"cuda {r['entry']:8s} {r['tilec_us']:7.2f} us/call; {r['peer']} "
              f"{r['peer_us']:.2f} us", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    """Measure every target asked for and write the records (one file per device)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", default=None, help="comma-separated (default cpu, and cuda "
                    "where it runs)")
    ap.add_argument("--calls", type=int, default=2000, help="calls per round")
    ap.add_argument("--rounds", type=int, default=7, help="rounds (the median is reported)")
    ap.add_argument("--profile", action="store_true", help="print a cProfile of the cpu "
                    "compiled(...) calls")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    import tilec

    targets = args.targets.split(",") if args.targets else \
        ["cpu"] + [t for t in ("cuda",) if dict((i.name, r) for i, r in
                                               tilec.available_targets()).get(t) is None]
    date = datetime.date.today().isoformat()
    base = {"benchmark": "launch_cost", "date": date, "commit": commit(),
            "time": datetime.datetime.now().strftime("%H:%M:%S")}
    for t in targets:
        recs = measure_cpu(base, args.calls, args.rounds, args.profile) if t == "cpu" \
            else measure_cuda(base, args.calls // 4, args.rounds)
        if not args.no_write:
            path, _ = append_records("launch_cost", recs[0]["device"], date, recs)
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
