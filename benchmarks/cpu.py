"""The compiled CPU backend against numpy on the same machine, in the same run.

Cases (the library kernels, compiled for target ``cpu``):

* ``matmul`` 1024^3 f32 (``tilec.lib.matmul``) vs ``A @ B`` (numpy's BLAS);
* ``softmax`` 8192x1024 f32 (``tilec.lib.softmax``, one tile per row block) vs
  numpy's multi-pass equivalent ``e = exp(x - max); e / sum(e)``;
* ``layernorm`` 8192x1024 f32 (``tilec.lib.layernorm``) vs numpy's multi-pass
  ``(x - mean) / sqrt(var + eps) * w + b``.

Each case first checks tilec's result against numpy, then times both in
interleaved, counterbalanced rounds of blocks (tilec, numpy, numpy, tilec, ...;
a block is a pause that lets the other side's worker threads go idle, one
untimed call and three timed ones, through ``tilec.testing.do_bench``: ``measure``) after
warm-up and reports medians (``perf_counter_ns``, milliseconds per call).
``ratio = peer_ms / tilec_ms``: above 1 means tilec is faster. Every record
carries the machine, the time and the load average around the measurement
(this machine may be shared; every run of a day is kept in the day's file),
the BLAS numpy uses, the OpenMP and OpenBLAS environment
(``OPENBLAS_CORETYPE`` / ``OPENBLAS_L2_SIZE`` can slow numpy; run with them
unset to give numpy its best chance) and the C compiler flags. Records go to
``benchmarks/results/cpu-<device>-<date>.json``::

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/cpu.py
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tilec.testing import do_bench
from tilec.testing.host import cpu_name

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results"

MATMUL_TILES = {"BM": 120, "BN": 128, "BK": 128}
"""CPU tile sizes: BM a multiple of the 6-row micro-kernel, a 128-column B panel set, and
BK = 128 so that the A, B, packed-B and accumulator tiles (~250 KB) stay in a 512 KB L2."""
ROW_TILES = {"BM": 4, "BN": 1024}
"""Softmax/layernorm: four whole rows per program (one tile spans a row)."""


def append_records(benchmark: str, device: str, date: str,
                   records: list[dict[str, Any]]) -> tuple[Path, int]:
    """Add ``records`` to ``results/<benchmark>-<device>-<date>.json`` (every run of a day
    is kept; ``device`` is made file-name safe); returns the path and the earlier count."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9]+", "-", device).strip("-")
    path = RESULTS / f"{benchmark}-{name}-{date}.json"
    earlier = json.loads(path.read_text()) if path.exists() else []
    path.write_text(json.dumps(earlier + records, indent=1) + "\n")
    return path, len(earlier)


def commit() -> str:
    """The repository's short commit, ``-dirty`` when the tree has changes; ``TILEC_COMMIT``
    when set (a copy of the tree whose git metadata is absent or stale)."""
    if os.environ.get("TILEC_COMMIT"):
        return os.environ["TILEC_COMMIT"]
    try:
        sha = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                             capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=ROOT, capture_output=True, text=True, timeout=10).stdout
        return (sha or "unknown") + ("-dirty" if dirty.strip() else "")
    except OSError:
        return "unknown"


def blas_info() -> dict[str, Any]:
    """The BLAS numpy uses: threadpoolctl when installed, else ``np.show_config``."""
    try:
        from threadpoolctl import threadpool_info

        return {"source": "threadpoolctl", "pools": threadpool_info()}
    except ImportError:
        pass
    try:
        cfg = np.show_config(mode="dicts")
        blas = cfg.get("Build Dependencies", {}).get("blas", {})
        return {"source": "np.show_config", "name": blas.get("name"),
                "version": blas.get("version"),
                "openblas_configuration": blas.get("openblas configuration")}
    except Exception as e:  # numpy < 1.26 has no mode="dicts"
        return {"source": "unavailable", "error": str(e)}


def machine() -> dict[str, Any]:
    """Everything about this machine and run that a reader needs to interpret the figures."""
    from tilec.targets.cpu.compiler import toolchain

    tc = toolchain()
    return {
        "cpu": cpu_name(), "cores": os.cpu_count(), "platform": platform.platform(),
        "python": platform.python_version(), "numpy": np.__version__, "blas": blas_info(),
        "env": {k: os.environ.get(k) for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
                                                "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")},
        "cc": tc.identity.splitlines()[0] if tc.identity else tc.cc, "cflags": list(tc.flags),
        "openmp": tc.openmp,
    }


SETTLE_S = 0.25
"""Seconds each timed block waits first. After a call, numpy's OpenBLAS worker threads
busy-wait for a while (and libgomp's, after a tilec call, briefly): a call that starts
within that time shares the cores with spinning threads. Measured on a 2-core Xeon, f32
1024^3: tilec right after numpy 15.5 ms, numpy 10.9; after a 0.05 s pause 12.5 / 10.9;
after 0.2 s 10.6 / 10.8. Both sides wait alike."""


