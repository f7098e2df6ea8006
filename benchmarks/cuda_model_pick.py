"""What the model picks for ``lib.matmul``, timed: the default basis's pick (a call with no
tile arguments, what a user gets) against the pick of ``cuda_mma_v5`` with the rule that
split K before v6 priced splits, and torch, on the GPU in one process.

For every shape of ``tune_matmul.py``'s fit and ``heldout5`` sets and three skinny ones,
both picks are resolved here (the model runs on the host; the v5 pick by setting v6's
coefficients back to v5's, ``model_regret.V5_OF_V6``), built, checked against torch in
float32 with the output poisoned with NaN first, and timed with ``do_bench`` in three
interleaved rounds (the order reversed every other round); each arm's figure is its
median. The v5 rule: where the picked grid has at most one program per SM, the largest
power of two ``S <= 16`` with ``programs * S`` within two waves and at least 8 K steps
per split. Records go to ``results/cuda_model_pick-<device>-<date>.json``.

    PYTHONPATH=src python benchmarks/cuda_model_pick.py [--shapes fit,heldout5,skinny]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_common import Recorder, rel_error  # noqa: E402
from tune_matmul import FIT_SHAPES, HELDOUT5_SHAPES, _inputs, interleaved  # noqa: E402

SKINNY = [(128, 128, 8192, "bf16"), (16, 4096, 4096, "bf16"), (64, 2048, 4096, "bf16")]
"""K-heavy and skinny shapes (the split sweep's)."""


def v5_rule(programs: int | None, k_steps: int | None, units: int) -> int:
    """The split the v5 model's pick got by rule (1: none)."""
    if programs is None or k_steps is None or programs > units:
        return 1
    s = 1
    while s < 16 and programs * s <= units and k_steps // (s * 2) >= 8:
        s *= 2
    return s


def resolve(matmul: Any, args: list[Any], old: bool) -> tuple[dict[str, int], dict[str, Any]]:
    """The configuration and plan variant of the model's pick: the default basis's, or
    v5's with its rule split (``old``)."""
    import model_regret

    from tilec.exec import get_profile

    matmul.forget_resolutions()
    if not old:
        sel = matmul.resolve(args, "cuda")
        return dict(sel.values), dict(sel.variant)
    with model_regret.coefficients(**model_regret.V5_OF_V6):
        sel = matmul.resolve(args, "cuda")
    matmul.forget_resolutions()
    best = next(s for s in sel.scores if dict(s.config) == dict(sel.values))
    variant = {"threads": sel.variant["threads"]} if "threads" in sel.variant else {}
    s = v5_rule(best.programs, best.k_steps, get_profile("cuda:sm_90").compute_units)
    if s > 1:
        variant["split_k"] = s
    return dict(sel.values), variant


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", default="fit,heldout5,skinny",
                   help="comma-separated sets: fit, heldout5, skinny")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--only", default=None,
                   help="MxNxK, comma-separated: only these shapes of the sets")
    args = p.parse_args()
    os.environ["TILEC_CACHE_DIR"] = os.environ.get("TILEC_CACHE_DIR") or tempfile.mkdtemp()
    os.environ["TILEC_WARM_START"] = "0"  # every pick priced here, never read back
    import ml_dtypes
    import numpy as np
    import torch

    import tilec as tc
    from tilec.lib.matmul import matmul

    sets = {"fit": FIT_SHAPES, "heldout5": HELDOUT5_SHAPES, "skinny": SKINNY}
    rec = Recorder("cuda_model_pick")
    for name in args.shapes.split(","):
        for m, n, k, dt in sets[name]:
            if args.only and f"{m}x{n}x{k}" not in args.only.split(","):
                continue
            a, b, c = _inputs(m, n, k, dt, 1)
            want = a.float() @ b.float()
            host = ml_dtypes.bfloat16 if dt == "bf16" else np.float32
            spec = [np.empty((m, k), host), np.empty((k, n), host),
                    np.empty((m, n), np.float32)]
            arms, picks, errs = {}, {}, {}
            for arm, old in (("v6", False), ("v5", True)):
                cfg, variant = resolve(matmul, spec, old)
                picks[arm] = (cfg, variant)
                exe = tc.compile(matmul, a, b, c, target="cuda", **cfg,
                                 variant=variant or None)
                c.fill_(float("nan"))
                exe(a, b, c)
                torch.cuda.synchronize()
                errs[arm] = rel_error(c, want)
                arms[arm] = lambda e=exe, x=a, y=b, z=c: e(x, y, z)
            arms["torch"] = lambda x=a, y=b: torch.matmul(x, y)
            med = interleaved(arms, args.rounds)
            for arm in ("v6", "v5"):
                cfg, variant = picks[arm]
                label = "BM={BM} BN={BN} BK={BK}".format(**cfg) + "".join(
                    f" {k}={v}" for k, v in variant.items())
                ok = errs[arm] <= (1e-4 if dt == "bf16" else 1e-5)
                rec.add(f"lib.matmul model pick {arm}", [m, n, k], dt,
                        med[arm] if ok else None, "torch", med["torch"], tuned=False,
                        config=label, rel_error=errs[arm], shape_set=name,
                        other_ms=med["v5" if arm == "v6" else "v6"],
                        note=f"{label} rel {errs[arm]:.1e}")
            print(f"  {m}x{n}x{k} {dt}: v6 {med['v6']:.4f} ({picks['v6']}) v5 "
                  f"{med['v5']:.4f} ({picks['v5']}) torch {med['torch']:.4f}", flush=True)
        rec.write()  # per set: a time limit keeps the sets done
        rec.records = []
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
