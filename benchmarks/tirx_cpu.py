"""The TIRx bridge on the CPU (``tirx:llvm``) beside tilec's own ``cpu`` target and numpy.

Cases: the library kernels ``benchmarks/cpu.py`` runs, at sizes set by ``--scale``
(default ``small``: matmul 256^3, softmax and layernorm 1024x1024, f32), with the same
tile constexprs on both tilec targets (``cpu.py``'s). Each case first checks both targets'
results against numpy (f64), then times the three in interleaved rounds of blocks (the
order rotates each round; a block is a pause, one untimed call and three timed ones, as in
``cpu.py``) and reports medians. ``tilec_ms`` is ``tirx:llvm``'s time; each kernel gives two
records, one per peer (``tilec cpu``, numpy), ``ratio = peer_ms / tilec_ms`` (above 1:
``tirx:llvm`` is faster). Records go to ``benchmarks/results/tirx_cpu-<date>.json``; the
``device`` field names the CPU, its core count and that the machine may be shared::

    python benchmarks/tirx_cpu.py            # small sizes
    python benchmarks/tirx_cpu.py --scale full   # cpu.py's sizes
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpu import (  # noqa: E402
    MATMUL_TILES,
    RESULTS,
    ROW_TILES,
    SETTLE_S,
    commit,
    loadavg,
    machine,
    np_layernorm,
    np_softmax,
)

from tilec.testing import do_bench  # noqa: E402

SIZES = {"small": {"mm": 256, "rows": 1024, "cols": 1024},
         "full": {"mm": 1024, "rows": 8192, "cols": 1024}}
"""Problem sizes per ``--scale``."""

TARGETS = ("tirx:llvm", "cpu")


def measure3(fns: dict[str, Callable[[], Any]], rounds: int, per_block: int = 3
             ) -> dict[str, list[float]]:
    """Samples (ms) of each function, timed in rounds of one block each, the order rotated
    every round; two warm-up calls each first."""
    for fn in fns.values():
        fn()
        fn()
    out: dict[str, list[float]] = {k: [] for k in fns}
    names = list(fns)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            time.sleep(SETTLE_S)
            out[name].extend(do_bench(fns[name], device="cpu", warmup_ms=0, min_reps=per_block,
                                      max_reps=per_block, flush_l2=False).samples)
    return out


def _check(kernel: str, got: np.ndarray, want: np.ndarray, target: str) -> float:
    err = float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))
    assert err < 1e-5, f"{kernel} on {target} is wrong: relative error {err}"
    return err


def cases(scale: str, rounds: int) -> list[dict[str, Any]]:
    """One pair of records (peer cpu, peer numpy) per kernel."""
    from tilec import lib

    n = SIZES[scale]
    rng = np.random.default_rng(0)
    out: list[dict[str, Any]] = []

    m = n["mm"]
    a = rng.standard_normal((m, m)).astype(np.float32)
    b = rng.standard_normal((m, m)).astype(np.float32)
    want = a.astype(np.float64) @ b
    fns, errs = {}, {}
    for t in TARGETS:
        c = np.zeros((m, m), np.float32)
        k = lib.matmul.compile(a, b, c, target=t, **MATMUL_TILES)
        k(a, b, c)
        errs[t] = _check("matmul", c, want, t)
        fns[t] = (lambda k=k, c=c: k(a, b, c))
    fns["numpy"] = lambda: a @ b
    out += _records("matmul", [m, m, m], MATMUL_TILES, fns, errs, rounds, flops=2 * m ** 3)

    x = rng.standard_normal((n["rows"], n["cols"])).astype(np.float32)
    want = np_softmax(x.astype(np.float64))
    fns, errs = {}, {}
    for t in TARGETS:
        y = np.zeros_like(x)
        k = lib.softmax.compile(x, y, target=t, **ROW_TILES)
        k(x, y)
        errs[t] = _check("softmax", y, want, t)
        fns[t] = (lambda k=k, y=y: k(x, y))
    fns["numpy"] = lambda: np_softmax(x)
    out += _records("softmax", list(x.shape), ROW_TILES, fns, errs, rounds)

    w = rng.standard_normal(n["cols"]).astype(np.float32)
    bias = rng.standard_normal(n["cols"]).astype(np.float32)
    want = np_layernorm(x.astype(np.float64), w, bias, 1e-5)
    fns, errs = {}, {}
    for t in TARGETS:
        y = np.zeros_like(x)
        k = lib.layernorm.compile(x, w, bias, y, 1e-5, target=t, **ROW_TILES)
        k(x, w, bias, y, 1e-5)
        errs[t] = _check("layernorm", y, want, t)
        fns[t] = (lambda k=k, y=y: k(x, w, bias, y, 1e-5))
    fns["numpy"] = lambda: np_layernorm(x, w, bias, 1e-5)
    out += _records("layernorm", list(x.shape), ROW_TILES, fns, errs, rounds)
    return out


def _records(kernel: str, shape: list[int], tiles: dict[str, int],
             fns: dict[str, Callable[[], Any]], errs: dict[str, float], rounds: int,
             flops: int | None = None) -> list[dict[str, Any]]:
    before = loadavg()
    samples = measure3(fns, rounds)
    after = loadavg()
    med = {k: statistics.median(v) for k, v in samples.items()}
    t_ms = med["tirx:llvm"]
    recs = []
    for peer, label in (("cpu", "tilec cpu"), ("numpy", "numpy")):
        rec: dict[str, Any] = {
            "kernel": kernel, "shape": shape, "dtype": "f32", "target": "tirx:llvm",
            "tilec_ms": round(t_ms, 3), "peer": label, "peer_ms": round(med[peer], 3),
            "ratio": round(med[peer] / t_ms, 3), "tilec_min_ms": round(min(samples["tirx:llvm"]),
                                                                        3),
            "peer_min_ms": round(min(samples[peer]), 3), "rounds": rounds, "calls_per_block": 3,
            "settle_s": SETTLE_S, "tiles": tiles,
            "max_error_vs_f64": {"tirx:llvm": errs["tirx:llvm"], "cpu": errs["cpu"]},
            "loadavg_before": before, "loadavg_after": after,
        }
        if flops:
            rec["tilec_gflops"] = round(flops / t_ms / 1e6, 2)
            rec["peer_gflops"] = round(flops / med[peer] / 1e6, 2)
        recs.append(rec)
    print(f"{kernel:10s} {'x'.join(map(str, shape)):14s} tirx:llvm {t_ms:9.2f} ms   "
          f"cpu {med['cpu']:8.2f} ms   numpy {med['numpy']:8.2f} ms   "
          f"cpu/tirx {med['cpu'] / t_ms:5.2f}  numpy/tirx {med['numpy'] / t_ms:5.2f}  "
          f"(load {before})", flush=True)
    return recs


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON records."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", choices=sorted(SIZES), default="small")
    ap.add_argument("--rounds", type=int, default=7, help="timed blocks of each side")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    import tvm

    info = machine()
    info["tvm"] = tvm.__version__
    info["tvm_num_threads"] = os.environ.get("TVM_NUM_THREADS")
    date = datetime.date.today().isoformat()
    device = f"{info['cpu']} ({info['cores']} cores, may be shared with other jobs)"
    base = {"benchmark": "tirx_cpu", "device": device, "date": date,
            "time": datetime.datetime.now().strftime("%H:%M:%S"), "commit": commit(),
            "scale": args.scale}
    records = [{**base, **rec, "machine": info} for rec in cases(args.scale, args.rounds)]
    if not args.no_write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        path = RESULTS / f"tirx_cpu-{date}.json"
        earlier = json.loads(path.read_text()) if path.exists() else []
        path.write_text(json.dumps(earlier + records, indent=1) + "\n")
        print(f"wrote {path} ({len(earlier)} earlier records kept)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
