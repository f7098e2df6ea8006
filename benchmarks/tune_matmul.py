"""Measured selection of ``lib.matmul`` on the GPU: the bars of ``docs/guide/tuning.md``.

1. bf16 4096^3: every configuration of the tunable space at the planner's own plan is
   built, validated on the GPU against the reference and timed (the *fixed tiles*); the
   model's pick (a call with no tile arguments and no record), the tuned kernel (a call
   with no tile arguments after ``tc.tune``), the three fastest fixed tiles and torch are
   then timed with ``do_bench`` in ``--rounds`` interleaved rounds (the order reversed
   every other round), and each arm's time is its median over the rounds.
2. Regret of the model pick on GEMM shapes (``--shapes heldout5``, the default: shapes
   no fit of the cost basis has seen; ``heldout4`` and ``heldout3``: those measured at
   0acda3a and 2175251, used by ``cuda_mma_v5``'s final fit; ``heldout2``: those
   measured at e200bc0, held out from ``cuda_mma_v4``'s fit and used by v5's;
   ``heldout``: those held out from ``cuda_mma_v3``'s fit, measured at 27f09b5; ``fit``:
   the shapes it was fitted to; ``--skip-bars`` runs only this part, ``--part I/N`` every
   N-th shape from the I-th). For each shape every
   configuration is timed (5 batches of 10 ms each: the search), then the model's pick
   and the two fastest other configurations of the search are replayed: one batch each
   per round, in all six orders, twice (``replay_orders``), so that drift falls on every
   arm alike. The regret is ``replay(model pick) / min(replay) - 1``: a frozen replay of
   the pick, not the search minimum, which the noise of 30 timings biases low (the
   search figure, ``time(model pick) / time(best) - 1`` over the search times, is kept
   as ``search_regret``). Times are device milliseconds per call of calls enqueued back
   to back, so a kernel shorter than the launch path (about 14 us per call) is timed as
   the launch path. Every timed candidate is kept with its score terms (``samples``), so
   ``tilec tune --refit results/tune_matmul-*.json`` refits the basis on them and
   reports the leave-one-out regret.

Records go to ``results/tune_matmul-<device>-<date>.json``. Run from the repository root:
``PYTHONPATH=src python benchmarks/tune_matmul.py`` (``--limit-s`` bounds the wall time;
shapes not reached are reported as skipped).
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import Recorder, bench_ms  # noqa: E402

FIT_SHAPES = [  # (M, N, K, dtype): square, ragged, skinny, K-heavy, bf16 and f32
    (2048, 2048, 2048, "bf16"), (1000, 1000, 1000, "bf16"), (8192, 8192, 1024, "bf16"),
    (4096, 4096, 1024, "bf16"), (16, 4096, 4096, "bf16"), (128, 128, 8192, "bf16"),
    (777, 1555, 333, "bf16"), (3000, 500, 2000, "bf16"), (512, 512, 512, "bf16"),
    (1024, 1024, 1024, "f32"), (2048, 2048, 2048, "f32"), (333, 517, 250, "f32"),
    (64, 2048, 2048, "f32"), (1500, 1500, 4000, "f32"),
]
"""The shapes ``cuda_mma_v3`` was fitted to (their sweep at commit b3206a5)."""

HELDOUT_SHAPES = [  # none of them in FIT_SHAPES or the 4096^3 sweep
    (3072, 3072, 3072, "bf16"), (1536, 1536, 1536, "bf16"), (6144, 4096, 2048, "bf16"),
    (2000, 3000, 1000, "bf16"), (256, 8192, 1024, "bf16"), (8192, 256, 2048, "bf16"),
    (768, 768, 6144, "bf16"), (1111, 999, 777, "bf16"), (700, 700, 700, "bf16"),
    (1536, 1536, 1536, "f32"), (4096, 1024, 512, "f32"), (800, 1200, 600, "f32"),
    (32, 4096, 1024, "f32"), (512, 512, 8192, "f32"), (2500, 2500, 2500, "f32"),
]
"""The shapes the regret was reported on at 27f09b5, held out from cuda_mma_v3's fit
(seen since: a later fit may use them)."""

HELDOUT2_SHAPES = [  # none of them in FIT_SHAPES, HELDOUT_SHAPES or the 4096^3 sweep
    (5120, 5120, 2048, "bf16"), (2304, 2304, 2304, "bf16"), (1000, 4000, 2000, "bf16"),
    (384, 384, 12288, "bf16"), (128, 16384, 1024, "bf16"), (16384, 128, 1024, "bf16"),
    (1300, 1700, 900, "bf16"), (900, 900, 900, "bf16"), (4000, 4000, 500, "bf16"),
    (1280, 1280, 1280, "f32"), (3000, 1000, 700, "f32"), (64, 8192, 2048, "f32"),
    (640, 480, 4096, "f32"), (1100, 1300, 1500, "f32"),
]
"""The shapes the regret was reported on at e200bc0, held out from cuda_mma_v4's fit
(seen since: the fit of the model extents and of cuda_mma_v5 used them)."""

HELDOUT3_SHAPES = [  # none of them in any set above or the 4096^3 sweep
    (2560, 2560, 2560, "bf16"), (1792, 1792, 1792, "bf16"), (3500, 2500, 1500, "bf16"),
    (512, 8192, 2048, "bf16"), (8192, 512, 1024, "bf16"), (640, 640, 8192, "bf16"),
    (1400, 1000, 600, "bf16"), (96, 6144, 3072, "bf16"), (6000, 3000, 800, "bf16"),
    (1792, 1792, 1792, "f32"), (2000, 700, 1300, "f32"), (128, 8192, 1024, "f32"),
    (1000, 1000, 6000, "f32"), (3300, 2200, 1100, "f32"),
    # rows that are not 16-byte aligned (cuda_mma_v5 prices their staging): bf16 pitches
    # 4 mod 16, f32 pitches 4 mod 16
    (1234, 1366, 1010, "bf16"), (999, 1501, 777, "f32"),
]
"""The shapes the regret was reported on at 2175251 (seen since: v5's ``warp_step`` was
fitted with them)."""

HELDOUT4_SHAPES = [  # none of them in any set above or the 4096^3 sweep
    (1664, 1664, 1664, "bf16"), (3000, 2000, 2500, "bf16"), (192, 6144, 2048, "bf16"),
    (6144, 192, 2048, "bf16"), (1024, 1024, 8192, "bf16"), (2200, 1800, 700, "bf16"),
    (4608, 4608, 1024, "bf16"), (1222, 1888, 1444, "bf16"),
    (2304, 2304, 2304, "f32"), (1200, 3400, 900, "f32"), (256, 4096, 4096, "f32"),
    (4096, 256, 1536, "f32"), (700, 900, 5000, "f32"), (1750, 1250, 1003, "f32"),
]
"""The shapes the regret was reported on at 0acda3a and 693467d (seen since: v5's final fit
used them)."""

HELDOUT5_SHAPES = [  # none of them in any set above or the 4096^3 sweep
    (2816, 2816, 2816, "bf16"), (1408, 1408, 1408, "bf16"), (320, 8192, 1536, "bf16"),
    (8192, 320, 1536, "bf16"), (768, 3072, 4096, "bf16"), (1800, 2400, 1200, "bf16"),
    (5000, 3000, 1000, "bf16"), (1111, 2222, 888, "bf16"),
    (1600, 1600, 1600, "f32"), (2800, 1400, 900, "f32"), (192, 4096, 2048, "f32"),
    (3000, 3000, 600, "f32"), (800, 800, 6400, "f32"), (1333, 999, 1111, "f32"),
]
"""Shapes no fit has seen: the held-out set of ``cuda_mma_v5`` (the last of each dtype has
rows that are not 16-byte aligned)."""


def _inputs(m: int, n: int, k: int, dtype: str, seed: int):
    import torch

    tdt = torch.bfloat16 if dtype == "bf16" else torch.float32
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(m, k, device="cuda", dtype=tdt, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=tdt, generator=g)
    return a, b, torch.empty(m, n, device="cuda", dtype=torch.float32)


def interleaved(arms: dict[str, Callable[[], Any]], rounds: int) -> dict[str, float]:
    """Each arm's median ``bench_ms`` over ``rounds`` rounds, alternating the order."""
    times: dict[str, list[float]] = {k: [] for k in arms}
    for r in range(rounds):
        for k in (list(arms) if r % 2 == 0 else list(reversed(arms))):
            times[k].append(bench_ms(arms[k]))
    return {k: statistics.median(v) for k, v in times.items()}