def measure(tilec_fn: Callable[[], Any], peer_fn: Callable[[], Any], rounds: int,
            per_block: int = 3, settle_s: float = SETTLE_S
            ) -> tuple[float, float, list[float], list[float]]:
    """Median ms of each, timed in interleaved ABBA rounds of blocks: per round one block
    of each (tilec, numpy, then numpy, tilec), a block being a pause of ``settle_s``
    (``SETTLE_S``), one untimed call and ``per_block`` timed calls; after two warm-up
    calls each."""
    for _ in range(2):
        tilec_fn()
        peer_fn()
    t_times: list[float] = []
    p_times: list[float] = []

    def block(fn: Callable[[], Any], out: list[float]) -> None:
        """Settle, warm ``fn`` up once, time ``per_block`` calls into ``out``."""
        time.sleep(settle_s)
        # warmup_ms=0 is one untimed call. No flush: the inputs stay cache-warm, as in the
        # records measured before do_bench, so days stay comparable.
        out.extend(do_bench(fn, device="cpu", warmup_ms=0, min_reps=per_block,
                            max_reps=per_block, flush_l2=False).samples)

    for r in range(rounds):
        pair = [(tilec_fn, t_times), (peer_fn, p_times)]
        for fn, out in (pair if r % 2 == 0 else pair[::-1]):
            block(fn, out)
    return statistics.median(t_times), statistics.median(p_times), t_times, p_times


def loadavg() -> list[float] | None:
    """The 1/5/15-minute load averages (None where unavailable)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def np_softmax(x: np.ndarray) -> np.ndarray:
    """Numpy's multi-pass row softmax."""
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def np_layernorm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    """Numpy's multi-pass layer norm (biased variance)."""
    mu = x.mean(axis=1, keepdims=True)
    xc = x - mu
    var = (xc * xc).mean(axis=1, keepdims=True)
    return xc / np.sqrt(var + eps) * w + b


def cases(rounds: int) -> list[dict[str, Any]]:
    """Run the three comparisons; one record each (without the shared machine fields)."""
    from tilec import lib

    rng = np.random.default_rng(0)
    out = []

    a = rng.standard_normal((1024, 1024)).astype(np.float32)
    b = rng.standard_normal((1024, 1024)).astype(np.float32)
    c = np.zeros((1024, 1024), np.float32)
    k = lib.matmul.compile(a, b, c, target="cpu", **MATMUL_TILES)
    k(a, b, c)
    want = a.astype(np.float64) @ b
    err = float(np.abs(c - want).max() / np.abs(want).max())
    assert err < 1e-5, f"matmul is wrong: relative error {err}"
    out.append(_record("matmul", [1024, 1024, 1024], "numpy.matmul (BLAS)", err,
                       MATMUL_TILES, lambda: k(a, b, c), lambda: a @ b, rounds,
                       flops=2 * 1024**3))

    x = rng.standard_normal((8192, 1024)).astype(np.float32)
    y = np.zeros_like(x)
    k = lib.softmax.compile(x, y, target="cpu", **ROW_TILES)
    k(x, y)
    err = float(np.abs(y - np_softmax(x.astype(np.float64))).max())
    assert err < 1e-6, f"softmax is wrong: max error {err}"
    out.append(_record("softmax", [8192, 1024], "numpy multi-pass", err, ROW_TILES,
                       lambda: k(x, y), lambda: np_softmax(x), rounds))

    w = rng.standard_normal(1024).astype(np.float32)
    bias = rng.standard_normal(1024).astype(np.float32)
    k = lib.layernorm.compile(x, w, bias, y, 1e-5, target="cpu", **ROW_TILES)
    k(x, w, bias, y, 1e-5)
    want = np_layernorm(x.astype(np.float64), w, bias, 1e-5)
    err = float(np.abs(y - want).max() / np.abs(want).max())
    assert err < 1e-5, f"layernorm is wrong: relative error {err}"
    out.append(_record("layernorm", [8192, 1024], "numpy multi-pass", err, ROW_TILES,
                       lambda: k(x, w, bias, y, 1e-5), lambda: np_layernorm(x, w, bias, 1e-5),
                       rounds))
    return out


def _record(kernel: str, shape: list[int], peer: str, err: float, tiles: dict[str, int],
            tilec_fn: Callable[[], Any], peer_fn: Callable[[], Any], rounds: int,
            flops: int | None = None) -> dict[str, Any]:
    before = loadavg()
    t_ms, p_ms, t_all, p_all = measure(tilec_fn, peer_fn, rounds)
    rec: dict[str, Any] = {
        "kernel": kernel, "shape": shape, "dtype": "f32", "tilec_ms": round(t_ms, 3),
        "peer": peer, "peer_ms": round(p_ms, 3), "ratio": round(p_ms / t_ms, 3),
        "tilec_min_ms": round(min(t_all), 3), "peer_min_ms": round(min(p_all), 3),
        "rounds": rounds, "calls_per_block": 3, "settle_s": SETTLE_S, "tiles": tiles,
        "max_error_vs_f64": err,
        "loadavg_before": before, "loadavg_after": loadavg(),
    }
    if flops:
        rec["tilec_gflops"] = round(flops / t_ms / 1e6, 1)
        rec["peer_gflops"] = round(flops / p_ms / 1e6, 1)
    print(f"{kernel:10s} {'x'.join(map(str, shape)):16s} tilec {t_ms:8.2f} ms  "
          f"{peer:22s} {p_ms:8.2f} ms  ratio {p_ms / t_ms:5.2f}  (load {before})", flush=True)
    return rec


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON records."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=21, help="timed calls of each side")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    info = machine()
    date = datetime.date.today().isoformat()
    base = {"benchmark": "cpu", "target": "cpu", "device": info["cpu"], "date": date,
            "time": datetime.datetime.now().strftime("%H:%M:%S"), "commit": commit()}
    records = [{**base, **rec, "machine": info} for rec in cases(args.rounds)]
    if not args.no_write:
        path, earlier = append_records("cpu", info["cpu"], date, records)
        print(f"wrote {path} ({earlier} earlier records kept)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
