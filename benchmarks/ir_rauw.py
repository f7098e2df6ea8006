"""Benchmark: ``replace_all_uses_with`` costs O(uses of the old value), not O(module).

Builds one function of 1k, 10k and 100k operations, picks values with a
fixed small number of uses (8), a fixed medium number (512) and many uses
(half the module), and times replacing each value by another and back. The
median time per call should stay flat across module sizes for a fixed use
count and grow with the use count.

Usage::

    python benchmarks/ir_rauw.py                 # writes benchmarks/results/ir_rauw-cpu-<date>.json
    python benchmarks/ir_rauw.py --sizes 1000 --out /tmp/r.json

Each record: ``benchmark, kernel, shape, dtype, target, device, date, commit,
tilec_ms, peer, peer_ms, ratio, uses, module_ops, reps`` (no peer here).
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from tilec.ir import Function, Module, Operation, Value, f32
from tilec.testing.host import cpu_name

ROOT = Path(__file__).resolve().parent.parent


def git_commit() -> str:
    """The short commit hash of the checkout (with ``-dirty`` when files changed)."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=ROOT, capture_output=True, text=True).stdout.strip()
        return head + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def build(module_ops: int, use_counts: list[int]) -> tuple[Module, list[tuple[Value, Value]]]:
    """A function of ``module_ops`` operations; one (value, spare) pair per use count.

    Each tracked value is read by exactly its number of operations, spread
    evenly through the body; the spare starts unused. Every other operation
    reads the function argument, so the module is big while the tracked use
    lists stay exactly the requested size.
    """
    fn = Function("bench", [f32, f32])
    x, y = fn.args
    entry = fn.entry
    pairs = []
    for _ in use_counts:
        hot = entry.append(Operation("arith", [x], [f32], {"fn": "neg"})).result
        spare = entry.append(Operation("arith", [y], [f32], {"fn": "neg"})).result
        pairs.append((hot, spare))
    body = module_ops - len(entry.operations) - 1  # the return is the last op
    readers: list[Value] = [x] * body
    for (hot, _), k in zip(pairs, use_counts):
        stride = body / k
        for j in range(k):
            slot = int(j * stride)
            while readers[slot] is not x:  # two tracked values wanted the same slot
                slot = (slot + 1) % body
            readers[slot] = hot
    for v in readers:
        entry.append(Operation("arith", [v], [f32], {"fn": "abs"}))
    entry.append(Operation("return"))
    m = Module([fn])
    assert sum(1 for _ in m.walk()) == module_ops
    for (hot, _), k in zip(pairs, use_counts):
        assert hot.num_uses == k
    return m, pairs


def time_rauw(hot: Value, spare: Value, reps: int) -> list[float]:
    """Milliseconds per call, replacing ``hot`` by ``spare`` and back ``reps`` times each."""
    out = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        hot.replace_all_uses_with(spare)
        t1 = time.perf_counter_ns()
        spare.replace_all_uses_with(hot)
        t2 = time.perf_counter_ns()
        out += [(t1 - t0) / 1e6, (t2 - t1) / 1e6]
    return out


def time_walk(m: Module) -> float:
    """Milliseconds for one full walk of the module touching every operand (the O(module) foil)."""
    t0 = time.perf_counter_ns()
    n = 0
    for op in m.walk():
        n += len(op.operand_uses)
    return (time.perf_counter_ns() - t0) / 1e6


def run(sizes: list[int]) -> list[dict[str, Any]]:
    """Measure every (module size, use count) pair; one record each."""
    today = datetime.date.today().isoformat()
    device, commit = cpu_name(), git_commit()
    records = []
    for size in sizes:
        counts = [8, 512, size // 2]
        counts = sorted({k for k in counts if 0 < k <= size // 2})
        m, pairs = build(size, counts)
        walk_ms = time_walk(m)
        for (hot, spare), k in zip(pairs, counts):
            reps = max(5, min(500, 200_000 // k))
            samples = time_rauw(hot, spare, reps)
            assert hot.num_uses == k and spare.num_uses == 0
            kernel = "rauw_few_uses" if k <= 8 else "rauw_many_uses"
            records.append({
                "benchmark": "ir_rauw", "kernel": kernel, "shape": [size, k], "dtype": "f32",
                "target": "cpu", "device": device, "date": today, "commit": commit,
                "tilec_ms": round(statistics.median(samples), 6),
                "peer": None, "peer_ms": None, "ratio": None,
                "uses": k, "module_ops": size, "reps": len(samples),
            })
            print(f"{size:>7} ops  {k:>6} uses  rauw {records[-1]['tilec_ms'] * 1e3:10.2f} us"
                  f"  ({records[-1]['tilec_ms'] * 1e6 / k:7.1f} ns/use)"
                  f"   full walk {walk_ms * 1e3:10.1f} us")
    return records


def main() -> None:
    """Parse arguments, run, print and write the JSON records."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    ap.add_argument("--out", type=Path, default=None, help="JSON output path")
    args = ap.parse_args()
    records = run(args.sizes)
    out = args.out or ROOT / "benchmarks" / "results" / \
        f"ir_rauw-cpu-{datetime.date.today().isoformat()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(records, indent=2) + "\n")
    print(f"wrote {len(records)} records to {out}")


if __name__ == "__main__":
    main()