def replay_regret(kernel: Any, args: tuple[Any, ...], model: Any, candidates: Any,
                  passes: int = 2) -> dict[str, Any]:
    """Replay the model's pick against the two fastest other candidates of the search:
    one batch of each per round, every order of the three ``passes`` times. Returns the
    arms' median device ms per call and the pick's regret against the fastest arm."""
    from tilec.tuning.measure import Timer, replay, replay_orders

    timed = sorted((cd for cd in candidates if cd.search_ms and cd.label != model.label),
                   key=lambda cd: cd.search_ms)
    arms = [model, *timed[:2]]
    timer = Timer("cuda", batch_ms=10.0, uses_torch=True)
    runs = []
    for cd in arms:
        exe = kernel.compile(*args, variant=cd.variant, **cd.config).executable()
        run = functools.partial(exe, *args)
        runs.append((run, timer.calls_per_batch(run)))
    times = replay(timer, runs, passes)
    med = {cd.label: statistics.median(t) for cd, t in zip(arms, times, strict=True)}
    return {"medians": med, "rounds": len(replay_orders(len(arms))) * passes,
            "regret": med[model.label] / min(med.values()) - 1}


def bars(matmul: Any, rec: Recorder, rounds: int, say: Callable[[str], None]) -> None:
    """The bf16 4096^3 bars: the best fixed tile, the model pick and the tuned call, timed
    interleaved with torch."""
    import torch

    import tilec as tc

    # ---------------------------------------------------------------- bf16 4096^3
    n = 4096
    a, b, c = _inputs(n, n, n, "bf16", 0)
    want = (a.float() @ b.float())
    pick = matmul.compile(a, b, c)
    say(f"model pick: {pick.selection}")
    matmul(a, b, c)
    torch.cuda.synchronize()
    err = float((c - want).abs().max() / want.abs().max())
    sweep = tc.tune(matmul, a, b, c, budget="all", threads_per_config=1, store=False,
                    batches=3, replay_rounds=1, batch_ms=10.0, progress=say)
    fixed, exes = {}, {}
    for cand in sweep.candidates:
        if not cand.ok:
            continue
        exe = matmul.compile(a, b, c, variant=cand.variant, **cand.config).executable()
        exes[cand.label] = exe
        fixed[cand.label] = bench_ms(lambda exe=exe: exe(a, b, c))
    failed = [cd.label for cd in sweep.candidates if not cd.ok]
    say(f"fixed tiles: {len(fixed)} timed, {len(failed)} not valid: {failed}")
    tuned = tc.tune(matmul, a, b, c, progress=say)
    matmul.forget_resolutions()
    sel = matmul.compile(a, b, c).selection
    assert sel.source == "record", sel
    c.zero_()
    matmul(a, b, c)
    torch.cuda.synchronize()
    err_tuned = float((c - want).abs().max() / want.abs().max())
    # the bar arms, interleaved: the model pick is the same call without a record, so it
    # is a fixed executable of the configuration and plan the model chose
    top = sorted(fixed, key=fixed.get)[:3]
    model_exe = matmul.compile(a, b, c, **dict(pick.selection.values)).executable()
    arms: dict[str, Callable[[], Any]] = {f"fixed {k}": (lambda e=exes[k]: e(a, b, c))
                                          for k in top}
    arms["model pick"] = lambda: model_exe(a, b, c)
    arms["tuned call"] = lambda: matmul(a, b, c)
    arms["torch"] = lambda: torch.matmul(a, b)
    med = interleaved(arms, rounds)
    say("interleaved medians: " + ", ".join(f"{k} {v:.4f}" for k, v in med.items()))
    best_label = min(top, key=lambda k: med[f"fixed {k}"])
    best_ms, model_ms, tuned_ms = med[f"fixed {best_label}"], med["model pick"], med["tuned call"]
    torch_ms = med["torch"]
    shape = [n, n, n]
    common = {"fixed_tiles_timed": len(fixed), "fixed_tiles_invalid": failed,
              "best_fixed": best_label, "best_fixed_ms": best_ms,
              "interleaved_medians": med, "rounds": rounds,
              "sweep_ms": fixed}
    rec.add("lib.matmul best fixed tile", shape, "bf16", best_ms, "torch", torch_ms,
            tuned=False, regret=0.0, config=best_label,
            samples=[cd.to_json() for cd in sweep.candidates if cd.search_ms], **common)
    rec.add("lib.matmul model pick", shape, "bf16", model_ms, "torch", torch_ms, tuned=False,
            regret=model_ms / best_ms - 1, config=str(pick.selection), rel_error=err,
            vs_best_fixed=best_ms / model_ms, **common)
    rec.add("lib.matmul tuned", shape, "bf16", tuned_ms, "torch", torch_ms, tuned=True,
            regret=tuned_ms / best_ms - 1, config=str(sel), rel_error=err_tuned,
            vs_best_fixed=best_ms / tuned_ms, tune_seconds=tuned.seconds,
            tune_table=tuned.table(), **common)



