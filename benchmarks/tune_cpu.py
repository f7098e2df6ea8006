"""Measured selection of ``lib.matmul`` on the CPU against numpy's BLAS, in the same run.

``lib.matmul`` f32 1024^3 on target ``cpu``: the declared defaults (the cpu target has
no cost basis, so a call without a record takes them), the fastest candidate of the search
(every configuration of the tunable space, then register micro-tiles of the best three),
fixed explicitly, and a call with no tile arguments after tuning, each timed against
``A @ B`` in interleaved ABBA rounds of blocks, each after a pause that lets the other
side's worker threads go idle (``cpu.measure``). Records go to
``benchmarks/results/tune_cpu-<device>-<date>.json``::

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/tune_cpu.py
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cpu import SETTLE_S, append_records, commit, machine, measure  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--rounds", type=int, default=10)
    args = p.parse_args()
    os.environ["TILEC_CACHE_DIR"] = os.environ.get("TILEC_CACHE_DIR") or tempfile.mkdtemp()
    import tilec as tc
    from tilec.lib.matmul import matmul
    from tilec.testing.host import cpu_name

    n = args.n
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    c = np.zeros((n, n), np.float32)
    want = a.astype(np.float64) @ b
    info = machine()
    now = datetime.datetime.now(datetime.timezone.utc)
    records = []

    def record(kernel: str, tilec_ms: float, peer_ms: float, **extra: object) -> None:
        rec = {"benchmark": "tune_cpu", "kernel": kernel, "shape": [n, n, n], "dtype": "f32",
               "target": "cpu", "device": cpu_name(), "date": now.date().isoformat(),
               "time": now.strftime("%H:%M:%SZ"), "commit": commit(), "tilec_ms": tilec_ms,
               "peer": "numpy", "peer_ms": peer_ms, "ratio": peer_ms / tilec_ms,
               "loadavg": os.getloadavg(), "machine": info,
               "timing": {"rounds": args.rounds, "calls_per_block": 3, "settle_s": SETTLE_S},
               **extra}
        records.append(rec)
        print(f"{kernel:34s} tilec {tilec_ms:8.2f} ms  numpy {peer_ms:8.2f} ms  "
              f"ratio {peer_ms / tilec_ms:5.2f}  {extra.get('config', '')}", flush=True)

    def check() -> float:
        return float(np.abs(c - want).max() / np.abs(want).max())

    default = matmul.compile(a, b, c, target="cpu")
    t_ms, p_ms, _, _ = measure(lambda: default(a, b, c), lambda: a @ b, args.rounds)
    record("lib.matmul default", t_ms, p_ms, tuned=False, config=str(default.selection),
           rel_error=check())

    t0 = time.perf_counter()
    result = tc.tune(matmul, a, b, c, target="cpu", budget="all", batches=5, replay_rounds=2,
                     batch_ms=200.0)
    tune_s = time.perf_counter() - t0
    print(result.table(), flush=True)
    best = min((x for x in result.candidates if x.search_ms), key=lambda x: x.search_ms)
    fixed = matmul.compile(a, b, c, target="cpu", variant=best.variant, **best.config)
    f_ms, fp_ms, _, _ = measure(lambda: fixed(a, b, c), lambda: a @ b, args.rounds)
    record("lib.matmul best fixed tile", f_ms, fp_ms, tuned=False, regret=0.0,
           config=best.label, rel_error=check())
    matmul.forget_resolutions()
    c[...] = 0
    matmul(a, b, c)
    err = check()
    sel = matmul.compile(a, b, c, target="cpu")
    assert sel.selection.source == "record", sel.selection
    u_ms, up_ms, _, _ = measure(lambda: matmul(a, b, c), lambda: a @ b, args.rounds)
    record("lib.matmul tuned", u_ms, up_ms, tuned=True, regret=u_ms / f_ms - 1,
           config=str(sel.selection), rel_error=err, tune_seconds=round(tune_s, 1),
           candidates=len(result.candidates),
           invalid=[x.label for x in result.candidates if not x.ok])
    path, _ = append_records("tune_cpu", cpu_name(), now.date().isoformat(), records)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
