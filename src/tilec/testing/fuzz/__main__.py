"""``python -m tilec.testing.fuzz``: a fuzzing campaign from the command line."""

from __future__ import annotations

import argparse
import os
import sys

from .campaign import Campaign, records, run_campaign, write_json
from .generator import DEFAULT_WEIGHTS, FAMILIES
from .paths import ALL_PATHS, CPU_PATHS, gpu_available, is_gpu, path_error


def _weights(spec: str | None) -> dict[str, int]:
    if not spec:
        return dict(DEFAULT_WEIGHTS)
    out = {f: 0 for f in FAMILIES}
    for part in spec.split(","):
        name, _, w = part.partition("=")
        if name not in FAMILIES:
            raise SystemExit(f"unknown feature family {name!r}; known: {', '.join(FAMILIES)}")
        out[name] = int(w) if w else (DEFAULT_WEIGHTS[name] or 1)
    return out


def _paths(spec: str | None) -> list[str]:
    if not spec:
        paths = list(CPU_PATHS)
        if gpu_available() is None:
            paths.append("cuda")
        return paths
    paths = [p.strip() for p in spec.split(",") if p.strip()]
    for p in paths:
        why = path_error(p)
        if why is not None:
            raise SystemExit(why)
    if any(is_gpu(p) for p in paths) and (why := gpu_available()) is not None:
        raise SystemExit(f"the cuda path cannot run here: {why}")
    return paths


def main(argv: list[str] | None = None) -> int:
    """Run a campaign; exit status 1 when any path had a mismatch, internal error or timeout."""
    ap = argparse.ArgumentParser(prog="python -m tilec.testing.fuzz",
                                 description="Differential fuzzing of tilec's paths.")
    ap.add_argument("--n", type=int, default=None, help="programs to run (default 100 "
                    "without --minutes)")
    ap.add_argument("--seed", type=int, default=0, help="campaign seed")
    ap.add_argument("--minutes", type=float, default=None, help="stop after this long")
    ap.add_argument("--paths", default=None, help=f"comma-separated, of {', '.join(ALL_PATHS)}"
                    " (default: every path that can run here)")
    ap.add_argument("--features", default=None, help="families with optional weights, e.g. "
                    f"'matrix=5,loops' (of {', '.join(FAMILIES)}; default all)")
    ap.add_argument("--out", default="fuzz-failures", help="directory for failure files")
    ap.add_argument("--json", default=None, help="write the counts as JSON records here")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per program and path")
    ap.add_argument("--shrink-trials", type=int, default=150, help="shrinker budget per failure")
    ap.add_argument("--max-shrinks", type=int, default=6, help="failure kinds to shrink")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    a = ap.parse_args(argv)
    n = a.n if a.n is not None or a.minutes else 100
    paths = _paths(a.paths)
    weights = _weights(a.features)

    def progress(c: Campaign) -> None:
        if a.quiet:
            return
        fails = len(c.failures)
        per = ", ".join(f"{p} {k.ok}/{k.programs}" for p, k in c.counts.items())
        print(f"[{c.seconds:.0f} s] {c.programs} programs, {fails} failures; ok: {per}",
              flush=True)

    camp = run_campaign(n, a.seed, paths, weights, a.minutes, a.out, a.jobs, a.timeout,
                        a.shrink_trials, max_shrinks=a.max_shrinks, progress=progress)
    print(camp.table())
    for f in camp.failures[:20]:
        print(f"program {f.index} on {f.path}: {f.outcome.kind} {f.outcome.reason}"
              + (f" -> {f.file}" if f.file else ""))
    if a.json:
        write_json(a.json, records(camp, ["python -m tilec.testing.fuzz", *sys.argv[1:]]
                                   if argv is None else ["python -m tilec.testing.fuzz", *argv],
                                   a.minutes))
    return 1 if camp.failed() else 0


if __name__ == "__main__":
    raise SystemExit(main())