def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--limit-s", type=float, default=400.0, help="stop starting new shapes after")
    p.add_argument("--skip-regret", action="store_true")
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds of the bar arms")
    p.add_argument("--shapes", choices=("heldout", "heldout2", "heldout3", "heldout4",
                                        "heldout5", "fit", "all"),
                   default="heldout5", help="the regret shapes")
    p.add_argument("--skip-bars", action="store_true",
                   help="only the regret shapes (no bf16 4096^3 bars)")
    p.add_argument("--part", default="0/1", metavar="I/N",
                   help="only every N-th regret shape from the I-th (split a set over runs)")
    p.add_argument("--threads-per-config", type=int, default=1, metavar="T",
                   help="time each configuration at its T best-priced thread counts (a "
                        "refit then sees the plans the model did not pick)")
    args = p.parse_args()
    part, parts = (int(x) for x in args.part.split("/"))
    if not 0 <= part < parts:
        p.error(f"--part {args.part}: want I/N with 0 <= I < N")
    os.environ["TILEC_CACHE_DIR"] = os.environ.get("TILEC_CACHE_DIR") or tempfile.mkdtemp()
    import torch

    import tilec as tc
    from tilec.lib.matmul import matmul

    start = time.perf_counter()
    rec = Recorder("tune_matmul")

    def say(text: str) -> None:
        print(f"  [{time.perf_counter() - start:6.1f}s] {text}", flush=True)

    if not args.skip_bars:
        bars(matmul, rec, args.rounds, say)
        rec.write()  # the bars first: a later time limit keeps them
        rec.records = []

    # ---------------------------------------------------------------- regret
    regrets = []
    validated = set() if args.skip_bars else {"bf16"}  # the bars' tune validated bf16
    sets = {"fit": FIT_SHAPES, "heldout": HELDOUT_SHAPES, "heldout2": HELDOUT2_SHAPES,
            "heldout3": HELDOUT3_SHAPES, "heldout4": HELDOUT4_SHAPES,
            "heldout5": HELDOUT5_SHAPES}
    shapes = [(shape, name) for name, group in sets.items() for shape in group
              if args.shapes in (name, "all")][part::parts]
    for (m, nn, k, dt), shape_set in ([] if args.skip_regret else shapes):
        if time.perf_counter() - start > args.limit_s:
            say(f"time limit: {m}x{nn}x{k} {dt} skipped")
            continue
        a, b, c = _inputs(m, nn, k, dt, 1)
        matmul.forget_resolutions()
        pick = matmul.compile(a, b, c).selection
        r = tc.tune(matmul, a, b, c, budget="all", threads_per_config=args.threads_per_config,
                    store=False,
                    batches=5, replay_rounds=1, batch_ms=10.0, progress=lambda s: None,
                    validate=dt not in validated)
        validated.add(dt)
        timed = {cd.label: cd.search_ms for cd in r.candidates if cd.search_ms}
        best = min(timed, key=timed.get)
        model = next((cd for cd in r.candidates if cd.config == dict(pick.values)), None)
        model_ms = model.search_ms if model is not None else None
        search_regret = model_ms / timed[best] - 1 if model_ms else None
        replayed = replay_regret(matmul, (a, b, c), model, r.candidates) if model_ms else {}
        regret = replayed["regret"] if replayed else None
        regrets.append(regret)
        say(f"{m}x{nn}x{k} {dt}: pick {pick} ({model.label if model else 'not timed'}), "
            + (f"replayed regret {regret:.1%}, search {search_regret:.1%}"
               if regret is not None else "no regret"))
        torch_ms = bench_ms(lambda a=a, b=b: torch.matmul(a, b))
        pick_ms = replayed["medians"][model.label] if replayed else model_ms
        rec.add("lib.matmul model pick (regret)", [m, nn, k], dt, pick_ms, "torch", torch_ms,
                tuned=False, regret=regret, search_regret=search_regret, search_ms=model_ms,
                replay=replayed.get("medians"), replay_rounds=replayed.get("rounds"),
                config=str(pick), pick_variant=dict(pick.variant),
                model_variant=dict(model.variant) if model else None, best=best,
                best_ms=timed[best], configs_timed=len(timed),
                samples=[cd.to_json() for cd in r.candidates if cd.search_ms],
                invalid=[cd.label for cd in r.candidates if not cd.ok],
                shape_set=shape_set)
    done = [x for x in regrets if x is not None]
    if done:
        say(f"replayed regret over {len(done)} shapes: mean {statistics.mean(done):.1%}, "
            f"max {max(done):.1%}")
    if rec.records:
        rec.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
