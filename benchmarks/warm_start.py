"""Warm start: how long a new process takes to compile and first call ``lib.matmul`` when
the disk cache already holds its binary.

For each target (``--targets``, default ``cpu`` and, where it runs, ``cuda``), one process
fills a fresh cache; then ``--runs`` new processes each import tilec, compile
``lib.matmul`` for 256^3 f32 (the model's or the record's tiles, as a user's call gets
them) and call it once, synchronized. Reported per target, medians over the runs:

* ``tilec_ms``: the compile and the first call, after ``import tilec`` (``import_ms``);
* the time of each compile stage (``TILEC_LOG=info``: capture, plan, ..., build; ``warm``:
  finding and loading the launch record, when the call took the warm-start path,
  ``docs/design/warm_start.md``);
* ``warm_path_runs``: how many warm processes took that path (the kernel came from its
  launch record), and ``planned_runs``: how many imported the planner at all;
* ``peer_ms``: the peer's first call in a new process after its import, the same
  product (``numpy`` ``A @ B`` on cpu, ``torch.matmul`` on cuda), so ``ratio =
  peer_ms / tilec_ms`` is how far tilec's first call is from a library's that needs no
  compiler.

The children run with Python's bytecode cache on (``PYTHONDONTWRITEBYTECODE`` unset), as an
installed package has it. The bar in the issue this measures is ``tilec_ms < 50``. Records go to
``benchmarks/results/warm_start-<device>-<date>.json``:
``PYTHONPATH=src python benchmarks/warm_start.py``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cpu import append_records, commit, machine  # noqa: E402

N = 256

_CHILD = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import tilec
from tilec.lib.matmul import matmul
t1 = time.perf_counter()
target = sys.argv[1]
if target == "cuda":
    import torch
    a = torch.ones((N, N), dtype=torch.float32, device="cuda")
    c = torch.zeros((N, N), dtype=torch.float32, device="cuda")
    sync = torch.cuda.synchronize
    sync()
else:
    a = np.ones((N, N), np.float32)
    c = np.zeros((N, N), np.float32)
    sync = lambda: None
t2 = time.perf_counter()
k = tilec.compile(matmul, a, a, c, target=target)
k(a, a, c)
sync()
t3 = time.perf_counter()
assert float(c[0, 0]) == N, float(c[0, 0])
print(json.dumps({"import_ms": 1e3 * (t1 - t0), "tilec_ms": 1e3 * (t3 - t2),
                  "config": str(k.selection), "warm": k.warm,
                  "planned": "tilec.plan" in sys.modules}))
""".replace("N, N", f"{N}, {N}").replace("== N", f"== {N}")

_PEER = """
import json, sys, time
target = sys.argv[1]
t0 = time.perf_counter()
if target == "cuda":
    import torch
    a = torch.ones((N, N), dtype=torch.float32, device="cuda")
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    c = a @ a
    torch.cuda.synchronize()
else:
    import numpy as np
    a = np.ones((N, N), np.float32)
    t1 = time.perf_counter()
    c = a @ a
t2 = time.perf_counter()
print(json.dumps({"peer_ms": 1e3 * (t2 - t1), "peer_import_ms": 1e3 * (t1 - t0)}))
""".replace("N, N", f"{N}, {N}")

_STAGE = re.compile(r"tilec INFO @matmul (\w+)(?: for \S+)?: ([0-9.]+) ms")


def _run(code: str, target: str, env: dict[str, str]) -> tuple[dict[str, Any], str]:
    out = subprocess.run([sys.executable, "-c", code, target], env=env, capture_output=True,
                         text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f"warm_start: the {target} child failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stderr


def measure(target: str, runs: int) -> dict[str, Any]:
    """One target's record: a cold run to fill a fresh cache, then ``runs`` warm ones."""
    cache = tempfile.mkdtemp(prefix="tilec-warm-")
    env = {**os.environ, "TILEC_CACHE_DIR": cache, "TILEC_LOG": "info"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install has its bytecode cached
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    cold, _ = _run(_CHILD, target, env)
    warm, stages = [], {}
    for _ in range(runs):
        got, err = _run(_CHILD, target, env)
        warm.append(got)
        for name, ms in _STAGE.findall(err):
            stages.setdefault(name, []).append(float(ms))
    peers = [_run(_PEER, target, env)[0] for _ in range(runs)]
    med = statistics.median
    rec = {
        "kernel": "lib.matmul warm start", "shape": [N, N, N], "dtype": "f32",
        "target": target, "tilec_ms": round(med(w["tilec_ms"] for w in warm), 1),
        "peer": "numpy A @ B first call" if target == "cpu" else "torch.matmul first call",
        "peer_ms": round(med(p["peer_ms"] for p in peers), 2),
        "import_ms": round(med(w["import_ms"] for w in warm), 1),
        "cold_ms": round(cold["tilec_ms"], 1), "runs": runs, "config": warm[-1]["config"],
        "stages_ms": {k: round(med(v), 2) for k, v in stages.items()},
        "all_tilec_ms": [round(w["tilec_ms"], 1) for w in warm],
        "warm_path_runs": sum(bool(w.get("warm")) for w in warm),
        "planned_runs": sum(bool(w.get("planned")) for w in warm),
    }
    rec["ratio"] = round(rec["peer_ms"] / rec["tilec_ms"], 4)
    print(f"{target:5s} warm first compile+call {rec['tilec_ms']:7.1f} ms (import "
          f"{rec['import_ms']:.0f} ms, cold {rec['cold_ms']:.0f} ms; stages "
          f"{rec['stages_ms']}); {rec['peer']} {rec['peer_ms']:.2f} ms", flush=True)
    return rec


def main(argv: list[str] | None = None) -> int:
    """Measure every target asked for and write the records."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", default=None, help="comma-separated (default cpu, and cuda "
                    "where it runs)")
    ap.add_argument("--runs", type=int, default=5, help="warm processes per target")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    import tilec

    targets = args.targets.split(",") if args.targets else \
        ["cpu"] + [t for t in ("cuda",) if dict((i.name, r) for i, r in
                                               tilec.available_targets()).get(t) is None]
    info = machine()
    device = info["cpu"]
    date = datetime.date.today().isoformat()
    base = {"benchmark": "warm_start", "date": date, "commit": commit(),
            "time": datetime.datetime.now().strftime("%H:%M:%S")}
    records = []
    for t in targets:
        rec = measure(t, args.runs)
        if t != "cpu":
            from cuda_common import device_name

            device = device_name()
        records.append({**base, **rec, "device": device, "machine": info})
    if not args.no_write:
        path, _ = append_records("warm_start", records[-1]["device"], date, records)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
